"""The facts stage on a Dask cluster of 1 and of 2 worker processes (one thread each): the
same full pages, the same writes, throughput and the ratio between the two, and each
worker's peak memory (its process and its CoreNLP JVM).

Each cluster is a real ``LocalCluster`` on loopback (scheduler + nanny-managed worker
processes). Every worker starts its CoreNLP before the clock runs (a warm-up batch), so the
numbers are reading and writing, not start-up. The driver (this process) writes to the
benchmark's Neo4j, as ``dwqa facts --dask`` does.

    .venv/bin/python -m benchmarks.bench_facts_cluster [--pages 48] [--workers 1,2,1,2]
    (DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT move its Neo4j off 7689/7476.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from distributed import Client, LocalCluster, get_task_stream

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.facts.cluster import PLUGIN_NAME, ClusterExtractor
from dwqa_graph.facts.stage import run_extractor
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest

from ._server import REPO_ROOT, start_bench_server, stop_bench_server
from .bench_facts import pages_as_items, peak_mb

#: Each worker's CoreNLP heap (the fine-grained gazetteers need ~3.5 GB).
WORKER_HEAP = "4g"


def _pin(core: int | None, dask_worker: Any) -> None:
    """On a worker: bind every thread of its process to ``core`` (None: leave it), before its
    CoreNLP starts, so the JVM inherits the binding and sizes its garbage-collector and
    compiler threads for one processor: "one core each" is then what the worker gets,
    not what it asks for."""
    if core is None:
        return
    for tid in os.listdir("/proc/self/task"):
        os.sched_setaffinity(int(tid), {core})


def _warm(dask_worker: Any) -> int:
    """On a worker (``Client.run`` passes it): start its reader now, not in the timed run."""
    reader = dask_worker.plugins[PLUGIN_NAME].get()
    return reader.nlp._proc.pid


def _peaks(dask_worker: Any) -> dict[str, float]:
    """On a worker: peak RSS of the worker process and of its CoreNLP JVM."""
    reader = dask_worker.plugins[PLUGIN_NAME].reader
    jvm = reader.nlp._proc.pid if reader is not None and reader.nlp._proc else None
    return {"worker_mb": round(peak_mb(os.getpid())),
            "corenlp_mb": round(peak_mb(jvm)) if jvm else 0}


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu(dask_worker: Any) -> list[float]:
    """On a worker: CPU seconds used so far by its CoreNLP JVM and by the worker process."""
    reader = dask_worker.plugins[PLUGIN_NAME].reader
    jvm = reader.nlp._proc.pid if reader is not None and reader.nlp._proc else None
    return [_cpu_s(jvm) if jvm else 0.0, _cpu_s(os.getpid())]


def run(store: Store, items: list[dict[str, Any]], tmp: Path, workers: int,
        pin: bool) -> dict[str, Any]:
    store.wipe()
    path = tmp / "pages.json"
    path.write_text(json.dumps(items))
    ingest(store, [path], fmt="hotpotqa")
    extract_claims(store)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address="127.0.0.1:0",
                      env={"DWQA_CORENLP_HEAP": WORKER_HEAP}) as cluster, \
            Client(cluster) as client:
        extractor = ClusterExtractor(client=client)
        for core, address in enumerate(sorted(client.scheduler_info()["workers"])):
            client.run(_pin, core if pin else None, workers=[address])
        client.run(_warm)
        cpu_before = client.run(_cpu)
        started = time.perf_counter()
        with get_task_stream(client) as stream:
            report = run_extractor(store, extractor)
        wall = time.perf_counter() - started
        cpu_after = client.run(_cpu)
        peaks = client.run(_peaks)
        extractor.close()
    # Which worker read each batch, and for how long: an idle worker shows here.
    busy: dict[str, list[float]] = {}
    for task in stream.data:
        if task["key"].startswith("read_batch"):
            spans = busy.setdefault(task["worker"], [0, 0.0])
            spans[0] += 1
            spans[1] += sum(s["stop"] - s["start"] for s in task["startstops"]
                            if s["action"] == "compute")
    return {"workers": workers, "pinned": pin, "versions": report.versions, "facts": report.facts,
            "tokens": report.tokens, "seconds": round(wall, 1),
            "tokens_per_s": round(report.tokens / wall), "peaks": list(peaks.values()),
            "batches_and_busy_s": [[n, round(t, 1)] for n, t in busy.values()],
            # tokens per CPU second of the JVMs: the machine's own speed in this run
            "tokens_per_jvm_cpu_s": round(report.tokens / max(1e-9, sum(
                cpu_after[w][0] - cpu_before[w][0] for w in cpu_after))),
            # CPU seconds per second of the run, per worker: [its JVM, its Python process]
            "cores_used": [[round((a - b) / wall, 2) for a, b in zip(cpu_after[w], cpu_before[w],
                                                                     strict=True)]
                           for w in cpu_after]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=48)
    ap.add_argument("--workers", default="1,2,1,2")
    ap.add_argument("--no-pin", dest="pin", action="store_false",
                    help="let each worker use every core (by default worker i runs on core i)")
    args = ap.parse_args()
    items = pages_as_items(184)[:args.pages]
    settings, started = start_bench_server()
    tmp = REPO_ROOT / ".dwqa" / "bench-facts-cluster"
    tmp.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        with Store(settings) as store:
            for n in (int(x) for x in args.workers.split(",")):
                rows.append(run(store, items, tmp, n, args.pin))
                print(json.dumps(rows[-1]), flush=True)
    finally:
        stop_bench_server(settings, started)
    # The machine's speed drifts between runs by a fifth (a virtual machine's cores): with
    # ``--workers 1,2,1,2`` each size runs twice, interleaved, and the medians are compared.
    speeds: dict[int, list[int]] = {}
    for row in rows:
        speeds.setdefault(row["workers"], []).append(row["tokens_per_s"])
    if len(speeds) >= 2:
        ordered = sorted(speeds.items())
        (few, slow), (many, fast) = ordered[0], ordered[-1]
        ratio = statistics.median(fast) / statistics.median(slow)
        print(f"throughput {many} vs {few} workers (median of {len(fast)} and {len(slow)} "
              f"runs): {ratio:.2f}x (target >= 1.7); same facts: "
              f"{len({row['facts'] for row in rows}) == 1}")


if __name__ == "__main__":
    main()
