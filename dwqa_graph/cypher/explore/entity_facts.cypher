// One entity's facts (as subject or object) with their evidence spans, by
// document and position. Parameter: $entity (a name), matched case-insensitively against resolved entity names.
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit the
// value after => to choose. `dwqa query entity_facts --param entity=...` overrides it.
:param entity => 'James Cameron';
MATCH (e:NamedEntity) WHERE toLower(e.name) = toLower($entity)
MATCH (f:Fact)-[r:SUBJECT|OBJECT]->(e)
MATCH (f)-[:READ_FROM]->(:DocumentVersion)<-[:HAS_VERSION]-(d:Document)
OPTIONAL MATCH (f)-[:SUBJECT]->(s:NamedEntity)
OPTIONAL MATCH (f)-[:OBJECT]->(o:NamedEntity)
RETURN type(r) AS role, s.name AS subject, f.relation AS relation, f.verb AS verb,
       coalesce(o.name, f.date, toString(f.value) + ' ' + coalesce(f.unit, '')) AS object,
       f.when AS when, f.evidence AS evidence, f.start AS start, f.end AS end,
       d.title AS document, f.extractor AS extractor
ORDER BY document, start
LIMIT 200
