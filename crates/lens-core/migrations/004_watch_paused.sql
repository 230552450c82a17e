-- 4: a watched folder that cannot be read is paused, with the reason shown (NULL: active).
ALTER TABLE watched_folders ADD COLUMN paused TEXT;
