-- 3: worked answers keep their calculation (JSON: formula, operands with pages and boxes, result).
ALTER TABLE question_log ADD COLUMN calculation TEXT;
