// Pages `dwqa expand` found for page-less entities, joined to their seed graphs as of the
// graph's round: the Document (shared with any other graph that has it) and the EXPANDED
// edge recording why it joined (the entity, the search that found it, the result's rank,
// depth and time). One edge per (graph, round, page): a re-run adds nothing and keeps the
// first provenance; `created` counts the new edges.
UNWIND $rows AS row
MERGE (d:Document {id: row.id})
  ON CREATE SET d.url = row.url, d.title = row.title
WITH d, row
MATCH (q:Query {id: row.query_id})
MERGE (q)-[x:EXPANDED {round: row.round}]->(d)
  ON CREATE SET x.entity_id = row.entity_id, x.entity = row.entity, x.query = row.query,
                x.reason = row.reason, x.rank = row.rank, x.engine = row.engine,
                x.depth = row.depth, x.at = datetime(row.at)
