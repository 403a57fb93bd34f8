"""Agents under evaluation: one protocol (question -> answer + trace) and its adapters.

Agent specs (``make_agent``):

- ``baseline``                 built-in web agent over the graph's full-text index (offline)
- ``baseline:URL``             the same agent searching a SearxNG(-compatible) endpoint at URL
                               and fetching the result pages
- ``python:module:function``   a Python callable ``f(question) -> str | AgentAnswer | dict``
- ``perplexica:URL``           Perplexica's ``POST /api/search`` at URL
                               (``?focusMode=...&optimizationMode=...`` override the defaults)
- ``closedbook:LLMSPEC``       an LLM answering without retrieval (LLMSPEC as ``make_llm``)
- ``memorize:SPEC``            SPEC wrapped in a leaked agent that memorises leaked QA pairs

Every agent may be called from several threads at once (evaluation runs a thread pool), and
none raises for one question: a per-question failure is ``AgentAnswer.error``.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import re
import threading
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field, ValidationError

from dwqa_graph.errors import AgentError, LLMError
from dwqa_graph.evaluation.reader import (
    TOP_K,
    WORD,
    Scored,
    analyse,
    rank_sentences,
    shortest_clause,
    yes_no,
)
from dwqa_graph.evaluation.scoring import normalize_answer
from dwqa_graph.graph.store import Store
from dwqa_graph.llm import LLM, LLMFailure, load_prompt, make_llm
from dwqa_graph.web.fetch import FetchFailure, FetchOptions, download, extract_page
from dwqa_graph.web.search import GraphSearch, SearchClient, SearchResult, SearxngClient
from dwqa_graph.web.ssrf import BlockedURL, check_scheme_and_host, host_port

T = TypeVar("T")

# What an agent read is kept so run-time leakage can be checked later, but a hostile page can
# be megabytes: the trace keeps the first MAX_TRACE_CHARS characters of each document.
MAX_TRACE_CHARS = 20_000


class RetrievedDoc(BaseModel):
    """One document the agent retrieved, with the text it actually saw."""

    url: str
    title: str = ""
    text: str = Field("", description="What the agent read (excerpt or page text), capped.")
    rank: int = Field(description="1-based position in the agent's retrieval order.")


class AgentAnswer(BaseModel):
    """An agent's reply to one question, with its trace."""

    answer: str
    retrieved: list[RetrievedDoc] = []
    steps: list[str] = Field([], description="Reasoning / action steps, in order.")
    error: str | None = Field(None, description="Why the agent failed; answer is then ''.")



@runtime_checkable
class Agent(Protocol):
    spec: str

    def answer(self, question: str) -> AgentAnswer:
        """Answer one question. Must not raise for a per-question failure: set ``error``."""
        ...

    def close(self) -> None:
        ...


@runtime_checkable
class LeakableAgent(Agent, Protocol):
    """An agent that can be given test items: the offline stand-in for fine-tuning on them."""

    def leak(self, pairs: Iterable[tuple[str, str]]) -> int:
        """Memorise (question, answer) pairs; returns how many distinct questions it holds."""
        ...

    def forget(self) -> None:
        """Drop everything leaked so far (M_leak^t is M leaked on round t only)."""
        ...


SPEC_HELP = ("use baseline, baseline:URL, python:module:function, perplexica:URL, "
             "closedbook:LLMSPEC or memorize:SPEC")


def _failed(error: str, **trace: Any) -> AgentAnswer:
    # Errors end up in reports and graph properties: a runaway message must not bloat them.
    return AgentAnswer(answer="", error=error[:500], **trace)


def _capped(doc: RetrievedDoc) -> RetrievedDoc:
    if len(doc.text) <= MAX_TRACE_CHARS:
        return doc
    return doc.model_copy(update={"text": doc.text[:MAX_TRACE_CHARS]})


_ANSWER_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:final\s+)?answer\s*(?:\*\*)?\s*[:：-]\s*(?:\*\*)?",
                            re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»*_ "


def short_answer(reply: str) -> str:
    """The short answer in a model reply: its first non-empty line, without an ``Answer:``
    prefix, surrounding quotes or markdown emphasis. Models asked for "only the answer" still
    add these, and every one of them costs an exact match."""
    for line in reply.splitlines():
        text = _ANSWER_PREFIX.sub("", line).strip().strip(_QUOTES).strip()
        if text:
            return text
    return ""


class _LoopThread:
    """An event loop on a daemon thread that callers in any thread submit coroutines to.

    An ``LLM`` keeps an asyncio semaphore (bound to the first loop that waits on it) and plain
    counters; ``asyncio.run`` from several evaluation threads at once would share them across
    loops and threads, which asyncio does not allow. Every agent's model calls go through the
    one process-wide ``_LLM_LOOP``, so an LLM shared by agents (one reader given to each
    round's baseline) also stays on one loop, with its concurrency limit, cache and stats."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        with self._lock:
            if self._loop is None:  # started on first use: most agents never call a model
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                                name=self._name)
                self._thread.start()
            loop = self._loop
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    def close(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        # Chat models without native async run in the loop's default executor.
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


_LLM_LOOP = _LoopThread("dwqa-agents-llm")
atexit.register(_LLM_LOOP.close)


# -- the baseline: where page text comes from ---------------------------------------------
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


def _endpoint_host(url: str) -> frozenset[str]:
    """The search endpoint's own ``host:port``, to exempt it (and nothing else)."""
    try:
        host, port = check_scheme_and_host(url)
    except BlockedURL as exc:
        raise AgentError(f"baseline:{url!r}: {exc.detail}") from exc
    return frozenset({host_port(host, port)})


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
            return _failed(f"{type(exc).__name__}: {exc}", steps=steps)

    def _answer(self, question: str, steps: list[str]) -> AgentAnswer:
        try:
            hits = self.search.search(question, limit=self.top_k)
        except Exception as exc:  # SearchError, a Neo4j outage: both end this question
            return _failed(f"search failed ({self.search.name}): {type(exc).__name__}: {exc}",
                           steps=[f"search {self.search.name}: {question!r}"])
        steps.append(f"search {self.search.name}: {question!r} -> {len(hits)} results")
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
            reply = _LLM_LOOP.run(self.reader_llm.acall([HumanMessage(prompt)]))
        except LLMFailure as exc:
            steps.append(f"reader {self.reader_llm.id} failed ({exc.reason}); rule answer kept")
            return rule_answer, rule_how
        text = short_answer(reply)
        if not text:
            steps.append(f"reader {self.reader_llm.id} gave no answer; rule answer kept")
            return rule_answer, rule_how
        return text, f"reader {self.reader_llm.id}"


# -- python callables -------------------------------------------------------------------------
class PythonAgent:
    """``f(question)`` returning a str, an AgentAnswer or a dict in AgentAnswer's shape."""

    def __init__(self, spec: str, func: Callable[[str], Any]) -> None:
        self.spec = spec
        self.func = func

    def close(self) -> None:
        pass

    def answer(self, question: str) -> AgentAnswer:
        try:
            out = self.func(question)
        except Exception as exc:
            return _failed(f"{type(exc).__name__}: {exc}")
        if isinstance(out, str):
            return AgentAnswer(answer=out)
        try:
            reply = (out if isinstance(out, AgentAnswer)
                     else AgentAnswer.model_validate(out) if isinstance(out, dict) else None)
        except ValidationError as exc:
            return _failed(f"{self.spec} returned a dict that is not an AgentAnswer: {exc}")
        if reply is None:
            return _failed(f"{self.spec} returned {type(out).__name__}; expected str, "
                           "AgentAnswer or dict")
        return reply.model_copy(update={"retrieved": [_capped(d) for d in reply.retrieved]})


def _load_callable(target: str) -> Callable[[str], Any]:
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise AgentError(f"python agent {target!r}: use python:module:function "
                         "(e.g. python:my_agents.web:answer)")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentError(f"python agent: cannot import module {module_name!r}: {exc}. "
                         "Is it installed or on PYTHONPATH?") from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentError(f"python agent: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AgentError(f"python agent: {module_name}:{attr} is a {type(obj).__name__}, "
                         "not a function")
    return obj  # type: ignore[no-any-return]


# -- Perplexica ---------------------------------------------------------------------------------
class PerplexicaMetadata(BaseModel):
    title: str = ""
    url: str = ""


class PerplexicaSource(BaseModel):
    pageContent: str = ""  # Perplexica's spelling
    metadata: PerplexicaMetadata = PerplexicaMetadata()


class PerplexicaReply(BaseModel):
    """The parts of Perplexica's ``/api/search`` response an evaluation uses."""

    message: str
    sources: list[PerplexicaSource] = []


_CITATION = re.compile(r"\s*\[\d+(?:\s*[,–-]\s*\d+)*\]")
PERPLEXICA_OPTIONS = ("focusMode", "optimizationMode")


class PerplexicaAgent:
    """Perplexica's HTTP API: ``POST {url}/api/search``, answer and sources from the reply."""

    def __init__(self, spec: str, base_url: str, *, focus_mode: str = "webSearch",
                 optimization_mode: str = "speed", timeout: float = 60.0) -> None:
        self.spec = spec
        self.base_url = base_url.rstrip("/")
        self.focus_mode, self.optimization_mode = focus_mode, optimization_mode
        self.timeout = timeout
        self._client = httpx.Client(timeout=timeout, trust_env=False)  # thread-safe

    def close(self) -> None:
        self._client.close()

    def answer(self, question: str) -> AgentAnswer:
        body = {"query": question, "focusMode": self.focus_mode,
                "optimizationMode": self.optimization_mode, "history": []}
        url = f"{self.base_url}/api/search"
        steps = [f"POST {url} focusMode={self.focus_mode} "
                 f"optimizationMode={self.optimization_mode}"]
        try:
            resp = self._client.post(url, json=body)
        except httpx.TimeoutException:
            return _failed(f"timeout: Perplexica at {url} did not answer within "
                           f"{self.timeout:g} s", steps=steps)
        except httpx.HTTPError as exc:
            return _failed(f"connection error: Perplexica at {url}: {type(exc).__name__}: "
                           f"{exc}", steps=steps)
        if resp.status_code >= 400:
            return _failed(f"HTTP {resp.status_code} from Perplexica at {url}: "
                           f"{' '.join(resp.text.split())[:200]}", steps=steps)
        try:
            data = resp.json()
        except ValueError as exc:
            return _failed(f"malformed JSON from Perplexica at {url}: {exc}; body starts "
                           f"{resp.text[:80]!r}", steps=steps)
        try:
            reply = PerplexicaReply.model_validate(data)
        except ValidationError as exc:
            return _failed(f"malformed reply from Perplexica at {url} (expected 'message' and "
                           f"'sources'): {' '.join(str(exc).split())}", steps=steps)
        retrieved = [RetrievedDoc(url=s.metadata.url, title=s.metadata.title,
                                  text=s.pageContent[:MAX_TRACE_CHARS], rank=i)
                     for i, s in enumerate(reply.sources, start=1)]
        steps.append(f"{len(retrieved)} sources")
        answer = " ".join(_CITATION.sub("", reply.message).split())
        return AgentAnswer(answer=re.sub(r"\s+([.,;:!?])", r"\1", answer),
                           retrieved=retrieved, steps=steps)


# -- closed book ------------------------------------------------------------------------------
class ClosedBookAgent:
    """An LLM with no retrieval: what the model answers from its weights alone."""

    def __init__(self, spec: str, llm: LLM, *, owns_llm: bool = True) -> None:
        self.spec = spec
        self.llm = llm
        self.prompt = load_prompt("closed_book")
        self._owns_llm = owns_llm

    def close(self) -> None:
        if self._owns_llm:
            self.llm.close()

    def answer(self, question: str) -> AgentAnswer:
        steps = [f"closed book: {self.llm.id} (prompt {self.prompt.name} "
                 f"v{self.prompt.version}, {self.prompt.hash})"]
        message = HumanMessage(self.prompt.render(question=question))
        try:
            reply = _LLM_LOOP.run(self.llm.acall([message]))
        except LLMFailure as exc:
            return _failed(f"llm {exc.reason}: {exc.detail}", steps=steps)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return _failed(f"{type(exc).__name__}: {exc}", steps=steps)
        answer = short_answer(reply)
        if not WORD.search(answer):
            return _failed(f"llm unusable reply: no answer text in {reply[:120]!r}",
                           steps=steps)
        steps.append(f"reply: {reply[:200]!r}")
        return AgentAnswer(answer=answer, steps=steps)


# -- a leaked agent ---------------------------------------------------------------------------
class MemorizingAgent:
    """An agent given the test items (the offline stand-in for fine-tuning on them): a leaked
    question is answered from memory, exactly or after normalisation; anything else goes to
    the wrapped agent."""

    def __init__(self, spec: str, inner: Agent) -> None:
        self.spec = spec
        self.inner = inner
        self._lock = threading.Lock()
        self._exact: dict[str, str] = {}
        self._normalised: dict[str, str] = {}

    @staticmethod
    def _key(question: str) -> str:
        return normalize_answer(question)

    def leak(self, pairs: Iterable[tuple[str, str]]) -> int:
        items = list(pairs)
        with self._lock:
            for question, answer in items:
                self._exact[question] = answer
                if key := self._key(question):  # "???" must not match every "!!!"
                    self._normalised[key] = answer
            return len(self._exact)

    def forget(self) -> None:
        with self._lock:
            self._exact.clear()
            self._normalised.clear()

    def answer(self, question: str) -> AgentAnswer:
        key = self._key(question)
        with self._lock:
            if question in self._exact:
                hit: tuple[str, str] | None = (self._exact[question], "exact")
            elif key and key in self._normalised:
                hit = (self._normalised[key], "normalised")
            else:
                hit = None
        if hit is not None:
            return AgentAnswer(answer=hit[0], steps=[f"memorised: {hit[1]}"])
        return self.inner.answer(question)  # outside the lock: the inner agent is slow

    def close(self) -> None:
        self.inner.close()


# -- specs ------------------------------------------------------------------------------------
def _http_url(kind: str, url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AgentError(f"{kind}:{url!r}: expected an http(s) URL, e.g. "
                         f"{kind}:http://127.0.0.1:{'3000' if kind == 'perplexica' else '8765'}")
    return url.rstrip("/")


def _perplexica(spec: str, url: str, timeout: float) -> PerplexicaAgent:
    parts = urlsplit(_http_url("perplexica", url))
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - set(PERPLEXICA_OPTIONS))
    if unknown:
        raise AgentError(f"perplexica: unknown option(s) {', '.join(unknown)} in {spec!r}; "
                         f"allowed: {', '.join(PERPLEXICA_OPTIONS)}")
    if not all(options.values()):
        raise AgentError(f"perplexica: empty option value in {spec!r}")
    base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    return PerplexicaAgent(spec, base, focus_mode=options.get("focusMode", "webSearch"),
                           optimization_mode=options.get("optimizationMode", "speed"),
                           timeout=timeout)


def make_agent(spec: str, *, store: Store | None = None, reader_llm: LLM | None = None,
               llm_cache: Path | None = None, timeout: float = 60.0) -> Agent:
    """The agent a spec names (see the module docstring); ``AgentError`` says what is wrong
    with a bad spec. ``store`` is needed by ``baseline``; ``reader_llm`` makes the baseline
    read with a model; ``llm_cache`` is the closed-book model's reply cache; ``timeout``
    bounds each HTTP request or model call."""
    spec = spec.strip()
    kind, sep, rest = spec.partition(":")
    rest = rest.strip()
    if sep and not rest:
        raise AgentError(f"agent spec {spec!r}: nothing after '{kind}:'; {SPEC_HELP}")
    if kind == "baseline":
        if not sep:
            if store is None:
                raise AgentError("agent 'baseline' searches the graph and needs a Neo4j store; "
                                 "use baseline:URL to search a SearxNG endpoint instead")
            return BaselineAgent(spec, GraphSearch(store), GraphPages(store),
                                 reader_llm=reader_llm)
        url = _http_url("baseline", rest)
        client = SearxngClient(url, timeout=timeout)
        # Result URLs are untrusted wherever the engine runs: the SSRF guard stays on for
        # every page. Only the search endpoint's own host:port is exempt, which is where
        # the local web (`dwqa web serve`) serves its pages; any other loopback or private
        # service a result points at stays blocked.
        options = FetchOptions(allow_hosts=_endpoint_host(url), timeout=timeout,
                               deadline=timeout, retries=1, workers=1)
        return BaselineAgent(spec, client, WebPages(options), reader_llm=reader_llm,
                             close=client.close)
    if kind == "python" and sep:
        return PythonAgent(spec, _load_callable(rest))
    if kind == "perplexica" and sep:
        return _perplexica(spec, rest, timeout)
    if kind == "closedbook" and sep:
        try:
            # A short answer needs few tokens; a cap keeps a rambling model cheap.
            model = make_llm(rest, max_tokens=64)
        except LLMError as exc:
            raise AgentError(f"closedbook: {exc}") from exc
        return ClosedBookAgent(spec, LLM(model, cache_path=llm_cache, timeout=timeout))
    if kind == "memorize" and sep:
        return MemorizingAgent(spec, make_agent(rest, store=store, reader_llm=reader_llm,
                                                llm_cache=llm_cache, timeout=timeout))
    if kind in ("python", "perplexica", "closedbook", "memorize"):
        raise AgentError(f"agent spec {spec!r}: '{kind}' needs an argument; {SPEC_HELP}")
    raise AgentError(f"unknown agent spec {spec!r}: {SPEC_HELP}")
