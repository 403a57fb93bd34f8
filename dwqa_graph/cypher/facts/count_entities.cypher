// Resolved entities in the graph.
MATCH (e:NamedEntity) RETURN count(e) AS n
