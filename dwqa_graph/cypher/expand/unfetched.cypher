// Pages expand added to the seed graphs in scope that were never fetched (a run killed
// between adding and fetching them, or run with --no-fetch): the next run fetches them.
// Parameters: $dataset, $ids (null for all).
MATCH (q:Query)-[:EXPANDED]->(d:Document)
WHERE ($dataset IS NULL OR q.dataset = $dataset) AND ($ids IS NULL OR q.id IN $ids)
  AND d.fetch_status IS NULL AND NOT (d)-[:HAS_VERSION]->()
RETURN DISTINCT d.id AS id
ORDER BY id
