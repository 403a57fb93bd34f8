// An agent's trace: the documents it retrieved, with the text it saw on the edge.
// Documents are shared with the seed graphs (same normalised-URL key), so a run can be
// compared with the evidence the items came from.
UNWIND $rows AS row
MATCH (p:Prediction {id: row.prediction_id})
MERGE (d:Document {id: row.document_id})
  ON CREATE SET d.url = row.url, d.title = row.title
CREATE (p)-[:RETRIEVED {rank: row.rank, title: row.title, text: row.text}]->(d)
