// Intersection paths: the one entity X of the seed graph with a fact "X -relation-> O"
// (directed by O, written by O, member of O ...) and a dated fact from another document
// ("X -released-> 1997"): "What did James Cameron direct that was released in 1997?". No
// other entity of the graph has both; `others` counts the graph's other entities with the
// first clue alone (a clue that leaves >= 1 rival in the graph alone is known not to be a
// shortcut). Parameters: $graphs [{query_id, versions}], $clues, $dated.
UNWIND $graphs AS g
CALL (g) {
  MATCH (v1:DocumentVersion)<-[:READ_FROM]-(f1:Fact)-[:OBJECT]->(o:NamedEntity)
  WHERE v1.id IN g.versions AND f1.relation IN $clues AND NOT o.generic
  MATCH (f1)-[:SUBJECT]->(x:NamedEntity)
  WHERE x <> o AND NOT x.generic AND COUNT { (x)-[:SUBJECT_OF]->() } <= 1
  MATCH (x)<-[:SUBJECT]-(f2:Fact)-[:READ_FROM]->(v2:DocumentVersion)
  WHERE v2.id IN g.versions AND v2 <> v1 AND f2.relation IN $dated AND f2.year IS NOT NULL
  WITH g, o, x, f1, f2,
       COUNT { MATCH (x)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
               WHERE w.id IN g.versions AND h.relation = f2.relation
               RETURN DISTINCT h.year } AS years,
       COUNT { MATCH (o)<-[:OBJECT]-(h:Fact)-[:SUBJECT]->(y:NamedEntity),
                     (h)-[:READ_FROM]->(w:DocumentVersion)
               WHERE w.id IN g.versions AND h.relation = f1.relation AND y <> x
               RETURN DISTINCT y } AS others,
       COUNT { MATCH (o)<-[:OBJECT]-(h:Fact)-[:SUBJECT]->(y:NamedEntity),
                     (h)-[:READ_FROM]->(w:DocumentVersion),
                     (y)<-[:SUBJECT]-(k:Fact)-[:READ_FROM]->(w2:DocumentVersion)
               WHERE w.id IN g.versions AND w2.id IN g.versions AND y <> x
                 AND h.relation = f1.relation AND k.relation = f2.relation
                 AND k.year = f2.year
               RETURN DISTINCT y } AS rivals
  WHERE years = 1 AND rivals = 0
  WITH g, o, x, f1, f2, others ORDER BY f1.id, f2.id  // a fixed choice among alternatives
  WITH g, o, x, f1.relation AS r1, f2.relation AS r2, others,
       collect([f1.id, f2.id]) AS alternatives
  RETURN 'intersection' AS form, alternatives[0] AS facts, o.id AS link, others,
         true AS across_documents
}
RETURN g.query_id AS query_id, form, facts, link, others, across_documents
ORDER BY query_id, facts
