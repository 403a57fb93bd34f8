// One evaluation run: (Agent)-[:RAN]->(EvalRun)-[:ON]->(Round | StaticSet).
UNWIND $rows AS row
MERGE (a:Agent {id: row.agent_id})
  ON CREATE SET a.spec = row.spec, a.created_at = datetime()
CREATE (e:EvalRun)
SET e = row.props
MERGE (a)-[:RAN]->(e)
WITH e, row
OPTIONAL MATCH (r:Round {t: row.round})
OPTIONAL MATCH (s:StaticSet {name: row.dataset})
FOREACH (target IN [x IN [r, s] WHERE x IS NOT NULL] | MERGE (e)-[:ON]->(target))
