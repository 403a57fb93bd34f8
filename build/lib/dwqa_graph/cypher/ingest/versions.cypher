// Document text already known at ingest time (HotpotQA paragraphs) as a DocumentVersion.
UNWIND $rows AS row
MATCH (d:Document {id: row.document_id})
MERGE (v:DocumentVersion {id: row.id})
  ON CREATE SET v.text = row.text, v.status = row.status, v.extractor = row.extractor,
                v.fetched_at = row.fetched_at, v.created_at = datetime()
MERGE (d)-[:HAS_VERSION]->(v)
