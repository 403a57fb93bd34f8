"""Refresh: today's search results become round-t RETRIEVE edges; earlier rounds stay."""

from __future__ import annotations

from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.web.fetch import FetchOptions
from dwqa_graph.web.localweb import serve
from dwqa_graph.web.refresh import refresh
from dwqa_graph.web.search import GraphSearch, SearxngClient, lucene_escape
from tests.paths import REPO_ROOT

from .conftest import HOTPOT

EXAMPLES = REPO_ROOT / "examples"
LOCAL = FetchOptions(allow_private=True)


def retrieved(store: Store, t: int) -> list[dict]:
    return store.read(
        "MATCH (q:Query)-[r:RETRIEVE {round: $t}]->(d:Document) "
        "RETURN q.id AS q, d.url AS url, r.rank AS rank, r.engine AS engine, "
        "r.snippet AS snippet ORDER BY q, rank", {"t": t})


def test_refresh_rounds_over_the_local_web(store: Store) -> None:
    ingest(store, [EXAMPLES / "logs" / "agent_runs.jsonl"])
    with serve(EXAMPLES / "web") as web:
        client = SearxngClient(web.url)
        first = refresh(store, client, limit=5, fetch_options=LOCAL)
        round1 = retrieved(store, 1)
        second = refresh(store, client, limit=8, fetch_options=LOCAL)
        client.close()
    assert (first.round, second.round) == (1, 2)
    assert first.queries == 3 and first.results == 15 and len(round1) == 15
    assert all(r["url"].startswith(web.url) and r["engine"] == "searxng" for r in round1)
    assert retrieved(store, 1) == round1  # round 2 left round 1's edges alone
    assert len(retrieved(store, 2)) == 24
    assert len(retrieved(store, 0)) == 33  # the logged run's own sources, untouched
    # Every page a round retrieved was fetched, once.
    assert first.fetch is not None and first.fetch.ok == first.new_documents
    assert second.new_documents == len({r["url"] for r in retrieved(store, 2)}
                                       - {r["url"] for r in round1})
    [row] = store.read("MATCH (q)-[:RETRIEVE {round: 2}]->(d:Document) "
                       "WHERE NOT (d)-[:HAS_VERSION]->() RETURN count(d) AS n")
    assert row["n"] == 0


def test_graph_search_runs_offline_over_stored_versions(store: Store) -> None:
    ingest(store, [HOTPOT])
    search = GraphSearch(store)
    hits = search.search("Alexander Chapman Ferguson Scottish manager", limit=5)
    assert "Alex_Ferguson" in hits[0].url
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    # Operators and unbalanced syntax are escaped, never a Lucene parse error.
    assert isinstance(search.search('AND OR "unbalanced ( quote ['), list)
    assert lucene_escape("a:b (c)") == "a\\:b \\(c\\)"
    report = refresh(store, search, limit=3, do_fetch=False)
    assert report.round == 1 and report.results == 27 * 3 and report.new_documents == 0
