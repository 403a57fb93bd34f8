// Before a version's facts are written again: remove that extractor family's earlier facts
// of the version (a re-run with a new rules version replaces them; other families stay).
UNWIND $rows AS row
MATCH (f:Fact {version_id: row.id})
WHERE f.family = row.family
DETACH DELETE f
