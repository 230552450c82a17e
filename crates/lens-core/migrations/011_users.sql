-- 11: team users (`lens serve --team`): a name, a role, and the SHA-256 of the token (the token
-- itself is printed once, by `lens user add`). A removed user keeps its row, so its name stays
-- on what it asked, graded and rated, and its token gets a clear refusal. The log records who
-- asked and who gave the feedback (NULL on a one-person library).
CREATE TABLE users (
  name TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('reader', 'annotator', 'admin')),
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
  removed_at TEXT
);
ALTER TABLE question_log ADD COLUMN asked_by TEXT;
ALTER TABLE question_log ADD COLUMN feedback_by TEXT;
