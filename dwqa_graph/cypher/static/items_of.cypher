// One static benchmark's items, in file order; $split (or null for all) keeps one split.
MATCH (:StaticSet {name: $set_name})-[:CONTAINS]->(i:StaticItem)
WHERE $split IS NULL OR i.split = $split
RETURN i.id AS id, i.question AS question, i.answers AS answers, i.pattern AS pattern,
       i.hops AS hops, i.split AS split, i.false_premise AS false_premise
ORDER BY i.position, i.id
