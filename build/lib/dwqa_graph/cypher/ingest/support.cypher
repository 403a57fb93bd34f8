// EVIDENCE from a gold supporting-fact snippet to the gold answer it supports.
UNWIND $rows AS row
MATCH (s:Snippet {id: row.snippet_id})
MATCH (a:Answer {id: row.answer_id})
MERGE (s)-[:EVIDENCE]->(a)
