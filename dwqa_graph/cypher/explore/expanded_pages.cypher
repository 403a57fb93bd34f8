// The pages `dwqa expand` added to each seed graph: the entity each was found for, the
// search, the result's rank, depth and why it joined, and whether it was fetched.
// Parameter: $dataset (null for all). Pasted into Neo4j Browser as a whole, the :param line
// sets the default first; `dwqa query expanded_pages --param k=v` overrides it. As a graph:
// MATCH p=(:Query)-[:EXPANDED]->(:Document)-[:HAS_VERSION]->() RETURN p LIMIT 50
:param dataset => null;
MATCH (q:Query)-[x:EXPANDED]->(d:Document)
WHERE $dataset IS NULL OR q.dataset = $dataset
RETURN q.id AS query_id, q.text AS question, x.round AS round, x.depth AS depth,
       x.entity AS entity, x.query AS query, x.rank AS rank, x.reason AS reason, d.url AS url,
       d.fetch_status AS fetch_status, d.current_version IS NOT NULL AS fetched
ORDER BY query_id, round, depth, entity;
