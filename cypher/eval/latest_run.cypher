// The newest run of an agent on round $t.
MATCH (e:EvalRun {agent: $agent, round: $t})
RETURN e.id AS id
ORDER BY e.created_at DESC, e.id DESC
LIMIT 1
