// The evidence of each seed graph as of round $t: documents retrieved in the latest round
// <= $t that retrieved anything for the query, their current version, and its claims with
// the features sampling needs (absent features come back null = none), and the non-generic
// entities each claim MENTIONS (the entity layer: sampling connects claims through them).
// Parameters: $t, $dataset (null for all), $ids (list or null).
// Each step is a CALL subquery anchored on its query / version: left to itself the planner
// may join all versions against all queries, which is quadratic at paper scale.
MATCH (q:Query)
WHERE ($dataset IS NULL OR q.dataset = $dataset) AND ($ids IS NULL OR q.id IN $ids)
CALL (q) {
  MATCH (q)-[r:RETRIEVE]->(:Document)
  WHERE r.round <= $t
  RETURN max(r.round) AS snap
}
WITH q, snap WHERE snap IS NOT NULL
CALL (q, snap) {
  MATCH (q)-[r:RETRIEVE {round: snap}]->(d:Document)
  WITH d, min(r.rank) AS rank
  MATCH (d)-[:HAS_VERSION]->(v:DocumentVersion)
  WHERE v.id = coalesce(d.current_version, v.id)
  CALL (v) {
    MATCH (v)-[:HAS_CLAIM]->(c:Claim)
    // One traversal of MENTIONS per claim (not one per projected list).
    OPTIONAL MATCH (c)-[:MENTIONS]->(e:Entity) WHERE NOT e.generic
    WITH c, collect(e.norm) AS mentions, collect(e.name) AS names
    ORDER BY c.start
    // Only what sampling and the generators read: the driver's decoding is most of the
    // query's cost (issue 11's sampling target).
    RETURN collect(c {.id, .text, .number_values, .number_units, .number_raw, .event_years,
                      .event_names, .effect_heads, .effect_stems, .cause_stems,
                      .quantity_units, .quantity_kinds,
                      .listed, .compared, .compared_years, .compared_subject,
                      mentions: mentions, names: names}) AS claims
  }
  WITH d, v, rank, claims WHERE size(claims) > 0
  ORDER BY rank, d.id
  RETURN collect({document_id: d.id, url: d.url, title: d.title, version_id: v.id,
                  claims: claims})
         AS documents
}
RETURN q.id AS query_id, q.text AS question, snap AS evidence_round, documents
ORDER BY query_id
