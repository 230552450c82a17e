-- 1: the team's records, the same columns as the library's SQLite tables of the same names
-- (lens-core migrations 001, 003, 005, 010, 011): the question log with its feedback, and the
-- users (the SHA-256 of each token, never the token).
CREATE TABLE users (
  name TEXT PRIMARY KEY,
  role TEXT NOT NULL CHECK (role IN ('reader', 'annotator', 'admin')),
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
  removed_at TEXT
);
CREATE TABLE question_log (
  id BIGSERIAL PRIMARY KEY,
  time TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  question TEXT NOT NULL,
  scope TEXT NOT NULL DEFAULT '[]',
  pages TEXT NOT NULL,
  answer TEXT NOT NULL,
  citations TEXT NOT NULL,
  quote TEXT,
  not_found BOOLEAN NOT NULL,
  found_by TEXT,
  retrieve_ms DOUBLE PRECISION NOT NULL,
  answer_ms DOUBLE PRECISION NOT NULL,
  answerer TEXT NOT NULL,
  retriever TEXT NOT NULL,
  feedback INTEGER,
  feedback_note TEXT,
  calculation TEXT,
  model TEXT,
  cancelled BOOLEAN NOT NULL DEFAULT false,
  shown TEXT,
  asked_by TEXT,
  feedback_by TEXT
);
