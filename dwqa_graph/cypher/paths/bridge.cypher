// Bridge (compositional) paths: a fact of A whose object is entity B ("Titanic
// -directed_by-> James Cameron"), then a fact of B ("James Cameron -born-> 1954"), asked
// naming A only: "In what year was the director of Titanic born?". Listed only when the
// answer is unique in the seed graph: A has one object for the first relation, B one value
// for the second (dates by year); B is not generic and no two pages' subject (two people of
// one name); the two facts come from different sentences. One row per (A, relation, B,
// relation): the two facts from different documents where the graph has such a pair.
// Parameters: $graphs [{query_id, versions}], $first, $second (the relations the
// templates word as first and second hop, rounds/forms/bridge.py).
UNWIND $graphs AS g
CALL (g) {
  MATCH (v1:DocumentVersion)<-[:READ_FROM]-(f1:Fact)
  WHERE v1.id IN g.versions AND f1.relation IN $first
    // a credit shared with someone the reader has no entity for names one of two
    AND coalesce(f1.shared, false) = false
  MATCH (f1)-[:SUBJECT]->(a:NamedEntity), (f1)-[:OBJECT]->(b:NamedEntity)
  WHERE a <> b AND NOT a.generic AND NOT b.generic
    AND COUNT { (b)-[:SUBJECT_OF]->() } <= 1
  MATCH (b)<-[:SUBJECT]-(f2:Fact)-[:READ_FROM]->(v2:DocumentVersion)
  WHERE v2.id IN g.versions AND f2.relation IN $second
    AND NOT (v1 = v2 AND f1.start = f2.start)
  OPTIONAL MATCH (f2)-[:OBJECT]->(o:NamedEntity)
  WITH g, f1, f2, v1, v2, a, b, o
  WHERE (f2.object_kind = 'entity') = (o IS NOT NULL)
    AND (o IS NULL OR (o <> a AND o <> b AND NOT o.generic))
  WITH g, f1, f2, v1, v2, a, b, o,
       COUNT { MATCH (a)<-[:SUBJECT]-(h:Fact)-[:OBJECT]->(x:NamedEntity),
                     (h)-[:READ_FROM]->(w:DocumentVersion)
               WHERE w.id IN g.versions AND h.relation = f1.relation
               RETURN DISTINCT x } AS firsts,
       COUNT { MATCH (b)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
               WHERE w.id IN g.versions AND h.relation = f2.relation
               OPTIONAL MATCH (h)-[:OBJECT]->(x:NamedEntity)
               RETURN DISTINCT coalesce(x.id, toString(h.year), toString(h.value)) AS v }
         AS answers
  WHERE firsts = 1 AND answers = 1
  // one fixed choice among facts that state the same (the lead's lifespan and "X died
  // in ..."): the rows' order is the database's, and a round must not depend on it
  WITH g, a, b, f1, f2, v1, v2 ORDER BY f1.id, f2.id
  WITH g, a, b, f1.relation AS r1, f2.relation AS r2,
       collect({first: f1.id, second: f2.id, cross: v1 <> v2}) AS alternatives
  WITH g, a, b, r1, r2,
       [x IN alternatives WHERE x.cross] + [x IN alternatives WHERE NOT x.cross] AS ranked
  RETURN 'bridge' AS form, [ranked[0].first, ranked[0].second] AS facts, b.id AS link,
         ranked[0].cross AS across_documents
}
RETURN g.query_id AS query_id, form, facts, link, across_documents
ORDER BY query_id, facts
