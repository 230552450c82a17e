-- 6: the names users gave a filing by hand (`lens alias add`, the Library view), beside the
-- metadata's own, so a server rebuilding its folder keeps them.
ALTER TABLE filings ADD COLUMN user_aliases TEXT NOT NULL DEFAULT '[]';
