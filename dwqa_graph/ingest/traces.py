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

Trace input is untrusted like any record: a JSON string inside an attribute is decoded by
the same bounded decoder as a record (``reader.decode_json``), so a value nested 100,000
deep is the trace's ``too_deep``, not the process's ``RecursionError``. A trace without a
question or a source, with a span that cannot be read, or with two different spans under
one span id (two runs sharing a trace id) is rejected with a counted reason naming the
record's line; spans without a trace id are counted too. Nothing of a rejected trace is
written, so two runs are never merged into one seed graph.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from dwqa_graph.ingest.reader import Problem, Raw, RecordError, decode_json

#: Spans one file may hold (all are kept until the file ends: a trace's spans can come in
#: any batch) and one trace may have.
MAX_SPANS_PER_FILE = 200_000
MAX_SPANS_PER_TRACE = 10_000
#: Characters kept of one attribute value (a page's text, a model's output). A longer value
#: holding JSON rejects its trace (``too_large``): cut, it could not be read as JSON.
MAX_VALUE_CHARS = 1_000_000
#: Attributes read of one span, and items of one list value; the rest are left out,
#: counted in the trace's ``values_cut`` warning.
MAX_ATTRIBUTES = 10_000
#: Characters of a trace or span id (OTLP's are 32 and 16 hex digits); a longer one is
#: not an id but junk, and would be repeated in every problem about its trace.
MAX_ID_CHARS = 128
#: Sources one trace may contribute.
MAX_SOURCES = 200

_SEARCH_TOOLS = re.compile(r"search|retriev|lookup|query", re.I)
_FETCH_TOOLS = re.compile(r"fetch|visit|browse|open_?url|read_?page|get_?page|scrape", re.I)
_MD_LINK = re.compile(r"\[([^\]\n]{1,300})\]\((https?://[^)\s]{1,2000})\)")


class TraceError(ValueError):
    """A trace that gives no seed graph; ``reason`` is the counted reason, ``line`` the
    record of the span at fault (0: the trace's first record)."""

    def __init__(self, reason: str, detail: str, line: int = 0) -> None:
        super().__init__(detail)
        self.reason, self.detail, self.line = reason, detail, line


def is_otlp(data: Any) -> bool:
    return isinstance(data, dict) and ("resourceSpans" in data or "resource_spans" in data)


def is_smolagents(data: Any) -> bool:
    steps = data.get("steps") if isinstance(data, dict) else None
    return isinstance(steps, list) and any(
        isinstance(s, dict) and ("task" in s or "model_output" in s or "tool_calls" in s)
        for s in steps)


# -- OTLP --------------------------------------------------------------------------------
def _cut(text: str, cut: Counter[str]) -> str:
    if len(text) <= MAX_VALUE_CHARS:
        return text
    cut["text"] += 1
    # One character over the bound survives the cut, so that ``_json`` sees the value was
    # longer than MAX_VALUE_CHARS and does not read a truncated JSON value as text.
    return text[:MAX_VALUE_CHARS + 1]


def _short(text: str) -> str:
    """An id or a name as shown in a problem's detail."""
    return text if len(text) <= 40 else f"{text[:37]}..."


def _first(items: list[Any], cut: Counter[str]) -> list[Any]:
    if len(items) > MAX_ATTRIBUTES:
        cut["items"] += len(items) - MAX_ATTRIBUTES
    return items[:MAX_ATTRIBUTES]


def _values(container: Any) -> Any:
    """The ``values`` of an ``ArrayValue`` / ``KeyValueList`` (None when absent)."""
    return container.get("values") if isinstance(container, dict) else None


def _any_value(v: Any, cut: Counter[str]) -> Any:
    """An OTLP JSON ``AnyValue`` as a plain value; what its bounds leave out is counted."""
    if not isinstance(v, dict):
        return _cut(v, cut) if isinstance(v, str) else v
    for key in ("stringValue", "string_value"):
        if key in v:
            return _cut(str(v[key]), cut)
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
            values = _values(v[key])
            return [_any_value(x, cut) for x in _first(values, cut)] \
                if isinstance(values, list) else []
    for key in ("kvlistValue", "kvlist_value"):
        if key in v:
            return _attributes(_values(v[key]), cut)
    return None


def _attributes(items: Any, cut: Counter[str]) -> dict[str, Any]:
    if isinstance(items, dict):  # already a plain mapping (some exporters)
        return {str(k): _cut(v, cut) if isinstance(v, str) else v
                for k, v in _first(list(items.items()), cut)}
    if items is None:
        return {}
    if not isinstance(items, list):
        raise TraceError("invalid_span", f"attributes: expected a list of key/value pairs, "
                                         f"got {type(items).__name__}")
    out: dict[str, Any] = {}
    for kv in _first(items, cut):
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = _any_value(kv.get("value"), cut)
    return out


@dataclass
class _Span:
    trace: str
    span: str
    parent: str
    name: str
    start: int
    attrs: dict[str, Any]
    line: int = field(default=0, compare=False)  # the record it came in
    cut: int = field(default=0, compare=False)  # values its bounds cut or left out


@dataclass
class _Trace:
    file: str
    line: int  # the record its first span came in
    spans: list[_Span] = field(default_factory=list)
    by_id: dict[str, _Span] = field(default_factory=dict)
    #: Why the trace cannot be built (the first reason found); nothing of it is written.
    broken: TraceError | None = None

    def fail(self, reason: str, detail: str, line: int) -> None:
        self.broken = self.broken or TraceError(reason, detail, line)


def _id(value: Any) -> str | None:
    """A trace or span id: a string of at most MAX_ID_CHARS; "" when absent, else None."""
    if value is None or value == "":
        return ""
    return value if isinstance(value, str) and len(value) <= MAX_ID_CHARS else None


def _otlp_spans(data: dict[str, Any], skipped: Counter[str]) -> Iterator[dict[str, Any]]:
    """The span objects of one OTLP record; what is not one is counted in ``skipped``."""
    for rs in _listed(data.get("resourceSpans", data.get("resource_spans")), skipped):
        for ss in _listed(rs.get("scopeSpans", rs.get("scope_spans")), skipped):
            yield from _listed(ss.get("spans"), skipped)


def _listed(items: Any, skipped: Counter[str]) -> Iterator[dict[str, Any]]:
    if not isinstance(items, list):
        if items is not None:  # absent is empty; present but no list is a broken record
            skipped["invalid_span"] += 1
        return
    for item in items:
        if isinstance(item, dict):
            yield item
        else:
            skipped["invalid_span"] += 1


def _read_span(s: dict[str, Any], trace: str, line: int) -> _Span:
    span, parent = _id(s.get("spanId", s.get("span_id"))), _id(
        s.get("parentSpanId", s.get("parent_span_id")))
    if span is None or parent is None:
        raise TraceError("invalid_span", f"spanId / parentSpanId: expected a string of at "
                                         f"most {MAX_ID_CHARS} characters")
    try:
        start = int(s.get("startTimeUnixNano") or s.get("start_time_unix_nano") or 0)
    except (TypeError, ValueError):
        start = 0  # only orders the spans: a bad time is not worth the trace
    cut: Counter[str] = Counter()
    return _Span(trace=trace, span=span, parent=parent,
                 name=_cut(str(s.get("name") or ""), cut),
                 start=start, attrs=_attributes(s.get("attributes"), cut), line=line,
                 cut=cut.total())


#: What a record's skipped entries were, by reason (after their count in a problem).
_SKIPPED = {"invalid_span": "entries that are not a span object (or a list of them) skipped",
            "no_trace_id": "spans without a traceId (missing, not a string, or over "
                           f"{MAX_ID_CHARS} characters) skipped",
            "duplicate_span": "spans repeated with the same content (a re-sent batch) kept "
                              "once"}


class TraceCollector:
    """The spans of one file, grouped by trace (see the module docstring)."""

    def __init__(self) -> None:
        self.traces: dict[str, _Trace] = {}
        self.spans = 0

    def add(self, raw: Raw) -> list[Problem]:
        """Take one record's spans. Its problems: a fatal one when the record gave no span
        to any trace, warnings for the spans it skipped; a trace with a bad span is marked
        and rejected when it is built."""
        if not isinstance(raw.data, dict):
            return [Problem(file=raw.file, line=raw.line, reason="not_an_object",
                            detail=f"expected an OTLP JSON object, got "
                                   f"{type(raw.data).__name__}")]
        skipped: Counter[str] = Counter()
        taken = over_cap = 0
        for s in _otlp_spans(raw.data, skipped):
            trace = _id(s.get("traceId", s.get("trace_id")))
            if not trace:
                skipped["no_trace_id"] += 1
                continue
            taken += 1
            t = self.traces.get(trace)
            if self.spans >= MAX_SPANS_PER_FILE:
                over_cap += 1
                if t is not None:  # a trace missing some spans is not built from the rest
                    t.fail("too_many_spans", f"spans past the file's limit of "
                                             f"{MAX_SPANS_PER_FILE:,} were skipped", raw.line)
                continue
            if t is None:
                t = self.traces[trace] = _Trace(raw.file, raw.line)
            if len(t.spans) >= MAX_SPANS_PER_TRACE:
                t.fail("too_many_spans", f"more than {MAX_SPANS_PER_TRACE:,} spans",
                       raw.line)
                continue
            try:
                span = _read_span(s, trace, raw.line)
            except TraceError as exc:
                t.fail(exc.reason, exc.detail, raw.line)
                continue
            first = t.by_id.get(span.span) if span.span else None
            if first is not None:
                if first == span:
                    skipped["duplicate_span"] += 1
                else:
                    t.fail("span_conflict", f"span {_short(span.span)} at line {first.line} "
                           f"and again at line {raw.line} with different content: two runs "
                           "under one trace id are not merged", raw.line)
                continue
            if span.span:
                t.by_id[span.span] = span
            t.spans.append(span)
            self.spans += 1
        problems = []
        if over_cap:
            problems.append(Problem(
                file=raw.file, line=raw.line, reason="too_many_spans",
                detail=f"more than {MAX_SPANS_PER_FILE:,} spans in one file; {over_cap:,} "
                       "spans of this record skipped, their traces rejected (split the file)"))
        if not taken:
            counts = "; ".join(f"{n:,} {_SKIPPED[r]}" for r, n in skipped.items())
            reason = max(skipped, key=lambda r: skipped[r]) if skipped else "no_spans"
            return [Problem(file=raw.file, line=raw.line, reason=reason,
                            detail=f"no span with a trace id in this record "
                                   f"({counts or 'it holds no spans'})")]
        problems += [Problem(file=raw.file, line=raw.line, reason=r, fatal=False,
                             detail=f"{n:,} {_SKIPPED[r]}") for r, n in skipped.items()]
        return problems

    def build(self, trace_id: str) -> dict[str, Any]:
        """One trace as a record in the project's log shape (its spans are let go);
        raises ``TraceError`` with the line of the record at fault."""
        t = self.traces.pop(trace_id)
        try:
            if t.broken:
                raise t.broken
            return otlp_log(trace_id, t.spans)
        except TraceError as exc:
            raise TraceError(exc.reason, f"trace {_short(trace_id)}: {exc.detail}",
                             exc.line) from None


def _json(value: Any, *, free_text: bool = False) -> Any:
    """An attribute string that may hold JSON, decoded under the record bounds.

    Text that is not JSON stays text; so does a scalar the decoder refuses (a 30-digit
    number in a prompt is text, not a value out of range), and, for an attribute that is
    often plain text (``free_text``: a tool's result, ``input.value``), a value over the
    size bound (a long page, cut to MAX_VALUE_CHARS). An array or object the decoder
    refuses (too deep, a duplicate key, too large where JSON is the convention) rejects
    the trace: read as text it would become the question or a document."""
    if not isinstance(value, str):
        return value
    try:
        return decode_json(value, max_chars=MAX_VALUE_CHARS)
    except RecordError as exc:
        if exc.reason == "malformed_json" or not value.lstrip().startswith(("[", "{")) or (
                free_text and exc.reason == "too_large"):
            return value
        raise TraceError(exc.reason, f"JSON in an attribute: {exc.detail}") from None
    except ValueError:  # not JSON at all: text
        return value


@contextmanager
def _at(s: _Span) -> Iterator[None]:
    """Names the span, and the line of its record, in a TraceError raised reading it."""
    try:
        yield
    except TraceError as exc:
        if exc.line:
            raise
        raise TraceError(exc.reason, f"span {_short(s.span)} ({_short(s.name)}): "
                                     f"{exc.detail}", s.line) from None


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
    parsed = _json(value, free_text=True)
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
    parsed = _json(value, free_text=True)
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
        with _at(s):
            return (_message_text(s.attrs.get("gen_ai.input.messages"), "user")
                    or _io_text(s.attrs.get("input.value"), "user")
                    or str(s.attrs.get("gen_ai.prompt") or "").strip())

    def answer_of(s: _Span) -> str:
        with _at(s):
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
    left_out: set[str] = set()
    lines: list[str] = []

    def add(found: list[dict[str, Any]]) -> list[int]:
        cited = []
        for d in found:
            if d["url"] not in sources and len(sources) >= MAX_SOURCES:
                left_out.add(d["url"])
            elif d["url"] not in sources:
                sources[d["url"]] = {**d, "id": len(sources) + 1}
            elif d.get("text") and not sources[d["url"]].get("text"):
                sources[d["url"]]["text"] = d["text"]
            if d["url"] in sources:
                cited.append(sources[d["url"]]["id"])
        return cited

    def read(s: _Span) -> None:
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

    for s in spans:
        with _at(s):
            read(s)
    if not sources:
        raise TraceError("no_documents", "no retrieval or search/fetch tool span returned a "
                                         "document with a URL")
    return {"id": f"{kind}:{trace_id}", "question": question, "answer": answer,
            "thinking": "\n".join(x for x in lines if x), "_format": kind,
            "_left_out": len(left_out), "_cut": sum(s.cut for s in spans),
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
    left_out: set[str] = set()
    lines: list[str] = []
    answer = ""

    def add(found: list[dict[str, Any]]) -> list[int]:
        cited = []
        for d in found:
            if d["url"] not in sources and len(sources) >= MAX_SOURCES:
                left_out.add(d["url"])
            elif d["url"] not in sources:
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
            "_left_out": len(left_out), "sources": [{k: v for k, v in d.items() if v is not None}
                        for d in sources.values()]}
