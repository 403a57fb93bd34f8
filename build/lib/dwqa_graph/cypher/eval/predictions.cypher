// Predictions, each linked to the item it answers (a round's QAItem or a StaticItem).
UNWIND $rows AS row
MATCH (e:EvalRun {id: row.run_id})
CREATE (p:Prediction)
SET p = row.props
MERGE (e)-[:PREDICTED]->(p)
WITH p, row
OPTIONAL MATCH (qi:QAItem {id: row.item_id})
OPTIONAL MATCH (si:StaticItem {id: row.item_id})
FOREACH (item IN [x IN [qi, si] WHERE x IS NOT NULL] | MERGE (p)-[:ANSWERS]->(item))
