"""Process pools for CPU-bound stage work (extraction, claims).

Workers are started by a fork server, not forked from the caller: a forked worker would
inherit the caller's open Bolt sockets, and if the caller is then killed, the orphaned
worker keeps the connection — and any open transaction with its locks — alive on the
server indefinitely. Fork-server workers inherit nothing and exit when the caller dies.
"""

from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor


def process_pool(workers: int) -> ProcessPoolExecutor:
    method = "forkserver" if sys.platform.startswith("linux") else "spawn"
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context(method))
