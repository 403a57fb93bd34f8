// A seed graph with no valid candidate this round: reported, with the reasons.
UNWIND $rows AS row
MATCH (r:Round {t: row.t})
MATCH (q:Query {id: row.query_id})
MERGE (r)-[e:NO_ITEM]->(q)
SET e.reasons = row.reasons
