// Candidate pool size, causal pattern: ordered pairs of claims of two different documents
// that form a causal chain (rounds/causes.py `chained`): the first claim's effect is the
// event the second claim gives as its cause — the second cause's head stem is a head of the
// first effect and every stem of the second cause occurs in the first effect. The stems
// were computed when the claims were linked. $graphs: [{query_id, versions: [version ids]}].
UNWIND $graphs AS g
CALL (g) {
  MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
  WHERE v.id IN g.versions AND size(coalesce(c.effect_stems, [])) > 0
  RETURN collect({version: v.id, heads: c.effect_heads, stems: c.effect_stems}) AS firsts
}
CALL (g) {
  MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
  WHERE v.id IN g.versions AND size(coalesce(c.cause_stems, [])) > 0
  RETURN collect({version: v.id, stems: c.cause_stems}) AS seconds
}
UNWIND firsts AS a
UNWIND seconds AS b
WITH g, a, b
WHERE a.version <> b.version AND b.stems[0] IN a.heads
  AND all(s IN b.stems WHERE s IN a.stems)
RETURN g.query_id AS query_id, count(*) AS k
