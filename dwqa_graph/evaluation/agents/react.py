"""A tool-using web agent for any chat model: the model searches and reads pages through tools
until it gives a short final answer.

Spec: ``react:LLMSPEC`` (the graph's full-text index and stored pages, like ``baseline``) or
``react:LLMSPEC@search=URL`` (a SearxNG(-compatible) endpoint and the pages it finds, read with
the fetch stage's SSRF-guarded, size- and time-bounded download and extraction), with more
``@`` options: ``steps`` (model turns, default 8), ``deadline`` (seconds per question, 120),
``chars`` (transcript characters the model sees, 24000), ``tools`` (below). LLMSPEC is as
for ``--llm``.

Two tool protocols, chosen by the ``tools`` option:
- ``native``: the chat API's own tool calling (``bind_tools``; the system prompt is
  ``prompts/react-tools.md``): the model calls ``search(query)`` / ``fetch(url)``, each
  result goes back as a tool message, and a reply with no tool call is the final answer;
- ``text``: a plain-text protocol every chat model can follow (``prompts/react.md``: one
  ``Action: search: ...`` / ``Action: fetch: ...`` / ``Final: ...`` line per turn);
- ``auto`` (default): native for the providers' own model classes (``openai:``,
  ``anthropic:``, ``bedrock:``, ``ollama:``), text for an OpenAI-compatible URL, whose server
  may not implement tools (llama.cpp needs ``--jinja``); ``tools=native`` forces it there.
Every search, fetched URL
and the page text read is the prediction's trace (``retrieved``, ``steps``), so run-time
leakage and the report see them. A question ends with an error whose first word is the
counted reason: ``no_action`` (a reply with neither action nor answer), ``malformed_action``
(an unknown tool, no argument, arguments that are not JSON), ``blocked_url`` (a URL the SSRF
guard refuses), ``tool_loop`` (the same action twice in a row), ``step_limit``, ``deadline``,
``llm_failed``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage

from dwqa_graph.errors import AgentError, LLMError
from dwqa_graph.evaluation.agents.base import (
    LLM_LOOP,
    MAX_TRACE_CHARS,
    AgentAnswer,
    AgentContext,
    RetrievedDoc,
    failed,
    final_step,
    http_url,
    short_answer,
)
from dwqa_graph.evaluation.agents.baseline import GraphPages, PageSource, WebPages, _endpoint_host
from dwqa_graph.llm import LLM, LLMFailure, load_prompt, make_llm
from dwqa_graph.openai_compat import OpenAICompatChat
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


#: Tool calls of one native reply that are run; more get a tool message saying so.
CALLS_PER_TURN = 3
#: The two tools as OpenAI function schemas (what ``bind_tools`` sends).
TOOLS: list[dict[str, object]] = [
    {"type": "function", "function": {
        "name": "search", "description": "Search the web: result titles, URLs and snippets.",
        "parameters": {"type": "object", "required": ["query"], "properties": {
            "query": {"type": "string", "description": "what to search for"}}}}},
    {"type": "function", "function": {
        "name": "fetch", "description": "The text of a page: a URL from the search results.",
        "parameters": {"type": "object", "required": ["url"], "properties": {
            "url": {"type": "string", "description": "the page's URL"}}}}},
]
_ARG = {"search": "query", "fetch": "url"}


@dataclass(frozen=True)
class Bounds:
    steps: int = 8
    deadline: float = 120.0
    chars: int = 24_000
    results: int = 5


class _End(Exception):
    """A question ends with a counted reason (the error's first word)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def has_native_tools(model: BaseChatModel) -> bool:
    """A provider's model class that implements tool calling; an OpenAI-compatible server's
    support is unknown (``tools=native`` forces it)."""
    return (not isinstance(model, OpenAICompatChat)
            and type(model).bind_tools is not BaseChatModel.bind_tools)


class ReactAgent:
    def __init__(self, spec: str, llm: LLM, search: SearchClient, pages: PageSource, *,
                 bounds: Bounds = Bounds(), allow_private: bool = False,
                 owns: bool = True, native: bool | None = None) -> None:
        self.spec, self.llm, self.search, self.pages = spec, llm, search, pages
        self.bounds, self.allow_private, self._owns = bounds, allow_private, owns
        self.native = has_native_tools(llm.model) if native is None else native
        self.prompt = load_prompt("react-tools" if self.native else "react")

    def close(self) -> None:
        if self._owns:
            self.llm.close()
        closer = getattr(self.search, "close", None)
        if closer:
            closer()

    def answer(self, question: str) -> AgentAnswer:
        steps: list[str] = [f"react: {self.llm.id} (prompt {self.prompt.name} "
                            f"v{self.prompt.version}, "
                            f"{'native tool calls' if self.native else 'text protocol'})"]
        retrieved: list[RetrievedDoc] = []
        try:
            if self.native:
                return self._run_native(question, steps, retrieved)
            return self._run(question, steps, retrieved)
        except _End as end:
            steps.append(f"ended: {end.reason}")
            return failed(str(end), steps=steps, retrieved=retrieved)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return failed(f"internal_error: {type(exc).__name__}: {exc}", steps=steps,
                          retrieved=retrieved)

    # -- the tools, shared by both protocols -------------------------------------------------
    def _tool(self, name: str, value: str, seen: dict[str, str], steps: list[str],
              retrieved: list[RetrievedDoc]) -> str:
        """Run one tool; the observation the model sees (``_End`` for a refused URL)."""
        if name == "search":
            hits = self.search.search(value, limit=self.bounds.results)
            steps.append(f"search {self.search.name}: {value!r} -> {len(hits)} results")
            for h in hits:
                seen.setdefault(h.url, h.title)
            obs = "\n".join(f"- {h.title} | {h.url} | {h.content[:200]}" for h in hits)
            return obs[:RESULTS_CHARS] or "no results"
        if not self.allow_private:
            try:
                check_scheme_and_host(value)
            except BlockedURL as exc:
                raise _End("blocked_url", f"{value[:200]!r}: {exc.detail}") from None
        [page] = self.pages.read([SearchResult(url=value, title=seen.get(value, ""), rank=1,
                                               engine="agent")])
        if page.detail.startswith(("blocked_", "invalid_url")):
            raise _End("blocked_url", f"{value[:200]!r}: {page.detail}")
        retrieved.append(RetrievedDoc(url=value, title=page.title,
                                      text=page.text[:MAX_TRACE_CHARS],
                                      rank=len(retrieved) + 1))
        steps.append(f"fetch {value}: {len(page.text)} chars"
                     + (f" ({page.detail})" if page.detail else ""))
        return page.text[:PAGE_CHARS] or f"could not read: {page.detail}"

    # -- native tool calling ------------------------------------------------------------------
    def _run_native(self, question: str, steps: list[str], retrieved: list[RetrievedDoc],
                    ) -> AgentAnswer:
        b = self.bounds
        deadline = time.monotonic() + b.deadline
        messages: list[BaseMessage] = [SystemMessage(self.prompt.render()),
                                       HumanMessage(question)]
        seen: dict[str, str] = {}
        last: str | None = None
        for _ in range(b.steps):
            if time.monotonic() > deadline:
                raise _End("deadline", f"no answer within {b.deadline:g} s")
            _fit(messages, b.chars)
            try:
                reply = LLM_LOOP.run(self.llm.atools(messages, TOOLS))
            except LLMFailure as exc:
                raise _End("llm_failed", f"{exc.reason}: {exc.detail}") from None
            if reply.invalid_tool_calls:
                bad = reply.invalid_tool_calls[0]
                raise _End("malformed_action", f"tool call {str(bad.get('name'))[:60]!r}: "
                                               f"{str(bad.get('error'))[:120]}")
            if not reply.tool_calls:
                text = reply.content if isinstance(reply.content, str) else ""
                match = _LINE.search(text)  # a model that still writes "Final: ..."
                answer = short_answer(match.group(2) if match else text)
                if not answer:
                    raise _End("no_action", "a reply with neither a tool call nor an answer")
                steps.append(final_step(answer))
                return AgentAnswer(answer=answer, retrieved=retrieved, steps=steps)
            messages.append(reply)
            for i, call in enumerate(reply.tool_calls):
                if i >= CALLS_PER_TURN:
                    obs = f"not run: at most {CALLS_PER_TURN} tool calls per turn"
                else:
                    name = call["name"]
                    value = call["args"].get(_ARG.get(name, ""), "") if isinstance(
                        call["args"], dict) else ""
                    if name not in _ARG or not isinstance(value, str) or not value.strip():
                        raise _End("malformed_action", f"{name[:60]!r} with {call['args']!r:.120}"
                                                       ": expected search(query) or fetch(url)")
                    action = f"{name}: {value.strip()}"
                    if action == last:
                        raise _End("tool_loop", f"the same action twice: {action[:120]!r}")
                    last = action
                    obs = self._tool(name, value.strip(), seen, steps, retrieved)
                messages.append(ToolMessage(obs, tool_call_id=call["id"] or f"call{i}"))
        raise _End("step_limit", f"no final answer in {b.steps} turns")

    def _run(self, question: str, steps: list[str], retrieved: list[RetrievedDoc],
             ) -> AgentAnswer:
        b = self.bounds
        deadline = time.monotonic() + b.deadline
        transcript: list[str] = []
        seen: dict[str, str] = {}  # url -> title, from search results
        last: str | None = None
        for _ in range(b.steps):
            if time.monotonic() > deadline:
                raise _End("deadline", f"no answer within {b.deadline:g} s")
            text = "\n".join(transcript)
            if len(text) > b.chars:  # the oldest observations go first
                text = "...\n" + text[-b.chars:]
            prompt = self.prompt.render(question=question, transcript=text)
            try:
                reply = LLM_LOOP.run(self.llm.acall([HumanMessage(prompt)]))
            except LLMFailure as exc:
                raise _End("llm_failed", f"{exc.reason}: {exc.detail}") from None
            match = _LINE.search(reply or "")
            if match is None:
                raise _End("no_action", f"reply {reply[:120]!r} has no Action or Final line")
            kind, arg = match.group(1).lower(), match.group(2).strip()
            if kind.startswith("final"):
                answer = short_answer(arg)
                if not answer:
                    raise _End("no_action", "an empty Final line")
                steps.append(final_step(answer))
                return AgentAnswer(answer=answer, retrieved=retrieved, steps=steps)
            tool = _TOOL.match(arg)
            if tool is None or not tool.group(2).strip():
                raise _End("malformed_action", f"{arg[:120]!r}: expected search: QUERY or "
                                               "fetch: URL")
            name, value = tool.group(1).lower(), tool.group(2).strip().strip("<>\"'")
            action = f"{name}: {value}"
            if action == last:
                raise _End("tool_loop", f"the same action twice: {action[:120]!r}")
            last = action
            transcript.append(f"Action: {action}")
            transcript.append("Observation:\n" + self._tool(name, value, seen, steps,
                                                             retrieved))
        raise _End("step_limit", f"no final answer in {b.steps} turns")


def _fit(messages: list[BaseMessage], chars: int) -> None:
    """Keep the tool results the model sees under ``chars``: the oldest go first (their
    message stays, so every tool call still has its result)."""
    results = [m for m in messages if isinstance(m, ToolMessage)]
    total = sum(len(str(m.content)) for m in results)
    for m in results:
        if total <= chars:
            break
        total -= len(str(m.content)) - len("(elided)")
        m.content = "(elided)"


def _options(arg: str) -> tuple[str, dict[str, str]]:
    """LLMSPEC and its ``@k=v,...`` options (split at the last @ followed by k=v)."""
    spec, sep, opts = arg.rpartition("@")
    if not sep or "=" not in opts:
        return arg, {}
    out = {}
    for pair in opts.split(","):
        k, eq, v = pair.partition("=")
        if not eq or k.strip() not in ("search", "steps", "deadline", "chars", "tools"):
            raise AgentError(f"react: unknown option {pair!r}; options: search=URL, steps=N, "
                             "deadline=SECONDS, chars=N, tools=auto|native|text")
        out[k.strip()] = v.strip()
    return spec, out


@AGENTS.register("react", arg="LLMSPEC[@search=URL,steps=N,deadline=S,chars=N,tools=M]",
                 summary="a chat model with search and fetch tools (native tool calling, or "
                         "a plain-text protocol): the graph's index, or a SearxNG endpoint "
                         "with search=URL")
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
    mode = opts.get("tools", "auto")
    if mode not in ("auto", "native", "text"):
        raise AgentError(f"react: tools={mode!r}; use auto, native or text")
    native = None if mode == "auto" else mode == "native"
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
        return ReactAgent(spec, llm, client, WebPages(options), bounds=bounds, native=native)
    if ctx.store is None:
        raise AgentError("react: without search=URL the agent searches the graph and needs "
                         "a Neo4j store")
    return ReactAgent(spec, llm, GraphSearch(ctx.store), GraphPages(ctx.store),
                      bounds=bounds, allow_private=True, native=native)
