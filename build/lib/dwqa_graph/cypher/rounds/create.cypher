// A new round (or a regenerated unfrozen one): its settings; old contents are detached.
UNWIND $rows AS row
MERGE (r:Round {t: row.t})
  ON CREATE SET r.created_at = datetime(), r.frozen = false
SET r.seed = row.seed, r.theta = row.theta, r.theta_hash = row.theta_hash,
    r.generator = row.generator, r.config = row.config
WITH r
OPTIONAL MATCH (r)-[old:CONTAINS|NO_ITEM|SNAPSHOT]->()
DELETE old
