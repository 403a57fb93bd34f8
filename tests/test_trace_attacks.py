"""Hostile traces: JSON hidden in span attributes, spans that are no spans, runs sharing a
trace id. Each bad trace or record is its own counted problem with its line; the good traces
before and after it in the same file are ingested, and nothing of a bad one is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest import traces
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.ingest.reader import MAX_DEPTH

from .conftest import example_run, genai_spans, graph_fingerprint, openinference_spans, otlp

DEEP = 100_000


def _set(spans: list[dict[str, Any]], span_id: str, key: str, value: str) -> None:
    """Replace (or add) one attribute of one span, as the raw string an exporter wrote."""
    [span] = [s for s in spans if s["spanId"] == span_id]
    span["attributes"] = [a for a in span["attributes"] if a["key"] != key] + [
        {"key": key, "value": {"stringValue": value}}]


def hostile_file(path: Path) -> tuple[dict[int, str], dict[str, str]]:
    """One JSONL file of good and hostile trace records; returns line -> the reason its
    record (or the trace at fault there) is rejected, and the good traces' questions."""
    runs = [example_run(k) for k in range(3)]
    good_a = genai_spans(runs[0], "aa01")
    deep_messages = genai_spans(runs[1], "bb02")
    _set(deep_messages, "a0", "gen_ai.input.messages", "[" * DEEP + "]" * DEEP)
    deep_arguments = genai_spans(runs[1], "cc03")
    _set(deep_arguments, "t0", "gen_ai.tool.call.arguments", "[" * DEEP + "]" * DEEP)
    deep_metadata = openinference_spans(runs[1], "dd04")
    _set(deep_metadata, "b1", "retrieval.documents.0.document.metadata",
         '{"a": ' * 1_000 + "1" + "}" * 1_000)
    good_e = openinference_spans(runs[1], "ee05")
    no_trace_id = [{k: v for k, v in s.items() if k != "traceId"}
                   for s in genai_spans(runs[2], "ff06")]
    bad_attributes = genai_spans(runs[2], "ab07")
    bad_attributes[1]["attributes"] = 42
    # Two runs under one trace id, with the same span ids: never one seed graph.
    twin_1, twin_2 = genai_spans(runs[0], "cd08"), genai_spans(runs[2], "cd08")
    # The same span ids as good_a under another trace id: a separate run, kept apart.
    good_g = genai_spans(runs[2], "ef09")
    lines = [
        (otlp(good_a), None),
        (otlp(deep_messages), "too_deep"),
        (otlp(deep_arguments), "too_deep"),
        (otlp(deep_metadata), "too_deep"),
        (otlp(good_e), None),
        (otlp(no_trace_id), "no_trace_id"),
        ({"resourceSpans": []}, "no_spans"),
        (otlp(bad_attributes), "invalid_span"),
        (otlp(twin_1), None),
        (otlp(twin_2), "span_conflict"),
        (otlp(good_g), None),
        (otlp(good_a), None),  # the same batch sent again: its spans are kept once
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record, _ in lines))
    return ({n: reason for n, (_, reason) in enumerate(lines, start=1) if reason},
            {"aa01": runs[0]["question"], "ee05": runs[1]["question"],
             "ef09": runs[2]["question"]})


def test_hostile_traces_are_per_record_problems(store: Store, env: dict[str, str],
                                                tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    expected, questions = hostile_file(path)
    result = CliRunner().invoke(main, ["ingest", str(path), "--json"], env=env)
    # A run with rejected records completes: exit 0, the report says what was rejected.
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # one valid JSON document, nothing else
    assert (report["records"], report["traces"]) == (12, 8)
    assert report["ingested"] == 3
    assert report["rejected_by_reason"] == {"invalid_span": 1, "no_spans": 1,
                                            "no_trace_id": 1, "span_conflict": 1,
                                            "too_deep": 3}
    assert report["rejected"] == sum(report["rejected_by_reason"].values())
    assert report["warnings_by_reason"] == {"duplicate_span": 1}
    rejected = {p["line"]: p["reason"] for p in report["problems"] if p["fatal"]}
    assert rejected == expected
    for line, reason in expected.items():  # each named on stderr with its file and line
        assert f"{path}:{line}: rejected: {reason}" in result.stderr
    details = {p["line"]: p["detail"] for p in report["problems"]}
    assert "trace bb02: span a0 (invoke_agent)" in details[2]
    assert f"nested {DEEP:,} deep (limit {MAX_DEPTH})" in details[2]
    assert "span t0" in details[3] and "span b1" in details[4]
    assert "at line 9 and again at line 10" in details[10]
    assert "Traceback" not in result.output
    # The good traces before and after the bad ones, each its own seed graph; the spans
    # shared with good_a's ids (ef09) did not join it, and no twin was merged.
    got = {r["id"]: r["q"] for r in store.read(
        "MATCH (q:Query) RETURN q.text AS q, q.id AS id")}
    assert sorted(got.values()) == sorted(questions.values())
    before = graph_fingerprint(store)
    assert before["node:Query"] == 3

    again = CliRunner().invoke(main, ["ingest", str(path), "--json"], env=env)
    assert again.exit_code == 0
    second = json.loads(again.stdout)
    assert {k: second[k] for k in ("ingested", "rejected_by_reason", "warnings_by_reason")} \
        == {k: report[k] for k in ("ingested", "rejected_by_reason", "warnings_by_reason")}
    assert graph_fingerprint(store) == before  # a re-run converges: no duplicates


def test_attribute_json_goes_through_the_record_decoder(store: Store, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        ) -> None:
    """What a record may not hold, a JSON attribute may not either; text stays text."""
    monkeypatch.setattr(traces, "MAX_VALUE_CHARS", 5_000)  # a small bound: a small test
    run = example_run(0)
    messages = json.dumps([{"role": "user", "content": run["question"]}])
    dup = genai_spans(run, "d1")
    _set(dup, "a0", "gen_ai.input.messages", messages[:-1] + ', {"role": "user", '
         '"content": "a second question?", "content": "a third?"}]')
    big = genai_spans(run, "d2")
    _set(big, "a0", "gen_ai.input.messages", json.dumps(
        [{"role": "system", "content": "x" * 6_000}, {"role": "user", "content": "q?"}]))
    # Positive controls: text that merely starts like JSON, a long page text (a tool's
    # result is often text) that starts like it, and a number no int64 holds are text.
    # (Without the retrieval span: its documents' JSON is longer than this small bound.)
    text = [s for s in genai_spans(run, "d3") if s["spanId"] != "r1"]
    _set(text, "a0", "gen_ai.input.messages", "[draft] " + run["question"])
    _set(text, "t0", "gen_ai.tool.call.result", "[1] " + "page text " * 1_000)
    _set(text, "c9", "gen_ai.output.messages", "1" * 40)
    path = tmp_path / "attrs.jsonl"
    path.write_text("".join(json.dumps(otlp(s)) + "\n" for s in (dup, big, text)))
    report = ingest(store, [path])
    assert {p.line: p.reason for p in report.problems if p.fatal} == {
        1: "duplicate_key", 2: "too_large"}
    assert report.ingested == 1
    [row] = store.read("MATCH (q:Query)-[:RETRIEVE]->(d)-[:HAS_VERSION]->(v) "
                       "WHERE v.text STARTS WITH '[1] ' RETURN q.text AS q, size(v.text) AS n")
    assert row["q"] == "[draft] " + run["question"]
    assert row["n"] == 5_001  # cut to the bound (and the one character that shows the cut)


def test_span_bounds_reject_the_trace_not_half_of_it(store: Store, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    run = example_run(2)
    spans = genai_spans(run, "f1")
    monkeypatch.setattr(traces, "MAX_SPANS_PER_TRACE", len(spans) - 1)
    other = genai_spans(example_run(0), "f2")[:len(spans) - 1]
    path = tmp_path / "bounds.jsonl"
    path.write_text(json.dumps(otlp(spans)) + "\n" + json.dumps(otlp(other)) + "\n")
    report = ingest(store, [path])
    assert report.rejected_by_reason == {"too_many_spans": 1}
    [problem] = [p for p in report.problems if p.fatal]
    assert problem.line == 1 and "trace f1" in problem.detail
    assert report.ingested == 1  # f2: just inside the bound
    # The file's bound: the trace whose spans run past it is rejected, not built from the
    # spans that came before.
    monkeypatch.setattr(traces, "MAX_SPANS_PER_TRACE", 10_000)
    monkeypatch.setattr(traces, "MAX_SPANS_PER_FILE", len(spans) - 1)
    store.wipe()
    path.write_text(json.dumps(otlp(spans)) + "\n")
    report = ingest(store, [path])
    assert report.rejected_by_reason == {"too_many_spans": 2}  # the record, and its trace
    assert report.ingested == 0 and store.counts().get("Query", 0) == 0
    # The documents' bound: the first are kept, the rest counted.
    monkeypatch.setattr(traces, "MAX_SPANS_PER_FILE", 200_000)
    monkeypatch.setattr(traces, "MAX_SOURCES", 1)
    report = ingest(store, [path])
    assert report.ingested == 1 and report.warnings_by_reason["too_many_sources"] == 1
    assert f"{len(run['sources']) - 1:,} documents past" in next(
        p.detail for p in report.problems if p.reason == "too_many_sources")
    assert store.counts()["Document"] == 1
    # The attributes' bound: a tool span's fourth attribute (its result) is left out, and
    # counted; the trace is still ingested, its documents without their text.
    monkeypatch.setattr(traces, "MAX_SOURCES", 200)
    monkeypatch.setattr(traces, "MAX_ATTRIBUTES", 3)
    store.wipe()
    report = ingest(store, [path])
    assert report.ingested == 1 and report.warnings_by_reason == {"values_cut": 1}
    tools = [s for s in spans if s["spanId"].startswith("t")]
    assert tools and len(tools[0]["attributes"]) == 4
    assert report.problems[0].detail.startswith(f"{len(tools)} attribute values cut")

