// Record that an extractor processed a version (also when it found nothing usable).
UNWIND $rows AS row
MATCH (v:DocumentVersion {id: row.id})
SET v.claim_extractors = CASE WHEN row.extractor IN coalesce(v.claim_extractors, [])
                              THEN v.claim_extractors
                              ELSE coalesce(v.claim_extractors, []) + row.extractor END,
    v.claims_count = row.claims, v.claims_rejected = row.rejected
