// Seed queries to re-issue. Parameter: $dataset (null for all).
MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
RETURN q.id AS id, q.text AS text
ORDER BY q.id
