// Every round, newest first.
MATCH (r:Round)
RETURN r.t AS t, r.seed AS seed, r.generator AS generator, r.theta_hash AS theta_hash,
       r.frozen AS frozen, coalesce(r.status, 'complete') AS status,
       toString(r.created_at) AS created_at,
       COUNT { (r)-[:CONTAINS]->() } AS items, COUNT { (r)-[:NO_ITEM]->() } AS no_item
ORDER BY t DESC
