// Record which extractor (and rules version) read a version's facts, and how many it found.
UNWIND $rows AS row
MATCH (v:DocumentVersion {id: row.id})
SET v.facts_extractor = row.extractor, v.facts_count = row.facts
