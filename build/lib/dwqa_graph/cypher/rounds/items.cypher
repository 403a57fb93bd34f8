// QA items: (Round)-[:CONTAINS]->(QAItem)-[:FROM]->(Query), (QAItem)-[:USES {order}]->(Claim).
UNWIND $rows AS row
MATCH (r:Round {t: row.t})
MATCH (q:Query {id: row.query_id})
MERGE (i:QAItem {id: row.id})
  ON CREATE SET i += row.props
MERGE (r)-[:CONTAINS]->(i)
MERGE (i)-[:FROM]->(q)
WITH i, row
UNWIND range(0, size(row.claims) - 1) AS n
MATCH (c:Claim {id: row.claims[n]})
MERGE (i)-[u:USES]->(c)
SET u.order = n
