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
      AND NOT (f1.relation = 'event' AND f2.relation = 'event')
    RETURN s, null AS work, f1, f2, [] AS links, 2 AS spread
    UNION
    // two events: every two askable ones (worded, one year) of the subject, in different
    // years. The events are grouped by year once and each group paired with the later ones.
    // (Not consecutive years only: a fresh round, which needs a fact its previous round did
    // not compute from, then finds nearly none on the pages many seed graphs share -- a
    // round asks each path once, so every graph of a page takes another pair and the pairs
    // take all the page's facts.)
    MATCH (v:DocumentVersion)<-[:READ_FROM]-(e:Fact {relation: 'event'})-[:SUBJECT]->
          (s:NamedEntity)
    WHERE v.id IN g.versions AND e.phrase IS NOT NULL AND ['event', 'event'] IN $pairs
      AND NOT s.generic AND COUNT { (s)-[:SUBJECT_OF]->() } <= 1
    WITH s, e.phrase AS phrase,
         collect({f: e, v: v.id, y: coalesce(e.year, toInteger(left(e.when, 4)))}) AS es
    // askable: the phrase has one year in the graph
    WHERE all(x IN es WHERE x.y IS NOT NULL AND x.y = es[0].y)
    UNWIND es AS x
    WITH s, x.y AS y, collect(x) AS at
    ORDER BY y
    WITH s, collect(at) AS years
    UNWIND range(0, size(years) - 2) AS i
    UNWIND range(i + 1, size(years) - 1) AS j
    UNWIND years[i] AS a
    UNWIND years[j] AS b
    WITH s, a, b WHERE NOT (a.v = b.v AND a.f.start = b.f.start)
    RETURN s, null AS work, a.f AS f1, b.f AS f2, [] AS links, 2 AS spread
    UNION
    MATCH (v0:DocumentVersion)<-[:READ_FROM]-(l:Fact)-[:OBJECT]->(s:NamedEntity),
          (l)-[:SUBJECT]->(work:NamedEntity)
    WHERE v0.id IN g.versions AND l.relation IN $makers AND NOT s.generic
      // "its writer" names one of two where the credit is shared with someone unnamed
      AND coalesce(l.shared, false) = false
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
    // the sentences the three facts come from: a credit its work's date's sentence states
    // too ("Musk founded SpaceX in May 2002") is no hop of its own
    WITH s, work, f1, f2, l, [v1.id + ':' + f1.start, v2.id + ':' + f2.start,
                              v0.id + ':' + l.start] AS at
    RETURN s, work, f1, f2, [l.id] AS links,
           size(reduce(seen = [], x IN at | CASE WHEN x IN seen THEN seen ELSE seen + x END))
             AS spread
  }
  // each date is the only year of its relation (an event: of its phrase) for its subject:
  // the relations with one year are listed once per subject, not searched once per pair
  WITH g, s, collect({work: work, f1: f1, f2: f2, links: links, spread: spread}) AS found
  CALL (g, s) {
    MATCH (s)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
    WHERE w.id IN g.versions
    WITH h.relation AS relation, coalesce(h.phrase, '') AS phrase,
         collect(DISTINCT [coalesce(h.year, toInteger(left(h.when, 4)))]) AS years
    WHERE size(years) = 1
    RETURN collect([relation, phrase]) AS one_year
  }
  UNWIND found AS p
  WITH g, s, p.work AS work, p.f1 AS f1, p.f2 AS f2, p.links AS links, p.spread AS spread,
       one_year
  WHERE [f1.relation, coalesce(f1.phrase, '')] IN one_year
    // the second date: one year for its relation (and its object: "won the Oscar"), of the
    // work where it is the work's
    AND CASE WHEN work IS NULL AND NOT EXISTS { (f2)-[:OBJECT]->() }
        THEN [f2.relation, coalesce(f2.phrase, '')] IN one_year
        ELSE COUNT { MATCH (x:NamedEntity)<-[:SUBJECT]-(h:Fact)-[:READ_FROM]->(w:DocumentVersion)
                     WHERE x = coalesce(work, s) AND w.id IN g.versions
                       AND h.relation = f2.relation
                       AND coalesce(h.phrase, '') = coalesce(f2.phrase, '')
                       AND (NOT EXISTS { (f2)-[:OBJECT]->() }
                            OR EXISTS { (f2)-[:OBJECT]->(:NamedEntity)<-[:OBJECT]-(h) })
                     RETURN DISTINCT coalesce(h.year, toInteger(left(h.when, 4))) } = 1
        END
    // nothing after a death but the death itself: "What age did Elvis Presley turn in the
    // year he was awarded the Presidential Medal of Freedom?" (2018; he died in 1977) asks a
    // dead man's age, and "How many years after being elected to the Senate did Martin Van
    // Buren appear in the Presidential dollar coin series?" (1821, 2008; he died in 1862)
    // counts nothing of his life: a posthumous honour is no event of it
    AND (f1.relation = 'died' OR NOT EXISTS {
          MATCH (s)<-[:SUBJECT]-(d:Fact {relation: 'died'})-[:READ_FROM]->(w:DocumentVersion)
          WHERE w.id IN g.versions AND d.year IS NOT NULL
            AND d.year < coalesce(f2.year, toInteger(left(f2.when, 4))) })
  // a fixed choice, from the fewest sentences: the path's hops are the sentences a reader
  // needs, and a credit told again in another sentence adds none
  WITH g, s, work, f1, f2, links ORDER BY spread, f1.id, f2.id, links
  WITH g, s, work, f1.relation AS r1, f2.relation AS r2, f1.phrase AS p1, f2.phrase AS p2,
       collect([f1.id, f2.id] + links) AS alternatives
  RETURN 'temporal' AS form, alternatives[0] AS facts, work.id AS link
}
RETURN g.query_id AS query_id, form, facts, link, true AS across_documents
ORDER BY query_id, facts
