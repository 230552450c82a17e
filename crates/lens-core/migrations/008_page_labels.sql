-- 8: the page label the PDF itself defines (its /PageLabels tree: "iv", "41", "A-3"), read at
-- ingest; NULL for pages ingested before this version and for PDFs that define none.
ALTER TABLE pages ADD COLUMN pdf_label TEXT;
