"""Ingest throughput at paper scale: 500 logs x 15 sources x 10 steps.

Three writers over the same records, measured in the same run on an empty database each:
1. ``store``    — the project's ingest (UNWIND batches, MERGE on constrained keys);
2. ``baseline`` — the same MERGE queries, one row per transaction (the naive loader),
                  measured on a subset because it is slow;
3. ``raw``      — the same UNWIND batches with CREATE instead of MERGE: the server's ceiling.

Targets (2 cores): whole load < 10 s, store >= 20x baseline, store >= 50% of raw.

Runs against its own server (``.dwqa/bench``, ports 7689/7476), which it wipes:

    .venv/bin/python -m benchmarks.bench_ingest [--logs 500] [--baseline-logs 40]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from dwqa_graph.config import Settings
from dwqa_graph.graph import queries
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.ingest.logs import FLUSH_ROWS, WRITE_ORDER, Raw, graph_plan, ingest, normalise
from dwqa_graph.ingest.steps import RuleStepParser
from dwqa_graph.ingest.synthetic import write_logs

from ._server import start_bench_server, stop_bench_server


def plans(path: Path) -> list[WritePlan]:
    """One single-record plan per log: the rows each writer must send."""
    out = []
    for i, line in enumerate(path.read_text().splitlines(), start=1):
        log, _ = normalise(Raw(file=str(path), line=i, data=json.loads(line)), "auto", "bench")
        assert log is not None
        plan = WritePlan(WRITE_ORDER)
        graph_plan(log, RuleStepParser().parse(log.thinking), Raw(str(path), i, None), plan)
        out.append(plan)
    return out


def raw_write(store: Store, all_plans: list[WritePlan]) -> None:
    """The ceiling: the same rows in the same transactions, CREATE instead of MERGE."""
    chunk = WritePlan(WRITE_ORDER)
    chunks = []
    for plan in all_plans:
        for name, step_rows in plan.steps:
            chunk.add(name, step_rows)
        if chunk.rows >= FLUSH_ROWS:
            chunks.append(chunk)
            chunk = WritePlan(WRITE_ORDER)
    chunks.append(chunk)
    for c in chunks:
        steps = [(queries.load(name).replace("ON CREATE SET", "SET").replace("MERGE", "CREATE"),
                  rows) for name, rows in c.steps]
        with store._session(read=False) as session:  # noqa: SLF001 - bench only
            session.execute_write(lambda tx, s=steps: [  # type: ignore[misc]
                tx.run(text, rows=rows).consume() for text, rows in s])


def fresh(store: Store) -> None:
    store.wipe()
    store.apply_schema()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=int, default=500)
    ap.add_argument("--sources", type=int, default=15)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--baseline-logs", type=int, default=40)
    args = ap.parse_args()

    settings, started = start_bench_server()
    try:
        run(args, settings)
    finally:
        stop_bench_server(settings, started)


def run(args: argparse.Namespace, settings: Settings) -> None:
    tmp = Path(tempfile.mkdtemp())
    # No shared URLs, so CREATE (raw) and MERGE (store) write the same number of nodes.
    path = write_logs(tmp / "logs.jsonl", args.logs, sources=args.sources, steps=args.steps,
                      shared=0.0)
    all_plans = plans(path)
    rows = sum(p.rows for p in all_plans)
    results: dict[str, dict[str, float]] = {}
    with Store(settings) as store:
        # Warm-up: a fresh JVM compiles its hot paths during the first heavy load, and every
        # query text is planned once; neither should be charged to the first writer measured.
        warm = write_logs(tmp / "warm.jsonl", 100, sources=args.sources, steps=args.steps,
                          seed=1, shared=0.0)
        for _ in range(2):
            fresh(store)
            ingest(store, [warm])
            fresh(store)
            raw_write(store, plans(warm))
        fresh(store)
        t = time.perf_counter()
        report = ingest(store, [path])
        secs = time.perf_counter() - t
        assert report.ingested == args.logs, report
        counts = store.counts()
        results["store"] = {"logs": args.logs, "seconds": secs, "logs_per_s": args.logs / secs,
                            "rows_per_s": rows / secs}

        fresh(store)
        subset = all_plans[: args.baseline_logs]
        t = time.perf_counter()
        for plan in subset:
            for name, step_rows in plan.steps:
                for row in step_rows:
                    one = WritePlan()
                    one.add(name, [row])
                    store.write_plan(one)
        secs = time.perf_counter() - t
        n_rows = sum(p.rows for p in subset)
        results["baseline"] = {"logs": len(subset), "seconds": secs,
                               "logs_per_s": len(subset) / secs, "rows_per_s": n_rows / secs}

        fresh(store)
        t = time.perf_counter()
        raw_write(store, all_plans)
        secs = time.perf_counter() - t
        assert store.counts().get("Snippet") == counts.get("Snippet")
        results["raw"] = {"logs": args.logs, "seconds": secs, "logs_per_s": args.logs / secs,
                          "rows_per_s": rows / secs}
        fresh(store)

    s, b, r = results["store"], results["baseline"], results["raw"]
    print(f"load: {args.logs} logs x {args.sources} sources x {args.steps} steps = {rows:,} rows")
    for name, res in results.items():
        print(f"{name:>9}: {res['logs']:>5.0f} logs in {res['seconds']:7.2f} s = "
              f"{res['logs_per_s']:8.1f} logs/s, {res['rows_per_s']:9.0f} rows/s")
    print(f"store whole load: {s['seconds']:.2f} s (target < 10 s)")
    print(f"store / baseline: {s['logs_per_s'] / b['logs_per_s']:.1f}x (target >= 20x)")
    print(f"store / raw:      {100 * s['logs_per_s'] / r['logs_per_s']:.0f}% (target >= 50%)")


if __name__ == "__main__":
    main()
