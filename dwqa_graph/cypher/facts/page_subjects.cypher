// A page's own subject: the entity its title names, with the pronoun the page's text uses
// for it ("he", "she"; null where the text does not say): a question names a person once,
// then by it.
UNWIND $rows AS row
MATCH (d:Document {id: row.document_id})
MATCH (e:NamedEntity {id: row.entity_id})
MERGE (e)-[r:SUBJECT_OF]->(d)
SET r.pronoun = row.pronoun
