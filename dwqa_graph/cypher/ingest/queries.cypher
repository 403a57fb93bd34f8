// One Query node per seed graph (an information need as one agent run / dataset item saw it).
UNWIND $rows AS row
MERGE (q:Query {id: row.id})
  ON CREATE SET q.created_at = datetime()
SET q.text = row.text, q.dataset = row.dataset, q.source = row.source,
    q.source_file = row.source_file, q.source_line = row.source_line,
    q.content_hash = row.content_hash
