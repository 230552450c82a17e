-- 5: a model answer's run (model, device, speeds, raw reply; JSON) and asks stopped mid-answer.
ALTER TABLE question_log ADD COLUMN model TEXT;
ALTER TABLE question_log ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0;
