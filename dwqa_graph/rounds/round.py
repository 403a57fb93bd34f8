"""Stage 4 — rounds: one fresh, verified QA item per seed graph, with full provenance.

``new_round`` = evidence (Cypher) -> sample (seeded) -> generate -> verify -> store.
A seed graph whose draws all fail is retried with the next attempt number, up to
``SampleConfig.attempts``, then reported under the round (``NO_ITEM`` with reasons).
Same round seed + same graph + same θ -> the same items; a frozen round is never modified.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import heapq
import itertools
import json
import secrets
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from dwqa_graph.errors import (
    ConflictError,
    InputError,
    NotFoundError,
    RoundFrozenError,
    UsageError,
)
from dwqa_graph.graph.store import Guard, Store, WritePlan
from dwqa_graph.llm import LLM, LLMStats
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.checks import CHECKS, CheckInput, failures, run_checks
from dwqa_graph.rounds.entities import link_entities
from dwqa_graph.rounds.generate import GenerationFailed, Generator, QACandidate, theta_hash
from dwqa_graph.rounds.path_generate import (
    PathDraw,
    PathGenerator,
    is_path_generator,
    path_round,
    set_quality,
)
from dwqa_graph.rounds.paths import pool_sizes as path_pool_sizes
from dwqa_graph.rounds.sampling import (
    Sample,
    SampleConfig,
    SeedGraph,
    graph_seed,
    no_draw_reason,
    sample,
)
from dwqa_graph.rounds.verify import (
    NOT_RUN,
    closed_book,
    closed_book_prompt,
    judge,
    recompute_problem,
    structural_problems,
)

T = TypeVar("T")

WRITE_ORDER = ("rounds/create", "rounds/items", "rounds/no_item", "rounds/snapshot",
               "rounds/quality")


def check_input(qa: QACandidate, s: Sample, texts: dict[str, str] | None = None) -> CheckInput:
    """The rubric checks' view of a candidate: its claims' spans, the text of their
    documents (``texts`` by version id, loaded only for candidates), the entities each
    claim MENTIONS (title entity included)."""
    claims = {c.id: (b, c) for b in s.buckets for c in b.claims}
    found = [claims[u.claim_id] for u in qa.used_claims if u.claim_id in claims]
    texts = texts or {}
    docs = list({b.document_id: texts.get(b.version_id, b.text) for b, _ in found}.values())
    return CheckInput(question=qa.question, answer=qa.answer, pattern=qa.pattern,
                      spans=[c.text for _, c in found], documents=docs,
                      subjects=[list(c.mentions) for _, c in found],
                      span_documents=[b.document_id for b, _ in found], detail=qa.detail)



class RoundReport(BaseModel):
    round: int
    seed: int
    generator: str
    theta_hash: str
    graphs: int = 0
    items: int = 0
    no_item: int = 0
    coverage: float = Field(0.0, description="items / graphs")
    patterns: dict[str, int] = Field(default_factory=dict)
    hops: dict[str, int] = Field(default_factory=dict)
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    no_item_reasons: dict[str, int] = Field(default_factory=dict)
    attempts: int = 0
    sampling_ms_per_graph: float = Field(0.0, description="Seeded draws only (CPU time).")
    evidence_ms_per_graph: float = Field(0.0, description="The Cypher evidence query.")
    generation_seconds: float = Field(
        0.0, description="Evidence load, generation and verification (overlapped).")
    seconds: float = 0.0
    llm: LLMStats | None = None
    check_rejections: dict[str, int] = Field(
        default_factory=dict, description="Candidates each rubric check rejected.")
    check_pass_rates: dict[str, float] = Field(
        default_factory=dict, description="Share of checked candidates each check passed.")
    checks_seconds: float = Field(0.0, description="Time spent in the rubric checks (CPU).")
    set_quality: dict[str, Any] | None = Field(
        None, description="Set-level numbers of a fact-path round (path_generate.set_quality):"
        " two-option share, answer types, relations, phrasings, median K, collision bound.")
    closed_book: str | None = Field(
        None, description="The model the closed-book check asked (None: not run).")


#: Seed graphs per evidence query; batches run on two threads, so the server works on one
#: batch while the client decodes the other. The first batches are smaller: a round's
#: generation starts as soon as the first batch is in, while the rest loads.
EVIDENCE_BATCH = 100
FIRST_BATCHES = (25, 50)
#: Claims one evidence transaction may read (a bound in rows, not in graphs: 100 graphs of
#: full Wikipedia pages are ~30,000 claims, and five rounds at once exhausted the server's
#: transaction memory). A graph above it is read alone.
EVIDENCE_CLAIMS = 20_000
#: Evidence batches read ahead of the one whose graphs are being generated.
LOADS_AHEAD = 2


def _id_batches(store: Store, dataset: str | None, ids: list[str] | None) -> list[list[str]]:
    rows = store.query("rounds/graph_ids", dataset=dataset, ids=ids)
    weight = {r["id"]: int(r["claims"]) for r in rows}
    order = ids if ids is not None else [r["id"] for r in rows]
    sizes = itertools.chain(FIRST_BATCHES, itertools.repeat(EVIDENCE_BATCH))
    batches: list[list[str]] = []
    batch: list[str] = []
    size, claims = next(sizes), 0
    for qid in order:
        w = weight.get(qid, 0)
        if batch and (len(batch) >= size or claims + w > EVIDENCE_CLAIMS):
            batches.append(batch)
            batch, claims, size = [], 0, next(sizes)
        batch.append(qid)
        claims += w
    if batch:
        batches.append(batch)
    return batches


class _GCPause:
    """Cyclic garbage collection paused while any evidence batch decodes.

    A batch allocates ~10^5 containers (claims and their lists) that all survive, and every
    allocation threshold crossed makes the collector walk them again: that was two thirds of
    the evidence load (benchmarks/bench_round.py: 10 -> 3.5 ms per seed graph). Decoding makes
    no reference cycles, so nothing collectable waits meanwhile. Two batches decode at once
    (``load_graphs``' threads, a round's executor): the collector resumes when the last one
    ends, and only if it was running before the first began."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holds = 0
        self._was_enabled = False

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._holds == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._holds += 1
        try:
            yield
        finally:
            with self._lock:
                self._holds -= 1
                if self._holds == 0 and self._was_enabled:
                    gc.enable()


gc_paused = _GCPause()


def _load_batch(store: Store, t: int, batch: list[str]) -> list[SeedGraph]:
    with gc_paused():
        return [SeedGraph(**row) for row in store.query("rounds/evidence", t=t, dataset=None,
                                                         ids=batch)]


def load_graphs(store: Store, t: int, dataset: str | None = None,
                ids: list[str] | None = None) -> list[SeedGraph]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        return [g for graphs in pool.map(lambda b: _load_batch(store, t, b),
                                         _id_batches(store, dataset, ids)) for g in graphs]


def _item_row(t: int, round_seed: int, th: str, s: Sample | PathDraw,
              qa: QACandidate) -> dict[str, Any]:
    item_id = stable_id(s.query_id, round_seed, th, qa.question, qa.answer)
    # a fact-path item USES its facts (each carries its evidence sentence), not claims
    claims = [] if qa.used_facts else [u.claim_id for u in qa.used_claims]
    extra = {k: qa.detail[k] for k in ("answer_type", "two_option", "phrasing")
             if k in qa.detail}
    return {"t": t, "id": item_id, "query_id": s.query_id, "claims": claims,
            "facts": qa.used_facts,
            "props": {**extra, "id": item_id, "question": qa.question, "answer": qa.answer,
                      "pattern": qa.pattern, "hops": qa.hops, "generator": qa.generator,
                      "theta_hash": th, "r": str(s.r), "attempt": s.attempt,
                      "detail": json.dumps(qa.detail, sort_keys=True),
                      "checks": qa.checks,
                      "closed_book": "pass" if "closed_book" in qa.checks else NOT_RUN}}


class _Tally:
    """What the seed graphs of one round count together (one event loop: no locking)."""

    def __init__(self) -> None:
        self.rejected: Counter[str] = Counter()
        self.check_failed: Counter[str] = Counter()
        self.check_passed: Counter[str] = Counter()
        self.attempts = 0
        self.sampling_s = self.checks_s = 0.0


class _Gate:
    """At most ``n`` model calls in flight (``None``: no limit), the waiting ones started by
    priority, then arrival. Calls further along a seed graph's chain (a redraw, the checks of
    a candidate) go first: long chains then run while first draws fill the gaps, instead of
    all trailing at the end of the round. It only orders the calls, so results are the same.
    """

    def __init__(self, n: int | None) -> None:
        self.free = n
        self._heap: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    @contextlib.asynccontextmanager
    async def slot(self, priority: int) -> AsyncIterator[None]:
        if self.free is None:
            yield
            return
        if self.free > 0 and not self._heap:
            self.free -= 1
        else:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._heap, (priority, next(self._seq), fut))
            try:
                await fut  # the slot is handed over by _release
            except asyncio.CancelledError:
                if fut.done() and not fut.cancelled():  # handed over, then cancelled
                    self._release()
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._heap:
            _, _, fut = heapq.heappop(self._heap)
            if not fut.done():
                fut.set_result(None)
                return
        assert self.free is not None
        self.free += 1


def _model_gate(gen: Generator, judge_llm: LLM | None, probe: LLM | None) -> _Gate:
    """The gate sized a little above the LLM layer's own limit: the order is decided here,
    and the few calls admitted beyond the limit wait at the LLM's semaphore, which is
    released as soon as a reply arrives -- so the model never idles while a finished call
    parses its reply and runs the checks. No model: no gate."""
    llms = [x for x in (getattr(gen, "llm", None), judge_llm, probe) if isinstance(x, LLM)]
    if not llms:
        return _Gate(None)
    n = min(int(getattr(x, "_concurrency", 4)) for x in llms)
    return _Gate(n + max(2, n // 4))


class _Texts:
    """Page texts for the not-verbatim check, read for the versions candidates use (the
    evidence query does not carry every page of every graph). Requests made while other
    candidates are being checked are coalesced into one query, read on a thread."""

    def __init__(self, load: Callable[[list[str]], dict[str, str]] | None) -> None:
        self.load = load
        self.pending: dict[str, list[asyncio.Future[str | None]]] = {}
        self.flushing = False

    async def get(self, ids: list[str]) -> dict[str, str]:
        if not ids or self.load is None:
            return {}
        loop = asyncio.get_running_loop()
        futs = []
        for i in ids:
            futs.append(loop.create_future())
            self.pending.setdefault(i, []).append(futs[-1])
        if not self.flushing:
            self.flushing = True
            loop.create_task(self._flush())
        got = await asyncio.gather(*futs)
        return {i: v for i, v in zip(ids, got, strict=True) if v is not None}

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # the candidates ready now add their versions first
        batch, self.pending, self.flushing = self.pending, {}, False
        assert self.load is not None
        try:
            texts = await asyncio.to_thread(self.load, sorted(batch))
        except Exception as exc:  # every waiter sees the store's error
            for fs in batch.values():
                for f in fs:
                    f.set_exception(exc)
            return
        for i, fs in batch.items():
            for f in fs:
                f.set_result(texts.get(i))


async def _chain(g: SeedGraph, cfg: SampleConfig, gen: Generator, round_seed: int,
                 judge_llm: LLM | None, probe: LLM | None, tally: _Tally, gate: _Gate,
                 texts: _Texts) -> tuple[tuple[Sample, QACandidate] | None, list[str]]:
    """One seed graph's attempts: draw, generate, check; the next attempt number until a
    candidate passes. Everything depends on this graph alone, so graphs run side by side
    and give the same items as one after the other."""
    reasons: list[str] = []
    closed_prompt = closed_book_prompt() if probe is not None else None
    for attempt in range(cfg.attempts):
        # CPU time of this thread: the evidence batches decoded on other threads meanwhile
        # would otherwise count as sampling and checking time
        t0 = time.thread_time()
        s = sample(g, cfg, graph_seed(round_seed, g.query_id), attempt)
        tally.sampling_s += time.thread_time() - t0
        if s is None:
            reasons.append(no_draw_reason(g, cfg))
            continue
        tally.attempts += 1
        try:
            qa = await _gated(gate, -2 * attempt, gen.agenerate(s))
        except GenerationFailed as exc:
            reasons.append(exc.reason)
            tally.rejected[exc.reason] += 1
            continue
        problems = structural_problems(qa, s, min_buckets=cfg.min_buckets)
        again = recompute_problem(qa, s)
        problems += [again] if again else []
        used = {u.document_id for u in qa.used_claims}
        pages = await texts.get(sorted({b.version_id for b in s.buckets
                                        if b.document_id in used}))
        tc = time.thread_time()
        results = run_checks(check_input(qa, s, pages))
        tally.checks_s += time.thread_time() - tc
        for r in results:
            (tally.check_failed if not r.ok else tally.check_passed)[r.check] += 1
        problems = list(dict.fromkeys(problems + failures(results)))
        qa.checks = [r.check for r in results if r.ok]
        if not problems:
            # The model-backed checks, only when every mechanical check passed, side by
            # side: the judge over the spans and the closed-book probe without them.
            spans = {p.claim.id: p.claim.text for p in s.picks}
            verdict, outcome = await asyncio.gather(
                _gated(gate, -2 * attempt - 1, judge(judge_llm, qa, spans))
                if judge_llm is not None else _none(),
                _gated(gate, -2 * attempt - 1, closed_book(probe, qa, closed_prompt))
                if probe is not None else _none())
            if verdict:
                problems.append(verdict)
            if outcome == "pass":
                tally.check_passed["closed_book"] += 1
                qa.checks.append("closed_book")
            elif outcome == "fail":
                tally.check_failed["closed_book"] += 1
                problems.append("closed_book")
            elif outcome == "error":  # no reply: unverified, like a judge that failed
                problems.append("closed_book_failed")
        if problems:
            reasons += problems
            tally.rejected.update(problems)
            continue
        return (s, qa), reasons
    return None, reasons


async def _none() -> None:
    return None


async def _gated(gate: _Gate, priority: int, call: Coroutine[Any, Any, T]) -> T:
    try:
        async with gate.slot(priority):
            return await call
    finally:
        call.close()  # a no-op once it ran; cancelled while waiting: never started


async def _pipeline(store: Store, t: int, dataset: str | None, cfg: SampleConfig,
                    gen: Generator, round_seed: int, judge_llm: LLM | None,
                    probe: LLM | None, report: RoundReport,
                    load_texts: Callable[[list[str]], dict[str, str]] | None = None,
                    ) -> tuple[list[tuple[str, list[str]]], list[tuple[Sample, QACandidate]],
                               dict[str, list[str]]]:
    """Load the evidence in batches (two threads) and start each batch's graphs as soon as
    its evidence arrives, so the model works while later batches load. Results are put in
    graph order: the same items, reasons and counts as one graph after the other."""
    started = time.perf_counter()
    batches = await asyncio.to_thread(_id_batches, store, dataset, None)
    loop = asyncio.get_running_loop()
    tally, gate, texts = _Tally(), _model_gate(gen, judge_llm, probe), _Texts(load_texts)
    # what the round keeps of a graph once its chain has run: the snapshot's version ids
    graphs: list[tuple[str, list[str]]] = []
    tasks = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        # A batch is loaded only when at most LOADS_AHEAD others wait: the client holds a
        # few batches' evidence, not the whole pool's (five rounds of 538 full-page graphs
        # at once went past the machine's memory when every batch was read up front).
        pending = collections.deque(batches)
        loads: collections.deque[asyncio.Future[list[SeedGraph]]] = collections.deque()

        def top_up() -> None:
            while pending and len(loads) < LOADS_AHEAD:
                loads.append(loop.run_in_executor(pool, _load_batch, store, t,
                                                  pending.popleft()))

        top_up()
        while loads:
            batch = await loads.popleft()
            top_up()
            for g in batch:
                graphs.append((g.query_id, [b.version_id for b in g.documents]))
                tasks.append(asyncio.create_task(_chain(g, cfg, gen, round_seed, judge_llm,
                                                        probe, tally, gate, texts)))
            del batch
            # the chains of this batch run before the next batch is taken: their graphs
            # are then only referenced by what their items use
            await asyncio.sleep(0)
        evidence_s = time.perf_counter() - started
        outs = await asyncio.gather(*tasks)
    done = [x for x, _ in outs if x is not None]
    failed = {q: r for (q, _), (x, r) in zip(graphs, outs, strict=True) if x is None}
    report.graphs = len(graphs)
    report.evidence_ms_per_graph = round(1000 * evidence_s / max(len(graphs), 1), 3)
    report.attempts = tally.attempts
    report.rejected_by_reason = dict(sorted(tally.rejected.items()))
    report.check_rejections = {c: tally.check_failed[c] for c in CHECKS
                               if c in tally.check_failed or c in tally.check_passed}
    report.check_pass_rates = {
        c: round(tally.check_passed[c] / (tally.check_passed[c] + tally.check_failed[c]), 4)
        for c in report.check_rejections}
    report.checks_seconds = round(tally.checks_s, 3)
    report.sampling_ms_per_graph = round(1000 * tally.sampling_s / max(len(graphs), 1), 3)
    return graphs, done, failed


# -- round numbers and the write guard -------------------------------------------------------
#: Claims of the next number that lose to a concurrent run (constraint violation) are retried
#: with the number after; each loss means another run got a number, so this bounds nothing
#: but a pathological pile-up.
CLAIM_ATTEMPTS = 100


def _unfrozen(t: int, claim: str | None = None) -> Guard:
    """Round ``t`` locked and not frozen -- and, with ``claim``, still claimed by this run."""

    def check(rows: list[dict[str, Any]]) -> None:
        if rows and rows[0]["frozen"]:
            raise RoundFrozenError(f"round {t} is frozen; create a new round instead")
        if claim is not None and (not rows or rows[0]["claim"] != claim):
            raise ConflictError(f"round {t} was claimed by another `round new --round {t}` "
                                "while this run generated it; this run wrote nothing")

    return Guard("rounds/guard", {"t": t}, check)


def claim_round(store: Store, t: int | None, claim: str) -> int:
    """Claim round ``t`` (or the next free number) for this run before any work."""
    if t is None:
        for _ in range(CLAIM_ATTEMPTS):
            try:
                return int(store.run_write("rounds/claim_next", claim=claim)[0]["t"])
            except ConflictError:  # another run created that number first: take the next
                continue
        raise ConflictError(f"could not claim a round number in {CLAIM_ATTEMPTS} attempts")
    plan = WritePlan()
    plan.add("rounds/claim", [{"t": t, "claim": claim}])
    store.write_plan(plan, guard=_unfrozen(t))
    return t


def new_round(store: Store, *, seed: int, generator: Generator | PathGenerator,
              cfg: SampleConfig | None = None, dataset: str | None = None, t: int | None = None,
              judge_llm: LLM | None = None, previous: int | None = None) -> RoundReport:
    """Create round ``t`` (default: the next number) with one item per seed graph.

    ``previous`` is the round whose items' claims ``cfg.reuse`` avoids or prefers (default
    t-1; 0: none), read from the graph when generation starts (``previous_claims``).

    The number is claimed in Neo4j first (``claim_round``); the items are written in one
    transaction that re-checks, under the round's lock, that it is unfrozen and still ours."""
    started = time.perf_counter()
    cfg = cfg or SampleConfig()
    if isinstance(generator, PathGenerator):
        [scope] = store.query("paths/facts_read", dataset=dataset)
        if scope["graphs"] and not scope["read"]:
            raise InputError(
                "no typed facts in these seed graphs yet: the fact-path generator (the "
                "default) draws from them. Run `dwqa facts` first, or use a claim generator "
                "(--generator rule).")
    claim = secrets.token_hex(8)
    t = claim_round(store, t, claim)
    try:
        return _generate_and_write(store, t, claim, seed=seed, generator=generator, cfg=cfg,
                                   dataset=dataset, judge_llm=judge_llm, started=started,
                                   previous=previous)
    except BaseException:
        # nothing written: give the number back (a kill -9 leaves it 'generating', empty);
        # a failure to do so must not hide the error that got us here
        with contextlib.suppress(Exception):
            store.run_write("rounds/release", t=t, claim=claim)
        raise


def _generate_and_write(store: Store, t: int, claim: str, *, seed: int,
                        generator: Generator | PathGenerator, cfg: SampleConfig,
                        dataset: str | None, judge_llm: LLM | None, started: float,
                        previous: int | None = None) -> RoundReport:
    cfg = previous_claims(store, t, cfg, previous)
    # The closed-book check asks the round's model (the judge's, else the generator's)
    # each candidate without evidence; a round without a model records it as not run.
    gen_llm = getattr(generator, "llm", None)
    probe = judge_llm or (gen_llm if isinstance(gen_llm, LLM) else None)
    if isinstance(generator, PathGenerator):
        probe = None  # a path item's answer is computed from its facts; no closed-book probe
    theta = {**generator.theta(), "sampling": cfg.model_dump(mode="json"),
             "judge": judge_llm.identity if judge_llm else None}
    if probe is not None:  # only then: θ of rounds without a model stays as it was
        theta["closed_book"] = {"model": probe.identity, "prompt": closed_book_prompt().hash}
    th = theta_hash(theta)
    report = RoundReport(round=t, seed=seed, generator=generator.name, theta_hash=th,
                         closed_book=probe.id if probe else None)
    t0 = time.perf_counter()

    def load_texts(ids: list[str]) -> dict[str, str]:
        return {r["id"]: r["text"] for r in store.query("rounds/version_texts", ids=ids)}

    graphs: list[tuple[str, list[str]]]  # (query id, the version ids of its snapshot)
    done: list[tuple[Any, QACandidate]]
    if isinstance(generator, PathGenerator):
        path_graphs, done, failed, stats = path_round(store, t, dataset, cfg, generator, seed,
                                                      load_texts)
        graphs = [(g.query_id, [d.version_id for d in g.documents]) for g in path_graphs]
        report.graphs, report.attempts = len(graphs), stats["attempts"]
        report.rejected_by_reason = stats["rejected"]
        report.set_quality = set_quality([qa for _, qa in done], stats["pool"])
    else:
        link_entities(store)  # claims extracted since the last round join the entity layer
        graphs, done, failed = asyncio.run(_pipeline(store, t, dataset, cfg, generator, seed,
                                                     judge_llm, probe, report, load_texts))
    report.generation_seconds = round(time.perf_counter() - t0, 3)
    plan = WritePlan(WRITE_ORDER)
    plan.add("rounds/create", [{"t": t, "seed": seed, "theta": json.dumps(theta, sort_keys=True),
                                "theta_hash": th, "generator": generator.name,
                                "config": json.dumps(cfg.model_dump(mode="json"))}])
    plan.add("rounds/items", [_item_row(t, seed, th, s, qa) for s, qa in done])
    plan.add("rounds/no_item", [{"t": t, "query_id": q, "reasons": sorted(set(r))}
                                for q, r in failed.items()])
    plan.add("rounds/snapshot", [{"t": t, "query_id": q, "version_id": v}
                                 for q, versions in graphs for v in versions])
    report.items = len(done)
    report.no_item = len(failed)
    report.coverage = round(len(done) / len(graphs), 4) if graphs else 0.0
    report.patterns = dict(sorted(Counter(qa.pattern for _, qa in done).items()))
    report.hops = dict(sorted(Counter(str(qa.hops) for _, qa in done).items()))
    report.no_item_reasons = dict(sorted(Counter(
        x for r in failed.values() for x in set(r)).items()))
    llm = getattr(generator, "llm", None)
    report.llm = llm.stats if isinstance(llm, LLM) else None
    report.seconds = round(time.perf_counter() - started, 3)
    # The round's quality numbers are stored with it, for `round show` and the report.
    plan.add("rounds/quality", [{"t": t, "quality": json.dumps(_quality(report))}])
    store.write_plan(plan, guard=_unfrozen(t, claim))
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _quality(report: RoundReport) -> dict[str, Any]:
    return {"graphs": report.graphs, "items": report.items, "coverage": report.coverage,
            "patterns": report.patterns, "rejected_by_reason": report.rejected_by_reason,
            "no_item_reasons": report.no_item_reasons,
            "check_rejections": report.check_rejections,
            "check_pass_rates": report.check_pass_rates, "attempts": report.attempts,
            "closed_book": report.closed_book,
            **({"set": report.set_quality} if report.set_quality is not None else {})}


def list_rounds(store: Store) -> list[dict[str, Any]]:
    return store.query("rounds/list")


def show_round(store: Store, t: int) -> dict[str, Any]:
    rows = store.query("rounds/get", t=t)
    if not rows:
        raise NotFoundError(f"no round {t}")
    info = rows[0]
    info["theta"] = json.loads(info["theta"]) if info["theta"] else None
    info["config"] = json.loads(info["config"]) if info["config"] else None
    items = export_rows(store, t)
    info["patterns"] = dict(Counter(i["pattern"] for i in items))
    info["quality"] = json.loads(info["quality"]) if info.get("quality") else None
    info["examples"] = [{k: i[k] for k in ("query_id", "pattern", "question", "answer",
                                           "checks")}
                        for i in items[:5]]
    return info


def export_rows(store: Store, t: int) -> list[dict[str, Any]]:
    return store.query("rounds/export", t=t)


def export_round(store: Store, t: int, out: Path) -> int:
    """JSON lines, keys sorted: the same items export byte for byte (apart from ``round``)."""
    rows = export_rows(store, t)
    if not rows and not store.query("rounds/get", t=t):
        raise NotFoundError(f"no round {t} (see `dwqa round list`)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
    return len(rows)


def freeze_round(store: Store, t: int) -> dict[str, Any]:
    rows = store.run_write("rounds/freeze", t=t)
    if not rows:
        existing = store.query("rounds/get", t=t)
        if existing:  # claimed, first generation not written yet (or its run died)
            raise ConflictError(f"round {t} is still being generated; freeze it once "
                                f"`round new` has written it (a run that died: regenerate it "
                                f"with `round new --round {t}`)")
        raise NotFoundError(f"no round {t} (see `dwqa round list`)")
    return rows[0]


# -- collision statistics ----------------------------------------------------------------------
POOL_QUERIES = ("rounds/pool_temporal", "rounds/pool_comparison", "rounds/pool_compared",
                "rounds/pool_causal", "rounds/pool_conjunction")


def pool_sizes(store: Store, graphs: list[dict[str, Any]]) -> dict[str, int]:
    """K per entry of ``graphs`` ([{query_id, versions}]), counted in Cypher."""
    k = {g["query_id"]: 0 for g in graphs}
    for name in POOL_QUERIES:
        for row in store.query(name, graphs=graphs):
            k[row["query_id"]] += int(row["k"])
    return k


def collisions(store: Store, rounds: list[int] | None = None, delta: float = 0.05,
               trials: int = 0) -> dict[str, Any]:
    """Per seed graph: pool size K per round, overlap J between rounds (the pool over the
    evidence both rounds share: claims are version-specific, so a candidate is in both
    pools exactly when all its claims are), the observed repeat rate of the items actually
    drawn, the bound t(t-1)J_max/(2K^2) and the K needed for ``delta``, tight and as printed
    in the paper. ``trials`` > 0 adds a Monte-Carlo estimate for each graph's (t, K, J)."""
    from dwqa_graph.rounds.collisions import aggregate, graph_stats

    # default: rounds that were written (a claimed round whose run died holds nothing)
    listed = list_rounds(store)
    rounds = sorted(rounds or [r["t"] for r in listed if r["status"] == "complete"])
    if len(rounds) < 2:
        raise UsageError("collision statistics need at least two rounds")
    # K is the pool the rounds drew from: fact paths for the paths generator, claim
    # combinations for the others; rounds of both kinds have no common pool
    kinds = {is_path_generator(r["generator"]) for r in listed if r["t"] in rounds}
    if len(kinds) > 1:
        raise UsageError("these rounds mix the paths generator with claim generators: their "
                         "candidate pools differ; pass --rounds for rounds of one kind")
    count_pool = path_pool_sizes if kinds == {True} else pool_sizes
    snaps: dict[str, dict[int, frozenset[str]]] = {}
    for row in store.query("rounds/snapshots", rounds=rounds):
        snaps.setdefault(row["query_id"], {})[row["t"]] = frozenset(row["versions"])
    # K depends only on the evidence (the set of document versions), and consecutive rounds
    # mostly share it: count each distinct set and each pair of distinct sets once, not
    # every pair of rounds (quadratic: 800 rounds ran out of memory).
    distinct = {vs for per in snaps.values() for vs in per.values()}
    groups = {q: list(dict.fromkeys(per[r] for r in rounds if r in per))
              for q, per in snaps.items()}
    sets = distinct | {a & b for gs in groups.values() for i, a in enumerate(gs)
                       for b in gs[i + 1:]}
    keys = {vs: str(n) for n, vs in enumerate(sorted(sets, key=sorted))}
    sizes = count_pool(store, [{"query_id": keys[vs], "versions": sorted(vs)} for vs in sets])
    drawn: dict[str, list[str]] = {}
    for row in store.query("rounds/items_claims", rounds=rounds):
        drawn.setdefault(row["query_id"], []).append(row["candidate"])
    graphs = {}
    for q, per in sorted(snaps.items()):
        present = [r for r in rounds if r in per]
        rep = {vs: present.index(next(r for r in present if per[r] == vs)) for vs in groups[q]}
        count = {vs: sum(per[r] == vs for r in present) for vs in groups[q]}
        overlaps: dict[tuple[int, int], int] = {}
        weights: dict[tuple[int, int], int] = {}
        for i, a in enumerate(groups[q]):
            if count[a] > 1:  # rounds on the same evidence: J = K
                overlaps[rep[a], rep[a]] = sizes[keys[a]]
                weights[rep[a], rep[a]] = count[a] * (count[a] - 1) // 2
            for b in groups[q][i + 1:]:
                key = (min(rep[a], rep[b]), max(rep[a], rep[b]))
                overlaps[key] = sizes[keys[a & b]]
                weights[key] = count[a] * count[b]
        graphs[q] = graph_stats([sizes[keys[per[r]]] for r in present], overlaps, delta,
                                drawn=drawn.get(q), trials=trials, weights=weights)
    return {"rounds": rounds, "delta": delta,
            "graphs": {q: g.model_dump() for q, g in graphs.items()},
            "aggregate": aggregate(graphs, delta)}


def previous_claims(store: Store, t: int, cfg: SampleConfig,
                    previous: int | None = None) -> SampleConfig:
    """``cfg`` with the claim ids the items of round ``previous`` (default t-1) used, for
    ``cfg.reuse`` (not read when it is 'allow')."""
    if cfg.reuse == "allow" or previous == 0:
        return cfg
    rows = store.query("rounds/previous_claims", t=t - 1 if previous is None else previous)
    return cfg.model_copy(update={"previous_claims": frozenset(r["id"] for r in rows)})
