// A round's items as evaluation sees them: question, gold answer, pattern, hops.
MATCH (:Round {t: $t})-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query)
RETURN i.id AS id, i.question AS question, i.answer AS answer, i.pattern AS pattern,
       i.hops AS hops, q.id AS query_id
ORDER BY query_id
