// Linked comparisons: the same dated relation (born, released, founded ...) of two subjects
// that share a named link in the graph -- the same object of the same relation (same
// director, same band, same birthplace), or one is the other's object (married, founded by)
// -- never two strangers of one type. Each subject has one year for the relation in the
// graph and the years differ. Row: the two dated facts, then the link facts.
// Parameters: $graphs [{query_id, versions}], $links (shared-object relations), $direct
// (subject-to-subject relations), $dated.
UNWIND $graphs AS g
CALL (g) {
  CALL (g) {
    MATCH (v1:DocumentVersion)<-[:READ_FROM]-(l1:Fact)-[:OBJECT]->(link:NamedEntity)
          <-[:OBJECT]-(l2:Fact)-[:READ_FROM]->(v2:DocumentVersion)
    WHERE v1.id IN g.versions AND v2.id IN g.versions AND l1.relation IN $links
      AND l2.relation = l1.relation AND NOT link.generic
    MATCH (l1)-[:SUBJECT]->(a:NamedEntity), (l2)-[:SUBJECT]->(b:NamedEntity)
    WHERE a.id < b.id AND a.type = b.type AND link <> a AND link <> b
    RETURN a, b, link, [l1.id, l2.id] AS links
    UNION
    MATCH (v1:DocumentVersion)<-[:READ_FROM]-(l1:Fact)-[:OBJECT]->(b:NamedEntity),
          (l1)-[:SUBJECT]->(a:NamedEntity)
    WHERE v1.id IN g.versions AND l1.relation IN $direct AND a <> b
    RETURN a, b, null AS link, [l1.id] AS links
  }
  WITH g, a, b, link, links
  WHERE NOT a.generic AND NOT b.generic
    AND COUNT { (a)-[:SUBJECT_OF]->() } <= 1 AND COUNT { (b)-[:SUBJECT_OF]->() } <= 1
  MATCH (a)<-[:SUBJECT]-(fa:Fact)-[:READ_FROM]->(wa:DocumentVersion),
        (b)<-[:SUBJECT]-(fb:Fact)-[:READ_FROM]->(wb:DocumentVersion)
  WHERE wa.id IN g.versions AND wb.id IN g.versions AND fa.relation IN $dated
    AND fb.relation = fa.relation AND fa.year IS NOT NULL AND fb.year IS NOT NULL
    AND fa.year <> fb.year AND NOT (wa = wb AND fa.start = fb.start)
  WITH g, a, b, link, links, fa, fb,
       COUNT { MATCH (a)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
               WHERE w.id IN g.versions AND h.relation = fa.relation
               RETURN DISTINCT h.year } AS ya,
       COUNT { MATCH (b)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
               WHERE w.id IN g.versions AND h.relation = fb.relation
               RETURN DISTINCT h.year } AS yb
  WHERE ya = 1 AND yb = 1
  WITH g, a, b, link, links, fa, fb ORDER BY fa.id, fb.id, link.id, links  // a fixed choice
  WITH g, a, b, fa.relation AS r, collect({facts: [fa.id, fb.id] + links,
                                           link: link.id}) AS alternatives
  RETURN 'comparison' AS form, alternatives[0].facts AS facts, alternatives[0].link AS link
}
RETURN g.query_id AS query_id, form, facts, link, true AS across_documents
ORDER BY query_id, facts
