-- 2: watched-folder removals look documents up by path.
CREATE INDEX IF NOT EXISTS documents_path ON documents(path);
