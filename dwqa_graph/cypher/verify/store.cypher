// One verification run of a round and its per-item results, written in one transaction.
// A run and its results are new nodes: the round and its items are not modified (a frozen
// round may be verified), and re-writing the same run id changes nothing.
UNWIND $rows AS row
MATCH (r:Round {t: row.t})
MERGE (x:VerifyRun {id: row.id})
  ON CREATE SET x += row.props, x.checked_at = datetime(row.checked_at)
MERGE (r)-[:VERIFIED]->(x)
WITH x, row
UNWIND row.items AS it
MATCH (i:QAItem {id: it.item_id})
MERGE (c:Verification {id: it.id})
  ON CREATE SET c += it.props, c.checked_at = x.checked_at, c.run_id = x.id
MERGE (x)-[:CHECKED]->(c)
MERGE (c)-[:OF]->(i)
