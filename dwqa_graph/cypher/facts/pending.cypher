// Versions with text whose facts were not read by $extractor (or by an older version of
// it), paged by id: the first $max_chars + 1 characters of the text (one more than is read
// says whether the text goes on past them: its cut sentence is left out), the claims in
// text order (the offline extractor links facts to them; the LLM extractor reads them:
// $claims_only keeps the versions that have some) and the title: the page's own, which
// names its subject, before the one the agent's log gave ("Low Water - SomeWiki").
MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE v.id > $after AND coalesce(v.facts_extractor, '') <> $extractor
  AND size(coalesce(v.text, '')) > 0
  AND (NOT $claims_only OR EXISTS { (v)-[:HAS_CLAIM]->(:Claim) })
WITH d, v ORDER BY v.id LIMIT $limit
CALL (v) {
  OPTIONAL MATCH (v)-[:HAS_CLAIM]->(c:Claim)
  WITH c ORDER BY c.start, c.end
  RETURN collect(c {.id, .start, .end, .span}) AS claims  // a null c (no claims) is skipped
}
RETURN v.id AS id, d.id AS document_id, coalesce(v.title, d.title) AS title,
       left(v.text, $max_chars + 1) AS text, claims
ORDER BY v.id
