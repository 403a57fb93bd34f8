// Static items, merged by id so a re-import updates in place. FreshQA's split,
// false_premise, effective_year, next_review and fact_type (HotpotQA's level and type) are
// plain properties so Cypher can filter on them; meta keeps the record's raw fields.
UNWIND $rows AS row
MATCH (s:StaticSet {name: row.set})
MERGE (i:StaticItem {id: row.id})
SET i.key = row.key, i.question = row.question, i.answers = row.answers,
    i.pattern = row.pattern, i.hops = row.hops, i.source_file = row.source_file,
    i.source_line = row.source_line, i.position = row.position, i.meta = row.meta,
    i.dataset = row.set, i.split = row.split, i.false_premise = row.false_premise,
    i.effective_year = row.effective_year, i.next_review = row.next_review,
    i.fact_type = row.fact_type, i.level = row.level, i.type = row.type
MERGE (s)-[:CONTAINS]->(i)
