// Documents (keyed by normalised-URL hash, shared across queries) and the RETRIEVE edge
// from the query. `round` 0 is the logged run; `dwqa refresh --round T` adds later rounds,
// with `engine` naming the search service ("log" for the logged run).
UNWIND $rows AS row
MERGE (d:Document {id: row.id})
  ON CREATE SET d.url = row.url, d.title = row.title
WITH d, row
MATCH (q:Query {id: row.query_id})
MERGE (q)-[r:RETRIEVE {round: row.round}]->(d)
SET r.rank = row.rank, r.cite = row.cite, r.snippet = row.snippet, r.engine = row.engine
