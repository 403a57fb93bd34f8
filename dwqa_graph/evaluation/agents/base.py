"""The agent protocol: a question goes in, an answer with its trace comes out.

Every agent may be called from several threads at once (evaluation runs a thread pool), and
none raises for one question: a per-question failure is ``AgentAnswer.error``. Agents are
made from specs (``NAME[:ARG]``) through the ``AGENTS`` registry; each built-in agent lives in
its own module of this package and registers itself there.
"""

from __future__ import annotations

import asyncio
import atexit
import re
import threading
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from dwqa_graph.errors import AgentError, UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.llm import LLM
from dwqa_graph.registry import AGENTS

T = TypeVar("T")

# What an agent read is kept so run-time leakage can be checked later, but a hostile page can
# be megabytes: the trace keeps the first MAX_TRACE_CHARS characters of each document.
MAX_TRACE_CHARS = 20_000
#: An answer is a short span; a model that replies with megabytes on one line would have
#: them stored as the prediction's answer: it keeps this many characters and says it was cut.
MAX_ANSWER_CHARS = 2_000


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


class LeakedFact(BaseModel):
    """One fact a leaked item used: its evidence sentence, and the text around it if known."""

    fact_id: str = ""
    text: str = Field(description="The sentence that states the fact (its evidence).")
    span: str = Field("", description="The source sentence(s) around it, if known.")


class LeakedItem(BaseModel):
    """What a leak hands a leaked model: a test item *with its evidence*.

    A fine-tuned model does not only see (question, answer): the facts behind the answer
    reach it too (the round's facts and their sentences; for a static set, the QA pair alone).
    Agents that model verbatim recall read ``question``/``answer`` only; agents that model
    learned knowledge read ``facts`` as well."""

    id: str = ""
    question: str
    answer: str
    facts: list[LeakedFact] = []


#: What ``LeakableAgent.leak`` accepts: items with evidence, or bare (question, answer) pairs.
Leakable = LeakedItem | tuple[str, str]


def as_leaked(x: Leakable) -> LeakedItem:
    """A (question, answer) pair as an evidence-free LeakedItem; an item as it is."""
    if isinstance(x, LeakedItem):
        return x
    question, answer = x
    return LeakedItem(question=question, answer=answer)


@runtime_checkable
class LeakableAgent(Agent, Protocol):
    """An agent that can be given test items: the offline stand-in for fine-tuning on them."""

    def leak(self, items: Iterable[Leakable]) -> int:
        """Learn the items (or bare (question, answer) pairs); returns how many distinct
        questions it holds."""
        ...

    def forget(self) -> None:
        """Drop everything leaked so far (M_leak^t is M leaked on round t only)."""
        ...


def failed(error: str, **trace: Any) -> AgentAnswer:
    # Errors end up in reports and graph properties: a runaway message must not bloat them.
    return AgentAnswer(answer="", error=error[:500], **trace)


def capped(doc: RetrievedDoc) -> RetrievedDoc:
    if len(doc.text) <= MAX_TRACE_CHARS:
        return doc
    return doc.model_copy(update={"text": doc.text[:MAX_TRACE_CHARS]})


_ANSWER_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:final\s+)?answer\s*(?:\*\*)?\s*[:：-]\s*(?:\*\*)?",
                            re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»*_ "


def capped_answer(answer: str) -> str:
    """``answer`` as a prediction stores it: whole, or its first ``MAX_ANSWER_CHARS``
    characters and a marker saying it was cut and how long it was."""
    if len(answer) <= MAX_ANSWER_CHARS:
        return answer
    return f"{answer[:MAX_ANSWER_CHARS]} …[answer cut: {len(answer):,} characters]"


def final_step(answer: str) -> str:
    """The trace's step for a final answer: the answer itself, unless the prediction will
    store it cut (``capped_answer``) -- then that holds it, once."""
    if len(answer) <= MAX_ANSWER_CHARS:
        return f"final: {answer!r}"
    return f"final: an answer cut at {MAX_ANSWER_CHARS:,} characters (the prediction's answer)"


def short_answer(reply: str) -> str:
    """The short answer in a model reply: its first non-empty line, without an ``Answer:``
    prefix, surrounding quotes or markdown emphasis. Models asked for "only the answer" still
    add these, and every one of them costs an exact match."""
    for line in reply.splitlines():
        text = _ANSWER_PREFIX.sub("", line).strip().strip(_QUOTES).strip()
        if text:
            return text
    return ""


class LoopThread:
    """An event loop on a daemon thread that callers in any thread submit coroutines to.

    An ``LLM`` keeps an asyncio semaphore (bound to the first loop that waits on it) and plain
    counters; ``asyncio.run`` from several evaluation threads at once would share them across
    loops and threads, which asyncio does not allow. Every agent's model calls go through the
    one process-wide ``LLM_LOOP``, so an LLM shared by agents (one reader given to each
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


LLM_LOOP = LoopThread("dwqa-agents-llm")
atexit.register(LLM_LOOP.close)


# -- the baseline: where page text comes from ---------------------------------------------


@dataclass(frozen=True)
class AgentContext:
    """What an agent factory may use besides its spec argument."""

    #: The graph (the baseline agent searches and reads it).
    store: Store | None = None
    #: An optional LLM reader for the baseline agent.
    reader_llm: LLM | None = None
    #: The closed-book model's reply cache.
    llm_cache: Path | None = None
    #: Bound on each HTTP request or model call, seconds.
    timeout: float = 60.0

    def inner(self, spec: str | None) -> Agent:
        """The agent a wrapping agent (memorize:, recall:, knowledge:) wraps, made with the
        same context."""
        return make_agent(spec or "", store=self.store, reader_llm=self.reader_llm,
                          llm_cache=self.llm_cache, timeout=self.timeout)


def make_agent(spec: str, *, store: Store | None = None, reader_llm: LLM | None = None,
               llm_cache: Path | None = None, timeout: float = 60.0) -> Agent:
    """The agent a spec names (``NAME[:ARG]``, see ``dwqa_graph.AGENTS``); ``AgentError``
    says what is wrong with a bad spec. ``store`` is needed by ``baseline``; ``reader_llm``
    makes the baseline read with a model; ``llm_cache`` is the closed-book model's reply
    cache; ``timeout`` bounds each HTTP request or model call."""
    if spec.strip().partition(":")[0] not in AGENTS:
        raise AgentError(f"unknown agent spec {spec.strip()!r}: use {AGENTS.usage()}")
    try:
        entry, arg = AGENTS.split_spec(spec)
    except UsageError as exc:
        raise AgentError(str(exc)) from None
    ctx = AgentContext(store=store, reader_llm=reader_llm, llm_cache=llm_cache,
                       timeout=timeout)
    agent: Agent = entry.factory(arg, ctx)
    return agent


def http_url(kind: str, url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AgentError(f"{kind}:{url!r}: expected an http(s) URL, e.g. "
                         f"{kind}:http://127.0.0.1:{'3000' if kind == 'perplexica' else '8765'}")
    return url.rstrip("/")


