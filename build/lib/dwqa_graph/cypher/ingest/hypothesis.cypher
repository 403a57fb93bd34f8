// HYPOTHESIS: a conjecture the agent drew from the step it follows.
UNWIND $rows AS row
MATCH (a:Snippet {id: row.from})
MATCH (b:Snippet {id: row.to})
MERGE (a)-[:HYPOTHESIS]->(b)
