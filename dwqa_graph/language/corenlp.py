"""Stanford CoreNLP as one long-lived local worker process per command.

The worker (``corenlp/DwqaCoreNLP.java``, compiled once per user on the jars Maven
resolves from ``corenlp/pom.xml``) loads the English models once (~10 s) and then annotates
texts sent over its stdin on ``threads`` workers. It opens no network port: CoreNLP's own
HTTP server listens on every interface, and any web page the user visits could post to it.

Annotators (measured on this project's 2-core machine, see benchmarks/bench_facts.py):
tokenize, ssplit, pos, lemma, ner (with SUTime dates and fine-grained types) and depparse
run at ~1,400 tokens/s per thread (benchmarks/bench_facts_profile.py times each annotator:
ner's fine-grained types and SUTime cost most, depparse little). The fine-grained types read
the library's gazetteers compiled for its matcher's index (``gazetteer.py``): same tags, half
the time.
Statistical coreference ran at 260 tokens/s warm (and did not chain "Lively" with "She" on the
Blake Lively page), so it is not used: entities are resolved within a document by name
(``facts/resolve.py``), and the claim stage already drops sentences that open with an
unresolved pronoun.

Bounds (each a named constant below, all on the "Bounds" list of docs/facts.md): a text
over ``MAX_CHARS`` is refused, and so is one that is not prose (``screen``: too few letters,
or "words" too long to be words) -- before anything is sent, so a page of garbage costs
nothing. The worker tags and parses no sentence of more than ``MAX_SENTENCE_TOKENS`` tokens
(a table, a list run on without full stops, nested brackets: the reply lists it as skipped).
A text the worker has not answered within ``text_timeout`` (a base plus a time per
character) fails with its reason, and the worker is restarted for the texts in flight with
it. A worker that dies (killed, out of memory) is restarted too and the texts in flight
are sent again; a text in flight at a second death fails with ``WorkerError``: the reader
broke, not the text.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from dwqa_graph import maven
from dwqa_graph.config import package_data
from dwqa_graph.errors import LanguageError, WorkerError
from dwqa_graph.language.corenlp_socket import SocketWorker, shared_socket
from dwqa_graph.language.doc import Doc, parse_doc
from dwqa_graph.language.gazetteer import fine_mapping

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
#: Tokens in one sentence the worker tags and parses; a longer one is skipped (reported,
#: not read). The longest sentence of the 184 full pages of bench_facts has ~340 tokens (a
#: 1789 proclamation); a list run on for a page without a full stop has ~10,000.
MAX_SENTENCE_TOKENS = 400
#: ``screen``: a text of at least this many non-space characters must be prose to be sent.
SCREEN_MIN_CHARS = 200
#: ... with at least this share of them ASCII letters (English prose has ~85%; random
#: Latin-1 characters ~25%, bracket nests none; a page in another script is no English) ...
MIN_LETTER_SHARE = 0.5
#: ... and at least this share of them in words of at most ``MAX_WORD_CHARS`` characters
#: (a text without spaces is one "word" the tokenizer and tagger still have to walk).
MIN_WORD_SHARE = 0.5
MAX_WORD_CHARS = 40
#: ``text_timeout``: seconds a text may take, a base plus one per this many characters
#: (~20x below the worker's measured speed: a timeout says the text is pathological, not
#: that the machine is busy). The clock runs while the text is with a live worker and its
#: reader waits for it: not while a restart loads the models.
TIMEOUT_BASE_S = 60.0
TIMEOUT_CHARS_PER_S = 400
#: Deaths of the worker a text may be in flight at: at the first it is sent again to a fresh
#: worker, at the next it fails (``WorkerError``).
MAX_DEATHS_PER_TEXT = 1
#: Recorded on everything read with this library (facts store it as their extractor).
VERSION = "corenlp-4.5.7"


#: A worker process of this reader's own, or a connection to the shared one.
_Worker = subprocess.Popen[bytes] | SocketWorker


def corenlp_classpath() -> str:
    """The jars of CoreNLP and its English models, resolved by Maven once (into ~/.m2, about
    500 MB on first use) and cached per user by the pom's hash."""
    return maven.classpath(CORENLP_DIR / "pom.xml", "corenlp", LanguageError)


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


def screen(text: str) -> str | None:
    """Why ``text`` is not sent to the worker (None: it is): over ``MAX_CHARS``, or not
    prose. A cheap pass over the characters, so that a page of garbage, bracket nests or
    another script is refused before the library spends minutes on it."""
    if len(text) > MAX_CHARS:
        return f"text of {len(text):,} characters is over the limit of {MAX_CHARS:,}"
    words = text.split()
    chars = sum(map(len, words))
    if chars < SCREEN_MIN_CHARS:
        return None  # a heading or a short paragraph: cheap whatever it holds
    letters = sum(c.isascii() and c.isalpha() for c in text)
    if letters < MIN_LETTER_SHARE * chars:
        return (f"not English prose: {letters / chars:.0%} of its {chars:,} non-space "
                f"characters are letters (at least {MIN_LETTER_SHARE:.0%} needed)")
    in_words = sum(len(w) for w in words if len(w) <= MAX_WORD_CHARS)
    if in_words < MIN_WORD_SHARE * chars:
        return (f"not English prose: {in_words / chars:.0%} of its {chars:,} non-space "
                f"characters are in words of at most {MAX_WORD_CHARS} (at least "
                f"{MIN_WORD_SHARE:.0%} needed)")
    return None


@dataclass(frozen=True)
class Cues:
    """Which sentences a reader needs tagged and parsed: those with a digit, a word of
    ``words`` (lower case), or a word whose lemma as a verb is one of ``lemmas`` (the
    library's own morphology decides, under every verb tag, so a cue is found whatever the
    tagger later calls the word). The others cost only tokenizing."""

    lemmas: frozenset[str]
    words: frozenset[str] = frozenset()
    #: Also every sentence that opens a paragraph (a line of the text): where a reader learns
    #: what the paragraph is about, which its later sentences' pronouns lean on.
    openers: bool = False
    #: Words that make the sentence before a read one needed too (within its paragraph): a
    #: pronoun stands for what that sentence was about.
    leaners: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for w in self.lemmas | self.words | self.leaners:
            if not w or any(c in w for c in ", |\n") or w != w.lower():
                raise ValueError(f"a cue is one lower-case word: {w!r}")

    @property
    def wire(self) -> str:
        """As a request header carries them: ``lemma,lemma|word,word|openers|word,word``."""
        return "|".join((",".join(sorted(self.lemmas)), ",".join(sorted(self.words)),
                         "1" if self.openers else "0", ",".join(sorted(self.leaners))))

    @classmethod
    def from_wire(cls, wire: str) -> Cues:
        """The cues a request header carries (``wire``); ``ValueError`` names what is wrong."""
        parts = wire.split("|")
        if len(parts) != 4 or parts[2] not in ("0", "1"):
            raise ValueError("cues are four fields: lemmas|words|openers (0 or 1)|leaners")

        def words(field: str) -> frozenset[str]:
            return frozenset(field.split(",")) if field else frozenset()

        return cls(words(parts[0]), words(parts[1]), parts[2] == "1", words(parts[3]))


def text_timeout(text: str) -> float:
    """Seconds the worker may take on ``text`` (``TIMEOUT_BASE_S`` plus one per
    ``TIMEOUT_CHARS_PER_S`` characters: 310 s for the longest text, ``MAX_CHARS``)."""
    return TIMEOUT_BASE_S + len(text) / TIMEOUT_CHARS_PER_S


class _Request:
    """A text sent to the worker, until its future has a result: kept so that a restarted
    worker can be sent it again."""

    __slots__ = ("cues", "deaths", "future", "proc", "sent_at", "text")

    def __init__(self, text: str, cues: Cues | None = None) -> None:
        self.text = text
        self.cues = cues
        self.future: Future[dict[str, Any]] = Future()
        self.proc: _Worker | None = None
        #: when it was last sent (monotonic); None while no live worker holds it
        self.sent_at: float | None = None
        self.deaths = 0

    def fail(self, exc: LanguageError) -> None:
        if not self.future.done():
            self.future.set_exception(exc)


class CoreNLP:
    """A CoreNLP worker process. Use as a context manager; ``annotate_many`` pipelines texts
    through the worker's threads and yields parsed documents in input order.

    >>> with CoreNLP() as nlp:
    ...     doc = nlp.annotate("Tesla was founded in July 2003.")

    ``timeout``: seconds per text instead of ``text_timeout``'s bound by length.
    ``annotators`` / ``properties``: another pipeline than the one facts read (the profile
    benchmark times subsets of it; facts read with the defaults only).
    ``annotate`` / ``annotate_many`` take ``cues``: read only the sentences that may say what
    the caller looks for (``Cues``); the others come back as no sentence at all and are
    counted in ``unread_sentences``.

    With ``DWQA_CORENLP_SOCKET`` set, a reader of the default pipeline starts no worker: it
    connects to the one ``dwqa nlp serve`` keeps loaded there (``corenlp_socket.py``), and a
    connection that drops is restarted as a worker that died is. ``shared=False``: always a
    worker of its own (the server's reader).
    """

    def __init__(self, *, threads: int | None = None, heap: str | None = None,
                 timeout: float | None = None, start_timeout: float = 600.0,
                 annotators: str = ANNOTATORS, properties: dict[str, str] | None = None,
                 shared: bool = True) -> None:
        self.threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.heap = heap or os.environ.get("DWQA_CORENLP_HEAP", "4g")
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.annotators = annotators
        self.properties = PROPERTIES if properties is None else properties
        self.shared = shared
        self._proc: _Worker | None = None
        self._pending: dict[str, _Request] = {}
        self._lock = threading.Lock()  # _proc and _pending change together under it
        self._ids = itertools.count()
        # One start or restart at a time (threads that submit their first text at once must
        # start one worker, not one each); reentrant: a restart sends texts again.
        self._starting = threading.RLock()
        #: Why the last restart failed: every later text fails with it at once instead of
        #: waiting for another worker that will not start.
        self._broken: WorkerError | None = None
        self.restarts = 0
        #: Sentences over ``MAX_SENTENCE_TOKENS`` the worker skipped, over this worker's life.
        self.skipped_sentences = 0
        #: Sentences left unread because they hold no cue (``cues``), over this worker's life.
        self.unread_sentences = 0

    @property
    def running(self) -> bool:
        """Whether a worker (or a connection to the shared one) is up."""
        return self._proc is not None

    @property
    def broken(self) -> WorkerError | None:
        """Why the worker could not be restarted (None while it runs or can start)."""
        return self._broken

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> CoreNLP:
        # the shared worker reads the default pipeline only
        shared = shared_socket() if self.shared else None
        if shared is not None and self.annotators == ANNOTATORS \
                and self.properties == PROPERTIES:
            return self._connect(shared)
        java = shutil.which("java")
        if not java:
            raise LanguageError("Java 17+ is needed to run Stanford CoreNLP: install "
                                "openjdk-17-jre.")
        classpath = corenlp_classpath()
        properties = dict(self.properties)
        if properties.get("ner.applyFineGrained") == "true" \
                and "ner.fine.regexner.mapping" not in properties:
            # The library's gazetteers, compiled so its matcher indexes every entry (same
            # tags, half the time: language/gazetteer.py).
            properties["ner.fine.regexner.mapping"] = fine_mapping(
                classpath, maven.user_cache_dir())
        proc = subprocess.Popen(
            [java, f"-Xmx{self.heap}", "-XX:+UseParallelGC",
             *maven.main_class(CORENLP_DIR / "DwqaCoreNLP.java", classpath, LanguageError),
             "--threads", str(self.threads),
             "--annotators", self.annotators, "--max-sentence-tokens", str(MAX_SENTENCE_TOKENS),
             *[a for k, v in properties.items() for a in ("--prop", f"{k}={v}")]],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._stderr_tail: list[str] = []
        threading.Thread(target=self._drain_stderr, args=(proc,), daemon=True).start()
        deadline = time.monotonic() + self.start_timeout
        ready = _readline_until(proc, deadline)
        if ready != b"ready\n":
            tail = "\n".join(self._stderr_tail[-20:])
            _stop(proc)
            raise LanguageError(f"Stanford CoreNLP did not start:\n{tail}")
        with self._lock:
            self._proc = proc
        threading.Thread(target=self._read, args=(proc,), daemon=True).start()
        return self

    def _connect(self, path: Path) -> CoreNLP:
        """Use the shared worker at ``path`` (its models may still be loading: wait for them
        as for a worker of this reader's own)."""
        conn = SocketWorker(path)
        ready = _readline_until(conn, time.monotonic() + self.start_timeout)
        if ready != b"ready\n":
            conn.kill()
            why = ready.decode("utf-8", "replace").strip() or "no greeting"
            raise LanguageError(f"the shared CoreNLP worker at {path} did not take this "
                                f"command: {why}")
        with self._lock:
            self._proc = conn
        threading.Thread(target=self._read, args=(conn,), daemon=True).start()
        return self

    def close(self) -> None:
        with self._lock:
            proc, self._proc = self._proc, None
            pending, self._pending = self._pending, {}
        if proc is None:
            return
        _stop(proc, gently=True)
        for req in pending.values():
            req.fail(LanguageError("the CoreNLP worker stopped"))

    def __enter__(self) -> CoreNLP:
        return self.start()

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _recover(self, dead: _Worker, culprit: _Request | None = None,
                 reason: LanguageError | None = None) -> bool:
        """Replace the worker ``dead`` -- timed out on ``culprit``, which fails with
        ``reason``, or died -- and send the other texts in flight with it again. Whoever
        notices first recovers: the reader at the end of the worker's output, or a reader of
        results at a timeout; the others find it replaced and return False."""
        with self._starting:
            with self._lock:
                if self._proc is not dead:
                    return False  # already replaced (or closed)
                self._proc = None
                orphans = [r for r in self._pending.values() if r is not culprit]
                self._pending = {}
                for req in orphans:
                    req.sent_at = None  # no timeout runs until it is sent again
            how = "timed out"
            if culprit is None:
                # It died on its own (killed, crashed): no text is known to be the cause, so
                # each one in flight is charged a death.
                try:
                    status = dead.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    status = None
                how = f"exit status {status}" if status is not None else "no exit status"
                for req in orphans:
                    req.deaths += 1
            _stop(dead)
            if culprit is not None and reason is not None:
                culprit.fail(reason)
            retry = []
            for req in orphans:
                if req.deaths > MAX_DEATHS_PER_TEXT:
                    req.fail(WorkerError(f"the CoreNLP worker died {req.deaths} times with "
                                         f"this text in flight (last: {how})"))
                else:
                    retry.append(req)
            self.restarts += 1
            try:
                self.start()
            except (LanguageError, OSError) as exc:
                self._broken = WorkerError("the CoreNLP worker stopped and could not be "
                                           f"restarted: {str(exc).splitlines()[0]}")
                for req in retry:
                    req.fail(self._broken)
                return True
        # Sent outside the lock: a write may wait for the fresh worker to take the text,
        # and a stall there must not keep the next recovery from starting.
        for req in retry:
            self._send(req)
        return True

    # -- the worker's streams ------------------------------------------------------------
    def _drain_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for line in lines(proc.stderr):
            self._stderr_tail = (self._stderr_tail + [line.decode("utf-8", "replace")])[-50:]

    def _read(self, proc: _Worker) -> None:
        assert proc.stdout is not None
        for line in lines(proc.stdout):
            rid, _, body = line.decode("utf-8").partition("\t")
            with self._lock:
                req = self._pending.pop(rid, None)
            if req is None or req.future.done():
                continue
            try:
                req.future.set_result(json.loads(body))
            except ValueError as exc:
                req.fail(LanguageError(f"CoreNLP sent a reply that is not JSON: {exc}"))
        # The worker's output ended: a restart or close stopped it (then it is no longer
        # the current worker and this returns at once) -- or it died.
        self._recover(proc)

    def _send(self, req: _Request) -> None:
        """Send ``req`` to the current worker (starting one if there is none). A worker that
        dies under the write leaves ``req`` pending: its recovery sends it again."""
        while True:
            with self._starting:
                if self._broken is not None:
                    req.fail(self._broken)
                    return
                if self._proc is None:
                    self.start()
            with self._lock:
                proc = self._proc
                if proc is None:
                    continue  # a restart between the two locks: wait for its worker
                rid = str(next(self._ids))
                self._pending[rid] = req
                req.proc, req.sent_at = proc, time.monotonic()
            break
        data = req.text.encode("utf-8", "replace")
        try:
            assert proc.stdin is not None
            cues = f" {req.cues.wire}" if req.cues is not None else ""
            proc.stdin.write(f"{rid} {len(data)}{cues}\n".encode() + data)
            proc.stdin.flush()
        except (OSError, ValueError):
            pass  # a dead worker (broken pipe) or one closed meanwhile: see the docstring

    def _submit(self, text: str, cues: Cues | None = None) -> _Request:
        req = _Request(text, cues)
        refused = screen(text)
        if refused is not None:
            req.fail(LanguageError(refused))
        else:
            self._send(req)
        return req

    def _result(self, req: _Request) -> Doc:
        return parse_doc(req.text, self._reply(req))

    def _reply(self, req: _Request) -> dict[str, Any]:
        limit = self.timeout if self.timeout is not None else text_timeout(req.text)
        waiting_since = time.monotonic()
        while True:
            try:
                data = req.future.result(timeout=min(limit, _POLL_S))
                break
            except FutureTimeout:
                with self._lock:
                    sent_at, proc = req.sent_at, req.proc
                if sent_at is None or time.monotonic() - max(sent_at, waiting_since) < limit:
                    continue
            # The worker may be stuck on this text: it fails, the others go to a fresh one.
            reason = LanguageError(f"CoreNLP took over {limit:.0f}s on a text of "
                                   f"{len(req.text):,} characters")
            if proc is not None and not self._recover(proc, culprit=req, reason=reason) \
                    and req.sent_at != sent_at:
                continue  # its worker died meanwhile and it was sent again: a new clock
            req.fail(reason)
            data = req.future.result()  # the reason -- or the reply, had it just come
            break
        if "error" in data:
            raise LanguageError(f"CoreNLP failed on a text: {data['error'][:300]}")
        skipped = data.get("skipped") or []
        unread = data.get("unread") or 0
        if skipped or unread:
            with self._lock:
                self.skipped_sentences += len(skipped)
                self.unread_sentences += unread
        return data

    # -- API -----------------------------------------------------------------------------
    def annotate(self, text: str, cues: Cues | None = None) -> Doc:
        """One text, parsed (only its sentences with ``cues``, if given). Raises
        ``LanguageError`` for a text the library cannot read (``WorkerError`` where the
        worker broke instead)."""
        return self._result(self._submit(text, cues))

    def reply(self, text: str, cues: Cues | None = None) -> dict[str, Any]:
        """The worker's reply for ``text`` as it came (what ``annotate`` parses), for a server
        that passes it on (``dwqa nlp serve``). Raises as ``annotate`` does."""
        return self._reply(self._submit(text, cues))

    def annotate_many(self, texts: Iterable[str | tuple[str, Cues | None]],
                      cues: Cues | None = None) -> Iterator[Doc | LanguageError]:
        """Each text's parse, in input order, or the ``LanguageError`` for that text (the
        rest go on). At most ``2 × threads`` texts are in flight at once. A text given as
        ``(text, cues)`` is read with its own cues instead of ``cues``."""
        window: list[_Request] = []
        for item in texts:
            text, own = item if isinstance(item, tuple) else (item, cues)
            window.append(self._submit(text, own))
            if len(window) >= 2 * self.threads:
                yield self._settle(window.pop(0))
        while window:
            yield self._settle(window.pop(0))

    def _settle(self, req: _Request) -> Doc | LanguageError:
        try:
            return self._result(req)
        except LanguageError as exc:
            return exc


#: How often a reader waiting for a text looks whether its clock ran out.
_POLL_S = 1.0


def _stop(proc: _Worker, *, gently: bool = False) -> None:
    """End a worker process and close its streams (their reader threads then end).
    ``gently``: close its input and let it finish what it holds first (10 s at most)."""
    try:
        if gently and proc.stdin:
            proc.stdin.close()
            proc.wait(timeout=10)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        pass
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream:
            # closing a broken pipe with unflushed bytes raises: the process is gone anyway
            with contextlib.suppress(OSError):
                stream.close()


def _readline_until(proc: _Worker, deadline: float) -> bytes:
    """The worker's first line, or b"" if it exits or the deadline passes first."""
    box: list[bytes] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: box.append(proc.stdout.readline()),  # type: ignore[union-attr]
                              daemon=True)
    reader.start()
    reader.join(max(0.0, deadline - time.monotonic()))
    return box[0] if box else b""
