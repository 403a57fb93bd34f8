// The newest run of an agent on each of the rounds $rounds.
MATCH (e:EvalRun {agent: $agent}) WHERE e.round IN $rounds
WITH e ORDER BY e.created_at DESC, e.id DESC
WITH e.round AS t, collect(e.id)[0] AS id
RETURN t, id
ORDER BY t
