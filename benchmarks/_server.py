"""The benchmarks' own Neo4j: ``.dwqa/bench`` on ports 7689/7476 (or DWQA_BENCH_*_PORT),
which they wipe freely. Never a user's server; stopped afterwards when a benchmark started
it. Auth is on like every server dwqa starts: ``settings.password`` is read from
``.dwqa/bench/neo4j-password``."""

from __future__ import annotations

import os
import signal
import sys
from dataclasses import replace
from pathlib import Path

from dwqa_graph.config import Settings, load_settings
from dwqa_graph.graph import server

REPO_ROOT = Path(__file__).resolve().parent.parent


def start_bench_server() -> tuple[Settings, bool]:
    """The bench Neo4j, started unless it runs. A benchmark stopped with SIGTERM (kill, a CI
    timeout) then unwinds like Ctrl-C, so its ``finally`` stops this server and any local
    web it serves instead of leaving them running."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT move it, so parallel checkouts do not share one.
    bolt = int(os.environ.get("DWQA_BENCH_BOLT_PORT", "7689"))
    http = int(os.environ.get("DWQA_BENCH_HTTP_PORT", "7476"))
    home = Path(os.environ.get("DWQA_BENCH_HOME") or
                REPO_ROOT / ".dwqa" / ("bench" if bolt == 7689 else f"bench-{bolt}"))
    settings = replace(load_settings({}), home=home).with_ports(bolt, http)
    started = not server.reachable(settings)
    server.up(settings)
    return settings, started


def stop_bench_server(settings: Settings, started: bool) -> None:
    if started:  # leave no server behind that the benchmark itself started
        server.down(settings)
