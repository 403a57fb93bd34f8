// Per seed graph, the candidate its item used in each of the given rounds: its pattern and
// its sorted claim or fact ids, spelled as ``Path.key`` spells a path ("temporal:id1,id2").
// Observed repeats count them; a fresh round draws a graph's recent ones last.
MATCH (r:Round)-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
WHERE r.t IN $rounds
MATCH (i)-[:USES]->(c:Claim|Fact)
WITH q, r, i, c ORDER BY c.id
WITH q.id AS query_id, r.t AS t, i.pattern AS pattern, collect(c.id) AS claims
RETURN query_id, t,
       pattern + ':' + reduce(s = '', x IN claims |
                              s + CASE WHEN s = '' THEN '' ELSE ',' END + x) AS candidate
ORDER BY query_id, t
