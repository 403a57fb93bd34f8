// EVIDENCE: the step was extracted from / is supported by the cited document.
UNWIND $rows AS row
MATCH (d:Document {id: row.document_id})
MATCH (s:Snippet {id: row.snippet_id})
MERGE (d)-[e:EVIDENCE]->(s)
SET e.stance = row.stance, e.cite = row.cite
