"""Stanford CoreNLP as one long-lived local worker process per command.

The worker (``corenlp/DwqaCoreNLP.java``, Java single-file source mode on the jars Maven
resolves from ``corenlp/pom.xml``) loads the English models once (~10 s) and then annotates
texts sent over its stdin on ``threads`` workers. It opens no network port: CoreNLP's own
HTTP server listens on every interface, and any web page the user visits could post to it.

Annotators (measured on this project's 2-core machine, see benchmarks/bench_facts.py):
tokenize, ssplit, pos, lemma, ner (with SUTime dates and fine-grained types) and depparse
run at ~1,500 tokens/s per thread. Statistical coreference ran at 260 tokens/s warm (and
did not chain "Lively" with "She" on the Blake Lively page), so it is not used: entities are
resolved within a document by name (``facts/resolve.py``), and the claim stage already drops
sentences that open with an unresolved pronoun.

Bounds: a text over ``MAX_CHARS`` is refused (callers send claims or paragraphs, not whole
pages); a request that takes longer than ``timeout`` seconds fails, and the worker is
restarted, so one pathological text cannot stall a run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from dwqa_graph.config import package_data
from dwqa_graph.errors import LanguageError
from dwqa_graph.language.doc import Doc, parse_doc

CORENLP_DIR = package_data("language/corenlp")
#: The annotators dwqa reads (see the module docstring for the choice).
ANNOTATORS = "tokenize,ssplit,pos,lemma,ner,depparse"
#: Pipeline properties. Fine-grained NER tells job titles, nationalities and countries from
#: names (they never become entities); SUTime normalises dates; a blank line is a sentence
#: break (claims are sent joined by blank lines).
PROPERTIES = {
    "ner.applyFineGrained": "true",
    "ner.buildEntityMentions": "true",
    "ner.useSUTime": "true",
    # (What facts read depends on these: a change here needs a new facts RULES_VERSION.)
    # A line of extracted page text is a paragraph, heading or list item: a sentence never
    # runs on into the next line (with "two", a headline merged with the lead under it).
    "ssplit.newlineIsSentenceBreak": "always",
}
#: Characters per request: more is refused (the parser is quadratic in sentence length, and
#: a whole 100,000-word page in one request would hold one worker for minutes).
MAX_CHARS = 100_000
#: Recorded on everything read with this library (facts store it as their extractor).
VERSION = "corenlp-4.5.7"


def _cache_dir() -> Path:
    root = os.environ.get("DWQA_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "dwqa")
    return Path(root)


def corenlp_classpath() -> str:
    """The jars of CoreNLP and its English models, resolved by Maven once (into ~/.m2, about
    500 MB on first use) and cached by the pom's hash."""
    pom = CORENLP_DIR / "pom.xml"
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()[:16]
    cache = _cache_dir() / f"corenlp-classpath-{digest}.txt"
    if cache.exists() and all(Path(p).exists() for p in cache.read_text().strip().split(":")):
        return cache.read_text().strip()
    if not shutil.which("mvn"):
        raise LanguageError("Maven (mvn) is needed to fetch Stanford CoreNLP: install maven.")
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")
    proc = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(pom), "dependency:build-classpath",
         f"-Dmdep.outputFile={tmp}"], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 or not tmp.exists():
        raise LanguageError("Maven could not resolve Stanford CoreNLP:\n"
                            f"{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
    tmp.replace(cache)
    return cache.read_text().strip()


def lines(stream: IO[bytes]) -> Iterator[bytes]:
    """A worker stream's lines until it ends -- or until ``close`` (a restart) closes it
    under the thread reading it, which iterating the stream itself reports as a ValueError
    in that thread ("readline of closed file")."""
    while True:
        try:
            line = stream.readline()
        except (ValueError, OSError):
            return
        if not line:
            return
        yield line


class CoreNLP:
    """A CoreNLP worker process. Use as a context manager; ``annotate_many`` pipelines texts
    through the worker's threads and yields parsed documents in input order.

    >>> with CoreNLP() as nlp:
    ...     doc = nlp.annotate("Tesla was founded in July 2003.")
    """

    def __init__(self, *, threads: int | None = None, heap: str | None = None,
                 timeout: float = 300.0, start_timeout: float = 600.0) -> None:
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.heap = heap or os.environ.get("DWQA_CORENLP_HEAP", "4g")
        self.timeout = timeout
        self.start_timeout = start_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending: dict[str, Future[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._reader: threading.Thread | None = None
        # threads that submit their first text at once must start one worker, not one each
        self._starting = threading.Lock()
        self.restarts = 0

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> CoreNLP:
        java = shutil.which("java")
        if not java:
            raise LanguageError("Java 17+ is needed to run Stanford CoreNLP: install "
                                "openjdk-17-jre.")
        classpath = corenlp_classpath()
        self._proc = subprocess.Popen(
            [java, f"-Xmx{self.heap}", "-XX:+UseParallelGC", "-cp", classpath,
             str(CORENLP_DIR / "DwqaCoreNLP.java"), "--threads", str(self.threads),
             "--annotators", ANNOTATORS,
             *[a for k, v in PROPERTIES.items() for a in ("--prop", f"{k}={v}")]],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._stderr_tail: list[str] = []
        threading.Thread(target=self._drain_stderr, args=(self._proc,), daemon=True).start()
        deadline = time.monotonic() + self.start_timeout
        assert self._proc.stdout is not None
        ready = _readline_until(self._proc, deadline)
        if ready != b"ready\n":
            tail = "\n".join(self._stderr_tail[-20:])
            self.close()
            raise LanguageError(f"Stanford CoreNLP did not start:\n{tail}")
        self._reader = threading.Thread(target=self._read, args=(self._proc,), daemon=True)
        self._reader.start()
        return self

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()
        with self._lock:
            pending, self._pending = self._pending, {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(LanguageError("the CoreNLP worker stopped"))

    def __enter__(self) -> CoreNLP:
        return self.start()

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _restart(self) -> None:
        self.close()
        self.restarts += 1
        self.start()

    # -- the worker's streams ------------------------------------------------------------
    def _drain_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for line in lines(proc.stderr):
            self._stderr_tail = (self._stderr_tail + [line.decode("utf-8", "replace")])[-50:]

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for line in lines(proc.stdout):
            rid, _, body = line.decode("utf-8").partition("\t")
            with self._lock:
                fut = self._pending.pop(rid, None)
            if fut is None or fut.done():
                continue
            try:
                fut.set_result(json.loads(body))
            except ValueError as exc:
                fut.set_exception(LanguageError(f"CoreNLP sent a reply that is not JSON: {exc}"))
        with self._lock:
            pending = dict(self._pending) if self._proc is proc else {}
        for fut in pending.values():
            if not fut.done():
                fut.set_exception(LanguageError(
                    "the CoreNLP worker exited: " + "".join(self._stderr_tail[-5:])))

    def _submit(self, text: str) -> Future[dict[str, Any]]:
        fut: Future[dict[str, Any]] = Future()
        if len(text) > MAX_CHARS:
            fut.set_exception(LanguageError(
                f"text of {len(text):,} characters is over the limit of {MAX_CHARS:,}"))
            return fut
        if self._proc is None:
            with self._starting:
                if self._proc is None:
                    self.start()
        assert self._proc is not None and self._proc.stdin is not None
        rid = str(next(self._ids))
        data = text.encode("utf-8", "replace")
        with self._lock:
            self._pending[rid] = fut
        try:
            self._proc.stdin.write(f"{rid} {len(data)}\n".encode() + data)
            self._proc.stdin.flush()
        except OSError as exc:
            with self._lock:
                self._pending.pop(rid, None)
            fut.set_exception(LanguageError(f"the CoreNLP worker is gone: {exc}"))
        return fut

    def _result(self, fut: Future[dict[str, Any]], text: str) -> Doc:
        try:
            data = fut.result(timeout=self.timeout)
        except FutureTimeout:
            self._restart()  # the worker may be stuck on this text: start a fresh one
            raise LanguageError(f"CoreNLP took over {self.timeout:.0f}s on a text of "
                                f"{len(text):,} characters") from None
        if "error" in data:
            raise LanguageError(f"CoreNLP failed on a text: {data['error'][:300]}")
        return parse_doc(text, data)

    # -- API -----------------------------------------------------------------------------
    def annotate(self, text: str) -> Doc:
        """One text, parsed. Raises ``LanguageError`` for a text the library cannot read."""
        return self._result(self._submit(text), text)

    def annotate_many(self, texts: Iterable[str]) -> Iterator[Doc | LanguageError]:
        """Each text's parse, in input order, or the ``LanguageError`` for that text (the
        rest go on). At most ``2 × threads`` texts are in flight at once."""
        window: list[tuple[str, Future[dict[str, Any]]]] = []
        for text in texts:
            window.append((text, self._submit(text)))
            if len(window) >= 2 * self.threads:
                yield self._settle(*window.pop(0))
        while window:
            yield self._settle(*window.pop(0))

    def _settle(self, text: str, fut: Future[dict[str, Any]]) -> Doc | LanguageError:
        try:
            return self._result(fut, text)
        except LanguageError as exc:
            return exc


def _readline_until(proc: subprocess.Popen[bytes], deadline: float) -> bytes:
    """The worker's first line, or b"" if it exits or the deadline passes first."""
    box: list[bytes] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()),  # type: ignore[union-attr]
                              daemon=True)
    reader.start()
    reader.join(max(0.0, deadline - time.monotonic()))
    return box[0] if box else b""
