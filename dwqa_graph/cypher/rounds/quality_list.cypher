// Every round's stored quality numbers (JSON, null for rounds written before the checks).
MATCH (r:Round)
RETURN r.t AS t, r.quality AS quality
ORDER BY t
