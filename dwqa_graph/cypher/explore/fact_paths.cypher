// Bridge (compositional) paths in each seed graph: a fact of A whose object is entity B,
// then a fact of B — "In what year was the director of Titanic born?". A path is listed
// only if its answer is unique in the graph: A has one object for the first relation, B one
// value for the second, and B is no two pages' subject (two people of one name). Generic
// entities (countries, states) never bridge. Parameter: $dataset (null for every dataset).
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit the
// value after => to choose. `dwqa query fact_paths --param dataset=...` overrides it.
:param dataset => null;
MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
CALL (q) {
  MATCH (q)-[:RETRIEVE]->(:Document)-[:HAS_VERSION]->(:DocumentVersion)<-[:READ_FROM]-(f:Fact)
  RETURN collect(DISTINCT f) AS facts
}
CALL (facts) {
  UNWIND facts AS f1
  MATCH (f1)-[:SUBJECT]->(a:NamedEntity), (f1)-[:OBJECT]->(b:NamedEntity)
  WHERE NOT b.generic AND a <> b AND COUNT { (b)-[:SUBJECT_OF]->() } <= 1
  MATCH (f2:Fact)-[:SUBJECT]->(b)
  WHERE f2 IN facts AND f2.relation <> 'event'
  OPTIONAL MATCH (f2)-[:OBJECT]->(o:NamedEntity)
  WITH f1, f2, a, b, o WHERE o IS NULL OR o <> a
  WITH f1, f2, a, b, o,
       COUNT { MATCH (a)<-[:SUBJECT]-(g:Fact)-[:OBJECT]->(x)
               WHERE g IN facts AND g.relation = f1.relation RETURN DISTINCT x } AS firsts,
       COUNT { MATCH (b)<-[:SUBJECT]-(g:Fact) WHERE g IN facts AND g.relation = f2.relation
               OPTIONAL MATCH (g)-[:OBJECT]->(x)
               RETURN DISTINCT coalesce(x.id, toString(g.year), toString(g.value)) AS v }
         AS answers
  WHERE firsts = 1 AND answers = 1
  RETURN a.name AS subject, f1.relation AS first, b.name AS bridge, f2.relation AS second,
         coalesce(o.name, f2.date, toString(f2.value) + ' ' + coalesce(f2.unit, ''))
           AS answer,
         f1.version_id <> f2.version_id AS across_documents,
         f1.evidence AS first_evidence, f2.evidence AS second_evidence
}
RETURN q.id AS query_id, q.dataset AS dataset, left(q.text, 80) AS question,
       subject, first, bridge, second, answer, across_documents, first_evidence,
       second_evidence
ORDER BY query_id, subject, first, second
LIMIT 1000
