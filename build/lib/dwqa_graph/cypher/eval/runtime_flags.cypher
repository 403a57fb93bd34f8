// Record a run-time leakage check: flags per prediction, summary on the run.
MATCH (e:EvalRun {id: $run_id})
SET e.runtime_contamination = $summary, e.runtime_checked_at = datetime()
WITH e
UNWIND $rows AS row
MATCH (e)-[:PREDICTED]->(p:Prediction {id: row.id})
SET p.runtime_leak = row.reasons, p.leak_urls = row.urls
