// Documents to fetch: never attempted and with no version (dataset text counts as one),
// or last fetched before $cutoff (ISO datetime or null), or failed when $retry_failed.
// $ids (list or null) restricts the run to those documents. Without $ids only seed-graph
// sources (retrieved, or added by `dwqa expand`) are fetched: documents known only from an
// agent's evaluation trace are not.
MATCH (d:Document)
WHERE ($ids IS NULL OR d.id IN $ids)
  AND ($ids IS NOT NULL OR EXISTS { (:Query)-[:RETRIEVE|EXPANDED]->(d) })
  AND (
    (d.fetch_status IS NULL AND NOT (d)-[:HAS_VERSION]->())
    OR ($cutoff IS NOT NULL AND d.fetched_at IS NOT NULL AND d.fetched_at < datetime($cutoff))
    OR ($retry_failed AND d.fetch_status IS NOT NULL AND d.fetch_status <> 'ok')
  )
RETURN d.id AS id, d.url AS url
ORDER BY d.id
