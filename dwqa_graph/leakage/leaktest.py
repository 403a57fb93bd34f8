"""The Leak&Test protocol, end to end: does leaking a round help on the next, fresh one?

Dynamic part, for T rounds (the experiment note's three-step cycle):

1. generate round 1 and score the clean agent M on it;
2. for t = 1..T-1: leak round t into M_leak (M_leak^t is M plus round t only, so it forgets
   earlier leaks first), generate a fresh round t+1, score M and M_leak on it;
   Δ_{t+1} = Agg(D_{t+1}, M_leak) − Agg(D_{t+1}, M);
3. one-sided one-sample t-test of mean(Δ) > ε over the T−1 gaps, df = T−2 (``leaktest_stats``).

"Fresh" is the rounds' default (``SampleConfig.reuse = 'fresh'``): no item of round t+1 is
computed from this run's round t's facts alone (each needs a fact round t did not use), so
a gap measures what the leak transfers to new facts; the leak-transfer curve
(``leakage/curve.py``) varies that reuse, down to ``disjoint`` (no fact shared).

Static part (``static``): leak the whole static set into M_leak, score both on it; the gain
is tested with a one-sided paired t-test over items (the same items, so pairing removes
item difficulty from the variance).

A leak hands M_leak the items *with their evidence* (``LeakedItem``: a round item's facts
with their sentences; a static item's QA pair). Offline leaked models (``evaluation/agents/``):
``memorize:SPEC`` (verbatim recall: on a fresh round it helps only when a question repeats
word for word, the collision the paper bounds), ``recall:SPEC`` (paraphrase-tolerant recall)
and ``knowledge:SPEC`` (learned the facts: answers reworded questions and new combinations of
leaked facts, abstains on facts never leaked); ``finetune:MODEL`` fine-tunes a real model on
each leak. An agent that cannot be leaked in-process (a model fine-tuned elsewhere on the
``--export-leak`` file) is used as given, and the report says so. ``leakage/curve.py`` runs
this protocol at several settings of fact reuse (the leak-transfer curve).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph.chat import write_chat_jsonl
from dwqa_graph.errors import InputError, UsageError
from dwqa_graph.evaluation.agents import Agent, LeakableAgent, LeakedFact, LeakedItem
from dwqa_graph.evaluation.datasets import static_items
from dwqa_graph.evaluation.evaluate import evaluate, round_items
from dwqa_graph.graph.store import Store
from dwqa_graph.leakage.stats import DEFAULT_ALPHA, gap_test, leak_gaps, paired_gain_test
from dwqa_graph.models import EvalItem, stable_id
from dwqa_graph.rounds.generate import Generator
from dwqa_graph.rounds.round import new_round
from dwqa_graph.rounds.sampling import SampleConfig


class LeakTestReport(BaseModel):
    """``dwqa leaktest --json``: objects ``static`` and ``dynamic``, each with gap, t, df,
    p_value (None where the test is undefined, see ``leaktest_stats``)."""

    id: str
    created_at: str
    agent: str
    leaked_agent: str
    leaked_in_process: bool = Field(description="False: the leaked agent was used as given.")
    scorer: str
    epsilon: float
    alpha: float
    static: dict[str, Any] | None = None
    dynamic: dict[str, Any]
    runs: dict[str, str] = Field(default_factory=dict, description="label -> EvalRun id.")
    exported: str | None = None


def _mean(scores: Sequence[float]) -> float:
    return sum(scores) / len(scores)


def _pairs(items: Sequence[EvalItem]) -> list[tuple[str, str]]:
    return [(i.question, i.golds[0]) for i in items]


def leaked_items(store: Store, items: Sequence[EvalItem]) -> list[LeakedItem]:
    """The items as a leak hands them over: with their evidence (a round item's facts and
    their sentences, read from the graph); a static item has none stored, so it leaks as its
    QA pair."""
    ids = [i.id for i in items if i.source == "round"]
    evidence = {r["id"]: r["facts"] for r in store.query("eval/leak_evidence", ids=ids)} \
        if ids else {}
    return [LeakedItem(id=i.id, question=i.question, answer=i.golds[0],
                       facts=[LeakedFact(**f) for f in evidence.get(i.id, [])])
            for i in items]


def _leak(store: Store, agent: Agent, items: Sequence[EvalItem]) -> None:
    """Leak ``items`` alone into ``agent`` (earlier leaks forgotten); an agent that cannot
    learn in-process is left as it is."""
    if isinstance(agent, LeakableAgent):
        agent.forget()
        agent.leak(leaked_items(store, items))


def export_leak(rounds: Sequence[Sequence[EvalItem]], path: Path) -> int:
    """The leaked items as chat fine-tuning JSONL (``dwqa_graph.chat``)."""
    return write_chat_jsonl((p for items in rounds for p in _pairs(items)), path)


def leaktest(store: Store, agent: Agent, leaked: Agent, *, rounds: int,
             generator: Generator,
             cfg: SampleConfig | None = None, seed: int = 1, dataset: str | None = None,
             epsilon: float = 0.02, alpha: float = DEFAULT_ALPHA, scorer: str = "em",
             static: str | None = None, concurrency: int = 4, export: Path | None = None,
             log: Callable[[str], None] = lambda s: None) -> LeakTestReport:
    """Run Leak&Test; every evaluation is stored as an EvalRun, the result as a LeakTest."""
    if rounds < 2:
        raise UsageError("Leak&Test needs --rounds T >= 2 (T-1 gaps; the t-test needs T >= 3)")
    if scorer == "judge":
        raise UsageError("Leak&Test scores with em or f1 (the paper uses exact match)")
    created = datetime.now(UTC).isoformat(timespec="seconds")
    runs: dict[str, str] = {}
    in_process = isinstance(leaked, LeakableAgent)

    def run(a: Agent, items: list[EvalItem], target: str, t: int | None,
            label: str) -> list[float]:
        report, preds = evaluate(store, a, items, target=target, round_t=t, scorers=[scorer],
                                 concurrency=concurrency)
        runs[label] = report.run_id
        log(f"{label}: {scorer} {report.scores[scorer].score:.3f} on {len(items)} items")
        # evaluate keeps item order, so the two runs on one item set pair up by position.
        return [p.score(scorer) for p in preds]

    static_out = None
    if static:
        items = static_items(store, static)
        clean_items = run(agent, items, static, None, "static:clean")
        _leak(store, leaked, items)
        leak_items = run(leaked, items, static, None, "static:leaked")
        test = paired_gain_test(leak_items, clean_items, alpha)
        a_clean, a_leak = _mean(clean_items), _mean(leak_items)
        static_out = {"dataset": static, "n": len(items), "a_clean": a_clean, "a_leak": a_leak,
                      "gap": a_leak - a_clean, "t": test.t, "df": test.df,
                      "p_value": test.p_value, "reject": test.reject, "note": test.note}

    # Every round first, then the evaluations: a round depends only on the previous round's
    # facts, not on any score, so a pool that cannot support T fresh rounds is found before
    # anything is evaluated (it used to surface after the first rounds had been scored).
    round_ts: list[int] = []
    for step in range(rounds):
        # Round t+1 steers against (or towards) this run's round t, never a round another run
        # wrote in between; the first round has no previous one (reproducible on its own).
        rep = new_round(store, seed=seed + step, generator=generator, cfg=cfg, dataset=dataset,
                        previous=round_ts[-1] if round_ts else 0)
        if rep.items == 0:
            raise InputError(_too_few_rounds(rep.round, round_ts, rounds,
                                             (cfg or SampleConfig()).reuse))
        round_ts.append(rep.round)
        log(f"round {rep.round}: {rep.items} items from {rep.graphs} seed graphs")

    round_sets: list[list[EvalItem]] = []
    clean_scores: list[float] = []
    leaked_scores: list[float] = []
    for t in round_ts:
        items = round_items(store, t)
        clean = _mean(run(agent, items, f"round:{t}", t, f"round:{t}:clean"))
        if round_sets:
            _leak(store, leaked, round_sets[-1])  # M_leak^{t-1}: the previous round only
            clean_scores.append(clean)
            leaked_scores.append(_mean(run(leaked, items, f"round:{t}", t, f"round:{t}:leaked")))
        round_sets.append(items)

    gaps = leak_gaps(leaked_scores, clean_scores)
    test = gap_test(gaps, epsilon, alpha)
    dynamic = {"rounds": round_ts[1:], "leaked_rounds": round_ts[:-1], "clean": clean_scores,
               "leaked": leaked_scores, "gaps": gaps, "gap": test.mean_gap, "sd": test.sd,
               "t": test.t, "df": test.df, "p_value": test.p_value, "reject": test.reject,
               "epsilon": epsilon, "note": test.note}
    exported = None
    if export is not None:
        export_leak(round_sets[:-1], export)
        exported = str(export)
    report = LeakTestReport(
        id=stable_id("leaktest", agent.spec, leaked.spec, created, *round_ts),
        created_at=created, agent=agent.spec, leaked_agent=leaked.spec,
        leaked_in_process=in_process, scorer=scorer, epsilon=epsilon, alpha=alpha,
        static=static_out, dynamic=dynamic, runs=runs, exported=exported)
    store.run_write("eval/leaktest", id=report.id, created_at=created,
                    report=report.model_dump_json())
    return report


def _too_few_rounds(t: int, done: list[int], asked: int, reuse: str) -> str:
    """Why round ``t`` is empty, how many rounds the pool gave, and what to do."""
    if not done:
        return (f"round {t} has no items: no seed graph gave a verified question (ingest, "
                "fetch, and read claims and facts first); nothing was evaluated")
    kept = f"round{'s' if len(done) > 1 else ''} {', '.join(map(str, done))} " \
           f"{'were' if len(done) > 1 else 'was'} generated and kept (`dwqa round list`)"
    if reuse in ("fresh", "disjoint"):
        why = (f"every seed graph's candidates use {'only facts' if reuse == 'fresh' else 'a fact'}"
               f" of round {done[-1]}, and {reuse} rounds never ask about those again")
        fix = ("add seed graphs or evidence, lower --rounds, or allow forced repeats with "
               "--reuse avoid")
    else:
        why, fix = "no seed graph gave a verified question", "add seed graphs or evidence"
    enough = " (the t-test needs T >= 3)" if len(done) < 3 else ""
    return (f"the seed graphs support {len(done)} round{'s' if len(done) > 1 else ''} of "
            f"Leak&Test, not the {asked} asked: round {t} has no items ({why}). Nothing was "
            f"evaluated; {kept}. Run with --rounds {len(done)}{enough}, or {fix}")


def list_leaktests(store: Store) -> list[LeakTestReport]:
    return [LeakTestReport.model_validate_json(r["report"])
            for r in store.query("eval/leaktests")]
