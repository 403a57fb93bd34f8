// Facts with their subject, object, the version they were read from and, where the claims
// stage kept their sentence, the claim that holds it. props carry every field of the fact
// model, `uncertain` (true or false, never absent on a fact written now) among them: a chain
// skips coalesce(f.uncertain, false) facts.
UNWIND $rows AS row
MATCH (v:DocumentVersion {id: row.version_id})
MATCH (s:NamedEntity {id: row.subject_id})
MERGE (f:Fact {id: row.props.id})
// the fact as read now: an empty field is a null in props, which removes the property (a
// re-read of the same fact by the same rules -- an id names the version, sentence,
// relation, subject, value and extractor, not every property -- keeps none the rules no
// longer give). `SET f = props` would do the same, but the path queries' plans over facts
// so written were 40 times slower (benchmarks/bench_round.py).
SET f += row.props
REMOVE f.retired
MERGE (f)-[:SUBJECT]->(s)
MERGE (f)-[:READ_FROM]->(v)
WITH f, row
CALL (f, row) {
  MATCH (c:Claim {id: row.claim_id})
  MERGE (f)-[:SUPPORTED_BY]->(c)
}
CALL (f, row) {
  MATCH (o:NamedEntity {id: row.object_id})
  MERGE (f)-[:OBJECT]->(o)
}
