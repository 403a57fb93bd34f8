// Per-prediction scores of the runs $ids, without traces.
MATCH (e:EvalRun)-[:PREDICTED]->(p:Prediction) WHERE e.id IN $ids
RETURN e.id AS run_id, p.em AS em, p.f1 AS f1, p.judge AS judge
