// A round's items with full provenance down to character offsets, in a stable order.
MATCH (r:Round {t: $t})-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
MATCH (i)-[u:USES]->(c:Claim)<-[:HAS_CLAIM]-(v:DocumentVersion)<-[:HAS_VERSION]-(d:Document)
WITH r, i, q, c, v, d, u ORDER BY u.order
WITH r, i, q, collect({claim_id: c.id, claim: c.text, span: c.span, start: c.start,
                       end: c.end, version_id: v.id, document_id: d.id, url: d.url,
                       fetched_at: toString(v.fetched_at)}) AS provenance
RETURN r.t AS round, r.seed AS seed, r.theta_hash AS theta_hash, i.id AS id,
       q.id AS query_id, q.text AS seed_question, i.question AS question, i.answer AS answer,
       i.pattern AS pattern, i.hops AS hops, i.generator AS generator, i.r AS r,
       i.attempt AS attempt, coalesce(i.checks, []) AS checks,
       i.closed_book AS closed_book, provenance
ORDER BY query_id
