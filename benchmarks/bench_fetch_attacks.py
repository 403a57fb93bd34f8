"""Hostile pages against one real ``dwqa fetch``: wall time, reasons, peak RSS (issue 12).

A hostile web on loopback serves 2 GB compression bombs (``gzip, gzip`` ~2 KB on the wire,
zstd, single gzip), servers that send one byte per second through the headers or the body,
and every URL httpx cannot parse, next to good pages. One ``dwqa fetch --timeout 5
--deadline D`` (a subprocess, as a user runs it) must record each with a reason, end within
about D seconds, and stay under 500 MB of resident memory; a second run has nothing to do.

Peak RSS is measured two ways: the kernel's high-water mark of the largest process in the
fetch's tree (``RUSAGE_CHILDREN``), and the sum over the tree (fetch + extraction workers)
sampled every 20 ms from /proc.

    DWQA_BENCH_BOLT_PORT=... DWQA_BENCH_HTTP_PORT=... \\
        .venv/bin/python -m benchmarks.bench_fetch_attacks [--bomb-mb 2048] [--deadline 10]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from dwqa_graph.config import Settings
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest

from ._server import start_bench_server, stop_bench_server

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.hostile_web import HostileWeb, bomb  # noqa: E402 - the tests' hostile web

BAD_URLS = ["http://0177.0.0.1/", "http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/",
            "http://127.000.000.001/", "http://exa\tmple.org/", "http://127.0.0.1:99999/",
            "http://[::1/", "http://ex\u2028ample.org/", "http:///no-host"]


def tree_rss_mb(root: int) -> float:
    """Resident MB of ``root`` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total / 2**20


def run_fetch(env: dict[str, str], args: list[str]) -> tuple[dict, float, float, float]:
    """(report, wall s, peak tree RSS MB sampled, peak single-process RSS MB)."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "dwqa_graph.cli", "fetch", *args, "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0.0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], tree_rss_mb(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"dwqa fetch failed ({proc.returncode}): {err[-2000:]}")
    single = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return json.loads(out), wall, peak[0], single


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bomb-mb", type=int, default=2048, help="Decoded size of each bomb.")
    ap.add_argument("--deadline", type=float, default=10.0)
    args = ap.parse_args()

    print(f"building {args.bomb_mb} MB bombs ...", flush=True)
    sizes = {}
    for kind in ("gzip-gzip", "zstd", "gzip"):
        body, coding = bomb(kind, args.bomb_mb)
        sizes[kind] = len(body)
        print(f"  {coding:<11} {len(body):>9,} bytes on the wire -> {args.bomb_mb:,} MB decoded")

    settings, started = start_bench_server()
    try:
        with Store(settings) as store, HostileWeb() as web:
            store.wipe()
            store.apply_schema()
            mb = f"?mb={args.bomb_mb}"
            hostile = {f"{web.url}/bomb/{k}{mb}": "too_large" for k in sizes}
            hostile |= {f"{web.url}/trickle-headers?interval=1": "deadline",
                        f"{web.url}/trickle-body?interval=1": "deadline"}
            good = {f"{web.url}/ok": "ok", f"{web.url}/plain": "ok",
                    f"{web.url}/encoded/gzip-gzip": "ok", f"{web.url}/encoded/zstd": "ok"}
            expected = {**hostile, **good, **dict.fromkeys(BAD_URLS, "invalid_url")}
            log = Path(tempfile.mkdtemp()) / "attack.jsonl"
            log.write_text(json.dumps({
                "question": "What do the hostile pages say?", "answer": "nothing",
                "thinking": "- They say nothing [1].",
                "sources": [{"id": i, "url": u, "title": u}
                            for i, u in enumerate(expected, 1)]}) + "\n")
            ingest(store, [log])
            env = {**os.environ, **_env(settings)}
            fetch_args = ["--allow-host", f"127.0.0.1:{web.port}", "--timeout", "5",
                          "--deadline", str(args.deadline)]
            report, wall, tree_peak, single_peak = run_fetch(env, fetch_args)
            again, _, _, _ = run_fetch(env, fetch_args)
            got = {r["url"]: r["s"] for r in store.read(
                "MATCH (d:Document) RETURN d.url AS url, d.fetch_status AS s")}
    finally:
        stop_bench_server(settings, started)

    wrong = {u: (got.get(u), want) for u, want in expected.items() if got.get(u) != want}
    print(f"\none dwqa fetch over {len(expected)} pages ({len(hostile)} hostile, "
          f"{len(BAD_URLS)} unparseable URLs, {len(good)} good):")
    print(f"  wall {wall:.1f} s for the command, {report['seconds']:.1f} s fetching "
          f"(deadline {args.deadline:g} s per page, --timeout 5)")
    print(f"  reasons {report['failed_by_reason']}, ok {report['ok']}")
    print(f"  peak RSS: {tree_peak:.0f} MB summed over the fetch's process tree (sampled), "
          f"{single_peak:.0f} MB largest single process (kernel high-water mark); target < 500")
    print(f"  second run: {again['documents']} documents to fetch (target 0)")
    print("  every page has its expected reason" if not wrong else f"  WRONG: {wrong}")


def _env(settings: Settings) -> dict[str, str]:
    return {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
            "NEO4J_PASSWORD": settings.password, "DWQA_HOME": str(settings.home)}


if __name__ == "__main__":
    main()
