// A static benchmark, by name; re-importing records the latest file.
UNWIND $rows AS row
MERGE (s:StaticSet {name: row.name})
  ON CREATE SET s.created_at = datetime()
SET s.format = row.format, s.file = row.file, s.imported_at = datetime()
