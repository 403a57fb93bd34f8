// Per seed graph, the candidate its item used in each of the given rounds (pattern + the
// sorted claim or fact ids), to measure observed repeats.
MATCH (r:Round)-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
WHERE r.t IN $rounds
MATCH (i)-[:USES]->(c:Claim|Fact)
WITH q, r, i, c ORDER BY c.id
WITH q.id AS query_id, r.t AS t, i.pattern AS pattern, collect(c.id) AS claims
RETURN query_id, t, pattern + ':' + reduce(s = '', x IN claims | s + x + ',') AS candidate
ORDER BY query_id, t
