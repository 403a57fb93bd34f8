// One row per seed graph: dataset, question, distinct documents over all rounds, the
// rounds it was retrieved in, steps, answer. Parameter: $dataset (null for all).
MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
RETURN q.id AS query_id, q.dataset AS dataset, q.text AS question,
       COUNT { MATCH (q)-[:RETRIEVE]->(d) RETURN DISTINCT d } AS documents,
       COLLECT { MATCH (q)-[r:RETRIEVE]->() RETURN DISTINCT r.round ORDER BY r.round } AS rounds,
       COUNT { (q)-[:HAS_STEP]->() } AS steps,
       [(q)-[:HAS_ANSWER]->(a) | a.text][0] AS answer
ORDER BY dataset, question
