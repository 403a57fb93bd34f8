// Candidate pool size, comparison pattern: unordered pairs of quantities from two different
// documents that measure the same kind of thing in the same unit (quantity_kinds /
// quantity_units from the entity layer) with different values — counted, not enumerated:
// pairs across documents = (S^2 - sum n_d^2) / 2 per (unit, kind), minus same-value pairs.
UNWIND $graphs AS g
MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
WHERE v.id IN g.versions AND c.quantity_kinds IS NOT NULL
UNWIND range(0, size(c.quantity_kinds) - 1) AS i
WITH g.query_id AS q, v.id AS d, c.quantity_units[i] AS unit, c.quantity_kinds[i] AS kind,
     c.number_values[i] AS x
WHERE unit <> '' AND kind <> ''
WITH q, d, unit + '/' + kind AS u, x, count(*) AS n
WITH q, u, d, collect({x: x, n: n}) AS per_value, sum(n) AS nd
WITH q, u, sum(nd) AS s, sum(nd * nd) AS sq, collect(per_value) AS docs
UNWIND docs AS per_value
UNWIND per_value AS e
WITH q, u, s, sq, e.x AS x, sum(e.n) AS sx, sum(e.n * e.n) AS sqx
WITH q, u, s, sq, sum((sx * sx - sqx) / 2) AS same_value
RETURN q AS query_id, sum((s * s - sq) / 2 - same_value) AS k
