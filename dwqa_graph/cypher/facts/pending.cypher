// Versions with claims whose facts were not read by $extractor (or by an older version of
// it), paged by id, with their claims in text order and the document's title.
MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE v.id > $after AND coalesce(v.facts_extractor, '') <> $extractor
  AND EXISTS { (v)-[:HAS_CLAIM]->(:Claim) }
WITH d, v ORDER BY v.id LIMIT $limit
CALL (v) {
  MATCH (v)-[:HAS_CLAIM]->(c:Claim)
  WITH c ORDER BY c.start, c.end
  RETURN collect({id: c.id, start: c.start, span: c.span}) AS claims
}
RETURN v.id AS id, d.id AS document_id, d.title AS title, claims
ORDER BY v.id
