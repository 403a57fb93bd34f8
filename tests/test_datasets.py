"""Static benchmarks: HotpotQA JSON and FreshQA CSV import, bad records, re-import."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from dwqa_graph.errors import InputError, NotFoundError, UsageError
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
    with pytest.raises(InputError, match="no importable freshqa records.*no_header 1"):
        import_static(store, bad, "x")
    # Nothing left behind: no set, no items.
    assert list_static(store) == []
    assert store.read("MATCH (n) WHERE n:StaticSet OR n:StaticItem RETURN count(n) AS n") == [
        {"n": 0}]
    with pytest.raises(NotFoundError, match="no static dataset named .x."):
        static_items(store, "x")


@pytest.mark.parametrize("fmt", ["auto", "hotpotqa"])
def test_every_importer_refuses_a_file_without_rows(store: Store, tmp_path: Path,
                                                    fmt: str) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    with pytest.raises(InputError, match="no importable hotpotqa records"):
        import_static(store, empty, "e", fmt)
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"question": ""}\nnot json\n')
    with pytest.raises(InputError, match="malformed_json 1, no_question 1"):
        import_static(store, junk, "e", fmt)
    assert list_static(store) == []


def _as_tsv(src: Path, dst: Path) -> Path:
    with src.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    with dst.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter="\t").writerows(rows)
    return dst


def test_a_tsv_copy_imports_the_same_items(store: Store, tmp_path: Path) -> None:
    """A spreadsheet's TSV download of FreshQA, and a CSV merely renamed .tsv: both import
    exactly what the CSV does (before, the TSV imported 0 rows and exited 0)."""
    csv_report = import_static(store, DATA / "freshqa_sample.csv", "csv")
    tsv = _as_tsv(DATA / "freshqa_sample.csv", tmp_path / "freshqa.tsv")
    assert "\t" in tsv.read_text()  # positive control: really tab-separated
    tsv_report = import_static(store, tsv, "tsv")
    renamed = tmp_path / "renamed.tsv"
    renamed.write_bytes((DATA / "freshqa_sample.csv").read_bytes())
    renamed_report = import_static(store, renamed, "renamed")
    assert (csv_report.imported, tsv_report.imported, renamed_report.imported) == (3, 3, 3)

    def view(name: str) -> list[tuple[str, list[str], bool | None]]:
        return [(i.question, i.golds, i.false_premise) for i in static_items(store, name)]

    assert view("tsv") == view("csv") == view("renamed")


def test_freshqa_fields_are_queryable_and_splits_evaluable(store: Store,
                                                           tmp_path: Path) -> None:
    text = (DATA / "freshqa_sample.csv").read_text()
    # Give the rejected DEV row (no question) one, so both splits exist.
    text = text.replace("3,DEV,,2024", "3,DEV,How many stops does the line have?,2024")
    path = tmp_path / "fresh.csv"
    path.write_text(text)
    assert import_static(store, path, "fresh").imported == 4
    rows = store.read(
        "MATCH (:StaticSet {name: 'fresh'})-[:CONTAINS]->(i:StaticItem) "
        "RETURN i.key AS key, i.split AS split, i.false_premise AS fp, "
        "i.effective_year AS year, i.next_review AS review, i.fact_type AS fact "
        "ORDER BY key")
    assert rows == [
        {"key": "1", "split": "test", "fp": False, "year": "before 2022",
         "review": "occasionally", "fact": "never-changing"},
        {"key": "2", "split": "test", "fp": False, "year": "2023", "review": "yearly",
         "fact": "slow-changing"},
        {"key": "3", "split": "dev", "fp": False, "year": "2024", "review": "yearly",
         "fact": "fast-changing"},
        {"key": "4", "split": "test", "fp": True, "year": "2024", "review": "never",
         "fact": "false-premise"}]
    # Cypher can filter on them directly.
    [fp] = store.read("MATCH (i:StaticItem {false_premise: true}) RETURN i.key AS key")
    assert fp == {"key": "4"}
    assert [i.id for i in static_items(store, "fresh", "dev")] == [
        next(i.id for i in static_items(store, "fresh") if i.question.startswith("How many s"))]
    assert len(static_items(store, "fresh", "test")) == 3
    assert len(static_items(store, "fresh")) == 4
    assert [i.false_premise for i in static_items(store, "fresh", "test")] == [
        False, False, True]
    with pytest.raises(NotFoundError, match="no 'dev' items"):
        import_static(store, DATA / "freshqa_sample.csv", "sample")
        static_items(store, "sample", "dev")
    with pytest.raises(UsageError, match="--split must be one of dev, test"):
        static_items(store, "fresh", "train")


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
