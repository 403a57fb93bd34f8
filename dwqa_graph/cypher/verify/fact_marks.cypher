// The time-sensitivity marks already made for these facts under today's marking rules
// (`timesense.fact_marks` makes the rest). Parameters: $ids, $rules.
MATCH (f:Fact) WHERE f.id IN $ids AND f.time_sensitive_rules = $rules
RETURN f.id AS id, f.time_sensitive AS time_sensitive
