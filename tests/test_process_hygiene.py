"""`kill -9` of a run leaves no worker behind (issue 12, item 12): the pool's workers are
children of the fork server, not of the run, and used to wait forever on their queues --
keeping the fork server and its resource tracker alive too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dwqa_graph.graph.store import Store


def _live(pid: int) -> bool:
    """Running (zombies, which a container's init may never reap, count as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _wait_for(cond: object, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def _kill_run_and_count_survivors(proc: subprocess.Popen[bytes], min_workers: int) -> int:
    """Wait until the run has a fork server with workers, SIGKILL the run, and return how
    many of its descendants are still running a while later."""
    assert _wait_for(lambda: len(_descendants(proc.pid)) >= 2 + min_workers
                     or proc.poll() is not None), "no workers appeared"
    family = _descendants(proc.pid)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _wait_for(lambda: not any(_live(p) for p in family), timeout=30)
    survivors = {p for p in family if _live(p)}
    for p in survivors:  # only processes this test started
        os.kill(p, signal.SIGKILL)
    return len(survivors)


def _versions(store: Store, n: int) -> None:
    """``n`` DocumentVersions with enough dated sentences to keep the rule extractor busy."""
    sentence = ("In {y} the company opened its {k}th plant in Austin, investing $ {m} million "
                "after the 19{d} merger. ")
    with store._session(read=False) as s:
        s.run("UNWIND range(1, $n) AS i "
              "CREATE (d:Document {id: 'hyg-d' + i, url: 'http://example.org/' + i})"
              "-[:HAS_VERSION]->(:DocumentVersion {id: 'hyg-v' + toString(100000 + i), "
              "text: reduce(t = '', k IN range(1, 60) | t + replace(replace(replace(replace("
              "$sentence, '{y}', toString(1950 + k)), '{k}', toString(k)), '{m}', "
              "toString(i * k)), '{d}', toString(10 + k % 80)))})",
              n=n, sentence=sentence).consume()


def test_kill_9_of_dwqa_claims_leaves_no_workers(store: Store, env: dict[str, str]) -> None:
    _versions(store, 1000)
    proc = subprocess.Popen([sys.executable, "-m", "dwqa_graph.cli", "claims"],
                            env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    assert _kill_run_and_count_survivors(proc, min_workers=2) == 0


@pytest.mark.slow  # waits for orphaned workers
def test_positive_control_a_plain_pool_leaves_workers(tmp_path: Path) -> None:
    """Without the watchdog, the same kill leaves the fork server's workers running: the
    survivor count above could be non-zero."""
    script = tmp_path / "plain.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing, time
        from concurrent.futures import ProcessPoolExecutor
        if __name__ == "__main__":
            ctx = multiprocessing.get_context("forkserver")
            pool = ProcessPoolExecutor(2, mp_context=ctx)
            [pool.submit(time.sleep, 0.1) for _ in range(4)]
            time.sleep(600)
    """))
    proc = subprocess.Popen([sys.executable, str(script)])
    assert _kill_run_and_count_survivors(proc, min_workers=2) >= 2


def test_same_pool_with_the_watchdog_leaves_none(tmp_path: Path) -> None:
    script = tmp_path / "guarded.py"
    script.write_text(textwrap.dedent("""
        import time
        from dwqa_graph._pool import process_pool
        if __name__ == "__main__":
            pool = process_pool(2)
            [pool.submit(time.sleep, 0.1) for _ in range(4)]
            time.sleep(600)
    """))
    proc = subprocess.Popen([sys.executable, str(script)])
    assert _kill_run_and_count_survivors(proc, min_workers=2) == 0
