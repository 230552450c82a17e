-- 7: the vision index. One row per document whose page multivectors are published (the file
-- `vision/KEY.lvx` renamed into place first); deleted with the document's other rows, so a
-- replaced or removed document's vectors stop counting at once and its file is swept later.
CREATE TABLE vision_docs (
  doc_key INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  edge INTEGER NOT NULL,
  pooled INTEGER NOT NULL,
  pages INTEGER NOT NULL,
  vectors INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  built_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
);
