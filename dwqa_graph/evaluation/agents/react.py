"""A tool-using web agent for any chat model: the model searches and reads pages through tools
until it gives a short final answer.

Spec: ``react:LLMSPEC`` (the graph's full-text index and stored pages, like ``baseline``) or
``react:LLMSPEC@search=URL`` (a SearxNG(-compatible) endpoint and the pages it finds, read with
the fetch stage's SSRF-guarded, size- and time-bounded download and extraction), with more
``@`` options: ``steps`` (model turns, default 8), ``deadline`` (seconds per question, 120),
``chars`` (transcript characters the model sees, 24000). LLMSPEC is as for ``--llm``.

The tool protocol is plain text (``prompts/react.md``: one ``Action: search: ...`` /
``Action: fetch: ...`` / ``Final: ...`` line per turn), which every chat model, local or
hosted, can follow; providers' native tool calling is not used yet. Every search, fetched URL
and the page text read is the prediction's trace (``retrieved``, ``steps``), so run-time
leakage and the report see them. A question ends with an error whose first word is the
counted reason: ``no_action`` (a reply with neither action nor answer), ``malformed_action``
(an unknown tool or no argument), ``blocked_url`` (a URL the SSRF guard refuses),
``tool_loop`` (the same action twice in a row), ``step_limit``, ``deadline``, ``llm_failed``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from langchain_core.messages import HumanMessage

from dwqa_graph.errors import AgentError, LLMError
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
from dwqa_graph.evaluation.agents.baseline import GraphPages, PageSource, WebPages, _endpoint_host
from dwqa_graph.llm import LLM, LLMFailure, load_prompt, make_llm
from dwqa_graph.registry import AGENTS
from dwqa_graph.web.fetch import FetchOptions
from dwqa_graph.web.search import GraphSearch, SearchClient, SearchResult, SearxngClient
from dwqa_graph.web.ssrf import BlockedURL, check_scheme_and_host

_LINE = re.compile(r"^\s*(?:\*\*)?(action|final(?:\s+answer)?)(?:\*\*)?\s*:\s*(.*)$",
                   re.IGNORECASE | re.MULTILINE)
_TOOL = re.compile(r"^(search|fetch)\s*[:(]\s*(.*?)\s*\)?\s*$", re.IGNORECASE | re.DOTALL)
#: The reasons a question ends without an answer (the error's first word).
REASONS = ("no_action", "malformed_action", "blocked_url", "tool_loop", "step_limit",
           "deadline", "llm_failed", "internal_error")
#: Characters of one observation: a result list, a page.
RESULTS_CHARS = 2_000
PAGE_CHARS = 4_000


@dataclass(frozen=True)
class Bounds:
    steps: int = 8
    deadline: float = 120.0
    chars: int = 24_000
    results: int = 5


class ReactAgent:
    def __init__(self, spec: str, llm: LLM, search: SearchClient, pages: PageSource, *,
                 bounds: Bounds = Bounds(), allow_private: bool = False,
                 owns: bool = True) -> None:
        self.spec, self.llm, self.search, self.pages = spec, llm, search, pages
        self.bounds, self.allow_private, self._owns = bounds, allow_private, owns
        self.prompt = load_prompt("react")

    def close(self) -> None:
        if self._owns:
            self.llm.close()
        closer = getattr(self.search, "close", None)
        if closer:
            closer()

    def answer(self, question: str) -> AgentAnswer:
        steps: list[str] = [f"react: {self.llm.id} (prompt {self.prompt.name} "
                            f"v{self.prompt.version})"]
        retrieved: list[RetrievedDoc] = []
        try:
            return self._run(question, steps, retrieved)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return failed(f"internal_error: {type(exc).__name__}: {exc}", steps=steps,
                          retrieved=retrieved)

    def _run(self, question: str, steps: list[str], retrieved: list[RetrievedDoc],
             ) -> AgentAnswer:
        b = self.bounds
        deadline = time.monotonic() + b.deadline
        transcript: list[str] = []
        seen: dict[str, str] = {}  # url -> title, from search results
        last: str | None = None

        def end(reason: str, detail: str) -> AgentAnswer:
            steps.append(f"ended: {reason}")
            return failed(f"{reason}: {detail}", steps=steps, retrieved=retrieved)

        for _ in range(b.steps):
            if time.monotonic() > deadline:
                return end("deadline", f"no answer within {b.deadline:g} s")
            text = "\n".join(transcript)
            if len(text) > b.chars:  # the oldest observations go first
                text = "...\n" + text[-b.chars:]
            prompt = self.prompt.render(question=question, transcript=text)
            try:
                reply = LLM_LOOP.run(self.llm.acall([HumanMessage(prompt)]))
            except LLMFailure as exc:
                return end("llm_failed", f"{exc.reason}: {exc.detail}")
            match = _LINE.search(reply or "")
            if match is None:
                return end("no_action", f"reply {reply[:120]!r} has no Action or Final line")
            kind, arg = match.group(1).lower(), match.group(2).strip()
            if kind.startswith("final"):
                answer = short_answer(arg)
                if not answer:
                    return end("no_action", "an empty Final line")
                steps.append(f"final: {answer!r}")
                return AgentAnswer(answer=answer, retrieved=retrieved, steps=steps)
            tool = _TOOL.match(arg)
            if tool is None or not tool.group(2).strip():
                return end("malformed_action", f"{arg[:120]!r}: expected search: QUERY or "
                                               "fetch: URL")
            name, value = tool.group(1).lower(), tool.group(2).strip().strip("<>\"'")
            action = f"{name}: {value}"
            if action == last:
                return end("tool_loop", f"the same action twice: {action[:120]!r}")
            last = action
            transcript.append(f"Action: {action}")
            if name == "search":
                hits = self.search.search(value, limit=b.results)
                steps.append(f"search {self.search.name}: {value!r} -> {len(hits)} results")
                for h in hits:
                    seen.setdefault(h.url, h.title)
                obs = "\n".join(f"- {h.title} | {h.url} | {h.content[:200]}" for h in hits)
                transcript.append("Observation:\n" + (obs[:RESULTS_CHARS] or "no results"))
            else:
                if not self.allow_private:
                    try:
                        check_scheme_and_host(value)
                    except BlockedURL as exc:
                        return end("blocked_url", f"{value[:200]!r}: {exc.detail}")
                [page] = self.pages.read([SearchResult(url=value, title=seen.get(value, ""),
                                                       rank=1, engine="agent")])
                if page.detail.startswith(("blocked_", "invalid_url")):
                    return end("blocked_url", f"{value[:200]!r}: {page.detail}")
                retrieved.append(RetrievedDoc(url=value, title=page.title,
                                              text=page.text[:MAX_TRACE_CHARS],
                                              rank=len(retrieved) + 1))
                steps.append(f"fetch {value}: {len(page.text)} chars"
                             + (f" ({page.detail})" if page.detail else ""))
                transcript.append("Observation:\n" + (page.text[:PAGE_CHARS]
                                                      or f"could not read: {page.detail}"))
        return end("step_limit", f"no final answer in {b.steps} turns")


def _options(arg: str) -> tuple[str, dict[str, str]]:
    """LLMSPEC and its ``@k=v,...`` options (split at the last @ followed by k=v)."""
    spec, sep, opts = arg.rpartition("@")
    if not sep or "=" not in opts:
        return arg, {}
    out = {}
    for pair in opts.split(","):
        k, eq, v = pair.partition("=")
        if not eq or k.strip() not in ("search", "steps", "deadline", "chars"):
            raise AgentError(f"react: unknown option {pair!r}; options: search=URL, steps=N, "
                             "deadline=SECONDS, chars=N")
        out[k.strip()] = v.strip()
    return spec, out


@AGENTS.register("react", arg="LLMSPEC[@search=URL,steps=N,deadline=S,chars=N]",
                 summary="a chat model with search and fetch tools (plain-text tool "
                         "protocol): the graph's index, or a SearxNG endpoint with search=URL")
def react_agent(arg: str | None, ctx: AgentContext) -> ReactAgent:
    spec_arg, opts = _options(arg or "")
    try:
        bounds = Bounds(steps=int(opts.get("steps", 8)),
                        deadline=float(opts.get("deadline", 120)),
                        chars=int(opts.get("chars", 24_000)))
    except ValueError as exc:
        raise AgentError(f"react: {exc}") from None
    if not (1 <= bounds.steps <= 50 and 1 <= bounds.deadline <= 3600
            and 1000 <= bounds.chars <= 200_000):
        raise AgentError("react: steps 1-50, deadline 1-3600 s, chars 1000-200000")
    try:
        llm = LLM(make_llm(spec_arg, max_tokens=128), concurrency=8)
    except LLMError as exc:
        raise AgentError(f"react: {exc}") from exc
    spec = f"react:{arg}"
    if "search" in opts:
        url = http_url("react", opts["search"])
        client = SearxngClient(url, timeout=min(ctx.timeout, bounds.deadline))
        options = FetchOptions(allow_hosts=_endpoint_host(url), timeout=ctx.timeout,
                               deadline=min(ctx.timeout, bounds.deadline), retries=1,
                               workers=1)
        return ReactAgent(spec, llm, client, WebPages(options), bounds=bounds)
    if ctx.store is None:
        raise AgentError("react: without search=URL the agent searches the graph and needs "
                         "a Neo4j store")
    return ReactAgent(spec, llm, GraphSearch(ctx.store), GraphPages(ctx.store),
                      bounds=bounds, allow_private=True)
