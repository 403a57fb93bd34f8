// Per seed graph: how many typed facts its documents (retrieved, or added by `dwqa expand`)
// hold, and how many of them meet another fact through a shared (non-generic) entity, within
// one document or across two. The second is what multi-hop questions are built from.
// Parameter: $dataset (null for every dataset).
// Pasted into Neo4j Browser as a whole, the :param line sets the default first; edit the
// value after => to choose. `dwqa query fact_connectivity --param dataset=...` overrides it.
:param dataset => null;
MATCH (q:Query)
WHERE $dataset IS NULL OR q.dataset = $dataset
CALL (q) {
  MATCH (q)-[:RETRIEVE|EXPANDED]->(d:Document)-[:HAS_VERSION]->(:DocumentVersion)
        <-[:READ_FROM]-(f:Fact)
  RETURN collect(DISTINCT {fact: f, doc: d.id}) AS facts
}
CALL (facts) {
  UNWIND facts AS a
  WITH a.fact AS f, a.doc AS doc, facts
  MATCH (f)-[:SUBJECT|OBJECT]->(e:NamedEntity)<-[:SUBJECT|OBJECT]-(g:Fact)
  WHERE NOT coalesce(e.generic, false) AND g <> f
  WITH f, doc, [b IN facts WHERE b.fact = g | b.doc] AS other_docs
  WHERE size(other_docs) > 0
  RETURN count(DISTINCT f) AS connected,
         count(DISTINCT CASE WHEN any(o IN other_docs WHERE o <> doc) THEN f END)
           AS across_documents
}
RETURN q.id AS query_id, q.dataset AS dataset, left(q.text, 80) AS question,
       size(facts) AS facts, connected, across_documents
ORDER BY facts DESC
