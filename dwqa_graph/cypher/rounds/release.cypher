// A run that fails before writing gives its claim back: a number it claimed fresh (nothing
// written, nothing attached) is deleted, a regenerated round just loses the claim. A round
// frozen meanwhile is left alone: nothing writes a frozen round.
MATCH (r:Round {t: $t, claim: $claim})
WHERE NOT r.frozen
REMOVE r.claim
WITH r
WHERE r.status = 'generating' AND NOT r.frozen AND NOT EXISTS { (r)--() }
DELETE r
