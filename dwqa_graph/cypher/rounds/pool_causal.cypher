// Candidate pool size, causal pattern: ordered pairs (a claim stating a cause and its
// effect, a claim of another document) connected through a non-generic Entity both MENTION.
UNWIND $graphs AS g
MATCH (v1:DocumentVersion)-[:HAS_CLAIM]->(c1:Claim)-[:MENTIONS]->(e:Entity)
      <-[:MENTIONS]-(c2:Claim)<-[:HAS_CLAIM]-(v2:DocumentVersion)
WHERE v1.id IN g.versions AND v2.id IN g.versions AND v1 <> v2 AND c1.cause_split
  AND NOT e.generic
WITH DISTINCT g.query_id AS q, c1, c2
RETURN q AS query_id, count(*) AS k
