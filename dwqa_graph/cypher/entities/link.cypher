// (:Claim)-[:MENTIONS {role}]->(:Entity): role "text" (named in the claim) or "title" (the
// document's subject). Generic entities (nationalities, countries, units) are kept but
// flagged, so sampling never connects claims through them. The claim also gets the roles
// generators can use (event_years, quantity_units, listed, the causal-chain stems). Idempotent.
UNWIND $rows AS row
MATCH (c:Claim {id: row.claim_id})
SET c.entities_linked = row.version, c += row.roles
WITH c, row
OPTIONAL MATCH (c)-[old:MENTIONS]->()
DELETE old
WITH DISTINCT c, row
UNWIND row.mentions AS m
MERGE (e:Entity {id: m.id})
  ON CREATE SET e.name = m.name, e.norm = m.norm, e.generic = m.generic
MERGE (c)-[r:MENTIONS]->(e)
SET r.role = m.role
