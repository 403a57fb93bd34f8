// One Leak&Test result: the whole JSON report (its runs are EvalRuns, by id, inside it).
MERGE (l:LeakTest {id: $id})
SET l.created_at = $created_at, l.report = $report
RETURN l.id AS id
