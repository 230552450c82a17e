-- 8: feedback kept per user, as the library's SQLite migration 014: each user's latest word on
-- a logged answer; the log row keeps the latest of all. Earlier feedback is carried over.
CREATE TABLE feedback (
  log_id BIGINT NOT NULL REFERENCES question_log(id) ON DELETE CASCADE,
  user_name TEXT NOT NULL DEFAULT '',
  value INTEGER NOT NULL,
  note TEXT,
  at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
  PRIMARY KEY (log_id, user_name)
);
INSERT INTO feedback(log_id, user_name, value, note)
  SELECT id, COALESCE(feedback_by, ''), feedback, feedback_note FROM question_log WHERE feedback IS NOT NULL;
