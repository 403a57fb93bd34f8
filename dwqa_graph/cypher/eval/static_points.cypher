// Per (agent, static dataset, split), the newest scored run's stored summary, and how many
// runs there are for that triple.
MATCH (e:EvalRun) WHERE e.round IS NULL AND e.dataset IS NOT NULL
WITH e ORDER BY e.created_at DESC, e.id DESC
WITH e.agent AS agent, e.dataset AS dataset, coalesce(e.split, '') AS split, collect(e) AS runs
WITH agent, dataset, split, size(runs) AS n_runs,
     [r IN runs WHERE coalesce(r.status, 'ok') <> 'failed'] AS scored
WHERE size(scored) > 0
RETURN agent, dataset, scored[0].report AS report, n_runs
ORDER BY agent, dataset, split
