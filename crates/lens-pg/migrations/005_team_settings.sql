-- 5: the settings a team's servers share (how questions are answered and pages read: top_k, the
-- answerer and retriever, OCR languages, the models by name), one JSON object; each server keeps
-- its machine's own (threads, model folder, device) in its library.
CREATE TABLE team_settings (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  value TEXT NOT NULL
);
