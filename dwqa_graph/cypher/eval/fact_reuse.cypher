// Fact reuse between consecutive rounds: per pair (prev, next), how many of round next's
// items use at least one fact (any_reused) / only facts (all_reused) read from a sentence
// that some item of round prev used (the fact itself, or another of its sentence: a leak
// carries the item's evidence spans whole). Parameters: $pairs = [{prev, next}].
UNWIND $pairs AS p
MATCH (:Round {t: p.next})-[:CONTAINS]->(i:QAItem)
CALL (i, p) {
  MATCH (i)-[:USES]->(f:Fact)
  CALL (f, p) {
    // two clauses: one pattern would never walk f's own READ_FROM twice, so g = f
    MATCH (f)-[:READ_FROM]->(v:DocumentVersion)
    OPTIONAL MATCH (v)<-[:READ_FROM]-(g:Fact {start: f.start})
                   <-[:USES]-(j:QAItem)<-[:CONTAINS]-(:Round {t: p.prev})
    RETURN count(j) > 0 AS seen
  }
  RETURN count(f) AS facts, sum(CASE WHEN seen THEN 1 ELSE 0 END) AS seen
}
RETURN p.prev AS prev, p.next AS next, count(i) AS items,
       sum(CASE WHEN seen > 0 THEN 1 ELSE 0 END) AS any_reused,
       sum(CASE WHEN facts > 0 AND seen = facts THEN 1 ELSE 0 END) AS all_reused
ORDER BY prev, next
