// One leak-transfer curve: the whole JSON result (its Leak&Tests are stored as LeakTests).
MERGE (l:LeakCurve {id: $id})
SET l.created_at = $created_at, l.report = $report
RETURN l.id AS id
