// One row per seed graph: dataset, question, sources, steps by type, answer.
// Parameter: $dataset (null for all).
MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
RETURN q.id AS query_id, q.dataset AS dataset, q.text AS question,
       COUNT { (q)-[:RETRIEVE]->() } AS documents,
       COUNT { (q)-[:HAS_STEP]->() } AS steps,
       [(q)-[:HAS_ANSWER]->(a) | a.text][0] AS answer
ORDER BY dataset, question
