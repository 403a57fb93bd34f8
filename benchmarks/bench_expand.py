"""`dwqa expand` on the FreshQA full pages: its cost per seed graph, and the fact-path pools
before and after.

Builds the FreshQA seed graphs as a user does (ingest with the logs' ``{WEB}`` pointed at a
local web of the 184 shared full pages, fetch, refresh, facts), draws ``--rounds`` rounds and
measures their pools with ``dwqa round collisions --checked``; then runs ``dwqa expand`` and
draws and measures as many rounds again. Every step is the CLI in its own process, on the
benchmarks' own Neo4j (``DWQA_BENCH_BOLT_PORT`` / ``DWQA_BENCH_HTTP_PORT``).

    .venv/bin/python -m benchmarks.bench_expand [--max-pages 5] [--depth 1] [--rounds 5]
        [--logs N] [--refresh-limit 10] [--out F.json]

``--logs N`` takes the first N FreshQA logs only (a sample, for a busy machine: reading the
184 pages is 8 minutes alone and hours beside other CoreNLP runs); ``--out`` is rewritten
after every phase, so an interrupted run keeps what it measured.

Targets (issue 44): askable K median >= 200 and the collision bound at T = 5 <= 0.05 on the
full pages with `dwqa expand`; items per round >= 85% of the graphs with >= 2 connected facts.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._server import start_bench_server, stop_bench_server
from benchmarks.bench_load import DWQA, SHARED, run
from dwqa_graph.graph.store import Store

#: The port of the benchmark's local web (the range kept for hand-started local webs here).
WEB_PORT = 8841
K_TARGET, BOUND_TARGET, ITEMS_TARGET = 200, 0.05, 0.85


def wait_for(port: int, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"the local web on port {port} did not start")


def checked(env: dict[str, str], first_seed: int, n: int, label: str) -> dict[str, Any]:
    """``n`` rounds of the FreshQA graphs, then their pools measured with ``--checked``."""
    rounds = [run(env, "round", "new", "--seed", str(first_seed + i), "--dataset", "freshqa",
                  label=f"round new ({label} #{i + 1})") for i in range(n)]
    made = [r["json"] for r in rounds if r["json"]]
    ts = ",".join(str(r["round"]) for r in made)
    coll = run(env, "round", "collisions", "--rounds", ts, "--checked",
               label=f"collisions --checked ({label})")
    agg = (coll["json"] or {}).get("aggregate", {})
    per_graph = (coll["json"] or {}).get("graphs", {})
    bounds = sorted(g["bound"] for g in per_graph.values() if g.get("bound") is not None)
    return {"rounds": [r["round"] for r in made], "items": [r["items"] for r in made],
            "graphs": [r["graphs"] for r in made],
            "round_seconds": [round(r["seconds"], 1) for r in rounds],
            "k_median": agg.get("k_median"), "max_bound": agg.get("max_bound"),
            "median_bound": bounds[len(bounds) // 2] if bounds else None,
            "graphs_over_delta": agg.get("graphs_over_delta"),
            "collisions_seconds": round(coll["seconds"], 1)}


def connected_graphs(settings: Any) -> int:
    """Seed graphs whose documents hold >= 2 facts that meet another (fact_connectivity)."""
    with Store(settings) as store:
        rows = store.query("explore/fact_connectivity", dataset="freshqa")
    return sum(r["connected"] >= 2 for r in rows)


def graph_size(settings: Any) -> dict[str, Any]:
    with Store(settings) as store:
        return store.read(
            "RETURN COUNT { (:Query) } AS seed_graphs, COUNT { (:Document) } AS documents, "
            "COUNT { (:DocumentVersion) } AS versions, COUNT { (:Fact) } AS facts")[0]


def save(out: Path | None, result: dict[str, Any]) -> None:
    if out:
        out.write_text(json.dumps(result, indent=2))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-pages", type=int, default=5)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--port", type=int, default=WEB_PORT)
    ap.add_argument("--logs", type=int, default=0, help="Only the first N logs (0: all).")
    ap.add_argument("--refresh-limit", type=int, default=10, help="Results per refresh query.")
    ap.add_argument("--skip-build", action="store_true",
                    help="Reuse the graph a run before built (and its rounds).")
    ap.add_argument("--out", type=Path, help="Also write the JSON result here.")
    args = ap.parse_args()
    settings, started = start_bench_server()
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password, "DWQA_HOME": str(settings.home)}
    web = f"http://127.0.0.1:{args.port}"
    host = web.removeprefix("http://")
    serve = subprocess.Popen([DWQA, "web", "serve", str(SHARED / "freshqa-wiki" / "web"),
                              "--port", str(args.port)], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    result: dict[str, Any] = {"max_pages": args.max_pages, "depth": args.depth,
                              "logs": args.logs or "all", "refresh_limit": args.refresh_limit}
    tmp = Path(tempfile.mkdtemp(prefix="dwqa-expand-"))
    try:
        wait_for(args.port)
        if not args.skip_build:
            with Store(settings) as store:
                store.wipe()
            logs = tmp / "freshqa.jsonl"
            lines = (SHARED / "freshqa-wiki" / "logs.jsonl").read_text().splitlines()
            logs.write_text("\n".join(lines[:args.logs] if args.logs else lines)
                            .replace("{WEB}", web) + "\n")
            result["build"] = [
                run(env, "ingest", str(logs), "--dataset", "freshqa", label="ingest"),
                run(env, "fetch", "--allow-host", host, label="fetch"),
                run(env, "refresh", "--dataset", "freshqa", "--searxng", web, "--allow-host",
                    host, "--limit", str(args.refresh_limit), label="refresh"),
                run(env, "facts", label="facts")]
            for step in result["build"]:
                step.pop("json", None)
            result["graph_before"] = graph_size(settings)
            save(args.out, result)
            result["connected_before"] = connected_graphs(settings)
            result["before"] = checked(env, 1, args.rounds, "before")
            save(args.out, result)
        exp = run(env, "expand", "--dataset", "freshqa", "--searxng", web, "--allow-host", host,
                  "--max-pages", str(args.max_pages), "--depth", str(args.depth),
                  label="expand")
        report = exp["json"] or {}
        graphs = report.get("graphs") or 1
        with Store(settings) as store:
            pages = store.query("explore/expanded_pages", dataset="freshqa")
        per_graph: dict[str, int] = {}
        for p in pages:
            per_graph[p["query_id"]] = per_graph.get(p["query_id"], 0) + 1
        counts = list(per_graph.values())
        result["expand"] = {
            "seconds": round(exp["seconds"], 1), "peak_rss_mb": exp.get("peak_rss_mb"),
            "graphs": report.get("graphs"), "graphs_grown": report.get("graphs_grown"),
            "entities_searched": report.get("entities"), "searches": report.get("searches"),
            "pages_added": report.get("pages_added"),
            "new_documents": report.get("new_documents"),
            "pages_per_graph_mean": round((report.get("pages_added") or 0) / graphs, 2),
            "pages_per_grown_graph_median": statistics.median(counts) if counts else 0,
            "rejected_by_reason": report.get("rejected_by_reason"),
            "unmatched_entities": report.get("unmatched_entities"),
            "seconds_per_graph": round(exp["seconds"] / graphs, 3),
            "search_s_per_graph": round((report.get("search_seconds") or 0) / graphs, 4),
            "fetch_s_per_graph": round((report.get("fetch_seconds") or 0) / graphs, 4),
            "read_s_per_graph": round((report.get("read_seconds") or 0) / graphs, 4),
            "fetch": [{k: f.get(k) for k in ("documents", "ok", "failed_by_reason", "seconds")}
                      for f in report.get("fetch", [])],
            "facts": [{k: f.get(k) for k in ("versions", "facts", "seconds")}
                      for f in report.get("facts", [])]}
        save(args.out, result)
        result["expand_again"] = {
            k: (run(env, "expand", "--dataset", "freshqa", "--searxng", web, "--allow-host",
                    host, "--max-pages", str(args.max_pages), "--depth", str(args.depth),
                    label="expand again")["json"] or {}).get(k)
            for k in ("pages_added",)}
        result["graph_after"] = graph_size(settings)
        save(args.out, result)
        result["connected_after"] = connected_graphs(settings)
        result["after"] = checked(env, 101, args.rounds, "after")
        after = result["after"]
        share = (statistics.mean(after["items"]) / result["connected_after"]
                 if after["items"] and result["connected_after"] else None)
        result["items_share_of_connected"] = round(share, 3) if share is not None else None
        k_ok = (after["k_median"] or 0) >= K_TARGET
        print(json.dumps(result, indent=2))
        print(f"askable K median {after['k_median']} (target >= {K_TARGET}: "
              f"{'met' if k_ok else 'missed'}); median graph's bound at T={args.rounds} "
              f"{after['median_bound']} (target <= {BOUND_TARGET}); items per round "
              f"{after['items']} = {result['items_share_of_connected']} of the "
              f"{result['connected_after']} graphs with >= 2 connected facts (target >= "
              f"{ITEMS_TARGET}); expand {result['expand']['seconds_per_graph']} s per graph")
        save(args.out, result)
    finally:
        serve.terminate()
        serve.wait(timeout=30)
        stop_bench_server(settings, started)


if __name__ == "__main__":
    main()
