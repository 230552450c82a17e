-- 10: the answer as it was shown when asked (label, reasons, checks, the question as read,
-- notes; JSON), so the log, a reopened answer and a workpaper show that record, never a
-- re-judgement. NULL for entries logged before it.
ALTER TABLE question_log ADD COLUMN shown TEXT;
