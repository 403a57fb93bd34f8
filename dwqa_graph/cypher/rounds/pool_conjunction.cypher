// Candidate pool size, conjunction pattern: for each non-generic Entity, unordered triples
// of claims from three different documents that each describe it (the entity's norm in
// the claim's `described`) — the elementary symmetric polynomial e3 of the per-document
// counts: (S^3 - 3 S sum n^2 + 2 sum n^3) / 6.
UNWIND $graphs AS g
MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)-[:MENTIONS]->(e:Entity)
WHERE v.id IN g.versions AND NOT e.generic AND e.norm IN coalesce(c.described, [])
WITH g.query_id AS q, e, v.id AS d, count(DISTINCT c) AS n
WITH q, e, sum(n) AS s, sum(n * n) AS s2, sum(n * n * n) AS s3
RETURN q AS query_id, sum((s * s * s - 3 * s * s2 + 2 * s3) / 6) AS k
