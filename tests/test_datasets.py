"""Static benchmarks: HotpotQA JSON and FreshQA CSV import, bad records, re-import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dwqa_graph.errors import NotFoundError
from dwqa_graph.evaluation.datasets import import_static, list_static, static_items
from dwqa_graph.graph.store import Store

from .conftest import DATA, HOTPOT


def test_hotpotqa_import_keeps_every_item(store: Store) -> None:
    report = import_static(store, HOTPOT, "hotpot")
    raw = json.loads(HOTPOT.read_text())
    assert report.format == "hotpotqa" and report.imported == len(raw) == 27
    items = static_items(store, "hotpot")
    assert [i.question for i in items] == [r["question"] for r in raw]  # file order
    assert [i.golds for i in items] == [[r["answer"]] for r in raw]
    assert {i.pattern for i in items} == {"bridge", "comparison"} and {i.hops for i in items} == {2}
    # Re-importing the same file changes nothing.
    before = store.read("MATCH (i:StaticItem) RETURN count(i) AS n")[0]["n"]
    import_static(store, HOTPOT, "hotpot")
    assert store.read("MATCH (i:StaticItem) RETURN count(i) AS n")[0]["n"] == before
    assert list_static(store)[0] | {"file": None, "imported_at": None} == {
        "name": "hotpot", "format": "hotpotqa", "file": None, "imported_at": None, "items": 27}


def test_freshqa_csv_with_preamble_and_bad_rows(store: Store) -> None:
    problems = []
    report = import_static(store, DATA / "freshqa_sample.csv", "fresh",
                           on_problem=problems.append)
    assert report.format == "freshqa"
    assert report.imported == 3 and report.rejected == 2
    assert report.rejected_by_reason == {"no_question": 1, "no_answer": 1}
    # Lines are where the records start in the file (row 2 spans lines 5-7).
    assert sorted((p.line, p.reason) for p in problems) == [(8, "no_question"),
                                                              (10, "no_answer")]
    items = {i.question.split()[0]: i for i in static_items(store, "fresh")}
    assert items["In"].golds == ["Valmora", "the city of Valmora"]
    two = items["How"]
    assert two.golds == ["9 years", "nine years", "9"] and two.hops == 2
    assert "\n" in two.question and two.pattern == "slow-changing"
    assert items["What"].pattern == "false-premise" and items["What"].hops == 1


def test_freshqa_without_a_header_is_an_error_not_an_empty_set(store: Store,
                                                               tmp_path: Path) -> None:
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    report = import_static(store, bad, "x")
    assert report.imported == 0 and report.rejected_by_reason == {"no_header": 1}
    with pytest.raises(NotFoundError, match="no static dataset named 'x'"):
        static_items(store, "x")


def test_hotpotqa_bad_records_are_reported_with_lines(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"_id": "a", "question": "Q1?", "answer": "A1"}\n'
                    '{"_id": "b", "question": "", "answer": "A2"}\n'
                    'not json\n'
                    '{"_id": "a", "question": "Q1 again?", "answer": "A1"}\n'
                    '{"_id": "c", "question": "Q3?"}\n')
    problems = []
    report = import_static(store, path, "h", "hotpotqa", on_problem=problems.append)
    assert report.imported == 1
    assert sorted((p.line, p.reason) for p in problems) == [
        (2, "no_question"), (3, "malformed_json"), (4, "duplicate_id"), (5, "no_answer")]
