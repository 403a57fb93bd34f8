"""Stage 2b — refresh: rebuild seed graphs for round t from today's search results.

Every seed Query is searched again; each result becomes a RETRIEVE edge tagged with the
round (earlier rounds keep their own edges untouched), and pages not yet in the graph are
fetched. This is how evolving information reaches a new round.
"""

from __future__ import annotations

import time
from collections import Counter

from pydantic import BaseModel, Field

from dwqa_graph.errors import SearchError
from dwqa_graph.graph.store import Store
from dwqa_graph.web.fetch import FetchOptions, FetchReport, fetch
from dwqa_graph.web.search import SearchClient
from dwqa_graph.web.urls import document_id


class RefreshReport(BaseModel):
    round: int
    queries: int = 0
    results: int = 0
    new_documents: int = 0
    search_failures: int = 0
    failures: dict[str, int] = Field(default_factory=dict)
    fetch: FetchReport | None = None
    seconds: float = 0.0


def next_round(store: Store) -> int:
    rows = store.query("refresh/last_round")
    return (rows[0]["t"] or 0) + 1 if rows else 1


def refresh(store: Store, client: SearchClient, *, round_t: int | None = None, limit: int = 10,
            dataset: str | None = None, fetch_options: FetchOptions | None = None,
            do_fetch: bool = True) -> RefreshReport:
    started = time.perf_counter()
    t = round_t if round_t is not None else next_round(store)
    report = RefreshReport(round=t)
    known = {r["id"] for r in store.query("refresh/document_ids")}
    rows, failures = [], Counter[str]()
    for q in store.query("refresh/queries", dataset=dataset):
        report.queries += 1
        try:
            hits = client.search(q["text"], limit=limit)
        except SearchError:
            failures["search_error"] += 1
            continue
        for hit in hits:
            try:  # a search engine's JSON can carry lone surrogates; Neo4j cannot store them
                f"{hit.url}{hit.title}{hit.content}".encode()
            except UnicodeEncodeError:
                failures["invalid_unicode"] += 1
                continue
            rows.append({"id": document_id(hit.url), "url": hit.url, "title": hit.title,
                         "query_id": q["id"], "rank": hit.rank, "cite": None,
                         "snippet": hit.content, "round": t, "engine": client.name})
    report.results = len(rows)
    new_ids = sorted({r["id"] for r in rows} - known)
    report.new_documents = len(new_ids)
    store.write("ingest/documents", rows)
    if do_fetch and new_ids:
        report.fetch = fetch(store, fetch_options, ids=new_ids)
    report.search_failures = sum(failures.values())
    report.failures = dict(failures)
    report.seconds = round(time.perf_counter() - started, 3)
    return report
