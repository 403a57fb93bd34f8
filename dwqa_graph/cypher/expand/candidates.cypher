// Entities a seed graph names but has no page of, as of the graph's latest round: the
// subjects and objects of the facts read from its documents of depth $level - 1 (0: the
// documents the round retrieved; k: the pages `dwqa expand` added at depth k). An entity
// has a page when a document of the graph (retrieved or added) is the page of an entity of
// its name (SUBJECT_OF; by name, as the resolver may type a page's untagged subject MISC
// and the place a fact names PLACE), or when expand already added a page for it. Generic
// entities (countries, states) are left out: their pages would connect every fact to every
// other. Most-named first, at most $max_entities per graph (the searches a graph may
// cost); `added` is the pages already added to the graph (what --max-pages counts),
// `documents` the ids of all its documents (a result that is one is no new page for it).
// Parameters: $dataset, $ids, $level, $max_entities.
MATCH (q:Query)
WHERE ($dataset IS NULL OR q.dataset = $dataset) AND ($ids IS NULL OR q.id IN $ids)
CALL (q) {
  MATCH (q)-[r:RETRIEVE]->(:Document)
  RETURN max(r.round) AS snap
}
WITH q, snap WHERE snap IS NOT NULL
CALL (q, snap) {
  MATCH (q)-[r:RETRIEVE|EXPANDED]->(d:Document)
  WHERE r.round = snap
  RETURN collect(DISTINCT d) AS docs,
         collect(DISTINCT CASE WHEN coalesce(r.depth, 0) = $level - 1 THEN d END) AS sources,
         [x IN collect(CASE WHEN type(r) = 'EXPANDED' THEN r END) | x.entity_id] AS expanded
}
CALL (docs, sources, expanded) {
  UNWIND sources AS d
  MATCH (d)-[:HAS_VERSION]->(v:DocumentVersion)
  WHERE v.id = coalesce(d.current_version, v.id)
  MATCH (v)<-[:READ_FROM]-(f:Fact)-[:SUBJECT|OBJECT]->(e:NamedEntity)
  WHERE NOT coalesce(e.generic, false) AND NOT e.id IN expanded
    AND NOT EXISTS { MATCH (p:Document)<-[:SUBJECT_OF]-(o:NamedEntity)
                     WHERE p IN docs AND o.norm = e.norm }
  WITH e, count(DISTINCT f) AS facts
  ORDER BY facts DESC, e.name
  RETURN collect({id: e.id, name: e.name, type: e.type, facts: facts})[..$max_entities]
         AS entities
}
RETURN q.id AS query_id, snap AS round, size(expanded) AS added,
       [d IN docs | d.id] AS documents, entities
ORDER BY query_id
