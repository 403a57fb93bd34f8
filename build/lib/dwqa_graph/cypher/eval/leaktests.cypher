// Every Leak&Test result, oldest first.
MATCH (l:LeakTest)
RETURN l.id AS id, l.report AS report
ORDER BY l.created_at, l.id
