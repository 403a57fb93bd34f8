// Before a version's facts are written again: remove that extractor family's earlier facts
// of the version (a re-run with a new rules version replaces them; other families stay).
// A fact a QA item USES is kept as the item's provenance (its evidence, READ_FROM and
// SUPPORTED_BY), but retired: without SUBJECT/OBJECT it is in no path again; the same fact
// read again (same id: same extractor) comes back (facts/write).
UNWIND $rows AS row
MATCH (f:Fact {version_id: row.id})
WHERE f.family = row.family
CALL (f) {
  WITH f WHERE EXISTS { (f)<-[:USES]-(:QAItem) }
  OPTIONAL MATCH (f)-[e:SUBJECT|OBJECT]->()
  DELETE e
  SET f.retired = true
}
CALL (f) {
  WITH f WHERE NOT EXISTS { (f)<-[:USES]-(:QAItem) }
  DETACH DELETE f
}
