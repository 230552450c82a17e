-- 7: a token's end, as the library's SQLite migration 013: the UTC time after which it is
-- refused; NULL never ends.
ALTER TABLE users ADD COLUMN token_expires_at TEXT;
