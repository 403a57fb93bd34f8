// Verified claims: (DocumentVersion)-[:HAS_CLAIM]->(Claim), span = substring of the text.
// Feature properties are absent when empty (has_date etc. absent = false): read them with
// coalesce(c.has_date, false) / coalesce(c.years, []).
UNWIND $rows AS row
MATCH (v:DocumentVersion {id: row.version_id})
MERGE (c:Claim {id: row.props.id})
SET c += row.props
MERGE (v)-[:HAS_CLAIM]->(c)
