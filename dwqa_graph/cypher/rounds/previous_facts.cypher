// The facts the items of round $t used: the previous round a new round avoids (or, for the
// leak-transfer curve's heavy-reuse settings, prefers). Each comes with every other fact
// that states the same thing -- the same subject, relation, verb, object, year and value,
// read from another sentence or page ("It was founded in 1949" on the studio's page, "the
// studio was founded in 1949" on its founder's): a model that learned one learned the
// other, and a round that avoided only the ids asked the same question again. And every
// fact read from a sentence those items used: a leaked item carries its evidence spans, so
// a model that learned "Anton Reske founded Nordlicht Studios in 1949" for the founder
// learned the founding year too. Empty when round $t does not exist or holds no items yet
// (still generating).
MATCH (:Round {t: $t})-[:CONTAINS]->(:QAItem)-[:USES]->(f:Fact)-[:SUBJECT]->(s:NamedEntity)
OPTIONAL MATCH (f)-[:OBJECT]->(o:NamedEntity)
WITH DISTINCT f, s, o
MATCH (s)<-[:SUBJECT]-(g:Fact {relation: f.relation})
WHERE coalesce(g.verb, '') = coalesce(f.verb, '')
  AND coalesce(g.year, -1) = coalesce(f.year, -1)
  AND coalesce(g.value, -1.0) = coalesce(f.value, -1.0)
OPTIONAL MATCH (g)-[:OBJECT]->(go:NamedEntity)
WITH g, o, go
WHERE (o IS NULL AND go IS NULL) OR o = go
RETURN g.id AS id
UNION
MATCH (:Round {t: $t})-[:CONTAINS]->(:QAItem)-[:USES]->(f:Fact)-[:READ_FROM]->(v:DocumentVersion)
MATCH (v)<-[:READ_FROM]-(g:Fact {start: f.start})
RETURN g.id AS id
