// One round's settings.
MATCH (r:Round {t: $t})
RETURN r.t AS t, r.seed AS seed, r.theta AS theta, r.theta_hash AS theta_hash,
       r.generator AS generator, r.config AS config, r.frozen AS frozen, r.quality AS quality,
       r.previous AS previous,
       coalesce(r.status, 'complete') AS status,
       toString(r.created_at) AS created_at, toString(r.frozen_at) AS frozen_at,
       COUNT { (r)-[:CONTAINS]->() } AS items, COUNT { (r)-[:NO_ITEM]->() } AS no_item
