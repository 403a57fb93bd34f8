// Fact reuse between consecutive rounds: per pair (prev, next), how many of round next's
// items use at least one fact (any_reused) / only facts (all_reused) that some item of round
// prev used. Parameters: $pairs = [{prev, next}].
UNWIND $pairs AS p
MATCH (:Round {t: p.next})-[:CONTAINS]->(i:QAItem)
CALL (i, p) {
  MATCH (i)-[:USES]->(f:Fact)
  CALL (f, p) {
    OPTIONAL MATCH (f)<-[:USES]-(j:QAItem)<-[:CONTAINS]-(:Round {t: p.prev})
    RETURN count(j) > 0 AS seen
  }
  RETURN count(f) AS facts, sum(CASE WHEN seen THEN 1 ELSE 0 END) AS seen
}
RETURN p.prev AS prev, p.next AS next, count(i) AS items,
       sum(CASE WHEN seen > 0 THEN 1 ELSE 0 END) AS any_reused,
       sum(CASE WHEN facts > 0 AND seen = facts THEN 1 ELSE 0 END) AS all_reused
ORDER BY prev, next
