// Why an item's claims belong together: the path claim -> entity <- claim that connected
// them in sampling (the entity layer), with each claim's document. Returned as paths, so
// Neo4j Browser draws item -> claims -> shared entities.
// Parameter: $item_id (null: the items of the latest round; LIMIT keeps Browser responsive).
:param item_id => null;
MATCH (r:Round)
WITH max(r.t) AS latest
MATCH (:Round {t: latest})-[:CONTAINS]->(i:QAItem)
WHERE $item_id IS NULL OR i.id = $item_id
MATCH p = (i)-[:USES]->(c1:Claim)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(c2:Claim)<-[:USES]-(i)
WHERE elementId(c1) < elementId(c2) AND NOT e.generic
MATCH (d:Document)-[:HAS_VERSION]->(:DocumentVersion)-[:HAS_CLAIM]->(c1)
RETURN i.id AS item, i.question AS question, e.name AS entity, c1.text AS claim, d.url AS document,
       c2.text AS other_claim, p
LIMIT 200;
