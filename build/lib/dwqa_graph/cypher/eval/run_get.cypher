// One run's stored summary.
MATCH (e:EvalRun {id: $id})
RETURN e.id AS id, e.report AS report
