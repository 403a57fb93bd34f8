// Candidate pool size, comparison pattern: unordered pairs of quantities with the same unit
// from two different documents with different values (counted as for temporal, per unit).
UNWIND $graphs AS g
MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
WHERE v.id IN g.versions AND c.number_units IS NOT NULL
UNWIND range(0, size(c.number_units) - 1) AS i
WITH g.query_id AS q, v.id AS d, c.number_units[i] AS u, c.number_values[i] AS x
WHERE u <> ''
WITH q, d, u, x, count(*) AS n
WITH q, u, d, collect({x: x, n: n}) AS per_value, sum(n) AS nd
WITH q, u, sum(nd) AS s, sum(nd * nd) AS sq, collect(per_value) AS docs
UNWIND docs AS per_value
UNWIND per_value AS e
WITH q, u, s, sq, e.x AS x, sum(e.n) AS sx, sum(e.n * e.n) AS sqx
WITH q, u, s, sq, sum((sx * sx - sqx) / 2) AS same_value
RETURN q AS query_id, sum((s * s - sq) / 2 - same_value) AS k
