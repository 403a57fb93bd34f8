// Every leak-transfer curve, oldest first.
MATCH (l:LeakCurve)
RETURN l.id AS id, l.report AS report
ORDER BY l.created_at, l.id
