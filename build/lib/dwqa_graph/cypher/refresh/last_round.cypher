// The highest round any RETRIEVE edge carries (0 = the logged runs).
MATCH ()-[r:RETRIEVE]->()
RETURN max(r.round) AS t
