// Evidence chain of one query: query -> cited documents -> steps (in transcript order) -> answer.
// Parameter: $query_id (omit it, or pass null, for every query; LIMIT keeps Browser responsive).
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit
// the value after => to choose. `dwqa query NAME --param k=v` reads
// the same defaults and overrides them.
:param query_id => null;
MATCH (q:Query)
WHERE $query_id IS NULL OR q.id = $query_id
MATCH (q)-[:HAS_STEP]->(s:Snippet)
OPTIONAL MATCH (d:Document)-[e:EVIDENCE]->(s)
OPTIONAL MATCH (s)-[:CONCLUDE|EVIDENCE]->(a:Answer)
RETURN q.id AS query_id, q.text AS question, s.position AS position, s.step_type AS step_type,
       s.text AS step, e.cite AS cite, d.url AS document, a.text AS answer
ORDER BY query_id, position, cite
LIMIT 1000;
