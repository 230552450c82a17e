-- 2: the labeler's gold sets, the same tables as the library's SQLite migration 006: named sets;
-- their questions, each keeping the label line's own fields as JSON text; append-only grade,
-- answer and box events with annotator and time (an annotator's current grade of a page is
-- their latest event; two annotators writing at once never overwrite each other).
CREATE TABLE label_sets (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);
CREATE TABLE label_questions (
  id BIGSERIAL PRIMARY KEY,
  set_id BIGINT NOT NULL REFERENCES label_sets(id) ON DELETE CASCADE,
  qid TEXT NOT NULL,
  fields TEXT NOT NULL,
  origin TEXT,
  created_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  UNIQUE (set_id, qid)
);
CREATE TABLE label_grades (
  id BIGSERIAL PRIMARY KEY,
  question BIGINT NOT NULL REFERENCES label_questions(id) ON DELETE CASCADE,
  page TEXT NOT NULL,
  annotator TEXT NOT NULL,
  grade SMALLINT CHECK (grade IS NULL OR grade IN (0, 1, 2)),
  at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);
CREATE INDEX label_grades_by_question ON label_grades(question, page, annotator, id);
CREATE TABLE label_answers (
  id BIGSERIAL PRIMARY KEY,
  question BIGINT NOT NULL REFERENCES label_questions(id) ON DELETE CASCADE,
  annotator TEXT NOT NULL,
  answer TEXT NOT NULL,
  answerable BOOLEAN NOT NULL,
  at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);
CREATE INDEX label_answers_by_question ON label_answers(question, annotator, id);
CREATE TABLE label_boxes (
  id BIGSERIAL PRIMARY KEY,
  question BIGINT NOT NULL REFERENCES label_questions(id) ON DELETE CASCADE,
  page TEXT NOT NULL,
  annotator TEXT NOT NULL,
  l REAL NOT NULL, b REAL NOT NULL, r REAL NOT NULL, t REAL NOT NULL,
  removed BOOLEAN NOT NULL DEFAULT false,
  at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
);
