// The newest run of an agent on each of the rounds $rounds that has a score (failed runs,
// where the agent errored on too many items, have none).
MATCH (e:EvalRun {agent: $agent}) WHERE e.round IN $rounds
  AND coalesce(e.status, 'ok') <> 'failed'
WITH e ORDER BY e.created_at DESC, e.id DESC
WITH e.round AS t, collect(e.id)[0] AS id
RETURN t, id
ORDER BY t
