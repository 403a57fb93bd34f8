// Store each fact's time-sensitivity mark with the rules it was made under: a mark is read
// from the fact's sentence, which never changes, so it is made once per fact and rules.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.time_sensitive = row.time_sensitive, f.time_sensitive_rules = row.rules
