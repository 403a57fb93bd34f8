// The candidates each seed graph was asked in rounds $first..$last: its items' forms and the
// facts they use, as ``Path.key`` spells a candidate (form ":" sorted fact ids). A fresh
// round draws these last, so a graph does not ask what it asked a few rounds ago.
MATCH (r:Round)-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
WHERE $first <= r.t <= $last
MATCH (i)-[:USES]->(f:Fact)
WITH q, i, f ORDER BY f.id
WITH q, i, i.pattern AS form, collect(f.id) AS facts
WITH q, form + ':' + reduce(s = '', x IN facts |
                            s + CASE WHEN s = '' THEN '' ELSE ',' END + x) AS key
RETURN q.id AS query_id, collect(DISTINCT key) AS keys
ORDER BY query_id
