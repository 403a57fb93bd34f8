// Lock round $t, then read what a write to it depends on. Runs first in the writing
// transaction: the first statement takes the node's write lock (a net no-op write; MERGE for
// `round new --round T` of a number not used yet), so the second sees any freeze committed
// before it, and no freeze can commit until the write ends (rounds/freeze SETs this node).
MERGE (r:Round {t: $t})
  ON CREATE SET r.frozen = false, r.status = 'generating', r.created_at = datetime()
SET r.write_lock = true
REMOVE r.write_lock;
MATCH (r:Round {t: $t})
RETURN r.frozen AS frozen, r.claim AS claim, coalesce(r.status, 'complete') AS status
