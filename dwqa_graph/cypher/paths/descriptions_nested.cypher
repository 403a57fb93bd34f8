// Descriptions through a maker: an entity picked out by who made it and one fact of that maker
// read from another document ("the film written by a person born in Kellhaven"), listed only
// where exactly one entity of its type in the whole database has a maker of that relation with
// that fact (the same relation to the same object, or in the same year): a novelist born there
// who wrote two films, one in another seed graph, describes neither. As in descriptions.cypher,
// every fact counts against it, a description uses no uncertain fact, and the
// entity is not generic and no two pages' subject; the maker is not the entity and not generic.
// Row: query_id, entity, facts [the entity's fact naming the maker, the maker's fact].
// Parameters: $graphs [{query_id, versions}], $makers (relations to a maker), $describe
// (relations a maker's fact may state).
UNWIND $graphs AS g
CALL (g) {
  MATCH (v1:DocumentVersion)<-[:READ_FROM]-(d1:Fact)-[:SUBJECT]->(e:NamedEntity),
        (d1)-[:OBJECT]->(y:NamedEntity)<-[:SUBJECT]-(d2:Fact)-[:READ_FROM]->(v2:DocumentVersion)
  WHERE v1.id IN g.versions AND v2.id IN g.versions AND v1 <> v2
    AND d1.relation IN $makers AND d2.relation IN $describe
    AND coalesce(d1.uncertain, false) = false AND coalesce(d2.uncertain, false) = false
    AND NOT e.generic AND NOT y.generic AND y <> e
    AND COUNT { (e)-[:SUBJECT_OF]->() } <= 1
  WITH g, e, d1, y, d2,
       coalesce([(d2)-[:OBJECT]->(o:NamedEntity) WHERE NOT o.generic | o.id][0],
                toString(d2.year)) AS k2
  WHERE k2 IS NOT NULL AND k2 <> e.id AND k2 <> y.id
    AND COUNT { MATCH (x:NamedEntity)<-[:SUBJECT]-(h1:Fact)-[:OBJECT]->(z:NamedEntity)
                      <-[:SUBJECT]-(h2:Fact)
                WHERE x.type = e.type
                  AND h1.relation = d1.relation AND h2.relation = d2.relation
                  AND coalesce([(h2)-[:OBJECT]->(o:NamedEntity) | o.id][0],
                               toString(h2.year)) = k2
                RETURN DISTINCT x } = 1
  // one fixed choice among facts that state the same from several sentences
  WITH g, e, d1, d2, y, k2 ORDER BY d1.id, d2.id
  WITH g, e, d1.relation AS r1, y, d2.relation AS r2, k2, collect([d1.id, d2.id]) AS alternatives
  RETURN e.id AS entity, alternatives[0] AS facts
}
RETURN g.query_id AS query_id, entity, facts
ORDER BY query_id, entity, facts
