"""Stage 1 — ingestion: agent execution logs -> seed graphs in Neo4j.

Formats (``--format auto`` detects them per record):
- ``dwqa``: the experiment note's log: question, answer, thinking with [n] citations,
  sources [{id, title, url, snippet}]; JSON lines, a JSON array, or concatenated objects.
- ``perplexica``: a Perplexica search API response (``message`` with [n] citations,
  ``sources[].content`` (v1.12) or ``.pageContent`` (v1.10, v1.11),
  ``sources[].metadata.title/url``) wrapped with its question,
  either flat or under ``response``.
- ``hotpotqa``: HotpotQA items; each paragraph is a Document whose text is already known
  (a DocumentVersion), supporting facts become EVIDENCE towards the gold Answer.
- ``otel`` / ``openinference``: OTLP JSON traces (OpenTelemetry GenAI conventions, or
  OpenInference's as Phoenix and Langfuse write them), one seed graph per trace, its spans
  gathered from all the records of the file; ``smolagents``: an agent's memory steps
  (``traces.py`` says what is read).

Bad input never stops a run: each problem is reported with file, line and reason and
counted; a rejected record writes nothing, an accepted one is written whole (all of a
record's rows go into the same transaction). Everything is MERGEd on content-derived
keys, so re-running (also after a kill) converges to the graph of one clean run.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import neo4j
from pydantic import BaseModel, Field, ValidationError

from dwqa_graph._progress import progress
from dwqa_graph.errors import NotFoundError, UsageError
from dwqa_graph.graph.store import Store, WritePlan, WriteStats
from dwqa_graph.ingest.reader import MAX_RECORD_BYTES, Problem, Raw, read_records
from dwqa_graph.ingest.steps import RuleStepParser, StepParser
from dwqa_graph.ingest.traces import (
    MAX_ATTRIBUTES,
    MAX_SOURCES,
    MAX_VALUE_CHARS,
    TraceCollector,
    TraceError,
    is_otlp,
    is_smolagents,
    smolagents_log,
)
from dwqa_graph.models import (
    AgentLog,
    AnswerNode,
    DocumentNode,
    DocumentVersionNode,
    ParsedTranscript,
    QueryNode,
    SnippetNode,
    Source,
    SupportingFact,
    stable_id,
)
from dwqa_graph.web.ssrf import BlockedURL, check_scheme_and_host
from dwqa_graph.web.urls import document_id

__all__ = ["MAX_RECORD_BYTES", "MAX_TRANSCRIPT_CHARS", "IngestReport", "Problem", "Raw",
           "ingest", "normalise", "read_records"]

Format = Literal["auto", "dwqa", "perplexica", "hotpotqa", "otel", "openinference",
                 "smolagents"]
FORMATS: tuple[str, ...] = ("auto", "dwqa", "perplexica", "hotpotqa", "otel", "openinference",
                            "smolagents")

#: A transcript longer than this is rejected rather than split into ~10^5 steps.
MAX_TRANSCRIPT_CHARS = 1_000_000
#: Rows per transaction: records are grouped until their rows reach this many.
FLUSH_ROWS = 10_000
#: Problems kept verbatim in the report (all are counted, and all go to ``on_problem``).
MAX_REPORTED_PROBLEMS = 200
HOTPOT_WIKI = "https://en.wikipedia.org/wiki/"
#: Write order inside a transaction: nodes first, then the edges that MATCH them.
WRITE_ORDER = tuple(f"ingest/{name}" for name in (
    "queries", "documents", "versions", "answers", "snippets", "evidence", "follows",
    "comparison", "hypothesis", "conclude", "support", "answer_evidence"))


class IngestReport(BaseModel):
    """The ``--json`` summary of one ingest run."""

    files: list[str]
    records: int = 0
    traces: int = Field(0, description="OTLP traces assembled from the records' spans (each "
                        "is then ingested or rejected like a record).")
    ingested: int = 0
    rejected: int = 0
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    warnings_by_reason: dict[str, int] = Field(default_factory=dict)
    problems: list[Problem] = Field(default_factory=list)
    formats: dict[str, int] = Field(default_factory=dict)
    writes: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0


def detect_format(data: dict[str, Any]) -> str | None:
    if is_otlp(data):
        return "otel"  # or openinference: told apart per trace, by its attributes
    if is_smolagents(data):
        return "smolagents"
    if "context" in data and "supporting_facts" in data:
        return "hotpotqa"
    if "message" in data or isinstance(data.get("response"), dict):
        return "perplexica"
    if {"question", "thinking", "sources"} & data.keys():
        return "dwqa"  # required fields are checked by validation, which names what is missing
    return None


def _validation_problem(raw: Raw, exc: ValidationError) -> Problem:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    # Normalisers pass absent keys on as None, so None means "missing" here.
    missing = err["type"] == "missing" or err.get("input", ...) is None
    reason = "missing_field" if missing else "invalid_field"
    return Problem(file=raw.file, line=raw.line, reason=reason, detail=f"{loc}: {err['msg']}")


def _record_key(data: dict[str, Any], dataset: str) -> str:
    explicit = data.get("id", data.get("_id"))
    if isinstance(explicit, str | int) and not isinstance(explicit, bool):
        return stable_id(dataset, "id", explicit)
    return stable_id(dataset, "content", json.dumps(data, sort_keys=True, ensure_ascii=False))


def _sources(items: Any, raw: Raw, problems: list[Problem],
             convert: Callable[[int, dict[str, Any]], dict[str, Any]]) -> list[Source]:
    """Validate sources one by one: a bad source is dropped with a warning, not the record."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise ValueError("sources: expected a list")
    sources: dict[int, Source] = {}
    for i, item in enumerate(items):
        try:
            src = Source.model_validate(convert(i, item) if isinstance(item, dict) else item)
        except ValidationError as exc:
            err = exc.errors()[0]
            problems.append(Problem(
                file=raw.file, line=raw.line, reason="bad_source", fatal=False,
                detail=f"sources[{i}].{'.'.join(map(str, err['loc']))}: {err['msg']}"))
            continue
        try:
            check_scheme_and_host(src.url)
        except BlockedURL as exc:
            # Kept (the fetch stage records it as such), but said now, with its line: a
            # file:, data:, gopher: or javascript: URL will never be fetched.
            if exc.reason in ("invalid_url", "blocked_scheme"):
                problems.append(Problem(file=raw.file, line=raw.line, reason=exc.reason,
                                        detail=f"sources[{i}].url: {exc.detail}", fatal=False))
        if src.id in sources:
            problems.append(Problem(file=raw.file, line=raw.line, reason="duplicate_source_id",
                                    detail=f"source id {src.id} repeated; first kept",
                                    fatal=False))
            continue
        sources[src.id] = src
    return list(sources.values())


def _dwqa(raw: Raw, data: dict[str, Any], dataset: str, problems: list[Problem]) -> AgentLog:
    return AgentLog(
        key=_record_key(data, dataset),
        question=data.get("question"),  # type: ignore[arg-type]  # validated by pydantic
        answer=data.get("answer") or "",
        thinking=data.get("thinking") or "",
        sources=_sources(data.get("sources"), raw, problems, lambda i, s: s),
        dataset=dataset,
        format="dwqa",
    )


def _perplexica(raw: Raw, data: dict[str, Any], dataset: str,
                problems: list[Problem]) -> AgentLog:
    body = data["response"] if isinstance(data.get("response"), dict) else data

    def convert(i: int, src: dict[str, Any]) -> dict[str, Any]:
        meta = src.get("metadata") or {}
        # Perplexica numbers its sources by position: [1] is sources[0].
        return {"id": i + 1, "url": meta.get("url"), "title": meta.get("title") or "",
                # Perplexica v1.12 calls the source text "content"; v1.10/v1.11 "pageContent".
                "snippet": src.get("content") or src.get("pageContent") or ""}

    message = body.get("message")
    if not isinstance(message, str):
        raise ValueError("message: expected the answer text with [n] citations")
    return AgentLog(
        key=_record_key(data, dataset),
        question=data.get("question", data.get("query")),  # type: ignore[arg-type]
        answer=message,
        thinking=message,
        sources=_sources(body.get("sources"), raw, problems, convert),
        dataset=dataset,
        format="perplexica",
    )


def _hotpotqa(raw: Raw, data: dict[str, Any], dataset: str,
              problems: list[Problem]) -> AgentLog:
    context = data.get("context")
    if not isinstance(context, list):
        raise ValueError("context: expected a list of [title, [sentences]]")
    titles: dict[str, int] = {}
    sentences: dict[int, list[str]] = {}

    items = []
    for i, para in enumerate(context):
        if (not isinstance(para, list) or len(para) != 2 or not isinstance(para[0], str)
                or not isinstance(para[1], list)
                or not all(isinstance(s, str) for s in para[1])):
            problems.append(Problem(file=raw.file, line=raw.line, reason="bad_source",
                                    detail=f"context[{i}]: expected [title, [sentences]]",
                                    fatal=False))
            continue
        title, sents = para
        sid = i + 1
        titles.setdefault(title, sid)
        sentences[sid] = sents
        items.append({"id": sid, "title": title, "text": "".join(sents),
                      "url": HOTPOT_WIKI + quote(title.replace(" ", "_"))})
    sources = _sources(items, raw, problems, lambda i, s: s)
    supporting = []
    for fact in data.get("supporting_facts") or []:
        ok = isinstance(fact, list) and len(fact) == 2 and fact[0] in titles
        fact_sid = titles.get(fact[0], -1) if ok else -1
        sents = sentences.get(fact_sid, [])
        if not ok or not isinstance(fact[1], int) or not 0 <= fact[1] < len(sents):
            problems.append(Problem(file=raw.file, line=raw.line, reason="bad_supporting_fact",
                                    detail=f"{fact!r} names no sentence", fatal=False))
            continue
        supporting.append(SupportingFact(source_id=fact_sid, text=sents[fact[1]].strip()))
    return AgentLog(
        key=_record_key(data, dataset),
        question=data.get("question"),  # type: ignore[arg-type]
        answer=str(data.get("answer", "")),
        answer_kind="gold",
        sources=sources,
        supporting=supporting,
        dataset=dataset,
        format="hotpotqa",
    )


def _trace(raw: Raw, data: dict[str, Any], dataset: str, problems: list[Problem]) -> AgentLog:
    """A trace already in the log shape (``traces.py``), ingested as its own format."""
    if data.get("_left_out"):
        problems.append(Problem(file=raw.file, line=raw.line, reason="too_many_sources",
                                fatal=False, detail=f"{data['_left_out']:,} documents past "
                                f"the first {MAX_SOURCES} left out"))
    if data.get("_cut"):
        problems.append(Problem(file=raw.file, line=raw.line, reason="values_cut", fatal=False,
                                detail=f"{data['_cut']:,} attribute values cut at a bound "
                                f"({MAX_ATTRIBUTES:,} attributes per span and items per "
                                f"list, {MAX_VALUE_CHARS:,} characters per text)"))
    log = _dwqa(raw, {k: v for k, v in data.items() if not k.startswith("_")}, dataset,
                problems)
    return log.model_copy(update={"format": data["_format"]})


def _smolagents(raw: Raw, data: dict[str, Any], dataset: str,
                problems: list[Problem]) -> AgentLog:
    return _trace(raw, smolagents_log(data), dataset, problems)


_NORMALISERS = {"dwqa": _dwqa, "perplexica": _perplexica, "hotpotqa": _hotpotqa,
                "trace": _trace, "smolagents": _smolagents}


def normalise(raw: Raw, fmt: str, dataset: str) -> tuple[AgentLog | None, list[Problem]]:
    """One raw record -> an ``AgentLog`` (or None) and the problems found on the way."""
    problems: list[Problem] = []

    def reject(reason: str, detail: str) -> tuple[None, list[Problem]]:
        problems.append(Problem(file=raw.file, line=raw.line, reason=reason, detail=detail))
        return None, problems

    if not isinstance(raw.data, dict):
        return reject("not_an_object", f"expected a JSON object, got {type(raw.data).__name__}")
    kind = detect_format(raw.data) if fmt == "auto" else fmt
    if kind is None:
        keys = ", ".join(sorted(raw.data)[:8])
        return reject("unknown_format", f"no known log format has keys {{{keys}}}")
    thinking = raw.data.get("thinking", raw.data.get("message"))
    if isinstance(thinking, str) and len(thinking) > MAX_TRANSCRIPT_CHARS:
        return reject("too_large", f"transcript of {len(thinking):,} characters exceeds the "
                                   f"limit of {MAX_TRANSCRIPT_CHARS:,}")
    try:
        log = _NORMALISERS[kind](raw, raw.data, dataset, problems)
    except ValidationError as exc:
        problems.append(_validation_problem(raw, exc))
        return None, problems
    except TraceError as exc:
        return reject(exc.reason, exc.detail)
    except ValueError as exc:
        return reject("invalid_field", str(exc))
    return log, problems


# -- graph rows ------------------------------------------------------------------------
def content_hash(log: AgentLog) -> str:
    """What a record says, for telling a re-ingest (same hash) from a conflict."""
    return stable_id("log", json.dumps(log.model_dump(mode="json"), sort_keys=True,
                                       ensure_ascii=False))


def graph_plan(log: AgentLog, parsed: ParsedTranscript, raw: Raw, plan: WritePlan,
               ) -> list[Problem]:
    """Add the rows of one seed graph to ``plan``; return warnings (dangling citations)."""
    problems: list[Problem] = []
    qid = log.key
    plan.add("ingest/queries", [QueryNode(
        id=qid, text=log.question, dataset=log.dataset, source=log.format,
        source_file=raw.file, source_line=raw.line, content_hash=content_hash(log)).row()])
    docs = {s.id: document_id(s.url) for s in log.sources}
    plan.add("ingest/documents", [
        {**DocumentNode(id=docs[s.id], url=s.url, title=s.title).row(),
         "query_id": qid, "rank": rank, "cite": s.id, "snippet": s.snippet, "round": 0,
         "engine": "log"}
        for rank, s in enumerate(log.sources, start=1)])
    plan.add("ingest/versions", [
        DocumentVersionNode(
            id=stable_id(docs[s.id], "text", s.text), document_id=docs[s.id], text=s.text,
            status="dataset", extractor=log.format).row()
        for s in log.sources if s.text])
    answer_id = stable_id(qid, "answer", log.answer_kind)
    if log.answer:
        plan.add("ingest/answers", [AnswerNode(id=answer_id, query_id=qid, text=log.answer,
                                               kind=log.answer_kind).row()])

    snippets, evidence = [], []
    for step in parsed.thoughts:
        sid = stable_id(qid, "step", step.position)
        missing = [c.id for c in step.cites if c.id not in docs]
        for n in missing:
            problems.append(Problem(file=raw.file, line=raw.line, reason="dangling_citation",
                                    detail=f"step {step.position} cites [{n}], no such source",
                                    fatal=False))
        snippets.append(SnippetNode(
            id=sid, query_id=qid, text=step.text, step_type=step.step_type,
            position=step.position, cites=[c.id for c in step.cites], missing_cites=missing,
            parser=parsed.parser).row())
        evidence += [{"document_id": docs[c.id], "snippet_id": sid, "stance": c.stance,
                      "cite": c.id} for c in step.cites if c.id in docs]
    # Gold supporting facts (HotpotQA) are evidence snippets that support the gold answer.
    support = []
    for j, fact in enumerate(log.supporting):
        sid = stable_id(qid, "support", j)
        snippets.append(SnippetNode(
            id=sid, query_id=qid, text=fact.text, step_type="evidence", position=j,
            cites=[fact.source_id], missing_cites=[], parser="gold").row())
        evidence.append({"document_id": docs[fact.source_id], "snippet_id": sid,
                         "stance": "supports", "cite": fact.source_id})
        support.append({"snippet_id": sid, "answer_id": answer_id})
    plan.add("ingest/snippets", snippets)
    plan.add("ingest/evidence", evidence)

    steps = parsed.thoughts
    ids = [stable_id(qid, "step", s.position) for s in steps]
    pairs = list(zip(ids, ids[1:], strict=False))
    plan.add("ingest/follows", [{"from": a, "to": b} for a, b in pairs])
    # A comparison / hypothesis step builds on the step right before it.
    for kind in ("comparison", "hypothesis"):
        plan.add(f"ingest/{kind}", [{"from": a, "to": b} for (a, b), s in zip(
            pairs, steps[1:], strict=True) if s.step_type == kind])
    if log.answer:
        plan.add("ingest/conclude", [{"snippet_id": i, "answer_id": answer_id}
                                     for i, s in zip(ids, steps, strict=True)
                                     if s.step_type == "conclude"])
        plan.add("ingest/support", support)
        plan.add("ingest/answer_evidence", [
            {"document_id": docs[c.id], "answer_id": answer_id, "stance": c.stance,
             "cite": c.id} for c in parsed.answer_cites if c.id in docs])
    if not log.thinking.strip() and log.format != "hotpotqa":
        problems.append(Problem(file=raw.file, line=raw.line, reason="empty_transcript",
                                detail="no reasoning steps; query and sources kept",
                                fatal=False))
    return problems


# -- the stage -------------------------------------------------------------------------
@dataclass
class _Pending:
    """One accepted record waiting in the current batch."""

    raw: Raw
    key: str
    hash: str
    plan: WritePlan


def _failure(exc: Exception) -> tuple[str, str]:
    """A record's unexpected exception as (reason, detail): the record's, not the run's."""
    if isinstance(exc, RecursionError):
        return "too_deep", "nested too deep to process"
    if isinstance(exc, UnicodeError):
        return "invalid_unicode", str(exc)[:200]
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        return "invalid_field", f"{'.'.join(map(str, err['loc']))}: {err['msg']}"
    if isinstance(exc, ValueError):
        return "invalid_field", str(exc)[:200]
    return "internal_error", f"{type(exc).__name__}: {exc}"[:200]


class _Ingestion:
    """One ingest run's state: the counters of the report, the pending write batch, and the
    content hash of every record accepted so far (24 + 24 chars per record)."""

    def __init__(self, store: Store, report: IngestReport, *, fmt: str, parser: StepParser,
                 on_problem: Callable[[Problem], None]) -> None:
        self.store, self.report, self.fmt, self.parser = store, report, fmt, parser
        self.on_problem = on_problem
        self.rejected: Counter[str] = Counter()
        self.warnings: Counter[str] = Counter()
        self.formats: Counter[str] = Counter()
        self.writes = WriteStats()
        self.batch: list[_Pending] = []
        self.batch_rows = 0
        self.seen: dict[str, str] = {}
        self.spans = TraceCollector()

    def note(self, problem: Problem) -> None:
        (self.rejected if problem.fatal else self.warnings)[problem.reason] += 1
        if len(self.report.problems) < MAX_REPORTED_PROBLEMS:
            self.report.problems.append(problem)
        self.on_problem(problem)

    def reject(self, raw: Raw, reason: str, detail: str) -> None:
        self.report.rejected += 1
        self.note(Problem(file=raw.file, line=raw.line, reason=reason, detail=detail))

    def flush(self) -> None:
        stored = {r["id"]: r["hash"] for r in self.store.query(
            "ingest/content_hashes", ids=[p.key for p in self.batch])}
        plan, accepted = WritePlan(WRITE_ORDER), []
        for p in self.batch:
            # A node without a hash predates conflict checks: the record is taken as is.
            if stored.get(p.key) not in (None, p.hash):
                self.reject(p.raw, "conflict", f"record id {p.key} is already in the graph "
                                               "with different content; not merged (ingest "
                                               "it under another id or dataset)")
                continue
            for name, rows in p.plan.steps:
                plan.add(name, rows)
            accepted.append(p)
        try:
            self.writes.merge(self.store.write_plan(plan))
            self.report.ingested += len(accepted)
        except neo4j.exceptions.Neo4jError:
            # The server refused the batch: find the record(s) it refuses, keep the rest.
            for p in accepted:
                try:
                    self.writes.merge(self.store.write_plan(p.plan))
                    self.report.ingested += 1
                except neo4j.exceptions.Neo4jError as exc:
                    self.reject(p.raw, "write_failed", f"{exc.code}: {exc.message}"[:200])
        self.batch, self.batch_rows = [], 0

    def accept(self, item: Raw, name: str, fmt: str | None = None) -> None:
        log, problems = normalise(item, fmt or self.fmt, name)
        for problem in problems:
            self.note(problem)
        if log is None:
            self.report.rejected += 1
            return
        digest = content_hash(log)
        if self.seen.get(log.key, digest) != digest:
            self.reject(item, "conflict", f"record id {log.key} appeared earlier in this run "
                                          "with different content; the first is kept")
            return
        parsed = self.parser.parse(log.thinking, question=log.question, answer=log.answer)
        plan = WritePlan(WRITE_ORDER)
        warned = graph_plan(log, parsed, item, plan)
        self.seen[log.key] = digest
        self.formats[log.format] += 1
        for problem in warned:
            self.note(problem)
        self.batch.append(_Pending(item, log.key, digest, plan))
        self.batch_rows += plan.rows

    def read(self, item: Raw | Problem, name: str) -> None:
        if isinstance(item, Problem):
            if item.fatal:
                self.report.records += 1
                self.report.rejected += 1
            self.note(item)
            return
        self.report.records += 1
        try:
            if self.fmt in ("otel", "openinference") or (
                    self.fmt == "auto" and is_otlp(item.data)):
                # A trace's spans may come in any record of the file: gathered until it ends.
                for problem in self.spans.add(item):
                    if problem.fatal:
                        self.report.rejected += 1
                    self.note(problem)
            else:
                self.accept(item, name)
        except Exception as exc:  # noqa: BLE001 - one record never ends the run
            self.reject(item, *_failure(exc))

    def end_file(self, name: str) -> None:
        """Ingest the traces whose spans the file's records held (one seed graph each),
        each on its own: a bad trace is its problem, named by the line of the record at
        fault, and the traces after it are still ingested."""
        for trace_id in list(self.spans.traces):
            t = self.spans.traces[trace_id]
            self.report.traces += 1
            try:
                item = Raw(file=t.file, line=t.line, data=self.spans.build(trace_id))
                self.accept(item, name, fmt="trace")
            except TraceError as exc:
                self.report.rejected += 1
                self.note(Problem(file=t.file, line=exc.line or t.line, reason=exc.reason,
                                  detail=exc.detail))
            except Exception as exc:  # noqa: BLE001 - one trace never ends the run
                self.reject(Raw(file=t.file, line=t.line, data=None), *_failure(exc))
        self.spans = TraceCollector()

    def finish(self, started: float) -> IngestReport:
        self.flush()
        report = self.report
        report.rejected_by_reason = dict(sorted(self.rejected.items()))
        report.warnings_by_reason = dict(sorted(self.warnings.items()))
        report.formats = dict(sorted(self.formats.items()))
        report.writes = self.writes.as_dict()
        report.seconds = round(time.perf_counter() - started, 3)
        return report


def ingest(
    store: Store,
    paths: Iterable[Path],
    *,
    fmt: str = "auto",
    dataset: str | None = None,
    parser: StepParser | None = None,
    on_problem: Callable[[Problem], None] = lambda p: None,
    flush_rows: int = FLUSH_ROWS,
) -> IngestReport:
    """Ingest log files into ``store``. ``dataset`` defaults to each file's stem.

    Every record is read, validated and planned on its own: whatever goes wrong with one
    is that record's problem. A record whose id is already in the graph (or earlier in
    this run) with different content is a ``conflict`` and is not written; the same
    content again is a no-op (MERGE)."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    paths = [Path(p) for p in paths]
    for p in paths:
        if not p.is_file():
            raise NotFoundError(f"no such log file: {p}")
    started = time.perf_counter()
    run = _Ingestion(store, IngestReport(files=[str(p) for p in paths]), fmt=fmt,
                     parser=parser or RuleStepParser(), on_problem=on_problem)
    with progress("ingest", sum(p.stat().st_size for p in paths)) as advance:
        for path in paths:
            for item in read_records(path, on_bytes=advance):
                run.read(item, dataset or path.stem)
                if run.batch_rows >= flush_rows:
                    run.flush()
            run.end_file(dataset or path.stem)
        return run.finish(started)
