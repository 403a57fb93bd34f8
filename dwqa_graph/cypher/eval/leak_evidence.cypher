// The evidence a leak carries with each round item: the facts it used in use order, each
// with its evidence sentence. Items without USES edges come back with no facts.
UNWIND $ids AS id
MATCH (i:QAItem {id: id})
OPTIONAL MATCH (i)-[u:USES]->(f:Fact)
WITH i, f, u ORDER BY u.order
RETURN i.id AS id, [x IN collect(CASE WHEN f IS NULL THEN null
                                      ELSE {fact_id: f.id, text: f.evidence} END)
                    WHERE x IS NOT NULL] AS facts
