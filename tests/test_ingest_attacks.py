"""Attacks on ingest (issue 12): each used to end the whole run, or to merge silently.

One file holds every bad record between good ones; the good ones are ingested and each bad
one is reported with its line and reason, as JSON lines and as a JSON array."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dwqa_graph.config import Settings
from dwqa_graph.graph.store import Store, WritePlan, WriteStats
from dwqa_graph.ingest.logs import MAX_RECORD_BYTES, ingest
from dwqa_graph.ingest.reader import BOM, MAX_DEPTH, Problem, parse_record

from .conftest import good_record as good, graph_fingerprint

BIG_SNIPPET_MB = 300


def records() -> list[tuple[bytes | None, str | None]]:
    """(record, reason it is rejected for or None); None as record = the 300 MB one."""
    deep = b'{"question": "deep?", "sources": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    port = json.dumps({**good(4), "sources": [
        {"id": 1, "url": "http://127.0.0.1:99999/x", "title": "bad port"},
        {"id": 2, "url": "https://ex.org/4/2", "title": "two"}]}).encode()
    huge_int = json.dumps(good(5)).encode()[:-1] + b', "n": ' + b"9" * 5000 + b"}"
    beyond = json.dumps({**good(6), "id": 2**63}).encode()
    return [
        (json.dumps(good(1)).encode(), None),
        (deep, "too_deep"),
        (json.dumps(good(3)).encode().replace(b"Question 3", b"Question \\ud800 3"),
         "invalid_unicode"),
        (port, None),  # kept: a warning names the URL; fetch records it as invalid_url
        (huge_int, "number_out_of_range"),
        (beyond, "number_out_of_range"),
        (None, "too_large"),
        (b'{"question": "a?", "question": "b?", "thinking": "x"}', "duplicate_key"),
        (json.dumps({**good(9), "id": "same"}).encode(), None),
        (json.dumps({**good(10), "id": "same"}).encode(), "conflict"),
        (json.dumps({**good(9), "id": "same"}).encode(), None),  # the same again: no-op
        (json.dumps({**good(12), "question": "Emoji \U0001f600?"}, ensure_ascii=True).encode(),
         None),  # an escaped surrogate PAIR is a character
        (json.dumps(good(13)).encode(), None),
    ]


def write(path: Path, as_array: bool) -> dict[int, str | None]:
    """Write the records (a BOM first); returns line -> expected rejection."""
    expected: dict[int, str | None] = {}
    with path.open("wb") as fh:
        fh.write(BOM + (b"[\n" if as_array else b""))
        line = 2 if as_array else 1
        for i, (record, reason) in enumerate(records()):
            sep = b",\n" if as_array and i else b"\n" if i else b""
            fh.write(sep)
            line += 1 if i else 0
            expected[line] = reason
            if record is None:  # streamed to disk: the test never holds 300 MB either
                fh.write(b'{"question": "big?", "sources": [{"id": 1, "url": "https://a/", '
                         b'"snippet": "')
                block = b"x" * (1 << 20)
                for _ in range(BIG_SNIPPET_MB):
                    fh.write(block)
                fh.write(b'"}]}')
            else:
                fh.write(record)
        fh.write(b"\n]\n" if as_array else b"\n")
    return expected


@pytest.mark.parametrize("as_array", [False, True], ids=["jsonl", "array"])
def test_every_bad_record_is_its_own_problem(store: Store, tmp_path: Path,
                                             as_array: bool) -> None:
    path = tmp_path / ("all.json" if as_array else "all.jsonl")
    expected = write(path, as_array)
    assert path.stat().st_size > BIG_SNIPPET_MB << 20 > MAX_RECORD_BYTES
    report = ingest(store, [path])
    rejected = {p.line: p.reason for p in report.problems if p.fatal}
    assert rejected == {line: r for line, r in expected.items() if r}
    assert all(p.file == str(path) for p in report.problems)
    n_good = sum(1 for r in expected.values() if r is None)
    assert report.records == len(expected)
    assert report.ingested == n_good  # the repeated identical record is written again
    warned = {(p.line, p.reason) for p in report.problems if not p.fatal}
    assert (min(expected) + 3, "invalid_url") in warned  # the port-99999 record
    questions = {r["q"] for r in store.read("MATCH (q:Query) RETURN q.text AS q")}
    assert questions == {"Question 1?", "Question 4?", "Question 9?", "Emoji \U0001f600?",
                         "Question 13?"}  # the first record after the BOM included
    [doc] = store.read("MATCH (d:Document) WHERE d.url CONTAINS ':99999' RETURN d.url AS u")
    assert doc["u"] == "http://127.0.0.1:99999/x"


def test_conflicting_id_is_not_merged_and_reingest_is_idempotent(store: Store,
                                                                tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps({**good(1), "id": 7}) + "\n")
    second = tmp_path / "second.jsonl"
    other = {**good(2), "id": 7, "sources": good(2)["sources"][:1],
             "thinking": "- Only one step [1]."}
    second.write_text(json.dumps(other) + "\n")
    # The same dataset name for both, so both records claim the same id.
    assert ingest(store, [first], dataset="d").ingested == 1
    before = graph_fingerprint(store)
    report = ingest(store, [second], dataset="d")
    assert (report.ingested, report.rejected_by_reason) == (0, {"conflict": 1})
    assert report.problems[0].line == 1 and "different content" in report.problems[0].detail
    assert graph_fingerprint(store) == before  # nothing of the second record was merged
    [q] = store.read("MATCH (q:Query) RETURN q.text AS text")
    assert q["text"] == "Question 1?"
    again = ingest(store, [first], dataset="d")  # the positive control: same content
    assert (again.ingested, again.rejected) == (1, 0)
    assert graph_fingerprint(store) == before
    # Under another dataset the same id is another record: no conflict.
    assert ingest(store, [second], dataset="other").ingested == 1


def test_depth_limit_is_not_a_limit_on_ordinary_nesting(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "nested.jsonl"
    ok = {**good(1), "extra": json.loads("[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2))}
    bad = {**good(2), "extra": json.loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))}
    path.write_text(json.dumps(ok) + "\n" + json.dumps(bad) + "\n")
    report = ingest(store, [path])
    assert report.ingested == 1  # the record just inside the limit
    assert [(p.line, p.reason) for p in report.problems if p.fatal] == [(2, "too_deep")]


class _PickyStore(Store):
    """The real store, except that the server itself refuses any write holding the
    question "poison?" (it runs a statement Neo4j fails): a stand-in for a record the
    server cannot take, which checks before the write did not catch."""

    def write_plan(self, plan: WritePlan) -> WriteStats:
        texts = [r["text"] for name, rows in plan.steps if name == "ingest/queries"
                 for r in rows]
        if "poison?" in texts:
            with self._session(read=False) as session:  # noqa: SLF001 - test only
                session.run("RETURN 1 / 0").consume()
        return super().write_plan(plan)


def test_a_record_the_server_refuses_is_that_records_problem(settings: Settings,
                                                             store: Store,
                                                             tmp_path: Path) -> None:
    path = tmp_path / "batch.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (
        good(1), {**good(2), "question": "poison?"}, good(3))) + "\n")
    with _PickyStore(settings) as picky:
        report = ingest(picky, [path])
    assert (report.ingested, report.rejected) == (2, 1)
    [problem] = [p for p in report.problems if p.fatal]
    assert (problem.line, problem.reason) == (2, "write_failed")
    assert "ArithmeticError" in problem.detail
    questions = {r["q"] for r in store.read("MATCH (q:Query) RETURN q.text AS q")}
    assert questions == {"Question 1?", "Question 3?"}


def test_non_json_literals_and_unfetchable_schemes(store: Store, tmp_path: Path) -> None:
    """Python's json reads NaN and Infinity, JSON has neither: each is its record's
    problem (a NaN id used to fall back to a content key). A source URL no fetch will ever
    take (file:, data:, gopher:, javascript:) is kept but warned about with its line."""
    path = tmp_path / "literals.jsonl"
    schemes = ["file:///etc/passwd", "data:text/html,hi", "gopher://ex.org/1",
               "javascript:alert(1)"]
    lines = [
        json.dumps(good(1))[:-1] + ', "id": NaN}',
        json.dumps(good(2))[:-1] + ', "score": Infinity}',
        json.dumps(good(3))[:-1] + ', "score": -Infinity}',
        json.dumps({**good(4), "sources": [{"id": i + 1, "url": u, "title": "t"}
                                           for i, u in enumerate(schemes)]}),
        json.dumps(good(5)),  # positive control
    ]
    path.write_text("\n".join(lines) + "\n")
    report = ingest(store, [path])
    assert {p.line: p.reason for p in report.problems if p.fatal} == {
        1: "malformed_json", 2: "malformed_json", 3: "malformed_json"}
    assert "NaN is not a JSON value" in report.problems[0].detail
    warned = [p for p in report.problems if not p.fatal]
    assert [(p.line, p.reason) for p in warned] == [(4, "blocked_scheme")] * 4
    assert all(u[:8] in p.detail for u, p in zip(schemes, warned, strict=True))
    assert report.ingested == 2


def test_depth_check_is_linear_on_escaped_quotes() -> None:
    """The depth scan skips strings; an unterminated string of escaped quotes used to be
    retried from every quote: quadratic, minutes for these 120 kB, days for a
    16 MB record."""
    record = b'{"question": "q?", "x": ' + b"[" * (MAX_DEPTH + 1) + b'"\\' * 60_000
    started = time.perf_counter()
    [problem] = parse_record(record, "f", 1)
    assert time.perf_counter() - started < 2.0
    assert isinstance(problem, Problem) and problem.reason == "too_deep"
