// Candidate pool size, conjunction pattern: unordered pairs of claims from two different
// documents whose lists of names (the entities in the claim's `listed`, rounds/lists.py)
// share exactly one non-generic Entity (claim -> entity <- claim): the answer, which each
// list alone leaves among several candidates and the two together single out.
UNWIND $graphs AS g
MATCH (v1:DocumentVersion)-[:HAS_CLAIM]->(c1:Claim)-[:MENTIONS]->(e:Entity)
      <-[:MENTIONS]-(c2:Claim)<-[:HAS_CLAIM]-(v2:DocumentVersion)
WHERE v1.id IN g.versions AND v2.id IN g.versions AND v1.id < v2.id AND NOT e.generic
  AND e.norm IN coalesce(c1.listed, []) AND e.norm IN coalesce(c2.listed, [])
WITH g.query_id AS q, c1, c2, count(DISTINCT e) AS shared
WHERE shared = 1
RETURN q AS query_id, count(*) AS k
