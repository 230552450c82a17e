-- 9: filings removed, kept as tombstones (by content): a server whose library folder still holds
-- a filing that was removed on another server removes it at its next start instead of putting it
-- back. Adding the same file again on purpose (an ingest) clears its tombstone.
CREATE TABLE filing_removals (
  sha256 TEXT PRIMARY KEY,
  id TEXT NOT NULL,
  removed_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
);
