// Per seed graph and round, the version ids of its evidence.
MATCH (r:Round)-[s:SNAPSHOT]->(v:DocumentVersion)
WHERE r.t IN $rounds
RETURN s.query_id AS query_id, r.t AS t, collect(v.id) AS versions
ORDER BY query_id, t
