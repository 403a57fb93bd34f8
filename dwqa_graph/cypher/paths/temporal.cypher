// Temporal paths: two dated facts of one subject, the first earlier (born and died, founded
// and opened, born and won, two events worded by their phrases ...), or a person's birth and a dated fact of a work or
// organisation they are linked to ("Titanic -directed_by-> James Cameron", born 1954,
// released 1997: "How old was the director of Titanic when it was released?"). Each date
// is the only year of its relation (an event: of its phrase) for its subject in the graph;
// the facts come from different sentences. Parameters: $graphs [{query_id, versions}], $pairs ([[first,
// second]] relation pairs of one subject), $makers (work -> person relations), $works (the
// work's dated relations).
UNWIND $graphs AS g
CALL (g) {
  CALL (g) {
    MATCH (v1:DocumentVersion)<-[:READ_FROM]-(f1:Fact)-[:SUBJECT]->(s:NamedEntity)
          <-[:SUBJECT]-(f2:Fact)-[:READ_FROM]->(v2:DocumentVersion)
    WHERE v1.id IN g.versions AND v2.id IN g.versions AND [f1.relation, f2.relation] IN $pairs
      AND coalesce(f1.year, toInteger(left(f1.when, 4)))
          < coalesce(f2.year, toInteger(left(f2.when, 4)))
      AND NOT (v1 = v2 AND f1.start = f2.start)
      AND (f1.relation <> 'event' OR f1.phrase IS NOT NULL)
      AND (f2.relation <> 'event' OR f2.phrase IS NOT NULL)
      AND NOT s.generic AND COUNT { (s)-[:SUBJECT_OF]->() } <= 1
      // two events: consecutive ones (no other askable event of the subject -- worded, one
      // year -- in a year between): "how long after A did B happen" over a life's
      // neighbouring events, and a page of n events gives about n pairs, not n^2
      AND (f1.relation <> 'event' OR f2.relation <> 'event' OR NOT EXISTS {
             MATCH (s)<-[:SUBJECT]-(h:Fact {relation: 'event'})-[:READ_FROM]->(w:DocumentVersion)
             WHERE w.id IN g.versions AND h.phrase IS NOT NULL AND f1.year < h.year < f2.year
               AND NOT EXISTS {
                 MATCH (s)<-[:SUBJECT]-(o:Fact {relation: 'event', phrase: h.phrase})
                       -[:READ_FROM]->(u:DocumentVersion)
                 WHERE u.id IN g.versions AND o.year <> h.year } })
    RETURN s, null AS work, f1, f2, [] AS links
    UNION
    MATCH (v0:DocumentVersion)<-[:READ_FROM]-(l:Fact)-[:OBJECT]->(s:NamedEntity),
          (l)-[:SUBJECT]->(work:NamedEntity)
    WHERE v0.id IN g.versions AND l.relation IN $makers AND NOT s.generic
      AND NOT work.generic AND work <> s AND COUNT { (s)-[:SUBJECT_OF]->() } <= 1
      AND COUNT { MATCH (work)<-[:SUBJECT]-(h:Fact)-[:OBJECT]->(x:NamedEntity),
                        (h)-[:READ_FROM]->(w:DocumentVersion)
                  WHERE w.id IN g.versions AND h.relation = l.relation
                  RETURN DISTINCT x } = 1
    MATCH (s)<-[:SUBJECT]-(f1:Fact {relation: 'born'})-[:READ_FROM]->(v1:DocumentVersion),
          (work)<-[:SUBJECT]-(f2:Fact)-[:READ_FROM]->(v2:DocumentVersion)
    WHERE v1.id IN g.versions AND v2.id IN g.versions AND f2.relation IN $works
      AND f1.year IS NOT NULL AND f2.year IS NOT NULL
      AND NOT (v1 = v2 AND f1.start = f2.start)
    RETURN s, work, f1, f2, [l.id] AS links
  }
  WITH g, s, work, f1, f2, links
  WHERE COUNT { MATCH (s)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
                WHERE w.id IN g.versions AND h.relation = f1.relation
                  AND coalesce(h.phrase, '') = coalesce(f1.phrase, '')
                RETURN DISTINCT coalesce(h.year, toInteger(left(h.when, 4))) } = 1
    // the second date: one year for its relation (and its object: "won the Oscar")
    AND COUNT { MATCH (x:NamedEntity)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
                WHERE x = coalesce(work, s) AND w.id IN g.versions
                  AND h.relation = f2.relation AND coalesce(h.phrase, '') = coalesce(f2.phrase, '')
                  AND (NOT EXISTS { (f2)-[:OBJECT]->() }
                       OR EXISTS { (f2)-[:OBJECT]->(:NamedEntity)<-[:OBJECT]-(h) })
                RETURN DISTINCT coalesce(h.year, toInteger(left(h.when, 4))) } = 1
  WITH g, s, work, f1, f2, links ORDER BY f1.id, f2.id, links  // a fixed choice
  WITH g, s, work, f1.relation AS r1, f2.relation AS r2, f1.phrase AS p1, f2.phrase AS p2,
       collect([f1.id, f2.id] + links) AS alternatives
  RETURN 'temporal' AS form, alternatives[0] AS facts, work.id AS link
}
RETURN g.query_id AS query_id, form, facts, link, true AS across_documents
ORDER BY query_id, facts
