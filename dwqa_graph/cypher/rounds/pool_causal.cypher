// Candidate pool size, causal pattern: ordered pairs (a claim stating a cause whose effect
// names an Entity, a claim of another document that describes that entity): the bridges
// sampling draws from.
UNWIND $graphs AS g
MATCH (v1:DocumentVersion)-[:HAS_CLAIM]->(c1:Claim)-[:MENTIONS]->(e:Entity)
      <-[:MENTIONS]-(c2:Claim)<-[:HAS_CLAIM]-(v2:DocumentVersion)
WHERE v1.id IN g.versions AND v2.id IN g.versions AND v1 <> v2 AND c1.cause_split
  AND NOT e.generic AND e.norm IN coalesce(c1.effect_names, [])
  AND e.norm IN coalesce(c2.described, [])
WITH DISTINCT g.query_id AS q, c1, c2
RETURN q AS query_id, count(*) AS k
