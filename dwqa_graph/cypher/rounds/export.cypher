// A round's items with full provenance down to character offsets, in a stable order: the
// facts an item used, each with its evidence sentence and its page's title (the sentence may
// name its subject only as "It" or "He").
MATCH (r:Round {t: $t})-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
CALL (i) {
  MATCH (i)-[u:USES]->(f:Fact)-[:READ_FROM]->(v:DocumentVersion)<-[:HAS_VERSION]-(d:Document)
  RETURN u.order AS n, {fact_id: f.id, relation: f.relation,
                        claim_id: [(f)-[:SUPPORTED_BY]->(c:Claim) | c.id][0],
                        evidence: f.evidence, start: f.start, end: f.end,
                        version_id: v.id, document_id: d.id, url: d.url,
                        title: coalesce(v.title, d.title),
                        fetched_at: toString(v.fetched_at)} AS p
}
WITH r, i, q, n, p ORDER BY n
WITH r, i, q, collect(p) AS provenance
RETURN r.t AS round, r.seed AS seed, r.theta_hash AS theta_hash, i.id AS id,
       q.id AS query_id, q.text AS seed_question, i.question AS question, i.answer AS answer,
       i.pattern AS pattern, i.hops AS hops, i.sources AS sources,
       i.constraints AS constraints, i.generator AS generator, i.r AS r,
       i.attempt AS attempt, coalesce(i.checks, []) AS checks,
       i.answer_type AS answer_type,
       i.two_option AS two_option, i.phrasing AS phrasing, provenance
ORDER BY query_id
