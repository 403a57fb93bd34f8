"""The built-in web agent, with no model: search, read the top pages, answer with a short
typed span of the best-supported sentence."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal, Protocol

import httpx
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents.base import (
    LLM_LOOP,
    MAX_TRACE_CHARS,
    AgentAnswer,
    AgentContext,
    RetrievedDoc,
    failed,
    http_url,
    short_answer,
)
from dwqa_graph.evaluation.reader import (
    TOP_K,
    Scored,
    analyse,
    rank_sentences,
    shortest_clause,
    yes_no,
)
from dwqa_graph.graph.store import Store
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.registry import AGENTS
from dwqa_graph.web.fetch import FetchFailure, FetchOptions, download, extract_page
from dwqa_graph.web.search import GraphSearch, SearchClient, SearchResult, SearxngClient
from dwqa_graph.web.ssrf import BlockedURL, check_scheme_and_host, host_port


class PageRead(BaseModel):
    """The text the baseline read for one search hit."""

    url: str
    title: str = ""
    text: str = ""
    source: Literal["page", "snippet"] = Field(
        description="'page': the full page text; 'snippet': the search result's excerpt, "
                    "because the page could not be read.")
    detail: str = Field("", description="Why the page could not be read.")


class PageSource(Protocol):
    name: str

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        ...


def _snippet(hit: SearchResult, detail: str) -> PageRead:
    return PageRead(url=hit.url, title=hit.title, text=hit.content, source="snippet",
                    detail=detail)


class GraphPages:
    """Page text from the graph: the newest stored version of each hit's Document."""

    name = "graph"

    def __init__(self, store: Store) -> None:
        self.store = store

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        rows = self.store.query("agents/version_text", urls=[h.url for h in hits])
        by_url = {r["url"]: r for r in rows if r["text"]}
        return [PageRead(url=h.url, title=by_url[h.url]["title"] or h.title,
                         text=by_url[h.url]["text"], source="page")
                if h.url in by_url else _snippet(h, "no stored version")
                for h in hits]


class WebPages:
    """Page text fetched over HTTP with the fetch stage's download (retries, size caps, the
    SSRF guard on every hop) and extraction."""

    name = "web"

    def __init__(self, options: FetchOptions) -> None:
        self.options = options

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        # One loop per call: each evaluation thread fetches its own pages, and an
        # httpx.AsyncClient must not outlive the loop it was made on.
        return asyncio.run(self._read_all(hits))

    async def _read_all(self, hits: list[SearchResult]) -> list[PageRead]:
        opts = self.options
        timeout = httpx.Timeout(opts.timeout, connect=min(opts.timeout, 10.0))
        async with httpx.AsyncClient(follow_redirects=False, timeout=timeout, trust_env=False,
                                     headers={"user-agent": opts.user_agent}) as client:
            return list(await asyncio.gather(*(self._read_one(client, h) for h in hits)))

    async def _read_one(self, client: httpx.AsyncClient, hit: SearchResult) -> PageRead:
        try:
            resp, body, final = await download(client, hit.url, self.options)
            if resp.status_code >= 400:
                return _snippet(hit, f"http_{resp.status_code}")
            ctype = resp.headers.get("content-type", "text/html").split(";")[0].strip()
            # Extraction is CPU work: off the loop, so the other pages keep downloading.
            out = await asyncio.to_thread(extract_page, body, resp.charset_encoding,
                                          ctype or "text/html", final)
        except (FetchFailure, BlockedURL) as exc:
            return _snippet(hit, f"{exc.reason}: {exc.detail}")
        except Exception as exc:  # result URLs are untrusted: one odd page is not fatal
            return _snippet(hit, f"{type(exc).__name__}: {exc}"[:200])
        if out["reason"] != "ok":
            return _snippet(hit, f"{out['reason']}: {out.get('detail', '')}")
        return PageRead(url=hit.url, title=out.get("title") or hit.title, text=out["text"],
                        source="page")




# -- the baseline agent ---------------------------------------------------------------------
class BaselineAgent:
    """A deterministic web agent with no model: search, read the top pages, pick the sentence
    that best matches the question (idf-weighted word overlap, a bonus for holding an answer
    of the expected type) and answer with a short span of that type from it.

    With ``reader_llm`` the model reads the three best sentences instead, and the rule answer
    is the fallback when it fails."""

    def __init__(self, spec: str, search: SearchClient, pages: PageSource, *,
                 reader_llm: LLM | None = None, top_k: int = TOP_K,
                 close: Callable[[], None] | None = None) -> None:
        self.spec = spec
        self.search = search
        self.pages = pages
        self.reader_llm = reader_llm
        self.top_k = top_k
        self._close = close
        self._reader_prompt = load_prompt("reader") if reader_llm else None

    def close(self) -> None:
        if self._close:  # not the reader LLM: it belongs to the caller, who closes it
            self._close()

    def answer(self, question: str) -> AgentAnswer:
        steps: list[str] = []
        try:
            return self._answer(question, steps)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return failed(f"{type(exc).__name__}: {exc}", steps=steps)

    def _answer(self, question: str, steps: list[str]) -> AgentAnswer:
        try:
            counted = getattr(self.search, "search_counted", None)
            hits, skipped = (counted(question, limit=self.top_k) if counted
                             else (self.search.search(question, limit=self.top_k), {}))
        except Exception as exc:  # SearchError, a Neo4j outage: both end this question
            return failed(f"search failed ({self.search.name}): {type(exc).__name__}: {exc}",
                           steps=[f"search {self.search.name}: {question!r}"])
        steps.append(f"search {self.search.name}: {question!r} -> {len(hits)} results")
        if skipped:  # malformed results (no url, null title ...) are dropped, and said so
            steps.append("skipped unusable results: " + ", ".join(
                f"{k} {v}" for k, v in sorted(skipped.items())))
        reads = self.pages.read(hits) if hits else []
        retrieved = []
        for rank, page in enumerate(reads, start=1):
            how = (f"page text, {len(page.text)} chars" if page.source == "page"
                   else f"search snippet ({page.detail})")
            steps.append(f"read [{rank}] {page.url}: {how}")
            retrieved.append(RetrievedDoc(url=page.url, title=page.title,
                                          text=page.text[:MAX_TRACE_CHARS], rank=rank))
        q = analyse(question)
        steps.append(f"answer type: {q.kind}")
        ranked, idf = rank_sentences(q, [(r.rank, p.title, p.text)
                                         for r, p in zip(retrieved, reads, strict=True)])
        if not ranked:
            steps.append("no retrieved sentence shares a word with the question")
            return AgentAnswer(answer="", retrieved=retrieved, steps=steps)
        # The best sentence that holds an answer of the expected type, among the top three:
        # a near-tie is often a restatement of the question without the answer.
        best = next((s for s in ranked[:3] if s.answer), ranked[0])
        steps.append(f"best sentence [doc {best.doc_rank}, score {best.score:.2f}]: "
                     f"{best.sentence}")
        if q.kind == "yesno":
            answer, how = yes_no(best.sentence, q, idf), "yes/no rule"
        elif best.answer:
            answer, how = best.answer.text, f"{q.kind} span"
        else:
            answer, how = shortest_clause(best.sentence, q), "shortest clause"
        if self.reader_llm is not None:
            answer, how = self._read(question, ranked[:3], answer, how, steps)
        steps.append(f"answer ({how}): {answer!r}")
        return AgentAnswer(answer=answer, retrieved=retrieved, steps=steps)

    def _read(self, question: str, top: list[Scored], rule_answer: str, rule_how: str,
              steps: list[str]) -> tuple[str, str]:
        assert self.reader_llm is not None and self._reader_prompt is not None
        prompt = self._reader_prompt.render(
            question=question, sentences="\n".join(f"- {s.sentence}" for s in top))
        try:
            reply = LLM_LOOP.run(self.reader_llm.acall([HumanMessage(prompt)]))
        except LLMFailure as exc:
            steps.append(f"reader {self.reader_llm.id} failed ({exc.reason}); rule answer kept")
            return rule_answer, rule_how
        text = short_answer(reply)
        if not text:
            steps.append(f"reader {self.reader_llm.id} gave no answer; rule answer kept")
            return rule_answer, rule_how
        return text, f"reader {self.reader_llm.id}"


# -- python callables -------------------------------------------------------------------------


def _endpoint_host(url: str) -> frozenset[str]:
    """The search endpoint's own ``host:port``, to exempt it (and nothing else)."""
    try:
        host, port = check_scheme_and_host(url)
    except BlockedURL as exc:
        raise AgentError(f"baseline:{url!r}: {exc.detail}") from exc
    return frozenset({host_port(host, port)})


@AGENTS.register("baseline", arg="SEARXNG_URL?",
                 summary="built-in web agent, no model: the graph's full-text index, or a "
                         "SearxNG(-compatible) endpoint at SEARXNG_URL and the pages it finds")
def baseline_agent(arg: str | None, ctx: AgentContext) -> BaselineAgent:
    spec = f"baseline:{arg}" if arg else "baseline"
    if arg is None:
        if ctx.store is None:
            raise AgentError("agent 'baseline' searches the graph and needs a Neo4j store; "
                             "use baseline:URL to search a SearxNG endpoint instead")
        return BaselineAgent(spec, GraphSearch(ctx.store), GraphPages(ctx.store),
                             reader_llm=ctx.reader_llm)
    url = http_url("baseline", arg)
    client, pages = web_sources(url, ctx.timeout)
    return BaselineAgent(spec, client, pages, reader_llm=ctx.reader_llm, close=client.close)


def web_sources(url: str, timeout: float) -> tuple[SearxngClient, WebPages]:
    """A SearxNG(-compatible) endpoint and the guarded reader of the pages it finds, as the
    web agents use them (``timeout``: per request and per page)."""
    client = SearxngClient(url, timeout=timeout)
    # Result URLs are untrusted wherever the engine runs: the SSRF guard stays on for
    # every page. Only the search endpoint's own host:port is exempt, which is where
    # the local web (`dwqa web serve`) serves its pages; any other loopback or private
    # service a result points at stays blocked.
    options = FetchOptions(allow_hosts=_endpoint_host(url), timeout=timeout,
                           deadline=timeout, retries=1, workers=1)
    return client, WebPages(options)
