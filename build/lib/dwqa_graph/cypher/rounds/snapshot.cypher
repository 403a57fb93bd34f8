// The versions each seed graph's evidence had in this round (for overlap across rounds).
UNWIND $rows AS row
MATCH (r:Round {t: row.t})
MATCH (v:DocumentVersion {id: row.version_id})
MERGE (r)-[s:SNAPSHOT {query_id: row.query_id}]->(v)
