"""Fetch + extract throughput: 1,000 pages served on loopback.

The pages are served by ``dwqa web serve`` in its own process (so the server does not
share the fetcher's GIL), Documents are created for them, and one ``fetch`` run downloads
and extracts all of them into DocumentVersions in Neo4j. Prints pages/s and the time split:
network seconds (summed over concurrent downloads) vs extraction seconds (summed over the
worker processes), and how busy each stage was. Target: >= 50 pages/s on 2 cores, with
fetch concurrency never the bottleneck (network slots mostly idle while the extraction
workers are saturated).

    .venv/bin/python -m benchmarks.bench_fetch [--pages 1000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from dwqa_graph.config import Settings
from dwqa_graph.graph.store import Store
from dwqa_graph.web.fetch import FetchOptions, FetchReport, fetch
from dwqa_graph.web.urls import document_id

from ._server import start_bench_server, stop_bench_server

WORDS = ("council tram river flood battery factory capacity budget million euros station "
         "passengers opened approved delayed because of the a in on and with by for report "
         "engineers said year percent kilometres storage grid").split()


def page(i: int, rng: random.Random) -> str:
    paras = "\n".join(
        "<p>" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 90))).capitalize()
        + f" In {rng.randint(1990, 2025)} item {i} reached {rng.randint(1, 999)} km.</p>"
        for _ in range(rng.randint(5, 12)))
    return (f"<!DOCTYPE html><html><head><title>Page {i}</title>"
            f"<meta name=\"date\" content=\"2024-0{1 + i % 9}-1{i % 9}\"></head><body>"
            "<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/about'>About</a></nav>"
            "<div class='cookie'>We use cookies. <button>Accept</button></div>"
            f"<article><h1>Report number {i}</h1>{paras}</article>"
            "<aside><h3>Related</h3><ul><li><a href='/x'>Other story</a></li></ul></aside>"
            "<footer>&copy; 2024 Example News</footer></body></html>")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--concurrency", default="4,16,64",
                    help="Comma-separated download slot counts to sweep.")
    args = ap.parse_args()
    sweep = [int(c) for c in args.concurrency.split(",")]

    settings, started = start_bench_server()
    web_dir = Path(tempfile.mkdtemp())
    rng = random.Random(0)
    for i in range(args.pages):
        (web_dir / f"p{i:05d}.html").write_text(page(i, rng))
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "dwqa_graph.cli", "web", "serve", str(web_dir),
                            "--port", str(port)], stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                httpx.get(base + "/p00000.html", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        with Store(settings) as store:
            rows = []
            for c in sweep:
                rows.append(run_once(store, base, args.pages, c, web.pid,
                                     server_pid(settings)))
            store.wipe()
    finally:
        web.terminate()
        web.wait()
        stop_bench_server(settings, started)

    print(f"{args.pages} pages served on loopback by a separate process; 2 cores shared by "
          "the web server, the fetcher, its extraction workers and Neo4j")
    for c, report, versions, cpu in rows:
        total = report.network_seconds + report.extract_seconds
        print(f"\nconcurrency {c}: {report.ok} ok, failed {report.failed_by_reason or 0}, "
              f"{versions} versions stored")
        print(f"  wall {report.seconds:.2f} s = {report.pages_per_s:.1f} pages/s (target >= 50)")
        print(f"  time split: network {report.network_seconds:.1f} s "
              f"({100 * report.network_seconds / total:.0f}%), extraction "
              f"{report.extract_seconds:.1f} s ({100 * report.extract_seconds / total:.0f}%); "
              f"per page {1000 * report.network_seconds / report.documents:.1f} ms network, "
              f"{1000 * report.extract_seconds / report.documents:.1f} ms extraction")
        print("  CPU seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items())
              + f" (of {2 * report.seconds:.1f} available)")
    rates = [r.pages_per_s for _, r, _, _ in rows]
    print(f"\npages/s over concurrency {sweep}: {rates} -- flat means the download slots are "
          "not the bottleneck; the CPU line says what is.")


def cpu_seconds(pid: int | None) -> float:
    """utime + stime of a process (and its reaped children) from /proc."""
    if not pid:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(f) for f in fields[11:15]) / ticks


def server_pid(settings: Settings) -> int | None:
    try:
        return json.loads((settings.neo4j_home / "server.json").read_text()).get("pid")
    except (OSError, ValueError):
        return None


def run_once(store: Store, base: str, pages: int, concurrency: int, web_pid: int,
             neo4j_pid: int | None) -> tuple[int, FetchReport, int, dict[str, float]]:
    store.wipe()
    store.apply_schema()
    store.write("ingest/queries", [{"id": "bench", "text": "bench", "dataset": "bench",
                                    "source": "bench", "source_file": "-", "source_line": 0}])
    urls = [f"{base}/p{i:05d}.html" for i in range(pages)]
    store.write("ingest/documents", [
        {"id": document_id(u), "url": u, "title": "", "query_id": "bench", "rank": i,
         "cite": None, "snippet": "", "round": 0, "engine": "bench"}
        for i, u in enumerate(urls)])
    # One host serves every page here, so the per-host limit is the global one.
    opts = FetchOptions(allow_private=True, concurrency=concurrency, per_host=concurrency)
    before = {"web server": cpu_seconds(web_pid), "neo4j": cpu_seconds(neo4j_pid)}
    self_before = resource.getrusage(resource.RUSAGE_SELF)
    report = fetch(store, opts)
    self_after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = {
        "fetcher loop": (self_after.ru_utime + self_after.ru_stime
                         - self_before.ru_utime - self_before.ru_stime),
        # Workers are fork-server children, not ours: they report their own CPU time.
        "extraction workers": report.extract_cpu_seconds,
        "web server": cpu_seconds(web_pid) - before["web server"],
        "neo4j": cpu_seconds(neo4j_pid) - before["neo4j"],
    }
    [n] = store.read("MATCH (v:DocumentVersion) RETURN count(v) AS n")
    return concurrency, report, n["n"], cpu


if __name__ == "__main__":
    main()
