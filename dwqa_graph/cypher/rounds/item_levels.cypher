// Per prediction of the runs $ids on a round's items: the item's complexity (hops, sources,
// constraints) and the prediction's stored scores and judge label, for the report's scores by
// complexity. Items made before an item recorded its sources and constraints report null.
MATCH (e:EvalRun)-[:PREDICTED]->(p:Prediction)-[:ANSWERS]->(i:QAItem)
WHERE e.id IN $ids
RETURN e.id AS run_id, i.hops AS hops, i.sources AS sources, i.constraints AS constraints,
       p {.*, steps: null, golds: null, retrieved: null} AS p
