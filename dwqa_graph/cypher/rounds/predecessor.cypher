// Whether round $t, the round a new round steers against, is written: a new round waits
// while its first generation is running (status 'generating') or a regeneration holds its
// claim, so it reads the facts the round ends up with, not an empty or outgoing set. No
// row: there is no such round (never made, or its run failed and gave the number back).
MATCH (r:Round {t: $t})
RETURN coalesce(r.status, 'complete') AS status, r.claim IS NOT NULL AS claimed
