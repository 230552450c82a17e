-- 13: a token's end (`lens user add --days N`, `lens user token NAME` to hand out a new one):
-- the UTC time after which it is refused; NULL never ends (tokens made before this migration).
ALTER TABLE users ADD COLUMN token_expires_at TEXT;
