// The query's answer: gold (dataset) or agent (what the logged agent answered).
UNWIND $rows AS row
MATCH (q:Query {id: row.query_id})
MERGE (a:Answer {id: row.id})
SET a.text = row.text, a.kind = row.kind, a.query_id = row.query_id
MERGE (q)-[:HAS_ANSWER]->(a)
