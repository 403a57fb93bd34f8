// Whether the facts stage has read any page version of the seed graphs in scope (a fact-path
// round has nothing to draw from before `dwqa facts`). Parameters: $dataset (null for all).
OPTIONAL MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
WITH count(q) AS graphs
RETURN graphs,
       EXISTS { MATCH (q:Query)-[:RETRIEVE]->(:Document)-[:HAS_VERSION]->(v:DocumentVersion)
                WHERE ($dataset IS NULL OR q.dataset = $dataset)
                  AND v.facts_extractor IS NOT NULL } AS read
