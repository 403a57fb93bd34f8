// The content hash of each Query among $ids that exists: an ingest compares it with the
// record it is about to write (same hash: re-ingest, a no-op; another hash: a conflict).
UNWIND $ids AS id
MATCH (q:Query {id: id})
RETURN q.id AS id, q.content_hash AS hash
