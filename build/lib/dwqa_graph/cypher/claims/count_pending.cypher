// How many versions extractor $extractor still has to process (for the progress bar).
MATCH (:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE v.text IS NOT NULL AND size(v.text) > 0
  AND NOT $extractor IN coalesce(v.claim_extractors, [])
RETURN count(v) AS n
