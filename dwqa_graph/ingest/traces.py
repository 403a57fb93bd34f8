"""Agent traces as seed graphs: OpenTelemetry (GenAI semantic conventions), OpenInference
(Arize Phoenix, Langfuse) and smolagents memory dumps.

Each is turned into the project's own log shape (question, answer, a transcript, sources
with their URLs and, where the trace carries it, their text) and then ingested like any
log. What is read:

- **OTLP JSON** (the OpenTelemetry file exporter's JSON lines, or a ``/v1/traces`` request
  body): ``resourceSpans[].scopeSpans[].spans[]`` with attributes as OTLP ``AnyValue``
  lists. Spans are grouped by ``traceId`` across all the records of a file (an exporter
  writes a trace's spans in several batches, in any order), ordered by start time, and the
  tree is rebuilt from ``parentSpanId``. One seed graph per trace:

  - question: the root span's ``gen_ai.input.messages`` (last user message) or
    ``input.value`` (OpenInference), else the first model call's;
  - answer: the root span's ``gen_ai.output.messages`` / ``output.value``, else the last
    model call's output;
  - sources: retrieval spans (``gen_ai.operation.name = retrieval``:
    ``gen_ai.retrieval.query.text``, ``gen_ai.retrieval.documents``; OpenInference
    ``RETRIEVER``: ``retrieval.documents.N.document.{id,content,score,metadata}``) and
    tool spans (``execute_tool`` / ``TOOL``) of search tools (results with URLs) and fetch
    tools (the URL argument, the page text as the source's text: no fetch needed);
  - transcript: each model call's output, and one "retrieve" step per search naming the
    sources it returned (cited as ``[n]``: the agent did retrieve them there).

- **smolagents** memory (``{"steps": agent.memory.get_full_steps()}``): ``TaskStep.task``
  is the question, ``ActionStep.model_output`` the transcript, ``tool_calls`` /
  ``observations`` of search and visit tools the sources, ``FinalAnswerStep`` the answer.

A trace without a question or without any source is a counted reason, not an abort.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from dwqa_graph.ingest.reader import Problem, Raw

#: Spans one file may hold (all are kept until the file ends: a trace's spans can come in
#: any batch) and one trace may have.
MAX_SPANS_PER_FILE = 200_000
MAX_SPANS_PER_TRACE = 10_000
#: Characters kept of one attribute value (a page's text, a model's output).
MAX_VALUE_CHARS = 1_000_000
#: Sources one trace may contribute.
MAX_SOURCES = 200

_SEARCH_TOOLS = re.compile(r"search|retriev|lookup|query", re.I)
_FETCH_TOOLS = re.compile(r"fetch|visit|browse|open_?url|read_?page|get_?page|scrape", re.I)
_MD_LINK = re.compile(r"\[([^\]\n]{1,300})\]\((https?://[^)\s]{1,2000})\)")


class TraceError(ValueError):
    """A trace that gives no seed graph; ``reason`` is the counted reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason, self.detail = reason, detail


def is_otlp(data: Any) -> bool:
    return isinstance(data, dict) and ("resourceSpans" in data or "resource_spans" in data)


def is_smolagents(data: Any) -> bool:
    steps = data.get("steps") if isinstance(data, dict) else None
    return isinstance(steps, list) and any(
        isinstance(s, dict) and ("task" in s or "model_output" in s or "tool_calls" in s)
        for s in steps)


# -- OTLP --------------------------------------------------------------------------------
def _any_value(v: Any) -> Any:
    """An OTLP JSON ``AnyValue`` as a plain value."""
    if not isinstance(v, dict):
        return v
    for key in ("stringValue", "string_value"):
        if key in v:
            return str(v[key])[:MAX_VALUE_CHARS]
    for key in ("intValue", "int_value"):
        if key in v:
            try:
                return int(v[key])
            except (TypeError, ValueError):
                return None
    for key in ("doubleValue", "double_value", "boolValue", "bool_value"):
        if key in v:
            return v[key]
    for key in ("arrayValue", "array_value"):
        if key in v:
            return [_any_value(x) for x in (v[key] or {}).get("values", [])][:10_000]
    for key in ("kvlistValue", "kvlist_value"):
        if key in v:
            return _attributes((v[key] or {}).get("values", []))
    return None


def _attributes(items: Any) -> dict[str, Any]:
    if isinstance(items, dict):  # already a plain mapping (some exporters)
        return {str(k): v for k, v in list(items.items())[:10_000]}
    out: dict[str, Any] = {}
    for kv in (items or [])[:10_000]:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = _any_value(kv.get("value"))
    return out


@dataclass
class _Span:
    trace: str
    span: str
    parent: str
    name: str
    start: int
    attrs: dict[str, Any]


@dataclass
class _Trace:
    file: str
    line: int  # the record its first span came in
    spans: list[_Span] = field(default_factory=list)


class TraceCollector:
    """The spans of one file, grouped by trace (see the module docstring)."""

    def __init__(self) -> None:
        self.traces: dict[str, _Trace] = {}
        self.spans = 0

    def add(self, raw: Raw) -> list[Problem]:
        data = raw.data
        problems: list[Problem] = []
        for rs in data.get("resourceSpans") or data.get("resource_spans") or []:
            if not isinstance(rs, dict):
                continue
            for ss in rs.get("scopeSpans") or rs.get("scope_spans") or []:
                if not isinstance(ss, dict):
                    continue
                for s in ss.get("spans") or []:
                    if not isinstance(s, dict):
                        continue
                    if self.spans >= MAX_SPANS_PER_FILE:
                        problems.append(Problem(
                            file=raw.file, line=raw.line, reason="too_many_spans",
                            detail=f"more than {MAX_SPANS_PER_FILE:,} spans in one file; the "
                                   "rest of this record is skipped (split the file)"))
                        return problems
                    trace = str(s.get("traceId") or s.get("trace_id") or "")
                    if not trace:
                        continue
                    t = self.traces.setdefault(trace, _Trace(raw.file, raw.line))
                    if len(t.spans) >= MAX_SPANS_PER_TRACE:
                        continue  # counted when the trace is built
                    try:
                        start = int(s.get("startTimeUnixNano") or s.get("start_time_unix_nano")
                                    or 0)
                    except (TypeError, ValueError):
                        start = 0
                    t.spans.append(_Span(
                        trace=trace, span=str(s.get("spanId") or s.get("span_id") or ""),
                        parent=str(s.get("parentSpanId") or s.get("parent_span_id") or ""),
                        name=str(s.get("name") or ""), start=start,
                        attrs=_attributes(s.get("attributes"))))
                    self.spans += 1
        return problems

    def logs(self) -> Iterator[Raw | Problem]:
        """One record per trace in the project's log shape, or the trace's problem."""
        for trace_id, t in self.traces.items():
            try:
                yield Raw(file=t.file, line=t.line, data=otlp_log(trace_id, t.spans))
            except TraceError as exc:
                yield Problem(file=t.file, line=t.line, reason=exc.reason,
                              detail=f"trace {trace_id}: {exc.detail}")


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _message_text(messages: Any, role: str) -> str:
    """The last ``role`` message's text from GenAI / OpenAI-style messages."""
    messages = _json(messages)
    if isinstance(messages, dict):
        messages = messages.get("messages", [messages])
    if not isinstance(messages, list):
        return messages.strip() if isinstance(messages, str) else ""
    for m in reversed(messages):
        if not isinstance(m, dict) or m.get("role") != role:
            continue
        content = m.get("content")
        if isinstance(content, str) and content.strip():
            return content.strip()
        parts = m.get("parts") or (content if isinstance(content, list) else [])
        texts = [p.get("content") or p.get("text") for p in parts if isinstance(p, dict)]
        text = " ".join(t for t in texts if isinstance(t, str))
        if text.strip():
            return text.strip()
    return ""


def _io_text(value: Any, role: str) -> str:
    """OpenInference ``input.value`` / ``output.value``: plain text or JSON messages."""
    parsed = _json(value)
    if isinstance(parsed, str):
        return parsed.strip()
    text = _message_text(parsed, role)
    if text:
        return text
    if isinstance(parsed, dict):
        for key in ("input", "query", "question", "task", "output", "answer", "content"):
            if isinstance(parsed.get(key), str):
                return str(parsed[key]).strip()
    return ""


def _doc(d: Any) -> dict[str, Any] | None:
    """A retrieved document (GenAI or OpenInference shape) as a source."""
    d = _json(d)
    if not isinstance(d, dict):
        return None
    d = d.get("document", d)
    meta = _json(d.get("metadata")) or {}
    meta = meta if isinstance(meta, dict) else {}
    url = d.get("url") or meta.get("url") or meta.get("source") or d.get("id")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    content = d.get("content") or d.get("text") or d.get("snippet") or ""
    return {"url": url, "title": str(d.get("title") or meta.get("title") or ""),
            "snippet": str(content)[:2000], "text": str(content) if len(str(content)) > 300
            else None}


def _results(value: Any) -> list[dict[str, Any]]:
    """A search tool's result: a list of hits (or {"results": [...]}) or markdown links."""
    parsed = _json(value)
    if isinstance(parsed, dict):
        parsed = parsed.get("results") or parsed.get("documents") or parsed.get("items") or []
    if isinstance(parsed, list):
        return [d for d in (_doc(x) for x in parsed) if d]
    if isinstance(parsed, str):
        return [{"url": url, "title": title, "snippet": "", "text": None}
                for title, url in _MD_LINK.findall(parsed)]
    return []


def _otlp_kind(spans: list[_Span]) -> str:
    return "openinference" if any("openinference.span.kind" in s.attrs for s in spans) \
        else "otel"


def otlp_log(trace_id: str, spans: list[_Span]) -> dict[str, Any]:
    """One trace's spans -> a log record (see the module docstring)."""
    if len(spans) >= MAX_SPANS_PER_TRACE:
        raise TraceError("too_many_spans", f"{len(spans):,} spans or more (limit "
                                           f"{MAX_SPANS_PER_TRACE:,})")
    spans = sorted(spans, key=lambda s: (s.start, s.span))
    ids = {s.span for s in spans}
    roots = [s for s in spans if not s.parent or s.parent not in ids]
    kind = _otlp_kind(spans)

    def op(s: _Span) -> str:
        a = s.attrs
        oi = str(a.get("openinference.span.kind") or "").upper()
        name = str(a.get("gen_ai.operation.name") or "").lower()
        if oi == "LLM" or name in ("chat", "text_completion", "generate_content"):
            return "llm"
        if oi == "RETRIEVER" or name == "retrieval":
            return "retrieval"
        if oi == "TOOL" or name == "execute_tool":
            return "tool"
        return "other"

    def question_of(s: _Span) -> str:
        return (_message_text(s.attrs.get("gen_ai.input.messages"), "user")
                or _io_text(s.attrs.get("input.value"), "user")
                or str(s.attrs.get("gen_ai.prompt") or "").strip())

    def answer_of(s: _Span) -> str:
        return (_message_text(s.attrs.get("gen_ai.output.messages"), "assistant")
                or _io_text(s.attrs.get("output.value"), "assistant")
                or str(s.attrs.get("gen_ai.completion") or "").strip())

    llms = [s for s in spans if op(s) == "llm"]
    question = next((q for s in roots if (q := question_of(s))), "") or next(
        (q for s in llms if (q := question_of(s))), "")
    answer = next((r for s in roots if (r := answer_of(s))), "") or next(
        (r for s in reversed(llms) if (r := answer_of(s))), "")
    if not question:
        raise TraceError("no_question", "no root span or model call names a question")

    sources: dict[str, dict[str, Any]] = {}
    lines: list[str] = []

    def add(found: list[dict[str, Any]]) -> list[int]:
        cited = []
        for d in found:
            if d["url"] not in sources and len(sources) < MAX_SOURCES:
                sources[d["url"]] = {**d, "id": len(sources) + 1}
            elif d["url"] in sources and d.get("text") and not sources[d["url"]].get("text"):
                sources[d["url"]]["text"] = d["text"]
            if d["url"] in sources:
                cited.append(sources[d["url"]]["id"])
        return cited

    for s in spans:
        a, kind_of = s.attrs, op(s)
        if kind_of == "llm":
            text = answer_of(s)
            if text and text != answer:
                lines.append(text)
        elif kind_of == "retrieval":
            query = str(a.get("gen_ai.retrieval.query.text")
                        or _io_text(a.get("input.value"), "user") or "")
            listed = _json(a.get("gen_ai.retrieval.documents"))
            docs = [d for d in map(_doc, listed) if d] if isinstance(listed, list) else []
            n = 0
            while f"retrieval.documents.{n}.document.id" in a or \
                    f"retrieval.documents.{n}.document.content" in a:
                p = f"retrieval.documents.{n}.document."
                d = _doc({"id": a.get(p + "id"), "content": a.get(p + "content"),
                          "metadata": a.get(p + "metadata")})
                if d:
                    docs.append(d)
                n += 1
            cited = add(docs)
            if cited:
                lines.append(f"Searched for \u201c{query}\u201d: "
                             + "".join(f"[{c}]" for c in cited) + ".")
        elif kind_of == "tool":
            tool = str(a.get("gen_ai.tool.name") or a.get("tool.name") or s.name)
            args = _json(a.get("gen_ai.tool.call.arguments") or a.get("input.value"))
            result = a.get("gen_ai.tool.call.result") or a.get("output.value")
            if _FETCH_TOOLS.search(tool) and isinstance(args, dict) and isinstance(
                    args.get("url"), str) and args["url"].startswith(("http://", "https://")):
                page = _io_text(result, "tool") if result is not None else ""
                cited = add([{"url": args["url"], "title": "", "snippet": page[:2000],
                              "text": page or None}])
                lines.append(f"Read {args['url']} [{cited[0]}]." if cited else "")
            elif _SEARCH_TOOLS.search(tool):
                cited = add(_results(result))
                asked = args.get("query") if isinstance(args, dict) else args
                if cited:
                    lines.append(f"Searched for \u201c{asked}\u201d: "
                                 + "".join(f"[{c}]" for c in cited) + ".")
    if not sources:
        raise TraceError("no_documents", "no retrieval or search/fetch tool span returned a "
                                         "document with a URL")
    return {"id": f"{kind}:{trace_id}", "question": question, "answer": answer,
            "thinking": "\n".join(x for x in lines if x), "_format": kind,
            "sources": [{k: v for k, v in d.items() if v is not None}
                        for d in sources.values()]}


# -- smolagents ----------------------------------------------------------------------------
def smolagents_log(data: dict[str, Any]) -> dict[str, Any]:
    """A smolagents memory dump -> a log record (see the module docstring)."""
    if not isinstance(data.get("steps"), list):
        raise TraceError("invalid_field", "steps: expected a list of memory steps")
    steps = [s for s in data["steps"] if isinstance(s, dict)]
    question = next((str(s["task"]).strip() for s in steps if isinstance(s.get("task"), str)),
                    "")
    if not question:
        raise TraceError("no_question", "no TaskStep with a task")
    sources: dict[str, dict[str, Any]] = {}
    lines: list[str] = []
    answer = ""

    def add(found: list[dict[str, Any]]) -> list[int]:
        cited = []
        for d in found:
            if d["url"] not in sources and len(sources) < MAX_SOURCES:
                sources[d["url"]] = {**d, "id": len(sources) + 1}
            if d["url"] in sources:
                cited.append(sources[d["url"]]["id"])
        return cited

    for s in steps:
        if isinstance(s.get("model_output"), str) and s["model_output"].strip():
            lines.append(s["model_output"].strip()[:MAX_VALUE_CHARS])
        observations = str(s.get("observations") or "")[:MAX_VALUE_CHARS]
        for call in s.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            fn: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) \
                else call
            name = str(fn.get("name") or "")
            args = _json(fn.get("arguments"))
            if name == "final_answer":
                got = args.get("answer") if isinstance(args, dict) else args
                answer = str(got or answer).strip()
            elif _FETCH_TOOLS.search(name) and isinstance(args, dict) and isinstance(
                    args.get("url"), str) and args["url"].startswith(("http://", "https://")):
                cited = add([{"url": args["url"], "title": "", "snippet": observations[:2000],
                              "text": observations or None}])
                lines.append(f"Read {args['url']} [{cited[0]}]." if cited else "")
            elif _SEARCH_TOOLS.search(name):
                cited = add(_results(observations))
                query = args.get("query") if isinstance(args, dict) else args
                if cited:
                    lines.append(f"Searched for \u201c{query}\u201d: "
                                 + "".join(f"[{c}]" for c in cited) + ".")
        for key in ("output", "final_answer"):
            if key in s and not s.get("tool_calls") and s[key] is not None:
                answer = str(s[key]).strip()
    if not sources:
        raise TraceError("no_documents", "no search or visit tool call returned a URL")
    return {"id": data.get("id") or None, "question": question, "answer": answer,
            "thinking": "\n".join(x for x in lines if x), "_format": "smolagents",
            "sources": [{k: v for k, v in d.items() if v is not None}
                        for d in sources.values()]}
