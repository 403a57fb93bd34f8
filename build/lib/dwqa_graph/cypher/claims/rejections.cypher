// Claims whose span was not found in the page (or a runaway model's extras): kept for
// inspection, never as Claim nodes.
UNWIND $rows AS row
MATCH (v:DocumentVersion {id: row.version_id})
MERGE (r:ClaimRejection {id: row.id})
SET r += row
MERGE (v)-[:REJECTED_CLAIM]->(r)
