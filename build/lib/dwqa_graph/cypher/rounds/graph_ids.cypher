// Seed graph ids, to split the evidence query into parallel batches.
MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
RETURN q.id AS id
ORDER BY id
