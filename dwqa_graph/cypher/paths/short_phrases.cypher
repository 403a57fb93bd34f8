// How the events of these seed graphs may be worded, given their short phrases
// (``Fact.short_phrase``: "signed for Real Madrid" for "signed for Real Madrid in a record
// transfer"). Per graph:
// - usable: events whose short phrase still names one event of the subject -- no other
//   event of it in the graph's documents, worded the same by its short or its full
//   phrase, has another year;
// - ambiguous: events whose full phrase is another event's short phrase with another year
//   ("signed for Real Madrid", 2021, when 2009's was "... in a record transfer"): the
//   question would name both. (Two full phrases alike are the path queries' own check.)
// Parameter: $graphs [{query_id, versions}].
UNWIND $graphs AS g
CALL (g) {
  MATCH (v:DocumentVersion)<-[:READ_FROM]-(e:Fact {relation: 'event'})-[:SUBJECT]->
        (s:NamedEntity)
  WHERE v.id IN g.versions AND e.phrase IS NOT NULL
  UNWIND [x IN [e.phrase, e.short_phrase] WHERE x IS NOT NULL | toLower(x)] AS worded
  WITH s, worded, collect({f: e, y: coalesce(e.year, toInteger(left(e.when, 4)))}) AS es
  WITH worded, es, all(x IN es WHERE x.y IS NOT NULL AND x.y = es[0].y) AS one_year
  UNWIND es AS x
  WITH x.f AS e, worded, one_year
  RETURN collect(DISTINCT CASE WHEN one_year AND toLower(e.short_phrase) = worded
                               THEN e.id END) AS usable,
         collect(DISTINCT CASE WHEN NOT one_year AND toLower(e.phrase) = worded
                               THEN e.id END) AS ambiguous
}
RETURN g.query_id AS query_id, usable, ambiguous
