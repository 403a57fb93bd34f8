// Record fetch attempts on their Documents; a successful one MERGEs the DocumentVersion
// keyed by hash(document, text), so unchanged text adds no version (nodes_created counts
// the new ones). current_version always names the version seen last.
UNWIND $rows AS row
MATCH (d:Document {id: row.document_id})
SET d.fetch_status = row.reason, d.fetch_detail = row.detail,
    d.fetched_at = datetime(row.fetched_at), d.http_status = row.http_status,
    d.final_url = row.final_url
WITH d, row WHERE row.version_id IS NOT NULL
MERGE (v:DocumentVersion {id: row.version_id})
  ON CREATE SET v.text = row.text, v.title = row.title, v.published = row.published,
                v.status = 'fetched', v.http_status = row.http_status,
                v.final_url = row.final_url, v.content_type = row.content_type,
                v.bytes = row.bytes, v.extractor = row.extractor,
                v.content_hash = row.content_hash, v.fetched_at = datetime(row.fetched_at)
SET v.last_seen_at = datetime(row.fetched_at)
MERGE (d)-[:HAS_VERSION]->(v)
SET d.current_version = v.id
