// A run's predictions (all their properties: scores are score_<name>) with their traces,
// in item order.
MATCH (:EvalRun {id: $id})-[:PREDICTED]->(p:Prediction)
CALL (p) {
  OPTIONAL MATCH (p)-[r:RETRIEVED]->(d:Document)
  WITH r, d ORDER BY r.rank
  RETURN collect(CASE WHEN d IS NULL THEN null
                 ELSE {url: d.url, title: r.title, text: r.text, rank: r.rank} END) AS retrieved
}
RETURN p {.*} AS p, retrieved
ORDER BY p.item_id
