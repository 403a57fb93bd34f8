// Candidate pool size, conjunction pattern: for each entity, unordered triples of claims
// mentioning it from three different documents — the elementary symmetric polynomial
// e3 of the per-document counts: (S^3 - 3 S sum n^2 + 2 sum n^3) / 6.
UNWIND $graphs AS g
MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
WHERE v.id IN g.versions
UNWIND coalesce(c.entities, []) AS e
WITH g.query_id AS q, e, v.id AS d, count(*) AS n
WITH q, e, sum(n) AS s, sum(n * n) AS s2, sum(n * n * n) AS s3
RETURN q AS query_id, sum((s * s * s - 3 * s * s2 + 2 * s3) / 6) AS k
