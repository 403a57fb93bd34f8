// Claim the next round number before any work: its Round node is created in a transaction of
// its own, so two concurrent `round new` never share a number -- the uniqueness constraint
// on Round.t fails the second CREATE of the same t and the caller retries with the next.
// status 'generating' until rounds/create writes the round's contents (the same transaction
// that writes its items).
OPTIONAL MATCH (r:Round)
WITH coalesce(max(r.t), 0) + 1 AS t
CREATE (n:Round {t: t, frozen: false, status: 'generating', claim: $claim,
                 created_at: datetime()})
RETURN n.t AS t
