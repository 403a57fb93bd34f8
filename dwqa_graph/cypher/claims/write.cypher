// Verified claims: (DocumentVersion)-[:HAS_CLAIM]->(Claim), span = substring of the text.
UNWIND $rows AS row
MATCH (v:DocumentVersion {id: row.version_id})
MERGE (c:Claim {id: row.props.id})
SET c += row.props
MERGE (v)-[:HAS_CLAIM]->(c)
