// The documents of these versions as they stand now: the version seen last
// (current_version) and which extractor read its facts, how the last fetch went and when.
// Parameter: $versions.
MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE v.id IN $versions
OPTIONAL MATCH (d)-[:HAS_VERSION]->(c:DocumentVersion {id: d.current_version})
RETURN v.id AS version_id, d.id AS document_id, d.url AS url,
       coalesce(c.id, v.id) AS current,
       CASE WHEN c IS NULL THEN v.facts_extractor ELSE c.facts_extractor END AS current_read,
       d.fetch_status AS status, d.fetch_detail AS detail, toString(d.fetched_at) AS fetched_at
