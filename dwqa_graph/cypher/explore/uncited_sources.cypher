// Sources a query retrieved that no step (and not the answer) cites: unexplored evidence,
// the raw material for related questions. Parameter: $query_id (null for all).
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit
// the value after => to choose. `dwqa query NAME --param k=v` reads
// the same defaults and overrides them.
:param query_id => null;
MATCH (q:Query)-[r:RETRIEVE]->(d:Document)
WHERE ($query_id IS NULL OR q.id = $query_id)
  AND NOT EXISTS { (d)-[:EVIDENCE]->(:Snippet {query_id: q.id}) }
  AND NOT EXISTS { (d)-[:EVIDENCE]->(:Answer {query_id: q.id}) }
RETURN q.id AS query_id, q.text AS question, r.round AS round, r.rank AS rank, r.cite AS cite,
       d.url AS url, d.title AS title
ORDER BY query_id, round, rank;
