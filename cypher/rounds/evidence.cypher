// The evidence of each seed graph as of round $t: documents retrieved in the latest round
// <= $t that retrieved anything for the query, their current version, and its claims with
// the features sampling needs (absent features read as none). Parameters: $t, $dataset
// (null for all), $ids (list or null).
MATCH (q:Query)
WHERE ($dataset IS NULL OR q.dataset = $dataset) AND ($ids IS NULL OR q.id IN $ids)
CALL (q) {
  MATCH (q)-[r:RETRIEVE]->(:Document)
  WHERE r.round <= $t
  RETURN max(r.round) AS snap
}
WITH q, snap WHERE snap IS NOT NULL
MATCH (q)-[r:RETRIEVE {round: snap}]->(d:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE v.id = coalesce(d.current_version, v.id)
MATCH (v)-[:HAS_CLAIM]->(c:Claim)
WITH q, snap, d, v, min(r.rank) AS rank, c ORDER BY c.start
WITH q, snap, d, v, rank, collect({
  id: c.id, text: c.text, years: coalesce(c.years, []), dates: coalesce(c.dates, []),
  values: coalesce(c.number_values, []), units: coalesce(c.number_units, []),
  raw: coalesce(c.number_raw, []), cause: coalesce(c.has_cause, false),
  cues: coalesce(c.cause_cues, []), entities: coalesce(c.entities, [])}) AS claims
WITH q, snap, d, v, rank, claims ORDER BY rank, d.id
RETURN q.id AS query_id, q.text AS question, snap AS evidence_round,
       collect({document_id: d.id, url: d.url, version_id: v.id, claims: claims}) AS documents
ORDER BY query_id
