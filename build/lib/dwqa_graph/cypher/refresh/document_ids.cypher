// Ids of every Document already in the graph.
MATCH (d:Document)
RETURN d.id AS id
