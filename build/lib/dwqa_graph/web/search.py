"""Search: the ``SearchClient`` protocol and its two implementations.

- ``SearxngClient`` speaks SearxNG's JSON API (``GET /search?q=...&format=json``): a real
  SearxNG, or ``dwqa web serve`` offline, which answers in the same format.
- ``GraphSearch`` searches a Neo4j full-text index over the stored DocumentVersions, so an
  agent can run offline over any ingested corpus (HotpotQA paragraphs included).
"""

from __future__ import annotations

import re
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


class SearxngClient:
    """A SearxNG instance (``format=json`` must be enabled in its settings)."""

    name = "searxng"

    def __init__(self, base_url: str, *, timeout: float = 20.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._client = httpx.Client(timeout=timeout, trust_env=False)

    def close(self) -> None:
        self._client.close()

    def search(self, query: str, limit: int = 10) -> list[SearchResult]:
        results: list[SearchResult] = []
        page = 1
        while len(results) < limit:
            try:
                resp = self._client.get(f"{self.base_url}/search",
                                        params={"q": query, "format": "json", "pageno": page})
                resp.raise_for_status()
                hits = resp.json().get("results") or []
            except (httpx.HTTPError, ValueError) as exc:
                raise SearchError(f"SearxNG at {self.base_url} failed for {query!r}: {exc}. "
                                  "Is it running, with format=json enabled?") from exc
            if not hits:
                break
            for hit in hits:
                if "url" in hit and len(results) < limit:
                    results.append(SearchResult(
                        url=hit["url"], title=hit.get("title") or "",
                        content=hit.get("content") or "", published=hit.get("publishedDate"),
                        rank=len(results) + 1, engine=self.name))
            page += 1
        return results


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
