-- 12: the filing as facts (`crate::facts`): every figure of every statement and note table,
-- read once per document with its line item, period, unit and boxes, and the accounting
-- identities tested over them. Built after ingest and OCR, and for documents ingested before
-- this migration by `facts::build_missing` (`lens facts --build`, the app at start), so the
-- table is filled later, not here. `fact_docs.text_chars` is the page text it was built from:
-- a document whose text changed since (OCR) is built again.
CREATE TABLE facts (
  doc_key INTEGER NOT NULL,
  page INTEGER NOT NULL,
  tbl INTEGER NOT NULL,
  row INTEGER NOT NULL,
  col INTEGER NOT NULL,
  statement TEXT NOT NULL,
  label TEXT NOT NULL,
  concept TEXT,
  section TEXT,
  member TEXT,
  year INTEGER NOT NULL,
  duration TEXT NOT NULL,
  months INTEGER,
  period_end TEXT,
  header TEXT NOT NULL,
  printed TEXT NOT NULL,
  value TEXT NOT NULL,
  unit TEXT NOT NULL,
  scale INTEGER NOT NULL,
  currency TEXT,
  label_box TEXT NOT NULL,
  cell_box TEXT NOT NULL,
  flagged TEXT,
  PRIMARY KEY (doc_key, page, tbl, row, col)
);
CREATE INDEX facts_concept ON facts(doc_key, concept);
CREATE TABLE fact_identities (
  doc_key INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  page INTEGER NOT NULL,
  period TEXT NOT NULL,
  passed INTEGER NOT NULL,
  detail TEXT NOT NULL,
  facts TEXT NOT NULL,
  PRIMARY KEY (doc_key, seq)
);
CREATE TABLE fact_docs (
  doc_key INTEGER PRIMARY KEY,
  version INTEGER NOT NULL,
  text_chars INTEGER NOT NULL,
  facts INTEGER NOT NULL,
  built_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
);
