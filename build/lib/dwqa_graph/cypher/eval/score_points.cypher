// Per (agent, round), the newest run: its stored summary (for the report's score plot).
MATCH (e:EvalRun) WHERE e.round IS NOT NULL
WITH e ORDER BY e.created_at DESC
WITH e.agent AS agent, e.round AS t, collect(e)[0] AS e
RETURN agent, t, e.report AS report
ORDER BY agent, t
