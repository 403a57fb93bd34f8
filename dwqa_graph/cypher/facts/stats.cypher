// Facts per relation and object kind (for `dwqa facts --json` and the docs).
MATCH (f:Fact)
RETURN f.relation AS relation, f.object_kind AS object_kind, count(*) AS n
ORDER BY n DESC
