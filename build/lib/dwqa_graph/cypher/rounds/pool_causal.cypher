// Candidate pool size, causal pattern: ordered pairs (a claim with a causal cue, a claim
// of another document sharing an entity with it) — a join counted in Cypher.
UNWIND $graphs AS g
MATCH (v1:DocumentVersion)-[:HAS_CLAIM]->(c1:Claim)
WHERE v1.id IN g.versions AND c1.has_cause
MATCH (v2:DocumentVersion)-[:HAS_CLAIM]->(c2:Claim)
WHERE v2.id IN g.versions AND v2 <> v1
  AND any(e IN coalesce(c1.entities, []) WHERE e IN coalesce(c2.entities, []))
RETURN g.query_id AS query_id, count(*) AS k
