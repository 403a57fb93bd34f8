// Documents retrieved by several queries: hubs where seed graphs overlap.
// Parameter: $min_queries (default 2).
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit
// the value after => to choose. `dwqa query NAME --param k=v` reads
// the same defaults and overrides them.
:param min_queries => 2;
MATCH (q:Query)-[:RETRIEVE]->(d:Document)
WITH d, collect(DISTINCT q.id) AS queries
WHERE size(queries) >= $min_queries
RETURN d.id AS document_id, d.url AS url, d.title AS title, size(queries) AS n_queries,
       queries
ORDER BY n_queries DESC, url;
