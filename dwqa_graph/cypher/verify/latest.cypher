// Per item of round $t, its latest verification (none if it was never verified): the
// status and the answer that holds now (evaluation scores against it).
MATCH (:Round {t: $t})-[:CONTAINS]->(i:QAItem)
CALL (i) {
  OPTIONAL MATCH (c:Verification)-[:OF]->(i)
  WITH c ORDER BY c.checked_at DESC LIMIT 1
  RETURN c
}
RETURN i.id AS id, c.status AS status, c.answer AS answer, c.run_id AS run_id,
       toString(c.checked_at) AS checked_at
