// CONCLUDE: a final reasoning step deriving the answer.
UNWIND $rows AS row
MATCH (s:Snippet {id: row.snippet_id})
MATCH (a:Answer {id: row.answer_id})
MERGE (s)-[:CONCLUDE]->(a)
