// Every verification run, per round and in time order, with its status counts (for the
// report's holds / changed / unsupported table). Parameter: $t (null for every round).
MATCH (r:Round)-[:VERIFIED]->(x:VerifyRun)
WHERE $t IS NULL OR r.t = $t
RETURN r.t AS round, x.id AS run_id, toString(x.checked_at) AS checked_at,
       x.items AS items, x.holds AS holds, x.changed AS changed,
       x.unsupported AS unsupported, x.unreachable AS unreachable
ORDER BY round, checked_at
