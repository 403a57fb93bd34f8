// Stored evaluation runs, newest first; $agent (or null) filters by agent spec.
MATCH (e:EvalRun)
WHERE $agent IS NULL OR e.agent = $agent
RETURN e.id AS id, e.agent AS agent, e.target AS target, e.round AS round,
       e.dataset AS dataset, e.split AS split, e.snapshot AS snapshot,
       e.created_at AS created_at, e.n AS n, e.errors AS errors,
       coalesce(e.status, 'ok') AS status, e.failure AS failure, e.scorers AS scorers
ORDER BY e.created_at DESC, e.id
