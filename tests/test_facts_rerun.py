"""The facts stage reads a page text once per extractor version: after `dwqa refresh` brings
back pages whose text did not change, `dwqa facts` parses nothing; the pages a refresh adds,
and only those, are read."""

from __future__ import annotations

from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.web.fetch import FetchOptions
from dwqa_graph.web.localweb import serve
from dwqa_graph.web.refresh import refresh
from dwqa_graph.web.search import SearxngClient

from .conftest import EXAMPLES

LOCAL = FetchOptions(allow_private=True)


def fact_ids(store: Store) -> set[str]:
    return {r["id"] for r in store.read("MATCH (f:Fact) RETURN f.id AS id")}


def test_a_refresh_with_no_text_changed_parses_nothing(store: Store, films: Store,
                                                       nlp: CoreNLP) -> None:
    before = fact_ids(store)
    assert before  # the films fixture read facts
    with serve(EXAMPLES / "web") as web:
        client = SearxngClient(web.url)
        first = refresh(store, client, limit=8, fetch_options=LOCAL)
        added = extract_facts(store, nlp=nlp)
        after_first = fact_ids(store)
        second = refresh(store, client, limit=8, fetch_options=LOCAL)
        client.close()
    # The positive control: the first refresh brought pages never read, and they were read
    # (only they: the films' pages were read already).
    assert first.new_documents > 0 and first.fetch is not None and first.fetch.ok > 0
    assert 0 < added.versions <= first.fetch.ok and added.tokens > 0
    assert before <= after_first
    # The second brought the same pages back, texts unchanged: nothing to parse.
    assert second.results > 0 and second.new_documents == 0
    again = extract_facts(store, nlp=nlp)
    assert (again.versions, again.tokens, again.facts) == (0, 0, 0)
    assert fact_ids(store) == after_first
