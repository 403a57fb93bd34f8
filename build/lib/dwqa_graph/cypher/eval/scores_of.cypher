// Per-prediction scores (score_<name> properties and the judge label) of the runs $ids,
// without traces.
MATCH (e:EvalRun)-[:PREDICTED]->(p:Prediction) WHERE e.id IN $ids
RETURN e.id AS run_id, p {.*, steps: null, golds: null} AS p
