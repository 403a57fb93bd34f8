// The items of round $t as `round verify` re-checks them: each item's facts in its path's
// order (USES.order) with the version and document each was read from, and the versions
// of its seed graph the round saw (its SNAPSHOT): a fact whose subject was replaced is
// looked for among the seed graph's other pages too; the fact's verb (time-sensitivity).
MATCH (r:Round {t: $t})-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
CALL (i) {
  MATCH (i)-[u:USES]->(f:Fact)-[:READ_FROM]->(v:DocumentVersion)<-[:HAS_VERSION]-(d:Document)
  WITH u, f, v, d ORDER BY u.order
  RETURN collect({fact_id: f.id, version_id: v.id, document_id: d.id, url: d.url,
                  evidence: f.evidence, verb: f.verb}) AS facts
}
RETURN i.id AS id, q.id AS query_id, i.question AS question, i.answer AS answer,
       i.pattern AS form, i.r AS r, i.attempt AS attempt, i.detail AS detail, facts,
       [(r)-[s:SNAPSHOT]->(x:DocumentVersion) WHERE s.query_id = q.id | x.id] AS snapshot
ORDER BY query_id, id
