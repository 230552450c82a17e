-- 3: the team's filings, the database of record for `lens serve --team --database`: each filing
-- whole (its PDF, its pages' text, headings, character boxes and OCR source, its metadata and
-- aliases); the server's library folder (SQLite rows, search index, page images) is rebuilt
-- from these when it lacks them. One filing per content hash: two users adding the same file at
-- once make one.
CREATE TABLE filings (
  id TEXT PRIMARY KEY,
  sha256 TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  title TEXT NOT NULL,
  company TEXT,
  year INTEGER,
  form TEXT,
  aliases TEXT NOT NULL DEFAULT '[]',
  pdf BYTEA NOT NULL,
  added_by TEXT,
  added_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
);
CREATE TABLE filing_pages (
  filing TEXT NOT NULL REFERENCES filings(id) ON DELETE CASCADE,
  page INTEGER NOT NULL,
  text TEXT NOT NULL,
  heading TEXT NOT NULL,
  width REAL NOT NULL,
  height REAL NOT NULL,
  needs_ocr BOOLEAN NOT NULL,
  source TEXT NOT NULL,
  label TEXT,
  boxes BYTEA NOT NULL,
  PRIMARY KEY (filing, page)
);
