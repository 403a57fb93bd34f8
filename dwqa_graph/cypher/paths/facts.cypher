// The facts read from these document versions, with their subject and object entities and
// the claim holding their sentence (if the claims stage kept it): what a path's question is
// worded from and what its item's provenance points to, and the titles of the pages each
// entity is the subject of ("The Golden Calf (1930 film)": the question keeps the
// qualifier a bare title would lose), and the pronoun the subject's page uses for it.
// Parameter: $versions.
MATCH (v:DocumentVersion)<-[:READ_FROM]-(f:Fact)-[:SUBJECT]->(s:NamedEntity)
WHERE v.id IN $versions
OPTIONAL MATCH (f)-[:OBJECT]->(o:NamedEntity)
RETURN f.id AS id, f.relation AS relation, f.verb AS verb, f.date AS date, f.year AS year,
       f.precision AS precision, f.value AS value, f.unit AS unit, f.when AS when,
       f.approximate AS approximate, f.phrase AS phrase, f.short_phrase AS short_phrase, f.evidence AS evidence,
       f.start AS start, f.end AS end,
       v.id AS version_id, [(f)-[:SUPPORTED_BY]->(c:Claim) | c.id][0] AS claim_id,
       s.id AS subject_id, s.name AS subject, s.type AS subject_type,
       o.id AS object_id, o.name AS object, o.type AS object_type,
       [(s)-[:SUBJECT_OF]->(d:Document)-[:HAS_VERSION]->(x:DocumentVersion)
        WHERE x.id IN $versions | coalesce(x.title, d.title)] AS subject_titles,
       [(s)-[r:SUBJECT_OF]->(d:Document)-[:HAS_VERSION]->(x:DocumentVersion)
        WHERE x.id IN $versions AND r.pronoun IS NOT NULL | r.pronoun][0] AS subject_pronoun,
       CASE WHEN o IS NULL THEN [] ELSE
         [(o)-[:SUBJECT_OF]->(d:Document)-[:HAS_VERSION]->(x:DocumentVersion)
          WHERE x.id IN $versions | coalesce(x.title, d.title)] END AS object_titles
ORDER BY id
