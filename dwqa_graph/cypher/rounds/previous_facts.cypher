// The facts the items of round $t used: the previous round a new round avoids (or, for the
// leak-transfer curve's heavy-reuse settings, prefers). Empty when round $t does not exist
// or holds no items yet (still generating).
MATCH (:Round {t: $t})-[:CONTAINS]->(:QAItem)-[:USES]->(f:Fact)
RETURN DISTINCT f.id AS id
ORDER BY id
