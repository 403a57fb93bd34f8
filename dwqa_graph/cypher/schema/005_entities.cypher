// Schema v5: the entity layer. (:Claim)-[:MENTIONS {role}]->(:Entity {id, name, norm}):
// connected sampling walks claim -> entity -> claim.
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
CREATE INDEX entity_norm IF NOT EXISTS FOR (n:Entity) ON (n.norm);
