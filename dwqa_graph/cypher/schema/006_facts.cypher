// Schema v6: typed facts and resolved entities (facts/ stage).
// (:Fact {relation, verb, object_kind, date, year, precision, value, unit, when, start, end,
//         evidence, extractor, family})
//   -[:SUBJECT]->(:NamedEntity {id, name, norm, type, generic})
//   -[:OBJECT]->(:NamedEntity)             (object_kind = 'entity')
//   -[:READ_FROM]->(:DocumentVersion)       (start/end: the evidence sentence in its text)
//   -[:SUPPORTED_BY]->(:Claim)              (the claim holding that sentence, if one does)
// (:NamedEntity)-[:SUBJECT_OF {pronoun}]->(:Document)  a page's own subject (its title entity)
CREATE CONSTRAINT named_entity_id IF NOT EXISTS FOR (n:NamedEntity) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.id IS UNIQUE;
CREATE INDEX named_entity_norm IF NOT EXISTS FOR (n:NamedEntity) ON (n.norm);
CREATE INDEX fact_relation IF NOT EXISTS FOR (n:Fact) ON (n.relation);
CREATE INDEX fact_version IF NOT EXISTS FOR (n:Fact) ON (n.version_id);
