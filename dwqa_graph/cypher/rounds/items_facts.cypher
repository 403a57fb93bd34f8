// Per seed graph, the candidate its item used in each of the given rounds: its pattern and
// its sorted fact ids, spelled as ``Path.key`` spells a path ("temporal:id1,id2").
// Observed repeats count them; a fresh round draws a graph's recent ones last.
MATCH (r:Round)-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
WHERE r.t IN $rounds
MATCH (i)-[:USES]->(f:Fact)
WITH q, r, i, f ORDER BY f.id
WITH q.id AS query_id, r.t AS t, i.pattern AS pattern, collect(f.id) AS facts
RETURN query_id, t,
       pattern + ':' + reduce(s = '', x IN facts |
                              s + CASE WHEN s = '' THEN '' ELSE ',' END + x) AS candidate
ORDER BY query_id, t
