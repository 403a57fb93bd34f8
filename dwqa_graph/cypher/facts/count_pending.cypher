// How many versions the facts stage would read for $extractor ($claims_only: only those
// with claims, as the LLM extractor reads).
MATCH (v:DocumentVersion)
WHERE coalesce(v.facts_extractor, '') <> $extractor AND size(coalesce(v.text, '')) > 0
  AND (NOT $claims_only OR EXISTS { (v)-[:HAS_CLAIM]->(:Claim) })
RETURN count(v) AS n
