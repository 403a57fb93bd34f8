"""The facts stage on a Dask distributed cluster (``dwqa facts --dask ADDRESS``).

The driver keeps the stage's loop (``stage.run_extractor``): which versions are pending, the
write plan, its transactions, the report. Only the reading moves: pending versions go to the
cluster in batches of about equal text (``batches``); each worker process reads them with
its own long-lived CoreNLP (started at its first batch, closed when the worker stops:
``CoreNLPReader``, a Dask worker plugin); the driver gets each batch's facts back in input
order and writes them as a local run would. Same reader code, same rules, same plan: the
same facts with the same ids.

Why Dask distributed and not Ray: it is pure Python (a few MB of wheels against Ray's
~70 MB, and no wait for a Ray build of a new Python), a cluster is two CLIs (``dask
scheduler``, ``dask worker``) and a test starts a real one on loopback (``LocalCluster``
with worker processes); worker plugins give each worker its long-lived reader and its
nanny replaces a worker process that dies.

Failure handling: a batch whose task fails (its worker died, its reader broke) is tried
again once (``BATCH_RETRIES``) -- on a replacement worker when the nanny restarted it --
then its versions are reported as reader failures and left pending (``dwqa facts`` exits 1;
a re-run reads them). A killed driver loses only the batches in flight: each version read is
written, with its mark, as soon as its batch is back, so a re-run resumes where it stopped.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from distributed import Client, Future, WorkerPlugin, get_worker

from dwqa_graph.errors import ServiceError, UsageError
from dwqa_graph.facts.extractor import MAX_VERSION_CHARS, FactExtractor, Reading, Unread
from dwqa_graph.facts.extractors.corenlp import CoreNLPExtractor, offline_extractor_id
from dwqa_graph.language.corenlp import CoreNLP

#: Characters of text per task (each version counted up to what the reader reads,
#: ``MAX_VERSION_CHARS``): about 7,000 tokens, a few seconds of one core. Large enough that a
#: task's overhead (a round trip to the scheduler, pickling the texts) is small against it;
#: small enough that a lost task costs little and that the workers finish together: batches
#: of 8 full pages, whatever their length, left one of two workers idle for the last tenth
#: of a run (a full page is 2,000 to 120,000 characters).
BATCH_CHARS = 40_000
#: Versions per task at most: a paragraph corpus's versions are ~600 characters.
BATCH_VERSIONS = 64
#: Batches in flight per worker thread: one being read, one queued on the worker so that it
#: never waits for the driver between batches.
BATCHES_PER_WORKER = 2
#: Times a failed batch is tried again (on a replacement worker) before it is reported.
BATCH_RETRIES = 1
#: Seconds to wait for the scheduler and for a first worker to join it.
CONNECT_TIMEOUT_S = 30.0
#: The worker plugin's name (one reader per worker, registered once per cluster).
PLUGIN_NAME = "dwqa-corenlp-reader"
#: Environment variable Dask's own tools read the scheduler's address from.
ADDRESS_ENV = "DASK_SCHEDULER_ADDRESS"


class CoreNLPReader(WorkerPlugin):
    """A Dask worker plugin: the worker's own long-lived CoreNLP reader, started at its first
    batch (so a worker that joins and gets nothing starts no JVM) and closed with the worker.
    ``threads``: the CoreNLP worker's threads (default: the Dask worker's threads)."""

    name = PLUGIN_NAME

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads
        self.reader: CoreNLPExtractor | None = None
        self.worker_threads = 1
        self.lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:  # sent to each worker: without its lock
        return {"threads": self.threads}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.threads = state["threads"]
        self.reader = None
        self.worker_threads = 1
        self.lock = threading.Lock()

    def setup(self, worker: Any) -> None:
        self.worker_threads = int(getattr(worker.state, "nthreads", 1) or 1)

    def teardown(self, worker: Any) -> None:
        if self.reader is not None:
            self.reader.close()
            self.reader = None

    def get(self) -> CoreNLPExtractor:
        if self.reader is None or self.reader.broken is not None:
            if self.reader is not None:  # it could not be restarted: try a fresh one
                self.reader.close()
            self.reader = CoreNLPExtractor(CoreNLP(threads=self.threads or self.worker_threads))
            self.reader.nlp.start()
        return self.reader


def batches(versions: Iterable[dict[str, Any]], max_chars: int = BATCH_CHARS,
            max_versions: int = BATCH_VERSIONS) -> Iterator[list[dict[str, Any]]]:
    """Consecutive ``versions`` (rows with a ``text``) in batches of at most ``max_versions``
    versions and ``max_chars`` characters of what the reader reads of them; a version longer
    than that is a batch of its own. In order: the stage writes what comes back in order."""
    batch: list[dict[str, Any]] = []
    size = 0
    for v in versions:
        n = min(len(v.get("text") or ""), MAX_VERSION_CHARS)
        if batch and (len(batch) >= max_versions or size + n > max_chars):
            yield batch
            batch, size = [], 0
        batch.append(v)
        size += n
    if batch:
        yield batch


def read_batch(batch: list[dict[str, Any]], key: str,
               ) -> tuple[list[tuple[str, Reading | Unread]], dict[str, int]]:
    """Run on a worker: each version of ``batch`` (rows of ``facts/pending``) with what its
    reader read, in input order, and the reader's counters for this batch. A reader that broke
    raises (the task fails and is retried elsewhere) instead of returning failures."""
    plugin = get_worker().plugins[PLUGIN_NAME]
    assert isinstance(plugin, CoreNLPReader)
    # One batch at a time per worker: its CoreNLP's threads are the worker's threads, kept
    # busy by one batch's pipelined passages (and the counters are this batch's alone).
    with plugin.lock:
        reader = plugin.get()
        if reader.key != key:  # a worker with another dwqa version would read other facts
            raise RuntimeError(f"this worker reads as {reader.key}, the driver as {key}: "
                               "install the same dwqa-graph version on every worker")
        before = reader.counts()
        out: list[tuple[str, Reading | Unread]] = []
        for v, found in reader.read(batch):
            if isinstance(found, Unread) and found.broken:
                raise RuntimeError(f"the worker's CoreNLP broke: {found.reason}")
            out.append((v["id"], found))
        after = reader.counts()
    return out, {k: after[k] - before.get(k, 0) for k in after}


class ClusterExtractor(FactExtractor):
    """The CoreNLP extractor's reads spread over a Dask cluster's workers (see the module
    docstring); the stage writes what it yields exactly as a local run's."""

    family = CoreNLPExtractor.family

    def __init__(self, address: str | None = None, *, client: Client | None = None,
                 threads: int | None = None, batch_chars: int = BATCH_CHARS,
                 batch_versions: int = BATCH_VERSIONS) -> None:
        super().__init__()
        self._own = client is None
        if client is None:
            address = address or os.environ.get(ADDRESS_ENV)
            if not address:
                raise UsageError(f"no Dask scheduler address: pass --dask ADDRESS or set "
                                 f"{ADDRESS_ENV} (e.g. tcp://10.0.0.5:8786)")
            try:
                client = Client(address, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError) as exc:
                raise ServiceError(f"the Dask scheduler at {address} is unreachable: "
                                   f"{exc}") from exc
        self.client: Client = client
        try:
            self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ServiceError(f"no Dask worker joined the scheduler at "
                               f"{self.client.scheduler.address} within "
                               f"{CONNECT_TIMEOUT_S:.0f}s: start one with `dask worker "
                               "ADDRESS`") from exc
        self.client.register_plugin(CoreNLPReader(threads), name=PLUGIN_NAME)
        self.batch_chars = batch_chars
        self.batch_versions = batch_versions
        self._counts = {"sentences_skipped": 0, "sentences_unread": 0, "worker_restarts": 0}
        self.lost_batches = 0

    @property
    def key(self) -> str:
        return offline_extractor_id()

    def _slots(self) -> int:
        info = self.client.scheduler_info()
        threads = sum(w.get("nthreads", 1) for w in info.get("workers", {}).values())
        return max(1, threads) * BATCHES_PER_WORKER

    def read(self, versions: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any],
                                                                        Reading | Unread]]:
        key = self.key
        window: deque[tuple[list[dict[str, Any]], Future]] = deque()

        def submit(b: list[dict[str, Any]]) -> None:
            # pure=False: a batch tried again after its worker died is read again, not
            # taken for the result of the failed try.
            window.append((b, self.client.submit(read_batch, b, key, retries=BATCH_RETRIES,
                                                 pure=False)))

        def settle() -> Iterator[tuple[dict[str, Any], Reading | Unread]]:
            b, fut = window.popleft()
            try:
                results, counts = fut.result()
            except Exception as exc:  # noqa: BLE001 -- any failure of a task is the reader's
                self.lost_batches += 1
                why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                for v in b:
                    yield v, Unread(f"its batch failed on the cluster "
                                    f"{BATCH_RETRIES + 1} times: {why}", broken=True)
                return
            finally:
                fut.release()
            for k, n in counts.items():
                self._counts[k] = self._counts.get(k, 0) + n
            by_id = dict(results)
            for v in b:
                yield v, by_id[v["id"]]

        slots = self._slots()
        # The texts travel to the worker; the driver keeps only what it writes.
        for b in batches(versions, self.batch_chars, self.batch_versions):
            submit(b)
            while len(window) >= slots:
                yield from settle()
        while window:
            yield from settle()

    def counts(self) -> dict[str, int]:
        return dict(self._counts)

    def close(self) -> None:
        if self._own:
            self.client.close()
