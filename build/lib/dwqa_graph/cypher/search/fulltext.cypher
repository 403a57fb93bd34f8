// Full-text search over stored page texts; one hit per Document (its best version).
CALL db.index.fulltext.queryNodes('document_version_text', $q) YIELD node, score
MATCH (d:Document)-[:HAS_VERSION]->(node)
WITH d, node, score ORDER BY score DESC
WITH d, collect({v: node, score: score})[0] AS best
RETURN d.url AS url, coalesce(best.v.title, d.title) AS title,
       substring(best.v.text, 0, 300) AS content, best.v.published AS published,
       best.score AS score
ORDER BY score DESC, url
LIMIT $limit
