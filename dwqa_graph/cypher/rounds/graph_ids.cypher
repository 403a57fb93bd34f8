// Seed graph ids with the claims their documents hold, to split the evidence query into
// parallel batches bounded in rows ($ids: only these; null for every graph of $dataset).
MATCH (q:Query)
WHERE ($dataset IS NULL OR q.dataset = $dataset) AND ($ids IS NULL OR q.id IN $ids)
RETURN q.id AS id,
       COUNT { (q)-[:RETRIEVE]->(:Document)-[:HAS_VERSION]->(:DocumentVersion)
               -[:HAS_CLAIM]->(:Claim) } AS claims
ORDER BY id
