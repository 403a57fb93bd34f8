// Reasoning steps (agent observations and thoughts) of a query's transcript.
UNWIND $rows AS row
MATCH (q:Query {id: row.query_id})
MERGE (s:Snippet {id: row.id})
SET s.query_id = row.query_id, s.text = row.text, s.step_type = row.step_type,
    s.position = row.position, s.cites = row.cites, s.missing_cites = row.missing_cites,
    s.parser = row.parser
MERGE (q)-[:HAS_STEP]->(s)
