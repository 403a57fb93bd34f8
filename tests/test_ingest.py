"""Ingestion into a real Neo4j: the seed examples, HotpotQA, idempotence."""

from __future__ import annotations

import json
from pathlib import Path

from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest

from .conftest import DATA, HOTPOT, graph_fingerprint


def test_meta_austin_example(store: Store) -> None:
    report = ingest(store, [DATA / "meta_austin.json"])
    assert (report.ingested, report.rejected) == (1, 0)
    assert store.counts()["Query"] == 1
    [row] = store.read(
        "MATCH (q:Query)-[r:RETRIEVE]->(d:Document) "
        "RETURN count(d) AS docs, q.dataset AS dataset")
    assert row == {"docs": 15, "dataset": "meta_austin"}
    cited = store.read(
        "MATCH (q:Query)-[:HAS_STEP]->(s:Snippet)<-[e:EVIDENCE]-(d:Document)<-[r:RETRIEVE]-(q) "
        "RETURN DISTINCT r.cite AS cite ORDER BY cite")
    assert [r["cite"] for r in cited] == [4, 6, 8, 9, 10]
    # The cited documents are the right URLs, not just the right numbers.
    log = json.loads((DATA / "meta_austin.json").read_text())
    urls = {s["id"]: s["url"] for s in log["sources"]}
    linked = store.read("MATCH (d:Document)-[e:EVIDENCE]->(:Snippet) "
                        "RETURN DISTINCT e.cite AS cite, d.url AS url")
    assert all(urls[r["cite"]] == r["url"] for r in linked)
    chain = store.read(
        "MATCH (q:Query)-[:HAS_STEP]->(s:Snippet) WHERE NOT ()-[:FOLLOWS]->(s) "
        "MATCH p = (s)-[:FOLLOWS*0..]->(last)-[:CONCLUDE]->(a:Answer {kind: 'agent'}) "
        "RETURN length(p) AS hops, a.text AS answer ORDER BY hops DESC LIMIT 1")
    assert chain[0]["answer"] == "It hasn't moved to Austin"
    assert chain[0]["hops"] == store.counts()["Snippet"]  # follows through every step
    types = store.read("MATCH (s:Snippet) RETURN s.step_type AS t, count(*) AS n")
    assert {r["t"] for r in types} >= {"evidence", "conclude"}


def test_hotpotqa_sample_is_idempotent(store: Store) -> None:
    items = json.loads(HOTPOT.read_text())
    report = ingest(store, [HOTPOT])
    assert report.ingested == len(items) == 27
    assert report.rejected == 0
    first = graph_fingerprint(store)
    assert first["node:Query"] == 27
    per_query = store.read(
        "MATCH (q:Query) RETURN q.dataset AS ds, COUNT { (q)-[:RETRIEVE]->(:Document) } AS docs, "
        "[(q)-[:HAS_ANSWER]->(a:Answer {kind: 'gold'}) | a.text] AS answers")
    assert all(r["docs"] == 10 and len(r["answers"]) == 1 for r in per_query)
    assert {r["ds"] for r in per_query} == {"dev-distractor-sample"}
    # Every paragraph's text is already a DocumentVersion; supporting facts are evidence.
    [v] = store.read("MATCH (d:Document) WHERE NOT (d)-[:HAS_VERSION]->() RETURN count(d) AS n")
    assert v["n"] == 0
    n_support = sum(len(i["supporting_facts"]) for i in items)
    [s] = store.read("MATCH (:Document)-[:EVIDENCE]->(s:Snippet)-[:EVIDENCE]->(:Answer) "
                     "RETURN count(s) AS n")
    assert s["n"] == n_support
    ingest(store, [HOTPOT])
    assert graph_fingerprint(store) == first


def test_dataset_name_is_recorded(store: Store, tmp_path: Path) -> None:
    ingest(store, [DATA / "meta_austin.json"], dataset="freshqa-runs")
    assert store.read("MATCH (q:Query) RETURN q.dataset AS d") == [{"d": "freshqa-runs"}]


def test_perplexica_response(store: Store, tmp_path: Path) -> None:
    record = {
        "question": "Who took over the lease at The Domain?",
        "response": {
            "message": "IBM took over the lease [1]. Meta left the building [2][1].",
            "sources": [
                {"pageContent": "IBM will be taking over Meta's former lease.",
                 "metadata": {"title": "IBM takes over", "url": "https://a.example/ibm"}},
                {"pageContent": "Meta is leaving its lease.",
                 "metadata": {"title": "Meta leaving", "url": "https://b.example/meta"}},
            ],
        },
    }
    path = tmp_path / "perplexica.json"
    path.write_text(json.dumps(record, indent=2))  # pretty-printed, not JSON lines
    report = ingest(store, [path])
    assert (report.ingested, report.formats) == (1, {"perplexica": 1})
    rows = store.read("MATCH (d:Document)-[e:EVIDENCE]->(s:Snippet) "
                      "RETURN d.url AS url, e.cite AS cite ORDER BY cite, url")
    assert {(r["url"], r["cite"]) for r in rows} == {
        ("https://a.example/ibm", 1), ("https://b.example/meta", 2)}
    [snip] = store.read("MATCH (q:Query)-[r:RETRIEVE {cite: 2}]->(d) RETURN r.snippet AS s")
    assert snip["s"] == "Meta is leaving its lease."


def test_documents_are_shared_across_queries(store: Store, tmp_path: Path) -> None:
    def log(q: str, url: str) -> dict:
        return {"question": q, "answer": "x", "thinking": "A fact [1].",
                "sources": [{"id": 1, "url": url, "title": "t"}]}

    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(log("q1", "https://Example.org/a/")) + "\n"
                    + json.dumps(log("q2", "https://example.org/a#frag")) + "\n")
    ingest(store, [path])
    assert store.counts()["Document"] == 1
    rows = store.read("MATCH (d:Document)<-[:RETRIEVE]-(q) RETURN count(q) AS n")
    assert rows == [{"n": 2}]
