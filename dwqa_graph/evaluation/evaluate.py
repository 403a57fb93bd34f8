"""Evaluation: run an agent over a round or a static benchmark, score it, store the run.

Per item the scorers are SQuAD exact match and token F1 (max over gold aliases, see
``scoring``) and, optionally, a judge giving CORRECT / INCORRECT / NOT_ATTEMPTED (scored 1 only
for CORRECT). Agg(D, M) is the plain mean over items: one item per seed graph per round, so
every graph contributes equally (the paper's Eq. 5). A run on a frozen round is a *snapshot*
score; ``macro`` averages Agg over a window of rounds (Eq. 8).

Intervals are percentile bootstrap intervals (2,000 resamples, fixed seed, so the same run
always reports the same interval). Bootstrap rather than a normal or t interval because
per-item scores are bounded and often all 0 or all 1 on small rounds, where those intervals
run past [0, 1] or collapse. For the macro score the resampling is stratified by round,
matching how the rounds were drawn: each round's items are resampled within the round.

Stored graph (so a run can be inspected like a seed graph)::

    (:Agent {spec})-[:RAN]->(:EvalRun)-[:ON]->(:Round | :StaticSet)
    (:EvalRun)-[:PREDICTED]->(:Prediction)-[:ANSWERS]->(:QAItem | :StaticItem)
    (:Prediction)-[:RETRIEVED {rank, title, text}]->(:Document)
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

import numpy as np
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from dwqa_graph.errors import InputError, NotFoundError, RunFailedError, UsageError
from dwqa_graph.evaluation.agents import Agent, AgentAnswer, RetrievedDoc
from dwqa_graph.evaluation.agents.base import capped_answer
from dwqa_graph.evaluation.scoring import (
    JudgeLabel,
    contains_gold,
    f1,
    normalize_answer,
    parse_judge_label,
)
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.models import EvalItem, stable_id
from dwqa_graph.registry import SCORERS
from dwqa_graph.web.urls import document_id

#: The judge is a scorer name too, but it grades with a Judge (rule or LLM), not a function.
JUDGE = "judge"


def scorer_names() -> list[str]:
    """Every name ``--scorer`` accepts: the registered answer scorers and ``judge``."""
    return [*SCORERS.names(), JUDGE]


def check_scorers(scorers: Sequence[str]) -> None:
    unknown = sorted(set(scorers) - set(scorer_names()))
    if unknown or not scorers:
        raise UsageError(f"unknown scorer(s) {unknown}; choose from {','.join(scorer_names())}")
#: Default ``--max-errors``: a run where the agent failed on more than this share of items
#: says more about the agent's plumbing than about its answers, so it is not a score.
MAX_ERRORS = 0.10
BOOTSTRAP_SAMPLES = 2000
CONFIDENCE = 0.95
# Refusals a closed-book model or a web agent typically gives instead of an answer.
_NOT_ATTEMPTED = ("i don't know", "i do not know", "unknown", "not sure", "cannot answer",
                  "can't answer", "no answer", "unable to answer", "not enough information")


# -- judges -------------------------------------------------------------------------------------
class Judge(Protocol):
    id: str

    async def grade(self, question: str, golds: Sequence[str], answer: str) -> JudgeLabel:
        ...


class RuleJudge:
    """The offline judge: a deterministic reading of the three labels.

    NOT_ATTEMPTED for an empty answer or a refusal; CORRECT when a gold alias appears as a
    whole-token run inside the normalised answer ("It opened in 1911." for "1911") or token
    F1 ≥ 0.8; otherwise INCORRECT. It is more lenient than EM about extra words, which is what
    an LLM judge is for, but it cannot judge paraphrases ("nine years" vs "9 years").
    """

    id = "rule"

    async def grade(self, question: str, golds: Sequence[str], answer: str) -> JudgeLabel:
        norm = normalize_answer(answer)
        if not norm or any(phrase in answer.lower() for phrase in _NOT_ATTEMPTED):
            return JudgeLabel(label="NOT_ATTEMPTED", fallback=False)
        if contains_gold(answer, golds):
            return JudgeLabel(label="CORRECT", fallback=False)
        if f1(answer, list(golds)) >= 0.8:
            return JudgeLabel(label="CORRECT", fallback=False)
        return JudgeLabel(label="INCORRECT", fallback=False)


JUDGE_MODES = ("answer", "relaxed", "strict")


def make_judge(mode: str = "answer", llm: LLM | None = None) -> Judge:
    """The judge for ``--judge-mode``: ``answer`` (CORRECT / INCORRECT / NOT_ATTEMPTED
    against the golds) or FreshQA's FreshEval ``relaxed`` / ``strict``; by rule, or with
    ``llm`` when one is given."""
    from dwqa_graph.evaluation.fresheval import LLMFreshEval, RuleFreshEval

    if mode == "answer":
        return LLMJudge(llm) if llm else RuleJudge()
    if mode in ("relaxed", "strict"):
        return LLMFreshEval(mode, llm) if llm else RuleFreshEval(mode)  # type: ignore[arg-type]
    raise UsageError(f"--judge-mode must be one of {', '.join(JUDGE_MODES)}, got {mode!r}")


class LLMJudge:
    """An LLM grader (``prompts/grade_answer.md``); its label is parsed strictly (``scoring``)
    and an unusable reply counts as a fallback INCORRECT, never as CORRECT."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.prompt = load_prompt("grade_answer")
        self.id = f"llm:{llm.id}"

    async def grade(self, question: str, golds: Sequence[str], answer: str) -> JudgeLabel:
        text = self.prompt.render(question=question, gold="\n".join(f"- {g}" for g in golds),
                                  answer=answer or "(no answer)")
        try:
            reply = await self.llm.acall([HumanMessage(text)])
        except LLMFailure:
            return JudgeLabel(label="INCORRECT", fallback=True)
        label = parse_judge_label(reply)
        if label.fallback:
            self.llm.fail("unparseable_label")
        return label


# -- results ------------------------------------------------------------------------------------
class Prediction(BaseModel):
    """One agent answer to one item, scored; stored as a ``Prediction`` node."""

    id: str
    run_id: str
    item_id: str
    question: str
    golds: list[str]
    answer: str
    error: str | None = None
    pattern: str | None = None
    hops: int | None = None
    false_premise: bool | None = None
    scores: dict[str, float] = Field(
        {}, description="Per answer scorer (em, f1, ... from the SCORERS registry), in [0, 1].")
    judge: str | None = None
    judge_fallback: bool = False
    latency_s: float
    steps: list[str] = []
    retrieved: list[RetrievedDoc] = []

    def score(self, scorer: str) -> float:
        return item_score(scorer, self.scores, self.judge)


def item_score(scorer: str, scores: dict[str, float], judge: str | None) -> float:
    """One item's score under ``scorer``; the judge counts only CORRECT."""
    if scorer == JUDGE:
        if judge is None:
            raise UsageError("no judge label: the run was not scored with --scorer judge")
        return float(judge == "CORRECT")
    if scorer not in scores:
        raise UsageError(f"no {scorer!r} scores: the run was scored with {sorted(scores)}")
    return float(scores[scorer])


#: Stored Prediction nodes keep each score as a flat property ``score_<name>`` (Neo4j has no
#: map properties), so Cypher can filter on them.
SCORE_PREFIX = "score_"


def scores_from_props(props: dict[str, Any]) -> dict[str, float]:
    return {k.removeprefix(SCORE_PREFIX): float(v) for k, v in props.items()
            if k.startswith(SCORE_PREFIX) and v is not None}


class Score(BaseModel):
    """Agg over a set of items for one scorer, with its bootstrap interval."""

    score: float
    ci_low: float
    ci_high: float
    n: int


class AnswerBasis(BaseModel):
    """What a round's items were scored against: the answers their latest ``round verify``
    found to hold now, or the answers the round was made with."""

    answers: Literal["verified", "original"]
    verification: str | None = Field(None, description="The VerifyRun the verified answers "
                                     "come from (the latest of each item's).")
    changed: int = Field(0, description="Items scored against a changed answer.")
    unsupported: int = Field(0, description="Items left out: a fact's sentence is gone.")
    unverified: int = Field(0, description="Items never verified, or whose page could not "
                            "be fetched: scored against the original answer.")


class EvalReport(BaseModel):
    """The ``dwqa eval --json`` summary of one run (stored on the EvalRun as well)."""

    run_id: str
    agent: str
    target: str = Field(description="'round:<t>' or the static dataset's name.")
    round: int | None = None
    dataset: str | None = None
    snapshot: bool = Field(False, description="True on a frozen round: a snapshot score.")
    created_at: str
    n: int
    errors: int = Field(0, description="Items where the agent failed (scored 0).")
    errors_by_reason: dict[str, int] = Field(
        {}, description="The failures by reason: the error's first word (e.g. the react "
                        "agent's no_action, blocked_url, tool_loop, step_limit).")
    status: Literal["ok", "failed"] = Field(
        "ok", description="'failed': the agent failed on every item or on more than "
                          "max_errors of them; scores are then empty, never a 0.000.")
    failure: str | None = Field(None, description="Why the run failed.")
    max_errors: float = Field(MAX_ERRORS, description="The error share tolerated.")
    split: str | None = Field(None, description="The static dataset's split evaluated "
                                                "(FreshQA dev / test), None for all.")
    scorers: list[str]
    scores: dict[str, Score]
    by_pattern: dict[str, dict[str, Score]] = {}
    by_hops: dict[str, dict[str, Score]] = {}
    judge: str | None = None
    judge_fallbacks: int = 0
    answers: AnswerBasis | None = Field(None, description="A verified round: the answers "
                                        "scored against and the items left out.")
    seconds: float = 0.0


def bootstrap_ci(values: Sequence[float], *, samples: int = BOOTSTRAP_SAMPLES,
                 confidence: float = CONFIDENCE, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean; (x, x) for a single value or no spread."""
    xs = np.asarray(values, dtype=float)
    if xs.size == 0:
        raise ValueError("no values to score")
    if xs.size == 1 or xs.min() == xs.max():
        return float(xs[0]), float(xs[0])
    rng = np.random.default_rng(seed)
    means = xs[rng.integers(0, xs.size, size=(samples, xs.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(lo), float(hi)


def summarise(values: Sequence[float]) -> Score:
    lo, hi = bootstrap_ci(values)
    return Score(score=float(np.mean(values)), ci_low=lo, ci_high=hi, n=len(values))


def macro_score(per_round: Sequence[Sequence[float]], *, samples: int = BOOTSTRAP_SAMPLES,
                confidence: float = CONFIDENCE, seed: int = 0) -> Score:
    """Eq. 8: the mean of per-round Agg, each round weighted equally whatever its size,
    with a bootstrap interval stratified by round."""
    rounds = [np.asarray(r, dtype=float) for r in per_round]
    if not rounds or any(r.size == 0 for r in rounds):
        raise ValueError("every round in the window needs at least one scored item")
    score = float(np.mean([r.mean() for r in rounds]))
    rng = np.random.default_rng(seed)
    boot = np.zeros(samples)
    for r in rounds:
        boot += r[rng.integers(0, r.size, size=(samples, r.size))].mean(axis=1)
    boot /= len(rounds)
    lo, hi = np.quantile(boot, [(1 - confidence) / 2, (1 + confidence) / 2])
    # Rounds without spread give a constant bootstrap; quantiles can drift from it by an ulp.
    return Score(score=score, ci_low=min(float(lo), score), ci_high=max(float(hi), score),
                 n=sum(r.size for r in rounds))


def _breakdown(preds: Sequence[Prediction], key: Callable[[Prediction], object],
               scorers: Sequence[str]) -> dict[str, dict[str, Score]]:
    groups: dict[str, list[Prediction]] = defaultdict(list)
    for p in preds:
        groups[str(key(p))].append(p)
    return {g: {s: summarise([p.score(s) for p in ps]) for s in scorers}
            for g, ps in sorted(groups.items())}


# -- items --------------------------------------------------------------------------------------
def round_items(store: Store, t: int, *, original: bool = False) -> list[EvalItem]:
    """Round ``t``'s items as evaluation asks them (``round_items_basis`` without the basis)."""
    return round_items_basis(store, t, original=original)[0]


def round_items_basis(store: Store, t: int, *, original: bool = False,
                      ) -> tuple[list[EvalItem], AnswerBasis | None]:
    """Round ``t``'s items with the answer each is scored against: on a verified round the
    one that holds now (an item whose sentence is gone is left out and counted), unless
    ``original`` (a snapshot comparison); and that basis (None: never verified)."""
    from dwqa_graph.rounds.verify import latest

    rows = store.query("rounds/eval_items", t=t)
    if not rows:
        raise NotFoundError(f"round {t} has no items (see `dwqa round list`)")
    checked = latest(store, t)
    basis = None if not checked else AnswerBasis(
        answers="original" if original else "verified",
        verification=max((c["checked_at"], c["run_id"]) for c in checked.values())[1],
        changed=sum(c["status"] == "changed" for c in checked.values()),
        unsupported=sum(c["status"] == "unsupported" for c in checked.values()),
        unverified=sum(r["id"] not in checked or checked[r["id"]]["status"] == "unreachable"
                       for r in rows))
    items = []
    for r in rows:
        c = checked.get(r["id"])
        if c is not None and not original and c["status"] == "unsupported":
            continue
        gold = c["answer"] if (c is not None and not original and c["status"] == "changed"
                               and c["answer"]) else r["answer"]
        items.append(EvalItem(id=r["id"], question=r["question"], golds=[gold],
                              pattern=r["pattern"], hops=r["hops"], source="round",
                              dataset=f"round:{t}"))
    if not items:
        raise InputError(f"every item of round {t} lost support at its last verification "
                         "(`dwqa round verify`); score the answers it was made with: "
                         "--original")
    return items, basis


def round_is_frozen(store: Store, t: int) -> bool:
    rows = store.query("rounds/get", t=t)
    return bool(rows and rows[0]["frozen"])


# -- running ------------------------------------------------------------------------------------
def _answer(agent: Agent, item: EvalItem) -> tuple[AgentAnswer, float]:
    start = time.perf_counter()
    try:
        reply = agent.answer(item.question)
    except Exception as exc:  # an adapter bug must cost one item, not the run
        reply = AgentAnswer(answer="", error=f"{type(exc).__name__}: {exc}"[:500])
    return reply, time.perf_counter() - start


def predict(agent: Agent, items: Sequence[EvalItem], *, run_id: str, concurrency: int = 4,
            scorers: Sequence[str] = ("em", "f1"),
            on_done: Callable[[], None] = lambda: None) -> list[Prediction]:
    """Ask the agent every question (``concurrency`` at once) and apply the answer scorers
    (EM and F1 always, so every stored run can be compared on them)."""
    fns = {name: SCORERS.get(name).factory
           for name in dict.fromkeys(["em", "f1", *scorers]) if name != JUDGE}

    def one(item: EvalItem) -> Prediction:
        reply, seconds = _answer(agent, item)
        # any agent's answer, not only a chat model's, is stored within the cap
        answer = capped_answer(reply.answer) if not reply.error else ""
        on_done()
        return Prediction(
            id=stable_id(run_id, item.id), run_id=run_id, item_id=item.id,
            question=item.question, golds=item.golds, answer=answer, error=reply.error,
            pattern=item.pattern, hops=item.hops, false_premise=item.false_premise,
            scores={name: float(fn(answer, item.golds)) for name, fn in fns.items()},
            latency_s=round(seconds, 4), steps=reply.steps,
            retrieved=reply.retrieved)

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return list(pool.map(one, items))


def judge_all(judge: Judge, preds: list[Prediction]) -> list[Prediction]:
    """Grade every prediction; the judge's own concurrency limit applies (LLM semaphore)."""

    async def one(p: Prediction) -> JudgeLabel:
        if getattr(judge, "uses_item_flags", False):  # FreshEval: false premise, fact type
            return await judge.grade(p.question, p.golds, p.answer,  # type: ignore[call-arg]
                                     false_premise=p.false_premise, fact_type=p.pattern)
        return await judge.grade(p.question, p.golds, p.answer)

    async def run() -> list[JudgeLabel]:
        return await asyncio.gather(*(one(p) for p in preds))

    labels = asyncio.run(run())
    return [p.model_copy(update={"judge": lab.label, "judge_fallback": lab.fallback})
            for p, lab in zip(preds, labels, strict=True)]


def failure_reason(errors: int, n: int, max_errors: float = MAX_ERRORS) -> str | None:
    """Why a run with ``errors`` agent failures among ``n`` items is not a score, or None."""
    if n and errors == n:
        return f"the agent failed on all {n} items"
    if n and errors / n > max_errors:
        return (f"the agent failed on {errors} of {n} items ({errors / n:.1%}), more than "
                f"--max-errors {max_errors:.1%}")
    return None


def _reason(error: str) -> str:
    """An error's reason: its first word, before a colon or space (bounded)."""
    return error.split(":", 1)[0].split(" ", 1)[0][:40] or "error"


def report_for(preds: Sequence[Prediction], scorers: Sequence[str], *,
               max_errors: float = MAX_ERRORS, **fields: Any) -> EvalReport:
    """The run's summary. A failed run (see :func:`failure_reason`) keeps its error count
    and items but no scores: a 0.000 from a broken agent must not read as a result."""
    if not preds:
        raise InputError("nothing to score: the item set is empty")
    errors = sum(p.error is not None for p in preds)
    reasons = dict(sorted(Counter(_reason(p.error) for p in preds if p.error).items()))
    failure = failure_reason(errors, len(preds), max_errors)
    if failure is not None:
        return EvalReport(n=len(preds), errors=errors, errors_by_reason=reasons,
                          scorers=list(scorers), scores={}, status="failed", failure=failure,
                          max_errors=max_errors, **fields)
    return EvalReport(
        n=len(preds), errors=errors, errors_by_reason=reasons, scorers=list(scorers),
        max_errors=max_errors,
        scores={s: summarise([p.score(s) for p in preds]) for s in scorers},
        by_pattern=_breakdown(preds, lambda p: p.pattern or "none", scorers),
        by_hops=_breakdown(preds, lambda p: p.hops if p.hops is not None else "none", scorers),
        judge_fallbacks=sum(p.judge_fallback for p in preds), **fields)


def evaluate(store: Store | None, agent: Agent, items: Sequence[EvalItem], *,
             target: str, round_t: int | None = None, scorers: Sequence[str] = ("em", "f1"),
             judge: Judge | None = None, concurrency: int = 4, snapshot: bool = False,
             max_errors: float = MAX_ERRORS, split: str | None = None,
             answers: AnswerBasis | None = None,
             on_done: Callable[[], None] = lambda: None) -> tuple[EvalReport, list[Prediction]]:
    """Run, score and (when ``store`` is given) store one evaluation.

    A run whose agent failed on every item or on more than ``max_errors`` of them is stored
    with ``status="failed"`` (so its traces can be read) and then raises
    :class:`RunFailedError`: it has no score."""
    check_scorers(scorers)
    if not 0 <= max_errors <= 1:
        raise UsageError(f"--max-errors must be a share in [0, 1], got {max_errors}")
    if JUDGE in scorers and judge is None:
        judge = RuleJudge()
    created = datetime.now(UTC).isoformat(timespec="seconds")
    run_id = stable_id("run", agent.spec, target, created, time.time_ns())
    start = time.perf_counter()
    preds = predict(agent, items, run_id=run_id, concurrency=concurrency, scorers=scorers,
                    on_done=on_done)
    if "judge" in scorers and judge is not None:
        preds = judge_all(judge, preds)
    report = report_for(
        preds, scorers, run_id=run_id, agent=agent.spec, target=target, round=round_t,
        dataset=None if round_t is not None else target, snapshot=snapshot,
        created_at=created, judge=judge.id if judge and "judge" in scorers else None,
        seconds=round(time.perf_counter() - start, 3), max_errors=max_errors, split=split,
        answers=answers)
    if store is not None:
        store_run(store, report, preds)
    if report.status == "failed":
        example = next((p.error for p in preds if p.error), "")
        raise RunFailedError(f"evaluation of {agent.spec} on {target} failed: {report.failure}"
                             f" (first error: {example}); stored as failed run "
                             f"{report.run_id}, no score reported")
    return report, preds


def store_run(store: Store, report: EvalReport, preds: Sequence[Prediction]) -> None:
    """The run, its predictions and their traces, in one transaction."""
    plan = WritePlan(["eval/run", "eval/predictions", "eval/retrieved"])
    plan.add("eval/run", [{
        "agent_id": stable_id("agent", report.agent), "spec": report.agent,
        "id": report.run_id, "round": report.round, "dataset": report.dataset,
        "props": {"id": report.run_id, "agent": report.agent, "target": report.target,
                  "round": report.round, "dataset": report.dataset, "snapshot": report.snapshot,
                  "created_at": report.created_at, "n": report.n, "errors": report.errors,
                  "status": report.status, "failure": report.failure, "split": report.split,
                  "scorers": report.scorers, "judge": report.judge,
                  "report": report.model_dump_json()}}])
    plan.add("eval/predictions", [{
        "run_id": p.run_id, "item_id": p.item_id,
        "props": p.model_dump(exclude={"retrieved", "scores"})
        | {SCORE_PREFIX + k: v for k, v in p.scores.items()}} for p in preds])
    plan.add("eval/retrieved", [{
        "prediction_id": p.id, "document_id": document_id(d.url), "url": d.url,
        "title": d.title, "rank": d.rank, "text": d.text}
        for p in preds for d in p.retrieved])
    store.write_plan(plan)


# -- reading runs back ----------------------------------------------------------------------------
def list_runs(store: Store, agent: str | None = None) -> list[dict[str, Any]]:
    return store.query("eval/runs", agent=agent)


def load_run(store: Store, run_id: str) -> tuple[EvalReport, list[Prediction]]:
    rows = store.query("eval/run_get", id=run_id)
    if not rows:
        raise NotFoundError(f"no evaluation run {run_id!r} (see `dwqa runs list`)")
    report = EvalReport.model_validate_json(rows[0]["report"])
    preds = []
    for row in store.query("eval/predictions_of", id=run_id):
        props = dict(row["p"])
        preds.append(Prediction(
            **{k: v for k, v in props.items() if k in Prediction.model_fields},
            scores=scores_from_props(props),
            retrieved=[RetrievedDoc(**d) for d in row["retrieved"]]))
    return report, preds


def run_scores(store: Store, run_ids: Sequence[str], scorer: str) -> dict[str, list[float]]:
    """Per-item scores of stored runs, in one query and without their traces (which hold
    up to 20k characters per retrieved page and are not needed to aggregate)."""
    out: dict[str, list[float]] = {r: [] for r in run_ids}
    for row in store.query("eval/scores_of", ids=list(run_ids)):
        props = row["p"]
        out[row["run_id"]].append(item_score(scorer, scores_from_props(props), props.get("judge")))
    return out


def macro(store: Store, agent: str, rounds: Sequence[int],
          scorers: Sequence[str] = ("em", "f1")) -> dict[str, Any]:
    """Eq. 8 over the latest stored run of ``agent`` on each round of the window."""
    runs = {r["t"]: r["id"] for r in store.query("eval/latest_runs", agent=agent,
                                                  rounds=list(rounds))}
    missing = [t for t in rounds if t not in runs]
    if missing:
        raise NotFoundError(f"agent {agent!r} has no evaluation on round {missing[0]}; run "
                         f"`dwqa eval --round {missing[0]} --agent {agent}` first")
    out: dict[str, Any] = {"agent": agent, "rounds": list(rounds), "runs": runs, "scores": {}}
    for s in scorers:
        by_run = run_scores(store, [runs[t] for t in rounds], s)
        per = {t: by_run[runs[t]] for t in rounds}
        out["scores"][s] = macro_score(list(per.values())).model_dump() | {
            "per_round": {str(t): float(np.mean(v)) for t, v in per.items()}}
    return out
