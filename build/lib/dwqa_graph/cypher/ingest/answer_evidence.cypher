// EVIDENCE from a document cited directly in the answer text.
UNWIND $rows AS row
MATCH (d:Document {id: row.document_id})
MATCH (a:Answer {id: row.answer_id})
MERGE (d)-[e:EVIDENCE]->(a)
SET e.stance = row.stance, e.cite = row.cite
