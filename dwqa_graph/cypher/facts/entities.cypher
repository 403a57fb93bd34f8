// Resolved entities: one node per (type, canonical name) across the whole graph.
UNWIND $rows AS row
MERGE (e:NamedEntity {id: row.id})
ON CREATE SET e.name = row.name, e.norm = row.norm, e.type = row.type, e.generic = row.generic
