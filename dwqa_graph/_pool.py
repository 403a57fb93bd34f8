"""Process pools for CPU-bound stage work (extraction, claims).

Workers are started by a fork server, not forked from the caller: a forked worker would
inherit the caller's open Bolt sockets, and if the caller is then killed, the orphaned
worker keeps the connection — and any open transaction with its locks — alive on the
server indefinitely.

Workers also exit when the run that created the pool dies, however it dies (``kill -9``
included): they are children of the fork server, not of the run, and each holds a write
end of the pool's own queues, so they never see an EOF and would wait forever (keeping the
fork server and its resource tracker alive with them). ``PR_SET_PDEATHSIG`` would fire on
the fork server's death, not the run's, so each worker watches the run's process directly:
a pidfd (Linux >= 5.3) becomes readable when the process exits; elsewhere, a poll.
"""

from __future__ import annotations

import multiprocessing
import os
import select
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

#: Seconds between checks where no pidfd is available.
POLL_SECONDS = 1.0


def process_pool(workers: int) -> ProcessPoolExecutor:
    method = "forkserver" if sys.platform.startswith("linux") else "spawn"
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context(method),
                               initializer=exit_with, initargs=(os.getpid(),))


def exit_with(pid: int) -> None:
    """Worker initializer: end this process as soon as process ``pid`` (the run) is gone."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(1)  # the run died before this worker started
    except (AttributeError, OSError):  # no pidfd here: poll instead
        threading.Thread(target=_poll, args=(pid,), daemon=True, name="dwqa-exit-with").start()
        return
    threading.Thread(target=_wait, args=(fd,), daemon=True, name="dwqa-exit-with").start()


def _wait(fd: int) -> None:
    select.select([fd], [], [])
    os._exit(1)  # no cleanup to run: the pool's results have no one left to read them


def _poll(pid: int) -> None:
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass  # alive (pid reused by another user's process is not worth handling here)
        time.sleep(POLL_SECONDS)
