// Every static benchmark with its size.
MATCH (s:StaticSet)
RETURN s.name AS name, s.format AS format, s.file AS file,
       toString(s.imported_at) AS imported_at, COUNT { (s)-[:CONTAINS]->() } AS items
ORDER BY name
