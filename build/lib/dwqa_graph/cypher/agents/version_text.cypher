// The page text an agent reads for each search hit: per URL, the text of the Document's
// newest DocumentVersion. That is the one `current_version` names (fetch moves it to the
// version seen last); a Document without it (text known at ingest, e.g. HotpotQA) has
// its latest-fetched version. Parameters: $urls (list of Document URLs).
UNWIND $urls AS url
MATCH (d:Document {url: url})-[:HAS_VERSION]->(v:DocumentVersion)
WHERE v.id = coalesce(d.current_version, v.id)
WITH url, v ORDER BY v.fetched_at DESC, v.id
WITH url, collect(v)[0] AS v
RETURN url, v.title AS title, v.text AS text
