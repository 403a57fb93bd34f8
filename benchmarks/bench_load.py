"""A load run, as a busy user would make one: every shared corpus as seed graphs (FreshQA's
full pages refreshed from a local web), ``dwqa facts`` to the end, then several concurrent
``dwqa round new`` each followed by ``dwqa eval --agent decompose`` on its round.

Every step is the real CLI in its own process (as a user runs it), against the benchmarks'
own Neo4j. Reported: wall time, exit code and peak RSS of each process, Neo4j's peak RSS,
the graph's size, the concurrent rounds' items and their freshness (items using a fact their
predecessor round's items used: a fresh round has none), and the runs' scores.

    .venv/bin/python -m benchmarks.bench_load [--concurrent 5] [--eval-dataset 2wiki]
    (DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT move its Neo4j off 7689/7476.)

``--eval-dataset`` limits each concurrent round to one dataset's graphs (the decomposing
agent reads pages with CoreNLP per question: five full-corpus evaluations at once take hours
on 2 cores); ``--skip-build`` reuses the graph of an earlier run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from dwqa_graph.graph.store import Store

from ._server import REPO_ROOT, start_bench_server, stop_bench_server

SHARED = REPO_ROOT.parent / "shared" / "data"
DWQA = str(Path(sys.executable).parent / "dwqa")
#: The paragraph corpora, each ingested as its own dataset.
PARAGRAPHS = {"hotpotqa": ["hotpotqa/dev-distractor-sample.json", "hotpotqa/dev-more.json"],
              "musique": ["musique/dev-sample.json"], "2wiki": ["2wiki/dev-sample.json"]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(env: dict[str, str], *args: str, label: str | None = None) -> dict[str, Any]:
    """One CLI process with ``--json``: its wall time, exit code, peak RSS (MB: the largest
    process of its tree, a CoreNLP worker included, as wait4 reports it) and its JSON
    document (None when it printed none)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([DWQA, *args, "--json"], env=env, stdout=out, stderr=err,
                                text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    code = os.waitstatus_to_exitcode(status)
    try:
        doc = json.loads(stdout) if stdout.strip() else None
    except json.JSONDecodeError:
        doc = None
    return {"label": label or " ".join(args[:2]), "exit": code, "seconds": round(wall, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "json": doc,
            "stderr_tail": stderr[-600:] if code else ""}


class PeakRSS:
    """Peak resident memory of a process tree, sampled every second (a child process's own
    peak is read from the kernel when it exits; this is for processes we do not wait for)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_mb, self._stop = pid, 0.0, threading.Event()
        threading.Thread(target=self._poll, daemon=True).start()

    def _poll(self) -> None:
        while not self._stop.wait(1.0):
            try:
                for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        self.peak_mb = max(self.peak_mb, int(line.split()[1]) / 1024)
            except OSError:
                return

    def stop(self) -> float:
        self._stop.set()
        return round(self.peak_mb, 1)


def neo4j_pid(port: int) -> int | None:
    out = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True,
                         text=True).stdout
    if "pid=" not in out:
        return None
    return int(out.split("pid=", 1)[1].split(",", 1)[0])


def build(env: dict[str, str], web: str, tmp: Path) -> list[dict[str, Any]]:
    steps = []
    for name, files in PARAGRAPHS.items():
        steps.append(run(env, "ingest", *[str(SHARED / f) for f in files], "--format",
                         "hotpotqa", "--dataset", name, label=f"ingest {name}"))
    logs = tmp / "freshqa.jsonl"
    logs.write_text((SHARED / "freshqa-wiki" / "logs.jsonl").read_text().replace("{WEB}", web))
    host = web.removeprefix("http://")
    steps.append(run(env, "ingest", str(logs), "--dataset", "freshqa", label="ingest freshqa"))
    steps.append(run(env, "fetch", "--allow-host", host, label="fetch"))
    steps.append(run(env, "refresh", "--dataset", "freshqa", "--searxng", web, "--allow-host",
                     host, label="refresh freshqa"))
    steps.append(run(env, "facts", label="facts"))
    return steps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrent", type=int, default=5)
    ap.add_argument("--eval-dataset", default="2wiki",
                    help="Dataset of the concurrent rounds ('' for every graph).")
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--out", type=Path, help="Also write the JSON result here.")
    args = ap.parse_args()
    settings, started = start_bench_server()
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password, "DWQA_HOME": str(settings.home)}
    port = free_port()
    web = f"http://127.0.0.1:{port}"
    serve = subprocess.Popen([DWQA, "web", "serve", str(SHARED / "freshqa-wiki" / "web"),
                              "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    pid = neo4j_pid(settings.bolt_port)
    neo = PeakRSS(pid) if pid else None
    result: dict[str, Any] = {}
    tmp = Path(tempfile.mkdtemp(prefix="dwqa-load-"))
    try:
        for _ in range(100):  # the local web indexes its pages before it listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        if not args.skip_build:
            with Store(settings) as store:
                store.wipe()
            result["build"] = build(env, web, tmp)
        with Store(settings) as store:
            result["graph"] = store.read(
                "RETURN COUNT { (:Query) } AS seed_graphs, "
                "COUNT { (:DocumentVersion) } AS versions, COUNT { (:Fact) } AS facts")[0]
        # N rounds at once, each then evaluated: the concurrency a busy user makes
        pipelines: list[dict[str, Any]] = [{} for _ in range(args.concurrent)]

        def pipeline(i: int) -> None:
            extra = ["--dataset", args.eval_dataset] if args.eval_dataset else []
            made = run(env, "round", "new", "--seed", str(7001 + i), *extra,
                       label=f"round new #{i}")
            pipelines[i]["round"] = made
            t = (made["json"] or {}).get("round")
            if t is not None:
                pipelines[i]["eval"] = run(env, "eval", "--round", str(t), "--agent",
                                           f"decompose:{web}", label=f"eval round {t}")

        t0 = time.perf_counter()
        threads = [threading.Thread(target=pipeline, args=(i,)) for i in range(args.concurrent)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        result["concurrent_seconds"] = round(time.perf_counter() - t0, 1)
        result["pipelines"] = pipelines
        with Store(settings) as store:
            # per round: items, and items using a fact its predecessor's items used (any /
            # only such facts); a fresh round excludes them
            result["overlap_with_predecessor"] = store.read(
                "MATCH (r:Round)-[:CONTAINS]->(i:QAItem) "
                "OPTIONAL MATCH (p:Round {t: r.t - 1}) "
                "WITH r, i, p, [(i)-[:USES]->(f:Fact) | f] AS fs "
                "WITH r, i, [f IN fs WHERE p IS NOT NULL AND EXISTS { "
                "  (p)-[:CONTAINS]->(:QAItem)-[:USES]->(f) }] AS seen, fs "
                "RETURN r.t AS t, count(i) AS items, "
                "sum(CASE WHEN size(seen) > 0 THEN 1 ELSE 0 END) AS any_fact_reused, "
                "sum(CASE WHEN size(fs) > 0 AND size(seen) = size(fs) THEN 1 ELSE 0 END) "
                "AS only_reused_facts ORDER BY t")
        result["neo4j_peak_rss_mb"] = neo.stop() if neo else None
    finally:
        serve.terminate()
        serve.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
        stop_bench_server(settings, started)
    for step in result.get("build", []) + [s for p in result.get("pipelines", [])
                                           for s in p.values()]:
        doc = step.pop("json") or {}
        step["summary"] = {k: doc[k] for k in ("versions", "facts", "failed_versions",
                                               "tokens_per_s", "ingested", "rejected",
                                               "fetched", "failed", "round", "items",
                                               "scores", "errors", "excluded_round")
                           if k in doc}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
