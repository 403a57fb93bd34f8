// How many versions the facts stage would read for $extractor.
MATCH (v:DocumentVersion)
WHERE coalesce(v.facts_extractor, '') <> $extractor AND EXISTS { (v)-[:HAS_CLAIM]->(:Claim) }
RETURN count(v) AS n
