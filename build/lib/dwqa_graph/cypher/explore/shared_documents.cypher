// Documents retrieved by several queries: hubs where seed graphs overlap.
// Parameter: $min_queries (default 2).
MATCH (q:Query)-[:RETRIEVE]->(d:Document)
WITH d, collect(DISTINCT q.id) AS queries
WHERE size(queries) >= coalesce($min_queries, 2)
RETURN d.id AS document_id, d.url AS url, d.title AS title, size(queries) AS n_queries,
       queries
ORDER BY n_queries DESC, url
