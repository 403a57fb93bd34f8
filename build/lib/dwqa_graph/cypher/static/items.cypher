// Static items, merged by id so a re-import updates in place.
UNWIND $rows AS row
MATCH (s:StaticSet {name: row.set})
MERGE (i:StaticItem {id: row.id})
SET i.key = row.key, i.question = row.question, i.answers = row.answers,
    i.pattern = row.pattern, i.hops = row.hops, i.source_file = row.source_file,
    i.source_line = row.source_line, i.position = row.position, i.meta = row.meta,
    i.dataset = row.set
MERGE (s)-[:CONTAINS]->(i)
