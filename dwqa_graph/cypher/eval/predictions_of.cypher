// A run's predictions with their traces, in item order.
MATCH (:EvalRun {id: $id})-[:PREDICTED]->(p:Prediction)
CALL (p) {
  OPTIONAL MATCH (p)-[r:RETRIEVED]->(d:Document)
  WITH r, d ORDER BY r.rank
  RETURN collect(CASE WHEN d IS NULL THEN null
                 ELSE {url: d.url, title: r.title, text: r.text, rank: r.rank} END) AS retrieved
}
RETURN p.id AS id, p.run_id AS run_id, p.item_id AS item_id, p.question AS question,
       p.golds AS golds, p.answer AS answer, p.error AS error, p.pattern AS pattern,
       p.hops AS hops, p.em AS em, p.f1 AS f1, p.judge AS judge,
       coalesce(p.judge_fallback, false) AS judge_fallback, p.latency_s AS latency_s,
       coalesce(p.steps, []) AS steps, retrieved
ORDER BY p.item_id
