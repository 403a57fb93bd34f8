// The next round number.
OPTIONAL MATCH (r:Round)
RETURN coalesce(max(r.t), 0) + 1 AS t
