// A new round (or a regenerated unfrozen one): its settings; old contents are detached, and
// the items no round contains any more and nothing else points at are deleted (no orphans).
// Runs after rounds/guard in the same transaction, so the round is not frozen. `previous`:
// the round whose facts this one steered against (null: none, as for round 1).
UNWIND $rows AS row
MERGE (r:Round {t: row.t})
  ON CREATE SET r.created_at = datetime(), r.frozen = false
SET r.seed = row.seed, r.theta = row.theta, r.theta_hash = row.theta_hash,
    r.generator = row.generator, r.config = row.config, r.status = 'complete',
    r.previous = row.previous
REMOVE r.claim
WITH r
OPTIONAL MATCH (r)-[old:CONTAINS|NO_ITEM|SNAPSHOT]->(x)
WITH r, collect(old) AS olds, collect(CASE WHEN type(old) = 'CONTAINS' THEN x END) AS items
FOREACH (e IN olds | DELETE e)
WITH items
UNWIND items AS i
WITH DISTINCT i
WHERE NOT EXISTS { (i)<--() }
DETACH DELETE i
