// Per (agent, round), the newest scored run: its stored summary (for the report's score
// plot), and how many runs (scored or failed) there are for that pair.
MATCH (e:EvalRun) WHERE e.round IS NOT NULL
WITH e ORDER BY e.created_at DESC, e.id DESC
WITH e.agent AS agent, e.round AS t, collect(e) AS runs
WITH agent, t, size(runs) AS n_runs,
     [r IN runs WHERE coalesce(r.status, 'ok') <> 'failed'] AS scored
WHERE size(scored) > 0
RETURN agent, t, scored[0].report AS report, n_runs
ORDER BY agent, t
