// Descriptions: an entity picked out by two of its facts from different documents instead of
// its name ("the film released in 1997 and written by James Cameron"), listed only where
// exactly one entity of its type has both (the same relation to the same object, or in the
// same year) -- in the whole database, not only in the seed graph: a reader looks for the
// description on the web, where the other seed graphs' pages are too. Every fact counts
// against a description, even one the reader marked uncertain; a description itself uses
// none of those. The entity is not generic and no two pages' subject.
// Row: query_id, entity, facts [two fact ids].
// Parameters: $graphs [{query_id, versions}], $describe (relations a description states).
UNWIND $graphs AS g
CALL (g) {
  MATCH (v1:DocumentVersion)<-[:READ_FROM]-(d1:Fact)-[:SUBJECT]->(e:NamedEntity)
        <-[:SUBJECT]-(d2:Fact)-[:READ_FROM]->(v2:DocumentVersion)
  WHERE v1.id IN g.versions AND v2.id IN g.versions AND v1 <> v2
    AND d1.relation IN $describe AND d2.relation IN $describe AND d1.relation < d2.relation
    AND coalesce(d1.uncertain, false) = false AND coalesce(d2.uncertain, false) = false
    AND NOT e.generic AND COUNT { (e)-[:SUBJECT_OF]->() } <= 1
  WITH g, e, d1, d2,
       coalesce([(d1)-[:OBJECT]->(y:NamedEntity) WHERE NOT y.generic | y.id][0],
                toString(d1.year)) AS k1,
       coalesce([(d2)-[:OBJECT]->(y:NamedEntity) WHERE NOT y.generic | y.id][0],
                toString(d2.year)) AS k2
  WHERE k1 IS NOT NULL AND k2 IS NOT NULL AND k1 <> e.id AND k2 <> e.id
    AND COUNT { MATCH (x:NamedEntity)<-[:SUBJECT]-(h1:Fact), (x)<-[:SUBJECT]-(h2:Fact)
                WHERE x.type = e.type
                  AND h1.relation = d1.relation AND h2.relation = d2.relation
                  AND coalesce([(h1)-[:OBJECT]->(y:NamedEntity) | y.id][0],
                               toString(h1.year)) = k1
                  AND coalesce([(h2)-[:OBJECT]->(y:NamedEntity) | y.id][0],
                               toString(h2.year)) = k2
                RETURN DISTINCT x } = 1
  // one fixed choice among facts that state the same from several sentences
  WITH g, e, d1, d2, k1, k2 ORDER BY d1.id, d2.id
  WITH g, e, d1.relation AS r1, k1, d2.relation AS r2, k2, collect([d1.id, d2.id]) AS alternatives
  RETURN e.id AS entity, alternatives[0] AS facts
}
RETURN g.query_id AS query_id, entity, facts
ORDER BY query_id, entity, facts
