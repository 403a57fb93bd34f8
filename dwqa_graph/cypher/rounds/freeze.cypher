// Freeze a round: snapshot evaluation uses it as is, nothing may modify it afterwards (every
// write to a round checks `frozen` under the round's lock: rounds/guard). A round whose
// first generation has not written yet (status 'generating') has nothing to freeze.
MATCH (r:Round {t: $t})
WHERE coalesce(r.status, 'complete') <> 'generating'
SET r.frozen = true, r.frozen_at = coalesce(r.frozen_at, datetime())
RETURN r.t AS t, toString(r.frozen_at) AS frozen_at
