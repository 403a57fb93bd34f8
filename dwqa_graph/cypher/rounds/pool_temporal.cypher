// Candidate pool size, temporal pattern: unordered pairs of dated events (claim, event year)
// from two different documents, with different years, whose claims are connected through
// a non-generic Entity both MENTION and both events name (claim -> entity <- claim): the
// connected combinations sampling draws from. $graphs: [{query_id, versions: [version ids]}].
UNWIND $graphs AS g
MATCH (v1:DocumentVersion)-[:HAS_CLAIM]->(c1:Claim)-[:MENTIONS]->(e:Entity)
      <-[:MENTIONS]-(c2:Claim)<-[:HAS_CLAIM]-(v2:DocumentVersion)
WHERE v1.id IN g.versions AND v2.id IN g.versions AND v1.id < v2.id AND NOT e.generic
  AND size(coalesce(c1.event_years, [])) > 0 AND size(coalesce(c2.event_years, [])) > 0
  AND e.norm IN coalesce(c1.event_names, []) AND e.norm IN coalesce(c2.event_names, [])
WITH DISTINCT g.query_id AS q, c1, c2
UNWIND c1.event_years AS y1
UNWIND c2.event_years AS y2
WITH q, y1, y2 WHERE y1 <> y2
RETURN q AS query_id, count(*) AS k
