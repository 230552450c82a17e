-- 14: feedback kept per user: each user's latest word on a logged answer, never overwritten by
-- another's (the log row's feedback columns keep the latest of all, as before). `user_name` is
-- '' on a one-person library. The feedback given before this migration is carried over.
CREATE TABLE feedback (
  log_id INTEGER NOT NULL REFERENCES question_log(id) ON DELETE CASCADE,
  user_name TEXT NOT NULL DEFAULT '',
  value INTEGER NOT NULL,
  note TEXT,
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
  PRIMARY KEY (log_id, user_name)
);
INSERT INTO feedback(log_id, user_name, value, note)
  SELECT id, COALESCE(feedback_by, ''), feedback, feedback_note FROM question_log WHERE feedback IS NOT NULL;
