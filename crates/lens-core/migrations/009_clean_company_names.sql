-- Company names stored from cover pages kept the rules and leaders printed around them
-- ("____________ Amazon.com, Inc."): trim them (the app cleans names at ingest from now on).
UPDATE documents SET company = trim(company, ' _-–—.…·*') WHERE company IS NOT NULL;
UPDATE documents SET company = NULL WHERE company = '';
UPDATE OR IGNORE aliases SET alias = trim(alias, ' _-–—.…·*') WHERE alias != trim(alias, ' _-–—.…·*');
DELETE FROM aliases WHERE alias != trim(alias, ' _-–—.…·*') OR alias = '';
