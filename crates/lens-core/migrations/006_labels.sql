-- 6: the labeler. Named gold sets; their questions, each keeping the label line's own fields as
-- JSON (so an imported line exports unchanged); append-only grade, answer and box events with
-- annotator and time: the current grade of a page is an annotator's latest event, an undo is one
-- more event, and two annotators writing at once never overwrite each other.
CREATE TABLE label_sets (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE TABLE label_questions (
  id INTEGER PRIMARY KEY,
  set_id INTEGER NOT NULL REFERENCES label_sets(id) ON DELETE CASCADE,
  qid TEXT NOT NULL,
  fields TEXT NOT NULL,
  origin TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE (set_id, qid)
);
CREATE TABLE label_grades (
  id INTEGER PRIMARY KEY,
  question INTEGER NOT NULL REFERENCES label_questions(id) ON DELETE CASCADE,
  page TEXT NOT NULL,
  annotator TEXT NOT NULL,
  grade INTEGER CHECK (grade IS NULL OR grade IN (0, 1, 2)),
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX label_grades_by_question ON label_grades(question, page, annotator, id);
CREATE TABLE label_answers (
  id INTEGER PRIMARY KEY,
  question INTEGER NOT NULL REFERENCES label_questions(id) ON DELETE CASCADE,
  annotator TEXT NOT NULL,
  answer TEXT NOT NULL,
  answerable INTEGER NOT NULL,
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX label_answers_by_question ON label_answers(question, annotator, id);
CREATE TABLE label_boxes (
  id INTEGER PRIMARY KEY,
  question INTEGER NOT NULL REFERENCES label_questions(id) ON DELETE CASCADE,
  page TEXT NOT NULL,
  annotator TEXT NOT NULL,
  l REAL NOT NULL, b REAL NOT NULL, r REAL NOT NULL, t REAL NOT NULL,
  removed INTEGER NOT NULL DEFAULT 0,
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
