"""Search: the ``SearchClient`` protocol and its two implementations.

- ``SearxngClient`` speaks SearxNG's JSON API (``GET /search?q=...&format=json``): a real
  SearxNG, or ``dwqa web serve`` offline, which answers in the same format.
- ``GraphSearch`` searches a Neo4j full-text index over the stored DocumentVersions, so an
  agent can run offline over any ingested corpus (HotpotQA paragraphs included).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from typing import Protocol

import httpx
from pydantic import BaseModel

from dwqa_graph.errors import SearchError, UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.registry import SEARCH_CLIENTS


class SearchResult(BaseModel):
    url: str
    title: str = ""
    content: str = ""
    published: str | None = None
    rank: int
    engine: str



class SearchClient(Protocol):
    name: str

    def search(self, query: str, limit: int = 10) -> list[SearchResult]:
        ...


#: The fields every usable SearxNG result has; SearxNG's own JSON fills title and content
#: with "" when an engine has none, so a missing or null one marks a malformed result.
REQUIRED_FIELDS = ("url", "title", "content")


def result_problem(hit: object) -> str | None:
    """Why a SearxNG JSON result cannot be used (``no_url``, ``null_title``, ``not_an_object``
    ...), or None when it can. A result is skipped whole rather than patched: a result
    without a URL cannot be read or cited, and one with a null title or content came from a
    broken engine or proxy whose other fields are not to be trusted either."""
    if not isinstance(hit, dict):
        return "not_an_object"
    for key in REQUIRED_FIELDS:
        if key not in hit:
            return f"no_{key}"
        if hit[key] is None:
            return f"null_{key}"
        if not isinstance(hit[key], str):
            return f"bad_{key}"
    if not hit["url"].strip():
        return "empty_url"
    published = hit.get("publishedDate")
    if published is not None and not isinstance(published, str):
        return "bad_publishedDate"
    return None


class SearxngClient:
    """A SearxNG instance (``format=json`` must be enabled in its settings).

    Results without a usable ``url``, ``title`` or ``content`` are skipped, never raised on;
    :attr:`skipped` counts them by reason over the client's life (``search_counted`` also
    returns each search's own count)."""

    name = "searxng"

    def __init__(self, base_url: str, *, timeout: float = 20.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(timeout=timeout, trust_env=False)
        self.skipped: Counter[str] = Counter()
        self._lock = threading.Lock()  # agents search from several threads

    def close(self) -> None:
        self._client.close()

    def search(self, query: str, limit: int = 10) -> list[SearchResult]:
        return self.search_counted(query, limit)[0]

    def search_counted(self, query: str,
                       limit: int = 10) -> tuple[list[SearchResult], Counter[str]]:
        """The results and, by reason, the results skipped as unusable."""
        results: list[SearchResult] = []
        skipped: Counter[str] = Counter()
        page = 1
        while len(results) < limit:
            try:
                resp = self._client.get(f"{self.base_url}/search",
                                        params={"q": query, "format": "json", "pageno": page})
                resp.raise_for_status()
                doc = resp.json()
            except (httpx.HTTPError, ValueError) as exc:
                raise SearchError(f"SearxNG at {self.base_url} failed for {query!r}: {exc}. "
                                  "Is it running, with format=json enabled?") from exc
            hits = doc.get("results") if isinstance(doc, dict) else None
            if not isinstance(hits, list) or not hits:
                break
            before = len(results)
            for hit in hits:
                if len(results) >= limit:
                    break
                problem = result_problem(hit)
                if problem is not None:
                    skipped[problem] += 1
                    continue
                results.append(SearchResult(
                    url=hit["url"], title=hit["title"], content=hit["content"],
                    published=hit.get("publishedDate"), rank=len(results) + 1,
                    engine=self.name))
            if len(results) == before:
                break  # a page of unusable results only: the next one is no better (or the same)
            page += 1
        with self._lock:
            self.skipped.update(skipped)
        return results, skipped


_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')


def lucene_escape(text: str) -> str:
    """User text as a plain Lucene query: special characters escaped, no operators."""
    words = [_LUCENE_SPECIAL.sub(r"\\\1", w) for w in text.split()]
    return " ".join(w for w in words if w.upper() not in ("AND", "OR", "NOT"))


class GraphSearch:
    """Full-text search over the DocumentVersions already in the graph (offline)."""

    name = "graph"

    def __init__(self, store: Store) -> None:
        self.store = store

    def search(self, query: str, limit: int = 10) -> list[SearchResult]:
        q = lucene_escape(query)
        if not q:
            return []
        rows = self.store.query("search/fulltext", q=q, limit=limit)
        return [SearchResult(url=r["url"], title=r["title"] or "", content=r["content"] or "",
                             published=r["published"], rank=i, engine=self.name)
                for i, r in enumerate(rows, start=1)]


@SEARCH_CLIENTS.register("searxng", arg="URL", summary="a SearxNG(-compatible) /search endpoint")
def searxng_client(arg: str | None, store: Store | None = None) -> SearxngClient:
    return SearxngClient(arg or "")


@SEARCH_CLIENTS.register("graph", summary="the graph's own full-text index over page versions")
def graph_client(arg: str | None, store: Store | None = None) -> GraphSearch:
    if store is None:
        raise UsageError("the graph search client needs a Neo4j store")
    return GraphSearch(store)


def make_search_client(spec: str, store: Store | None = None) -> SearchClient:
    """``graph`` or ``searxng:URL`` (or a plugin's ``NAME[:ARG]``)."""
    entry, arg = SEARCH_CLIENTS.split_spec(spec)
    client: SearchClient = entry.factory(arg, store)
    return client
