// Per (agent, static dataset), the newest run's stored summary.
MATCH (e:EvalRun) WHERE e.round IS NULL AND e.dataset IS NOT NULL
WITH e ORDER BY e.created_at DESC
WITH e.agent AS agent, e.dataset AS dataset, collect(e)[0] AS e
RETURN agent, dataset, e.report AS report
ORDER BY agent, dataset
