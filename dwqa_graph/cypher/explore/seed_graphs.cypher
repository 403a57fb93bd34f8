// One row per seed graph: dataset, question, distinct documents over all rounds, the
// rounds it was retrieved in, steps, answer. Parameter: $dataset (null for all).
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit
// the value after => to choose. `dwqa query NAME --param k=v` reads
// the same defaults and overrides them.
:param dataset => null;
MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
RETURN q.id AS query_id, q.dataset AS dataset, q.text AS question,
       COUNT { MATCH (q)-[:RETRIEVE]->(d) RETURN DISTINCT d } AS documents,
       COLLECT { MATCH (q)-[r:RETRIEVE]->() RETURN DISTINCT r.round ORDER BY r.round } AS rounds,
       COUNT { (q)-[:HAS_STEP]->() } AS steps,
       [(q)-[:HAS_ANSWER]->(a) | a.text][0] AS answer
ORDER BY dataset, question;
