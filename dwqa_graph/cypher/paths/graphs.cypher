// The seed graphs a fact-path round draws from, as of round $t: the documents retrieved in
// the latest round <= $t and the pages `dwqa expand` added to that round (after them), their
// current versions, and the seed's gold/agent answers (a
// candidate that re-asks the seed question is excluded). Parameters: $t, $dataset (null for
// all), $ids (list or null).
MATCH (q:Query)
WHERE ($dataset IS NULL OR q.dataset = $dataset) AND ($ids IS NULL OR q.id IN $ids)
CALL (q) {
  MATCH (q)-[r:RETRIEVE]->(:Document)
  WHERE r.round <= $t
  RETURN max(r.round) AS snap
}
WITH q, snap WHERE snap IS NOT NULL
CALL (q, snap) {
  MATCH (q)-[r:RETRIEVE|EXPANDED {round: snap}]->(d:Document)
  WITH d, min(CASE type(r) WHEN 'RETRIEVE' THEN r.rank ELSE 1000000 + r.rank END) AS rank
  MATCH (d)-[:HAS_VERSION]->(v:DocumentVersion)
  WHERE v.id = coalesce(d.current_version, v.id)
  ORDER BY rank, d.id
  RETURN collect({document_id: d.id, url: d.url, title: d.title, version_id: v.id})
         AS documents
}
RETURN q.id AS query_id, q.text AS question, snap AS evidence_round, documents,
       [(q)-[:HAS_ANSWER]->(a:Answer) | a.text] AS answers
ORDER BY query_id
