// Versions with text that extractor $extractor has not processed, paged by id.
MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE v.id > $after AND v.text IS NOT NULL AND size(v.text) > 0
  AND NOT $extractor IN coalesce(v.claim_extractors, [])
RETURN v.id AS id, d.id AS document_id, v.text AS text
ORDER BY v.id
LIMIT $limit
