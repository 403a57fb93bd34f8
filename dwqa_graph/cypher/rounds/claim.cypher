// Claim an existing round number for regeneration (after rounds/guard, same transaction):
// a concurrent regeneration of the same round then finds another claim and writes nothing.
UNWIND $rows AS row
MATCH (r:Round {t: row.t})
SET r.claim = row.claim
