// Chains: entity -> entity hops ending in a fact of the last entity, asked naming the first
// only ("In what year did the spouse of the director of Titanic die?"), three or four facts
// (two facts are bridges, paths/bridge.cypher). Every hop is unique in the seed graph: its
// subject has exactly one object for its relation there, and the last entity exactly one
// value for the asked relation (dates by year). The entities of a chain are distinct, none
// generic and none the subject of two pages (two people of one name); its facts come from
// different sentences and none is one the reader marked uncertain (uniqueness counts those
// too: a second spouse the reader is unsure of still makes "the spouse of" ambiguous), and no
// hop is a credit its sentence shares with someone the reader has no entity for. One row per (entities,
// relations): the alternative reading the most documents.
// Parameters: $graphs [{query_id, versions}], $hops (relations a hop walks), $last
// (relations the last fact asks), $longest (the most facts a chain has, 3 or 4).
UNWIND $graphs AS g
CALL (g) {
  // the hops the graph allows: a subject with one object for the relation
  MATCH (v:DocumentVersion)<-[:READ_FROM]-(f:Fact)-[:SUBJECT]->(a:NamedEntity),
        (f)-[:OBJECT]->(b:NamedEntity)
  WHERE v.id IN g.versions AND f.relation IN $hops AND coalesce(f.uncertain, false) = false
    AND coalesce(f.shared, false) = false
    AND a <> b AND NOT a.generic AND NOT b.generic
    AND COUNT { (a)-[:SUBJECT_OF]->() } <= 1 AND COUNT { (b)-[:SUBJECT_OF]->() } <= 1
    AND COUNT { MATCH (a)<-[:SUBJECT]-(h:Fact)-[:OBJECT]->(x:NamedEntity),
                      (h)-[:READ_FROM]->(w:DocumentVersion)
                WHERE w.id IN g.versions AND h.relation = f.relation
                RETURN DISTINCT x } = 1
  WITH g, collect(f.id) AS steps
  // the facts a chain may end in: the entity has one answer for the relation
  MATCH (v:DocumentVersion)<-[:READ_FROM]-(f:Fact)-[:SUBJECT]->(c:NamedEntity)
  WHERE v.id IN g.versions AND f.relation IN $last AND coalesce(f.uncertain, false) = false
  OPTIONAL MATCH (f)-[:OBJECT]->(o:NamedEntity)
  WITH g, steps, f, c, o
  WHERE (f.object_kind = 'entity') = (o IS NOT NULL) AND (o IS NULL OR NOT o.generic)
    AND COUNT { MATCH (c)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
                WHERE w.id IN g.versions AND h.relation = f.relation
                OPTIONAL MATCH (h)-[:OBJECT]->(x:NamedEntity)
                RETURN DISTINCT coalesce(x.id, toString(h.year), toString(h.value)) AS ans } = 1
  WITH g, steps, collect(f.id) AS lasts
  CALL (g, steps, lasts) {
    MATCH (a:NamedEntity)<-[:SUBJECT]-(f1:Fact)-[:OBJECT]->(b:NamedEntity)
          <-[:SUBJECT]-(f2:Fact)-[:OBJECT]->(c:NamedEntity)<-[:SUBJECT]-(f3:Fact)
    WHERE f1.id IN steps AND f2.id IN steps AND f3.id IN lasts AND a <> c
    OPTIONAL MATCH (f3)-[:OBJECT]->(o:NamedEntity)
    WITH a, b, c, o, [f1, f2, f3] AS fs, [a.id, b.id, c.id] AS chain
    WHERE o IS NULL OR NOT o.id IN chain
    RETURN fs, chain
    UNION
    MATCH (a:NamedEntity)<-[:SUBJECT]-(f1:Fact)-[:OBJECT]->(b:NamedEntity)
          <-[:SUBJECT]-(f2:Fact)-[:OBJECT]->(c:NamedEntity)
          <-[:SUBJECT]-(f3:Fact)-[:OBJECT]->(d:NamedEntity)<-[:SUBJECT]-(f4:Fact)
    WHERE $longest >= 4 AND f1.id IN steps AND f2.id IN steps AND f3.id IN steps
      AND f4.id IN lasts AND a <> c AND a <> d AND b <> d
    OPTIONAL MATCH (f4)-[:OBJECT]->(o:NamedEntity)
    WITH a, b, c, d, o, [f1, f2, f3, f4] AS fs, [a.id, b.id, c.id, d.id] AS chain
    WHERE o IS NULL OR NOT o.id IN chain
    RETURN fs, chain
  }
  // facts from different sentences
  WITH g, fs, chain, [f IN fs | [(f)-[:READ_FROM]->(v:DocumentVersion) | v.id][0]] AS vs
  WITH g, fs, chain, vs,
       [i IN range(0, size(fs) - 1) | vs[i] + ':' + toString(fs[i].start)] AS sentences
  WHERE size(reduce(s = [], x IN sentences | CASE WHEN x IN s THEN s ELSE s + x END))
        = size(fs)
  WITH g, chain, [f IN fs | f.relation] AS rels, [f IN fs | f.id] AS ids,
       size(reduce(s = [], x IN vs | CASE WHEN x IN s THEN s ELSE s + x END))
         AS sources
  ORDER BY sources DESC, ids
  WITH g, chain, rels, collect(ids) AS alternatives, max(sources) AS sources
  RETURN 'chain' AS form, alternatives[0] AS facts, chain[1] AS link,
         sources > 1 AS across_documents
}
RETURN g.query_id AS query_id, form, facts, link, across_documents
ORDER BY query_id, facts
