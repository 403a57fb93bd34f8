// One static benchmark's items, in file order.
MATCH (:StaticSet {name: $set_name})-[:CONTAINS]->(i:StaticItem)
RETURN i.id AS id, i.question AS question, i.answers AS answers, i.pattern AS pattern,
       i.hops AS hops
ORDER BY i.position, i.id
