"""The fact-path generator on a graph you already have (facts extracted): candidate
enumeration per seed graph (the path queries, per dataset) and a whole round.

Targets (issue "Questions from fact paths"): sampling <= 10 ms per HotpotQA-size graph and
<= 30 ms per full-page graph; a round of 500 graphs <= 30 s.

    DWQA_HOME=... DWQA_BOLT_PORT=... .venv/bin/python -m benchmarks.bench_paths [--rounds 3]

It writes rounds into that graph, as `round new` would: ``--rounds`` consecutive rounds with
the default fresh reuse (seeds 9001...), and reports per dataset the items per round, the
distinct items (by their facts) per graph that ever got one, and the round time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter

from dwqa_graph.config import load_settings
from dwqa_graph.graph.store import Store
from dwqa_graph.rounds.path_generate import PathGenerator, wordable
from dwqa_graph.rounds.paths import load_path_graphs
from dwqa_graph.rounds.round import export_rows, new_round
from dwqa_graph.rounds.sampling import SampleConfig


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--attempts", type=int, default=SampleConfig().attempts,
                    help="Redraws per graph before it is reported empty (SampleConfig.attempts).")
    ap.add_argument("--max-per-fact", type=int, default=SampleConfig().max_per_fact,
                    help="Items of a round that may name one fact (SampleConfig.max_per_fact).")
    args = ap.parse_args()
    out: dict[str, object] = {}
    with Store(load_settings()) as store:
        datasets = [r["d"] for r in store.read("MATCH (q:Query) RETURN DISTINCT q.dataset AS d "
                                               "ORDER BY d")]
        for d in datasets:
            t0 = time.perf_counter()
            graphs = load_path_graphs(store, t=10**9, dataset=d)
            dt = time.perf_counter() - t0
            ks = [len(g.paths) for g in graphs]
            # K as a round counts it: the paths a template words
            kw = [len(wordable(g).paths) for g in graphs]
            out[d] = {"graphs": len(graphs),
                      "ms_per_graph": round(1000 * dt / max(len(graphs), 1), 2),
                      "with_paths": sum(k > 0 for k in ks),
                      "median_k": statistics.median(ks) if ks else 0,
                      "median_k_covered": statistics.median([k for k in ks if k]) if any(ks) else 0,
                      "median_k_wordable": statistics.median(kw) if kw else 0,
                      "median_k_wordable_covered":
                          statistics.median([k for k in kw if k]) if any(kw) else 0}
        dataset_of = {r["id"]: r["d"] for r in store.read(
            "MATCH (q:Query) RETURN q.id AS id, q.dataset AS d")}
        times, items = [], []
        per_round: dict[str, list[int]] = {d: [] for d in datasets}
        distinct: dict[str, dict[str, set[str]]] = {d: {} for d in datasets}
        # the most items of a round that name one fact
        most_named: dict[str, list[int]] = {d: [] for d in datasets}
        for i in range(args.rounds):
            t0 = time.perf_counter()
            rep = new_round(store, seed=9001 + i, generator=PathGenerator(),
                            cfg=SampleConfig(attempts=args.attempts,
                                                max_per_fact=args.max_per_fact))
            times.append(round(time.perf_counter() - t0, 2))
            items.append(rep.items)
            counts = dict.fromkeys(datasets, 0)
            named: dict[str, Counter[str]] = {d: Counter() for d in datasets}
            for row in export_rows(store, rep.round):
                d = dataset_of[row["query_id"]]
                counts[d] += 1
                key = ",".join(sorted(p["fact_id"] for p in row["provenance"]))
                distinct[d].setdefault(row["query_id"], set()).add(key)
                named[d].update(p["fact_id"] for p in row["provenance"])
            for d in datasets:
                per_round[d].append(counts[d])
                most_named[d].append(max(named[d].values(), default=0))
        for d in datasets:
            got = distinct[d]
            out[d] = {**out[d],  # type: ignore[dict-item]
                      "items_per_round": per_round[d],
                      "most_items_naming_one_fact": most_named[d],
                      "graphs_ever_covered": len(got),
                      "median_distinct_per_covered_graph":
                          statistics.median(len(v) for v in got.values()) if got else 0}
        out["round"] = {"graphs": rep.graphs, "seconds": times, "items": items}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
