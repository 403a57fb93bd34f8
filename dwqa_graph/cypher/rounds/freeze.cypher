// Freeze a round: snapshot evaluation uses it as is, nothing may modify it afterwards (every
// write to a round checks `frozen` under the round's lock: rounds/guard). A round whose
// first generation has not written yet (status 'generating') has nothing to freeze. The
// latest `round verify` run at the time is recorded: the answers it found are the ones a
// snapshot score of the round was scored against.
MATCH (r:Round {t: $t})
WHERE coalesce(r.status, 'complete') <> 'generating'
WITH r, coalesce(r.frozen, false) AS was, [(r)-[:VERIFIED]->(x:VerifyRun) | x] AS runs
SET r.frozen = true, r.frozen_at = coalesce(r.frozen_at, datetime()),
    r.frozen_verification = CASE WHEN was THEN r.frozen_verification ELSE
      reduce(last = null, x IN runs | CASE WHEN last IS NULL OR x.checked_at > last.checked_at
                                           THEN x ELSE last END).id END
RETURN r.t AS t, toString(r.frozen_at) AS frozen_at, r.frozen_verification AS verification
