"""Stage 4 — rounds: one fresh, verified QA item per seed graph, with full provenance.

``new_round`` = evidence (Cypher) -> sample (seeded) -> generate -> verify -> store.
A seed graph whose draws all fail is retried with the next attempt number, up to
``SampleConfig.attempts``, then reported under the round (``NO_ITEM`` with reasons).
Same round seed + same graph + same θ -> the same items; a frozen round is never modified.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph.claims.entities import link_entities
from dwqa_graph.errors import ConflictError, NotFoundError, RoundFrozenError, UsageError
from dwqa_graph.graph.store import Guard, Store, WritePlan
from dwqa_graph.llm import LLM, LLMStats
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.checks import CHECKS, CheckInput, failures, run_checks
from dwqa_graph.rounds.generate import GenerationFailed, Generator, QACandidate, theta_hash
from dwqa_graph.rounds.sampling import Sample, SampleConfig, SeedGraph, graph_seed, sample
from dwqa_graph.rounds.verify import judge, recompute_problem, structural_problems

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
    sampling_ms_per_graph: float = Field(0.0, description="Seeded draws only.")
    evidence_ms_per_graph: float = Field(0.0, description="The Cypher evidence query.")
    generation_seconds: float = Field(0.0, description="Generation + verification waves.")
    seconds: float = 0.0
    llm: LLMStats | None = None
    check_rejections: dict[str, int] = Field(
        default_factory=dict, description="Candidates each rubric check rejected.")
    check_pass_rates: dict[str, float] = Field(
        default_factory=dict, description="Share of checked candidates each check passed.")
    checks_seconds: float = Field(0.0, description="Time spent in the rubric checks.")


#: Seed graphs per evidence query; batches run on two threads, so the server works on one
#: batch while the client decodes the other.
EVIDENCE_BATCH = 100


def load_graphs(store: Store, t: int, dataset: str | None = None,
                ids: list[str] | None = None) -> list[SeedGraph]:
    if ids is None:
        ids = [r["id"] for r in store.query("rounds/graph_ids", dataset=dataset)]
    batches = [ids[i:i + EVIDENCE_BATCH] for i in range(0, len(ids), EVIDENCE_BATCH)]

    def load(batch: list[str]) -> list[dict[str, Any]]:
        return store.query("rounds/evidence", t=t, dataset=None, ids=batch)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return [SeedGraph(**row) for rows in pool.map(load, batches) for row in rows]


def _item_row(t: int, round_seed: int, th: str, s: Sample, qa: QACandidate) -> dict[str, Any]:
    item_id = stable_id(s.query_id, round_seed, th, qa.question, qa.answer)
    return {"t": t, "id": item_id, "query_id": s.query_id,
            "claims": [u.claim_id for u in qa.used_claims],
            "props": {"id": item_id, "question": qa.question, "answer": qa.answer,
                      "pattern": qa.pattern, "hops": qa.hops, "generator": qa.generator,
                      "theta_hash": th, "r": str(s.r), "attempt": s.attempt,
                      "detail": json.dumps(qa.detail, sort_keys=True),
                      "checks": qa.checks}}


async def _run(graphs: list[SeedGraph], cfg: SampleConfig, gen: Generator, round_seed: int,
               judge_llm: LLM | None, report: RoundReport,
               load_texts: Callable[[list[str]], dict[str, str]] | None = None,
               ) -> tuple[list[tuple[Sample, QACandidate]], dict[str, list[str]]]:
    """Attempt waves: every graph still without an item draws again (attempt + 1)."""
    rejected: Counter[str] = Counter()
    check_failed: Counter[str] = Counter()
    check_passed: Counter[str] = Counter()
    pending = {g.query_id: g for g in graphs}
    reasons: dict[str, list[str]] = {g.query_id: [] for g in graphs}
    done: list[tuple[Sample, QACandidate]] = []
    sampling_s = checks_s = 0.0
    for attempt in range(cfg.attempts):
        if not pending:
            break
        t0 = time.perf_counter()
        drawn: list[Sample] = []
        for qid, g in pending.items():
            s = sample(g, cfg, graph_seed(round_seed, qid), attempt)
            if s is None:
                reasons[qid].append("no_applicable_pattern")
            else:
                drawn.append(s)
        sampling_s += time.perf_counter() - t0
        report.attempts += len(drawn)
        results = await asyncio.gather(*(gen.agenerate(s) for s in drawn),
                                       return_exceptions=True)
        checks: list[tuple[Sample, QACandidate, list[str]] | None] = []
        # Page texts (for the not-verbatim check) only for the versions candidates use: the
        # evidence query does not carry every page of every graph.
        wanted = sorted({b.version_id for s, res in zip(drawn, results, strict=True)
                         if isinstance(res, QACandidate) for b in s.buckets
                         if b.document_id in {u.document_id for u in res.used_claims}})
        texts = load_texts(wanted) if load_texts and wanted else {}
        for s, res in zip(drawn, results, strict=True):
            if isinstance(res, GenerationFailed):
                reasons[s.query_id].append(res.reason)
                rejected[res.reason] += 1
                checks.append(None)
                continue
            if isinstance(res, BaseException):
                raise res
            problems = structural_problems(res, s, min_buckets=cfg.min_buckets)
            again = recompute_problem(res, s)
            problems += [again] if again else []
            tc = time.perf_counter()
            results_ = run_checks(check_input(res, s, texts))
            checks_s += time.perf_counter() - tc
            for r in results_:
                (check_failed if not r.ok else check_passed)[r.check] += 1
            problems = list(dict.fromkeys(problems + failures(results_)))
            res.checks = [r.check for r in results_ if r.ok]
            checks.append((s, res, problems))
        if judge_llm is not None:
            verdicts = await asyncio.gather(*(
                judge(judge_llm, c[1], {p.claim.id: p.claim.text for p in c[0].picks})
                if c and not c[2] else asyncio.sleep(0, result=None) for c in checks))
            for c, v in zip(checks, verdicts, strict=True):
                if c and v:
                    c[2].append(v)
        for c in checks:
            if c is None:
                continue
            s, qa, problems = c
            if problems:
                reasons[s.query_id] += problems
                rejected.update(problems)
                continue
            done.append((s, qa))
            pending.pop(s.query_id, None)
    report.rejected_by_reason = dict(sorted(rejected.items()))
    report.check_rejections = {c: check_failed[c] for c in CHECKS if c in check_failed or
                               c in check_passed}
    report.check_pass_rates = {c: round(check_passed[c] / (check_passed[c] + check_failed[c]),
                                        4) for c in report.check_rejections}
    report.checks_seconds = round(checks_s, 3)
    report.sampling_ms_per_graph = round(1000 * sampling_s / max(len(graphs), 1), 3)
    return done, {q: reasons[q] for q in pending}


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


def new_round(store: Store, *, seed: int, generator: Generator, cfg: SampleConfig | None = None,
              dataset: str | None = None, t: int | None = None,
              judge_llm: LLM | None = None, previous: int | None = None) -> RoundReport:
    """Create round ``t`` (default: the next number) with one item per seed graph.

    ``previous`` is the round whose items' claims ``cfg.reuse`` avoids or prefers (default
    t-1; 0: none), read from the graph when generation starts (``previous_claims``).

    The number is claimed in Neo4j first (``claim_round``); the items are written in one
    transaction that re-checks, under the round's lock, that it is unfrozen and still ours."""
    started = time.perf_counter()
    cfg = cfg or SampleConfig()
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


def _generate_and_write(store: Store, t: int, claim: str, *, seed: int, generator: Generator,
                        cfg: SampleConfig, dataset: str | None, judge_llm: LLM | None,
                        started: float, previous: int | None = None) -> RoundReport:
    cfg = previous_claims(store, t, cfg, previous)
    theta = {**generator.theta(), "sampling": cfg.model_dump(mode="json"),
             "judge": judge_llm.identity if judge_llm else None}
    th = theta_hash(theta)
    report = RoundReport(round=t, seed=seed, generator=generator.name, theta_hash=th)
    t0 = time.perf_counter()
    link_entities(store)  # claims extracted since the last round join the entity layer
    graphs = load_graphs(store, t, dataset)
    report.graphs = len(graphs)
    report.evidence_ms_per_graph = round(1000 * (time.perf_counter() - t0) / max(len(graphs), 1),
                                         3)
    t0 = time.perf_counter()

    def load_texts(ids: list[str]) -> dict[str, str]:
        return {r["id"]: r["text"] for r in store.query("rounds/version_texts", ids=ids)}

    done, failed = asyncio.run(_run(graphs, cfg, generator, seed, judge_llm, report,
                                    load_texts))
    report.generation_seconds = round(time.perf_counter() - t0, 3)
    plan = WritePlan(WRITE_ORDER)
    plan.add("rounds/create", [{"t": t, "seed": seed, "theta": json.dumps(theta, sort_keys=True),
                                "theta_hash": th, "generator": generator.name,
                                "config": json.dumps(cfg.model_dump(mode="json"))}])
    plan.add("rounds/items", [_item_row(t, seed, th, s, qa) for s, qa in done])
    plan.add("rounds/no_item", [{"t": t, "query_id": q, "reasons": sorted(set(r))}
                                for q, r in failed.items()])
    plan.add("rounds/snapshot", [{"t": t, "query_id": g.query_id, "version_id": b.version_id}
                                 for g in graphs for b in g.documents])
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
            "check_pass_rates": report.check_pass_rates, "attempts": report.attempts}


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
POOL_QUERIES = ("rounds/pool_temporal", "rounds/pool_comparison", "rounds/pool_causal",
                "rounds/pool_conjunction")


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
    rounds = sorted(rounds or [r["t"] for r in list_rounds(store) if r["status"] == "complete"])
    if len(rounds) < 2:
        raise UsageError("collision statistics need at least two rounds")
    snaps: dict[str, dict[int, set[str]]] = {}
    for row in store.query("rounds/snapshots", rounds=rounds):
        snaps.setdefault(row["query_id"], {})[row["t"]] = set(row["versions"])
    entries: list[dict[str, Any]] = []
    for q, per in snaps.items():
        for t_, vs in per.items():
            entries.append({"query_id": f"{q}|{t_}", "versions": sorted(vs)})
        for i, u in enumerate(rounds):
            for v in rounds[i + 1:]:
                if u in per and v in per:
                    entries.append({"query_id": f"{q}|{u}|{v}",
                                    "versions": sorted(per[u] & per[v])})
    sizes = pool_sizes(store, entries)
    drawn: dict[str, list[str]] = {}
    for row in store.query("rounds/items_claims", rounds=rounds):
        drawn.setdefault(row["query_id"], []).append(row["candidate"])
    graphs = {}
    for q, per in sorted(snaps.items()):
        present = [r for r in rounds if r in per]
        overlaps = {(i, j): sizes[f"{q}|{u}|{v}"] for i, u in enumerate(present)
                    for j, v in enumerate(present) if i < j}
        graphs[q] = graph_stats([sizes[f"{q}|{r}"] for r in present], overlaps, delta,
                                drawn=drawn.get(q), trials=trials)
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
