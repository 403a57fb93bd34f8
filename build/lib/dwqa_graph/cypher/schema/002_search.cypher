// Schema v2: full-text index over page texts for offline search (GraphSearch), and the
// index fetch uses to find stale documents.
CREATE FULLTEXT INDEX document_version_text IF NOT EXISTS
FOR (v:DocumentVersion) ON EACH [v.text, v.title];
CREATE INDEX document_fetched_at IF NOT EXISTS FOR (n:Document) ON (n.fetched_at);
