// COMPARISON: a comparison step contrasts the step it follows.
UNWIND $rows AS row
MATCH (a:Snippet {id: row.from})
MATCH (b:Snippet {id: row.to})
MERGE (a)-[:COMPARISON]->(b)
