"""Bad input: every problem reported with file, line and reason; the rest ingested."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import MAX_TRANSCRIPT_CHARS, ingest
from dwqa_graph.ingest.synthetic import write_logs

from .conftest import good_record as good, graph_fingerprint


def test_every_kind_of_bad_record(store: Store, tmp_path: Path) -> None:
    lines: list[bytes] = [
        json.dumps(good(1)).encode(),                                   # 1 ok
        b'{"question": "broken", "answer": ',                           # 2 malformed
        json.dumps({"answer": "no question", "sources": []}).encode(),  # 3 missing field
        json.dumps({**good(4), "question": 42}).encode(),               # 4 wrong type
        json.dumps({**good(5), "thinking": "Claim [7]."}).encode(),     # 5 dangling cite
        json.dumps({**good(6), "sources": good(6)["sources"] + [
            {"id": 1, "url": "https://dup.example/", "title": "dup"}]}).encode(),  # 6 dup id
        json.dumps({**good(7), "thinking": ""}).encode(),               # 7 empty transcript
        json.dumps(good(8)).encode().replace(b"Question 8", b"Question \xff8"),  # 8 non-UTF-8
        json.dumps({**good(9), "thinking": "x" * (MAX_TRANSCRIPT_CHARS * 50)}).encode(),  # 9
        b"[1, 2, 3]",                                                   # 10 not an object
        json.dumps({"hello": "world"}).encode(),                        # 11 unknown format
        json.dumps({**good(12), "sources": [{"id": "one", "url": ""}] + good(12)["sources"]}
                   ).encode(),                                          # 12 bad source
        json.dumps(good(13)).encode(),                                  # 13 ok
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert path.stat().st_size > 50_000_000  # the 50 MB transcript is really there

    seen: list[str] = []
    report = ingest(store, [path], on_problem=lambda p: seen.append(str(p)))

    assert report.records == 13
    assert report.rejected_by_reason == {
        "invalid_field": 1, "malformed_json": 1, "missing_field": 1, "not_an_object": 1,
        "too_large": 1, "unknown_format": 1}
    assert report.warnings_by_reason == {
        "bad_source": 1, "dangling_citation": 1, "duplicate_source_id": 1,
        "empty_transcript": 1, "non_utf8": 1}
    assert (report.ingested, report.rejected) == (7, 6)
    by_line = {p.line: p for p in report.problems}
    assert by_line[2].reason == "malformed_json" and by_line[2].file == str(path)
    assert by_line[3].detail.startswith("question")
    assert by_line[9].reason == "too_large"
    assert any(s.startswith(f"{path}:5: warning: dangling_citation") for s in seen)
    assert store.counts()["Query"] == 7
    # The dangling citation is kept on the step, so it can be found later.
    rows = store.query("explore/missing_sources", query_id=None)
    assert [r["missing_cites"] for r in rows] == [[7]]
    # A bad source is dropped, its record kept with the good sources.
    [q12] = store.read("MATCH (q:Query {text: 'Question 12?'})-[:RETRIEVE]->(d) "
                       "RETURN count(d) AS n")
    assert q12["n"] == 2
    [q8] = store.read("MATCH (q:Query) WHERE q.text STARTS WITH 'Question \ufffd' "
                      "RETURN count(q) AS n")
    assert q8["n"] == 1


def test_malformed_array_element_does_not_lose_the_rest(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "array.json"
    body = ",\n".join([json.dumps(good(1)), '{"question": oops}', json.dumps(good(3))])
    path.write_text("[\n" + body + "\n]\n")
    report = ingest(store, [path])
    assert report.ingested == 2
    assert report.rejected_by_reason == {"malformed_json": 1}
    assert report.problems[0].line == 3


def test_kill_and_rerun_converges_to_a_clean_run(store: Store, env: dict[str, str],
                                                tmp_path: Path) -> None:
    path = write_logs(tmp_path / "big.jsonl", 800, sources=15, steps=10)
    cmd = [sys.executable, "-m", "dwqa_graph.cli", "ingest", str(path), "--json"]
    full_env = {**os.environ, **env}
    proc = subprocess.Popen(cmd, env=full_env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    # Kill it once some, but not all, of the records are committed.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        n = store.counts().get("Query", 0)
        if n > 0:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = store.counts().get("Query", 0)
    assert 0 < partial < 800, partial
    subprocess.run(cmd, env=full_env, check=True, capture_output=True)
    resumed = graph_fingerprint(store)
    store.wipe()
    subprocess.run(cmd, env=full_env, check=True, capture_output=True)
    assert graph_fingerprint(store) == resumed
