"""Stage 2c — expand: seed graphs grow pages for the entities they name but have no page of.

A page's facts name entities (a film's director, a company's founder) whose own pages are not
in the graph, so paths through them stop at the page's edge. For each seed graph, as of its
latest round (``expand/candidates``): the page-less entities of its documents, most-named
first, are searched by name with the client ``refresh`` uses; the first result whose title
names the entity (:func:`title_names`) and whose URL passes the SSRF guard joins the graph
with an ``EXPANDED`` edge recording the entity, the search, the rank and why
(``expand/add``). The new pages are fetched by the fetch stage (same guard, same bounds) and
their facts read by the caller's reader; with ``depth`` > 1 the entities of the pages added
at depth d are expanded at depth d + 1.

Bounds: at most ``max_pages`` pages per graph over all depths (pages a run added earlier
count), at most ``SEARCHES_PER_PAGE`` searches per page it may still add, and ``depth`` <=
``MAX_DEPTH``. Idempotent: an entity with a page, or one expand added a page for, is not
searched again, and the edge is MERGEd per (graph, round, page); a killed run leaves edges
whose pages the next run's fetch picks up (``fetch/pending`` without ids includes them).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph.errors import SearchError, UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.text import norm_name
from dwqa_graph.web.fetch import FetchOptions, FetchReport, fetch, now_iso
from dwqa_graph.web.search import SearchClient, SearchResult
from dwqa_graph.web.ssrf import BlockedURL, check_url
from dwqa_graph.web.urls import document_id

#: Depths a run may reach: each depth is a search, fetch and read pass over the pages the
#: one before added, and the third hop from a seed page is rarely about its question.
MAX_DEPTH = 3
#: Pages a run may add to one graph (``--max-pages``): each is a fetch and a CoreNLP read.
MAX_PAGES = 100
#: Searches per page a graph may still add: most page-less entities of a full page (a
#: nationality read as MISC, a person named once) have no page of their own; this bounds
#: the searches a graph with hundreds of them costs.
SEARCHES_PER_PAGE = 4
#: Results of one search looked at for a title that names the entity.
MAX_RESULTS = 20
#: Rejected results kept in the report (the counts by reason cover all of them).
MAX_LISTED = 50

# A site's name after the page's: "Halvard Ostrem - OpenTownWiki", "X | Site".
_SITE_SUFFIX = re.compile(r"\s+[-–—|]\s+[^-–—|]+$")
# A disambiguating qualifier: "Titanic (1997 film)".
_QUALIFIER = re.compile(r"\s*\([^()]+\)$")


def title_names(title: str, name: str) -> bool:
    """Whether a search result titled ``title`` is the page of the entity ``name``: the
    title, without a trailing site name (" - Wikipedia") and then without a trailing
    qualifier ("(1997 film)"), folds (:func:`~dwqa_graph.text.norm_name`) to the name. A
    title that only contains the name ("List of works by X", "X's second album") is another
    page: its facts are not the entity's."""
    want = norm_name(name)
    if not want:
        return False
    page = _SITE_SUFFIX.sub("", title.strip())
    return want in (norm_name(page), norm_name(_QUALIFIER.sub("", page)))


class Rejection(BaseModel):
    """A search result that did not join a graph, and why."""

    query_id: str
    entity: str
    url: str
    title: str
    reason: str = Field(description="title_mismatch, blocked_address, invalid_url, "
                        "invalid_unicode, already_in_graph, ...")
    detail: str = ""


class ExpandReport(BaseModel):
    """The ``--json`` summary of an expand run."""

    graphs: int = Field(0, description="Seed graphs looked at.")
    graphs_grown: int = Field(0, description="Graphs that gained a page in this run.")
    entities: int = Field(0, description="Page-less entities searched for.")
    searches: int = Field(0, description="Searches sent (one per distinct name).")
    pages_added: int = Field(0, description="EXPANDED edges this run created.")
    new_documents: int = Field(0, description="Pages not in the store before (to fetch).")
    by_depth: dict[int, int] = Field(default_factory=dict, description="Pages added per depth.")
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    rejections: list[Rejection] = Field(default_factory=list,
                                        description=f"The first {MAX_LISTED} rejections.")
    unmatched_entities: int = Field(0, description="Entities no result's title named.")
    search_failures: int = 0
    fetch: list[FetchReport] = Field(default_factory=list, description="One per depth.")
    facts: list[dict[str, Any]] = Field(default_factory=list,
                                        description="The reader's report, one per depth.")
    search_seconds: float = 0.0
    fetch_seconds: float = 0.0
    read_seconds: float = 0.0
    seconds: float = 0.0


class _Run:
    """One expand run: the search cache, the SSRF verdicts and the report."""

    def __init__(self, store: Store, client: SearchClient, opts: FetchOptions,
                 limit: int) -> None:
        self.store, self.client, self.opts, self.limit = store, client, opts, limit
        self.report = ExpandReport()
        self.hits: dict[str, list[SearchResult] | None] = {}
        self.verdicts: dict[str, BlockedURL | None] = {}
        self.rejected: Counter[str] = Counter()
        self.grown: set[str] = set()

    def reject(self, qid: str, entity: str, hit: SearchResult, reason: str,
               detail: str = "") -> None:
        self.rejected[reason] += 1
        if len(self.report.rejections) < MAX_LISTED:
            self.report.rejections.append(Rejection(
                query_id=qid, entity=entity, url=hit.url.encode("utf-8", "replace").decode(),
                title=hit.title.encode("utf-8", "replace").decode(), reason=reason,
                detail=detail))

    def search(self, name: str) -> list[SearchResult] | None:
        """The results for ``name`` (one search per name per run: graphs share entities)."""
        if name not in self.hits:
            started = time.perf_counter()
            self.report.searches += 1
            try:
                self.hits[name] = self.client.search(name, limit=self.limit)
            except SearchError:
                self.report.search_failures += 1
                self.hits[name] = None
            self.report.search_seconds += time.perf_counter() - started
        return self.hits[name]

    def blocked(self, url: str) -> BlockedURL | None:
        """The SSRF guard's verdict on ``url`` (the one fetch applies), before it joins."""
        if url not in self.verdicts:
            try:
                asyncio.run(check_url(url, allow_private=self.opts.allow_private,
                                      allow_hosts=self.opts.allow_hosts))
                self.verdicts[url] = None
            except BlockedURL as exc:
                self.verdicts[url] = exc
        return self.verdicts[url]

    def pick(self, qid: str, entity: dict[str, Any], in_graph: set[str]) -> SearchResult | None:
        """The first result that is the entity's page and may join the graph."""
        hits = self.search(entity["name"])
        for hit in hits or []:
            try:  # a search engine's JSON can carry lone surrogates; Neo4j cannot store them
                f"{hit.url}{hit.title}".encode()
            except UnicodeEncodeError:
                self.reject(qid, entity["name"], hit, "invalid_unicode")
                continue
            if not title_names(hit.title, entity["name"]):
                self.reject(qid, entity["name"], hit, "title_mismatch",
                            f"{hit.title!r} does not name {entity['name']!r}")
                continue
            why = self.blocked(hit.url)
            if why is not None:
                self.reject(qid, entity["name"], hit, why.reason, why.detail)
                continue
            if document_id(hit.url) in in_graph:
                self.reject(qid, entity["name"], hit, "already_in_graph")
                continue
            return hit
        return None

    def level(self, depth: int, max_pages: int, dataset: str | None,
              ids: list[str] | None) -> None:
        """Search for the page-less entities of the pages of depth - 1 and add their pages."""
        graphs = self.store.query("expand/candidates", dataset=dataset, ids=ids, level=depth,
                                  max_entities=max_pages * SEARCHES_PER_PAGE)
        if depth == 1:
            self.report.graphs = len(graphs)
        rows: list[dict[str, Any]] = []
        for g in graphs:
            budget = max_pages - g["added"]
            if budget <= 0 or not g["entities"]:
                continue
            members = set(g["documents"])
            for entity in g["entities"][:budget * SEARCHES_PER_PAGE]:
                if budget <= 0:
                    break
                self.report.entities += 1
                hit = self.pick(g["query_id"], entity, members)
                if hit is None:
                    self.report.unmatched_entities += 1
                    continue
                doc = document_id(hit.url)
                members.add(doc)  # two entities of a graph never add the same page twice
                budget -= 1
                rows.append({
                    "id": doc, "url": hit.url, "title": hit.title, "query_id": g["query_id"],
                    "round": g["round"], "entity_id": entity["id"], "entity": entity["name"],
                    "query": entity["name"], "rank": hit.rank, "engine": self.client.name,
                    "depth": depth, "at": now_iso(),
                    "reason": f"result {hit.rank} titled {hit.title!r} names {entity['name']} "
                              f"({entity['type']}, in {entity['facts']} facts of the graph), "
                              "which has no page in it"})
        if not rows:
            return
        known = {r["id"] for r in self.store.query("refresh/document_ids")}
        stats = self.store.write("expand/add", rows)
        self.report.pages_added += stats.relationships_created
        self.report.by_depth[depth] = stats.relationships_created
        self.grown.update(r["query_id"] for r in rows)
        self.report.graphs_grown = len(self.grown)
        self.report.new_documents += len({r["id"] for r in rows} - known)


def expand(store: Store, client: SearchClient, *, max_pages: int = 5, depth: int = 1,
           limit: int = 10, dataset: str | None = None, ids: list[str] | None = None,
           fetch_options: FetchOptions | None = None, do_fetch: bool = True,
           read_facts: Callable[[], BaseModel] | None = None) -> ExpandReport:
    """Grow every seed graph (of ``dataset``, or ``ids``) by at most ``max_pages`` pages of
    the entities it names without a page, ``depth`` hops out; fetch the new pages and,
    with ``read_facts`` (the facts stage over every unread version, e.g.
    ``lambda: extract_facts(store, nlp=nlp)``), read them: a depth needs the facts of the
    one before. ``do_fetch=False`` only adds the pages (depth 1; ``dwqa fetch`` and
    ``dwqa facts`` take them from there)."""
    if not 1 <= depth <= MAX_DEPTH:
        raise UsageError(f"--depth {depth}: use 1 to {MAX_DEPTH}")
    if not 0 <= max_pages <= MAX_PAGES:
        raise UsageError(f"--max-pages {max_pages}: use 0 to {MAX_PAGES}")
    if not 1 <= limit <= MAX_RESULTS:
        raise UsageError(f"--limit {limit}: use 1 to {MAX_RESULTS} results per search")
    if depth > 1 and (not do_fetch or read_facts is None):
        raise UsageError(f"--depth {depth} expands the entities of the pages added at the "
                         "depth before, so those pages must be fetched and read: drop "
                         "--no-fetch, or use --depth 1")
    started = time.perf_counter()
    opts = fetch_options or FetchOptions()
    run = _Run(store, client, opts, limit)
    for d in range(1, depth + 1):
        run.level(d, max_pages, dataset, ids)
        if not do_fetch:
            break
        # this depth's pages, and any an interrupted run added but did not fetch
        pending = [r["id"] for r in store.query("expand/unfetched", dataset=dataset, ids=ids)]
        if not pending:
            continue  # nothing to read: the next depth reads the pages added before
        t0 = time.perf_counter()
        run.report.fetch.append(fetch(store, opts, ids=pending))
        run.report.fetch_seconds += time.perf_counter() - t0
        if read_facts is not None:
            t0 = time.perf_counter()
            run.report.facts.append(read_facts().model_dump())
            run.report.read_seconds += time.perf_counter() - t0
    report = run.report
    report.rejected_by_reason = dict(sorted(run.rejected.items()))
    for key in ("search_seconds", "fetch_seconds", "read_seconds"):
        setattr(report, key, round(getattr(report, key), 3))
    report.seconds = round(time.perf_counter() - started, 3)
    return report
