// Claims not yet linked to the entity layer (or linked by an older $version), with their
// features and their document's title (a HotpotQA paragraph's title names its subject).
MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim)
WHERE coalesce(c.entities_linked, '') <> $version
RETURN c.id AS claim_id, c.text AS text, coalesce(c.entities, []) AS entities,
       coalesce(c.years, []) AS years, coalesce(c.number_raw, []) AS raw,
       coalesce(c.number_units, []) AS units, d.title AS title
