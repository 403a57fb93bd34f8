// Candidate pool size, temporal pattern: unordered pairs of dated events (claim, year) from
// two different documents with different years — counted, not enumerated:
// pairs across documents = (S^2 - sum n_d^2) / 2, minus the same-year pairs likewise.
// $graphs: [{query_id, versions: [version ids]}].
UNWIND $graphs AS g
MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
WHERE v.id IN g.versions
UNWIND coalesce(c.years, []) AS y
WITH g.query_id AS q, v.id AS d, y, count(*) AS n
WITH q, d, collect({y: y, n: n}) AS per_year, sum(n) AS nd
WITH q, sum(nd) AS s, sum(nd * nd) AS sq, collect(per_year) AS docs
UNWIND docs AS per_year
UNWIND per_year AS e
WITH q, s, sq, e.y AS y, sum(e.n) AS sy, sum(e.n * e.n) AS sqy
WITH q, s, sq, sum((sy * sy - sqy) / 2) AS same_year
RETURN q AS query_id, (s * s - sq) / 2 - same_year AS k
