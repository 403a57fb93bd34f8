// QA items: (Round)-[:CONTAINS]->(QAItem)-[:FROM]->(Query), and the facts each used in
// order: (QAItem)-[:USES {order}]->(Fact).
UNWIND $rows AS row
MATCH (r:Round {t: row.t})
MATCH (q:Query {id: row.query_id})
MERGE (i:QAItem {id: row.id})
  ON CREATE SET i += row.props
MERGE (r)-[:CONTAINS]->(i)
MERGE (i)-[:FROM]->(q)
WITH i, row
CALL (i, row) {
  UNWIND range(0, size(row.facts) - 1) AS n
  MATCH (f:Fact {id: row.facts[n]})
  MERGE (i)-[u:USES]->(f)
  SET u.order = n
}
