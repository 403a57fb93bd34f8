// A page's own subject: the entity its title names.
UNWIND $rows AS row
MATCH (d:Document {id: row.document_id})
MATCH (e:NamedEntity {id: row.entity_id})
MERGE (e)-[:SUBJECT_OF]->(d)
