// Freeze a round: snapshot evaluation uses it as is, nothing may modify it afterwards.
MATCH (r:Round {t: $t})
SET r.frozen = true, r.frozen_at = coalesce(r.frozen_at, datetime())
RETURN r.t AS t, toString(r.frozen_at) AS frozen_at
