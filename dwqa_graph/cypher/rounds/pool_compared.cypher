// Candidate pool size, comparison pattern (comparable subjects): unordered pairs of events
// from two different documents with the same "<event>|<kind>" key (Claim.compared: a lead
// sentence's event of its title subject, rounds/kinds.py) and different years, of two
// different subjects not both named in the seed question (the seed's own question is not
// asked again). The same rule as sampling._compared_pairs / kinds.comparable_pairs.
UNWIND $graphs AS g
MATCH (q:Query {id: g.query_id})
MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
WHERE v.id IN g.versions AND size(coalesce(c.compared, [])) > 0
WITH g, toLower(q.text) AS question, collect({v: v.id, c: c}) AS leads
UNWIND leads AS a
UNWIND leads AS b
WITH g, question, a, b
WHERE a.v < b.v AND toLower(a.c.compared_subject) <> toLower(b.c.compared_subject)
  AND NOT (question CONTAINS toLower(a.c.compared_subject)
           AND question CONTAINS toLower(b.c.compared_subject))
UNWIND range(0, size(a.c.compared) - 1) AS i
UNWIND range(0, size(b.c.compared) - 1) AS j
WITH g, a, b, i, j
WHERE a.c.compared[i] = b.c.compared[j] AND a.c.compared_years[i] <> b.c.compared_years[j]
RETURN g.query_id AS query_id, count(*) AS k
