// FOLLOWS points along the transcript: (earlier)-[:FOLLOWS]->(the step generated right after).
UNWIND $rows AS row
MATCH (a:Snippet {id: row.from})
MATCH (b:Snippet {id: row.to})
MERGE (a)-[:FOLLOWS]->(b)
