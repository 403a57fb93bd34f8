// Facts with their subject, object and supporting claim.
UNWIND $rows AS row
MATCH (c:Claim {id: row.claim_id})
MATCH (s:NamedEntity {id: row.subject_id})
MERGE (f:Fact {id: row.props.id})
SET f += row.props
MERGE (f)-[:SUBJECT]->(s)
MERGE (f)-[:SUPPORTED_BY]->(c)
WITH f, row WHERE row.object_id IS NOT NULL
MATCH (o:NamedEntity {id: row.object_id})
MERGE (f)-[:OBJECT]->(o)
