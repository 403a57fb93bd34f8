"""Attacks on the facts stage (issue 46): hostile text that stalled Stanford CoreNLP for
minutes, and a CoreNLP worker killed mid-run. Real CoreNLP, real Neo4j, the real CLI.

Bounds under test (``language/corenlp.py``): ``screen`` refuses a text that is not prose
before it is sent; the worker skips a sentence over ``MAX_SENTENCE_TOKENS``; a worker that
dies is restarted and the texts in flight are sent again, once each."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dwqa_graph.errors import LanguageError, WorkerError
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import MAX_SENTENCE_TOKENS, CoreNLP, screen
from dwqa_graph.web.extract import extract

from .conftest import FACT_PAGES as PAGES, ingest_pages
from .paths import EXAMPLES

#: The hostile pages of the report: 39,000 random Latin-1 characters, bracket nests, and a
#: list of names and dates run on without a full stop (one "sentence" of ~11,000 tokens).
_rng = random.Random(46)
GARBAGE = "".join(chr(_rng.randrange(0x20, 0x100)) for _ in range(39_000))
BRACKETS = "([{" * 6_500 + "}])" * 6_500
RUN_ON = ", ".join(f"{_rng.choice(['Anna', 'Carl', 'Maria', 'Olof', 'Petra'])} "
                   f"{_rng.choice(['Berg', 'Dahl', 'Lind', 'Holm', 'Vik'])}, "
                   f"{_rng.randrange(1, 29)} May {_rng.randrange(1800, 2000)}"
                   for _ in range(1_600))[:39_000]


def example_pages() -> dict[str, str]:
    """The example web's pages as extracted text: ordinary prose nobody wrote for this test."""
    pages = {}
    for path in sorted((EXAMPLES / "web").glob("*.html")):
        page = extract(path.read_text(encoding="utf-8"), url=f"http://local/{path.name}")
        pages[page.title or path.stem] = page.text or ""
    return pages


# -- refused before parsing ------------------------------------------------------------------
def test_garbage_is_refused_before_anything_is_sent() -> None:
    assert "not English prose: 24% of its" in (screen(GARBAGE) or "")
    assert "not English prose: 0% of its" in (screen(BRACKETS) or "")
    # another script is no English either; a heading of digits is too short to matter
    assert "not English prose" in (screen("東京都は日本の首都である。" * 40) or "")
    assert screen("1990–2001 (12 seasons)") is None
    # Positive control: every ordinary page passes, and so does a long one.
    pages = example_pages()
    assert len(pages) >= 10 and all(screen(t) is None for t in [*pages.values(), *PAGES.values()])
    assert screen(("\n".join(pages.values()) * 3)[:40_000]) is None
    # A worker never started: the refusals are the library's answer, no JVM asked.
    worker = CoreNLP(threads=1)
    got = list(worker.annotate_many([GARBAGE, BRACKETS]))
    assert all(isinstance(g, LanguageError) and "not English prose" in str(g) for g in got)
    assert worker._proc is None and worker.restarts == 0


def test_a_run_on_sentence_is_skipped_and_the_rest_read(nlp: CoreNLP) -> None:
    assert screen(RUN_ON) is None  # letters and words: it looks like prose
    before = nlp.skipped_sentences
    text = f"Paris is in France.\n{RUN_ON}\nTesla was founded in July 2003."
    started = time.perf_counter()
    doc = nlp.annotate(text)
    took = time.perf_counter() - started
    assert nlp.skipped_sentences == before + 1
    assert [text[s.start:s.end] for s in doc.sentences] == [
        "Paris is in France.", "Tesla was founded in July 2003."]
    # The offsets are the text's: the sentence after the skipped one is where it was, its
    # date read as before.
    [date] = [t.norm for t in doc.sentences[1].tokens if t.ner == "DATE"][:1]
    assert date == "2003-07"
    assert took < 60, f"{took:.0f}s for a text whose long sentence is skipped"
    # Control: a sentence at the limit is read.
    at_limit = " ".join(["word"] * (MAX_SENTENCE_TOKENS - 1)) + "."
    assert len(nlp.annotate(at_limit).sentences[0].tokens) == MAX_SENTENCE_TOKENS
    assert nlp.skipped_sentences == before + 1


def test_a_garbage_page_beside_ordinary_pages(store: Store, nlp: CoreNLP,
                                              tmp_path: Path) -> None:
    pages = {**PAGES, "Noise": GARBAGE, "Nests": BRACKETS, "Roll": RUN_ON}
    ingest_pages(store, tmp_path, pages)
    report = extract_facts(store, nlp=nlp)
    # Only the two pages that are no prose fail, each with its reason; the run-on list is
    # read without its one long sentence; the ordinary pages get their facts.
    assert (report.versions, report.failed_versions, report.reader_failures) == (7, 2, 0)
    assert sorted(p.split(": ", 1)[1][:17] for p in report.problems) == [
        "not English prose"] * 2
    assert {p.split(" ")[2] for p in report.problems} == {"(Noise):", "(Nests):"}
    assert report.sentences_skipped == 1
    got = {(r["s"], r["rel"]) for r in store.read(
        "MATCH (s)<-[:SUBJECT]-(f:Fact) RETURN s.name AS s, f.relation AS rel")}
    assert {("Titanic", "directed_by"), ("James Cameron", "born"), ("Ridley Scott", "born"),
            ("Ed Wood", "born")} <= got
    # A re-run converges: it reads only the two refused pages, and refuses them again at
    # once (the measured cost is in benchmarks/bench_facts_attacks.py).
    started = time.perf_counter()
    again = extract_facts(store, nlp=nlp)
    assert (again.versions, again.failed_versions, again.facts) == (2, 2, 0)
    assert time.perf_counter() - started < 60


# -- a killed worker -------------------------------------------------------------------------
def java_children(pid: int) -> list[int]:
    """The JVMs ``pid`` started (its CoreNLP worker; a restart's replaces the old one)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            name = stat.read_text().split("(", 1)[1].rsplit(")", 1)[0]
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[1]) == pid and name == "java":
            kids.append(int(stat.parent.name))
    return kids


def versions_read(store: Store) -> int:
    return store.read("MATCH (v:DocumentVersion) WHERE v.facts_extractor IS NOT NULL "
                      "RETURN count(v) AS n")[0]["n"]


def wait_for(what: str, check: object, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@pytest.fixture
def facts_cli(env: dict[str, str]) -> Iterator[list[subprocess.Popen[str]]]:
    """`dwqa facts --json` runs started by a test; any still running at its end is stopped."""
    runs: list[subprocess.Popen[str]] = []
    yield runs
    for run in runs:
        if run.poll() is None:
            run.kill()
            run.wait()


def start_facts(env: dict[str, str], runs: list[subprocess.Popen[str]]
                ) -> subprocess.Popen[str]:
    run = subprocess.Popen([sys.executable, "-m", "dwqa_graph.cli", "facts", "--json"],
                           env={**os.environ, **env, "DWQA_CORENLP_HEAP": "2g"},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    runs.append(run)
    return run


def short_pages(n: int) -> dict[str, str]:
    """``n`` one-line pages: more than the 50 versions the stage pages its reads by."""
    return {f"Filmmaker {i}": f"Filmmaker {i} (born {1 + i % 28} May {1900 + i}) is a "
            f"Norwegian director. Filmmaker {i} directed The Northern Glass {i} in "
            f"{1930 + i}." for i in range(n)}


def test_a_worker_killed_mid_run_is_restarted_and_the_run_finishes(
        store: Store, env: dict[str, str], tmp_path: Path,
        facts_cli: list[subprocess.Popen[str]]) -> None:
    pages = short_pages(60)
    ingest_pages(store, tmp_path, pages)
    run = start_facts(env, facts_cli)
    wait_for("a first version read", lambda: versions_read(store) >= 1)
    [worker] = java_children(run.pid)
    os.kill(worker, signal.SIGKILL)
    out, err = run.communicate(timeout=900)
    assert versions_read(store) == len(pages), err[-2000:]  # every page read
    # Positive control of the exit code: a restart recovered everything, so exit 0.
    assert run.returncode == 0, err[-2000:]
    report = json.loads(out)
    assert report["worker_restarts"] == 1
    assert (report["versions"], report["failed_versions"], report["reader_failures"]) \
        == (len(pages), 0, 0), report["problems"]
    assert "Broken pipe" not in err and "Traceback" not in err


def test_a_worker_that_cannot_be_restarted_fails_the_run_and_a_rerun_converges(
        store: Store, env: dict[str, str], tmp_path: Path,
        facts_cli: list[subprocess.Popen[str]]) -> None:
    pages = example_pages()
    ingest_pages(store, tmp_path, pages)
    run = start_facts(env, facts_cli)
    wait_for("a first version read", lambda: versions_read(store) >= 1)
    [worker] = java_children(run.pid)
    os.kill(worker, signal.SIGKILL)
    # Its replacement is killed while it loads its models: it never says it is ready.
    wait_for("a second worker", lambda: set(java_children(run.pid)) - {worker}, 60)
    [second] = java_children(run.pid)
    os.kill(second, signal.SIGKILL)
    out, err = run.communicate(timeout=900)
    assert run.returncode == 1
    report = json.loads(out)  # the report still comes, as one JSON document
    read = versions_read(store)
    assert 1 <= read < len(pages)
    assert report["reader_failures"] == len(pages) - read and report["failed_versions"] == 0
    [error] = [line for line in err.splitlines() if line.startswith("dwqa: error:")]
    assert "the reader broke" in error and f"{len(pages) - read} versions" in error
    assert "could not be restarted" in err and "Traceback" not in err
    # A re-run reads exactly what was left, and exits 0.
    rerun = start_facts(env, facts_cli)
    out, err = rerun.communicate(timeout=900)
    assert rerun.returncode == 0, err[-2000:]
    assert json.loads(out)["versions"] == len(pages) - read
    assert versions_read(store) == len(pages)


def test_a_text_in_flight_at_two_deaths_fails_alone(store: Store, tmp_path: Path) -> None:
    """The worker is killed twice while one page's text is in flight: that page fails as
    the reader's failure (not its text's), every other page is read, a re-run reads it."""
    pages = example_pages()
    ingest_pages(store, tmp_path, pages)
    marker = next(iter(pages.values()))[:200]  # one page's text, whenever it is sent
    kills: list[int] = []
    stop = threading.Event()

    with CoreNLP(threads=1, heap="2g") as worker:
        def killer() -> None:
            while not stop.is_set() and len(kills) < 2:
                with worker._lock:
                    proc = worker._proc
                    flight = [r for r in worker._pending.values() if r.proc is proc]
                if proc is not None and any(r.text.startswith(marker) for r in flight):
                    os.kill(proc.pid, signal.SIGKILL)
                    kills.append(proc.pid)
                    wait_for("the restart", lambda p=proc: worker._proc not in (p, None))
                time.sleep(0.05)

        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
        try:
            report = extract_facts(store, nlp=worker)
        finally:
            stop.set()
            thread.join()
        assert len(kills) == 2 and worker.restarts == 2
        assert report.failed_versions == 0
        assert 1 <= report.reader_failures == len(report.problems) <= 2  # the text, its
        # neighbour in the window if it was in flight at both deaths too
        assert "died 2 times with this text in flight" in report.problems[0]
        assert versions_read(store) == len(pages) - report.reader_failures
        again = extract_facts(store, nlp=worker)
        assert (again.versions, again.reader_failures) == (report.reader_failures, 0)
        assert versions_read(store) == len(pages)


def test_a_worker_error_is_a_language_error() -> None:
    """Callers that catch LanguageError (the decomposing agent) still catch a broken
    worker; the stage tells the two apart."""
    assert issubclass(WorkerError, LanguageError)
