// The evidence a leak carries with each round item: the claims (or facts) it used in use
// order, and their source spans. Items without USES edges come back with no claims.
UNWIND $ids AS id
MATCH (i:QAItem {id: id})
OPTIONAL MATCH (i)-[u:USES]->(c:Claim|Fact)
WITH i, c, u ORDER BY u.order
RETURN i.id AS id, [x IN collect(CASE WHEN c IS NULL THEN null
                                      ELSE {claim_id: c.id, text: coalesce(c.text, c.evidence),
                                            span: coalesce(c.span, c.evidence, '')} END)
                    WHERE x IS NOT NULL] AS claims
