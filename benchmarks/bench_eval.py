"""Evaluation at paper scale: a 500-item round, and the paraphrase prefilter on big sets.

1. The built-in baseline agent over a fact-path round of 500 seed graphs (bench_round's
   synthetic film pages; full-text search and page reads in Neo4j, the reader in Python):
   items/s, and the share spent storing the run.
2. A network-bound agent that sleeps L per question: the run must take about n·L/concurrency
   (the thread pool really overlaps questions); target <= 1.2 x that.
3. Leak&Test bookkeeping: ``memorize:`` lookups per second (it sits in front of every
   question of a leaked run).
4. The paraphrase prefilter (no model) on n synthetic questions: seconds and candidate pairs
   against the n(n-1)/2 an all-pairs check would send.

    .venv/bin/python -m benchmarks.bench_eval [--graphs 500] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import random
import time

from dwqa_graph.evaluation.agents import AgentAnswer, make_agent
from dwqa_graph.evaluation.agents.memorize import MemorizingAgent
from dwqa_graph.evaluation.evaluate import evaluate, round_items, store_run
from dwqa_graph.graph.store import Store
from dwqa_graph.leakage.paraphrase import find_paraphrases, prefilter
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import new_round

from ._server import start_bench_server, stop_bench_server
from .bench_round import FIRST, load


class SleepyAgent:
    spec = "python:bench:sleepy"

    def __init__(self, latency: float) -> None:
        self.latency = latency

    def answer(self, question: str) -> AgentAnswer:
        time.sleep(self.latency)
        return AgentAnswer(answer="2 years")

    def close(self) -> None:
        pass


Pairs = set[tuple[str, str]]


def synthetic_questions(n: int, seed: int = 0) -> tuple[list[tuple[str, str]], Pairs]:
    """n questions with a realistic vocabulary (thousands of names and nouns, as a benchmark
    has), 5% of them reworded copies of another: the planted paraphrase pairs."""
    rng = random.Random(seed)
    names = [f"{rng.choice(FIRST)}{i}" for i in range(max(200, n // 2))]
    nouns = [f"item{i}" for i in range(max(100, n // 4))]
    verbs = ["open", "approve", "delay", "fund", "announce", "complete", "cancel", "expand"]
    forms = ["When did {e} {v} the {t}?", "Who asked {e} to {v} the {t}?",
             "How many {t} did {e} {v} in {y}?", "Why did {e} {v} the {t} in {y}?"]
    rewrites = ["In what year did {e} {v} the {t}?", "Who was it that asked {e} to {v} the {t}?",
                "In {y}, how many {t} did {e} {v}?", "For what reason did {e} {v} the {t} in {y}?"]
    out: list[tuple[str, str]] = []
    planted: Pairs = set()
    while len(out) < n:
        k = rng.randrange(len(forms))
        slots = {"e": rng.choice(names), "v": rng.choice(verbs), "t": rng.choice(nouns),
                 "y": rng.randint(1990, 2025)}
        out.append((str(len(out)), forms[k].format(**slots)))
        if rng.random() < 0.05 and len(out) < n:
            out.append((str(len(out)), rewrites[k].format(**slots)))
            planted.add((str(len(out) - 2), str(len(out) - 1)))
    return out, planted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=500)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    settings, started = start_bench_server()
    try:
        with Store(settings) as store:
            store.wipe()
            store.apply_schema()
            load(store, args.graphs)
            t = new_round(store, seed=1, generator=PathGenerator()).round
            items = round_items(store, t)
            baseline = make_agent("baseline", store=store)
            evaluate(store, baseline, items[:20], target=f"round:{t}", round_t=t)  # warm plans
            start = time.perf_counter()
            report, preds = evaluate(None, baseline, items, target=f"round:{t}", round_t=t,
                                     concurrency=4)
            answer_s = time.perf_counter() - start
            start = time.perf_counter()
            store_run(store, report, preds)
            store_s = time.perf_counter() - start
            sleepy = SleepyAgent(args.latency)
            start = time.perf_counter()
            evaluate(None, sleepy, items, target=f"round:{t}", round_t=t,
                     concurrency=args.concurrency)
            sleepy_s = time.perf_counter() - start
            store.wipe()
    finally:
        stop_bench_server(settings, started)
    traces = sum(len(p.retrieved) for p in preds)
    print(f"baseline agent on a {len(items)}-item round: {answer_s:.2f} s "
          f"({len(items) / answer_s:.1f} items/s, EM {report.scores['em'].score:.3f}); "
          f"storing the run with {traces} trace edges: {store_s:.2f} s")
    ideal = len(items) * args.latency / args.concurrency
    print(f"sleeping agent: {len(items)} x {args.latency} s / {args.concurrency} = {ideal:.2f} s "
          f"ideal; took {sleepy_s:.2f} s = {sleepy_s / ideal:.2f} x (target <= 1.2 x)")
    memo = MemorizingAgent("memorize:bench", SleepyAgent(0.0))
    qs, _ = synthetic_questions(20_000)
    memo.leak((q, "x") for _, q in qs)
    start = time.perf_counter()
    for _, q in qs:
        memo.answer(q.upper())  # forces the normalised lookup
    memo_s = time.perf_counter() - start
    print(f"memorize: {len(qs) / memo_s:,.0f} normalised lookups/s")
    for n in (1_000, 5_000, 20_000):
        questions, planted = synthetic_questions(n)
        start = time.perf_counter()
        rep = find_paraphrases(questions)
        seconds = time.perf_counter() - start
        found = {(p.a_id, p.b_id) for p in rep.pairs}
        cands = {(str(c.a), str(c.b)) for c in prefilter([q for _, q in questions])[0]}
        print(f"paraphrase check (prefilter + rule judge), n={n:>6}: {seconds:6.2f} s, "
              f"{rep.candidate_pairs:,} candidates of {rep.total_possible_pairs:,} pairs, "
              f"holding {len(cands & planted)} of {len(planted)} planted paraphrases; the rule "
              f"judge accepts {len(found & planted)} of those and {len(found - planted)} others")

if __name__ == "__main__":
    main()
