// Steps whose citation [n] names no source of their log (agent cited something it never listed).
// Parameter: $query_id (null for all).
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit
// the value after => to choose. `dwqa query NAME --param k=v` reads
// the same defaults and overrides them.
:param query_id => null;
MATCH (q:Query)-[:HAS_STEP]->(s:Snippet)
WHERE ($query_id IS NULL OR q.id = $query_id) AND size(s.missing_cites) > 0
RETURN q.id AS query_id, q.source_file AS file, q.source_line AS line, s.position AS position,
       s.missing_cites AS missing_cites, s.text AS step
ORDER BY query_id, position;
