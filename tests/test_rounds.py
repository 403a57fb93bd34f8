"""Rounds: reproducibility, export, freezing and collisions of paths rounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.errors import RoundFrozenError
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import collisions, export_round, freeze_round, new_round
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from tests.paths import EXAMPLES


@pytest.fixture
def films(store: Store, nlp: CoreNLP, tmp_path: Path) -> Store:
    """The example's film pages (served on loopback, fetched) with claims and typed facts:
    ten seed graphs, each with fact paths. On a free port: document ids, and so which
    paths a round draws, differ from run to run; what a test asserts does not depend on
    them (tests/test_path_wording.py pins the port for exact items)."""
    with serve(EXAMPLES / "web") as web:
        text = (EXAMPLES / "logs" / "film_runs.jsonl").read_text()
        log = tmp_path / "films.jsonl"
        log.write_text(text.replace("http://127.0.0.1:8765", web.url))
        ingest(store, [log], dataset="films")
        fetch(store, FetchOptions(allow_private=True))
    extract_claims(store, extractor="rule")
    extract_facts(store, nlp=nlp)
    return store


def test_round_reproducible_exported_frozen(films: Store, tmp_path: Path) -> None:
    store = films
    report = new_round(store, seed=1, generator=PathGenerator())
    assert report.graphs == 10 and report.items >= 5
    assert report.no_item == report.graphs - report.items  # nothing silently dropped
    # Every item traces to its facts' evidence sentences, verbatim at their offsets.
    rows = store.read(
        "MATCH (:Round {t: 1})-[:CONTAINS]->(i:QAItem)-[:USES]->(f:Fact)-[:READ_FROM]->"
        "(v:DocumentVersion) WITH i, count(f) AS facts, "
        "all(x IN collect(substring(v.text, f.start, f.end - f.start) = f.evidence) WHERE x) "
        "AS ok RETURN min(facts) AS min_facts, all(o IN collect(ok) WHERE o) AS spans_ok")
    assert rows[0]["min_facts"] >= 2 and rows[0]["spans_ok"] is True
    # Same seed, same graphs, same θ: byte-identical items apart from the round number
    # (previous=0: no previous round's facts to avoid, as for round 1; tests/test_reuse.py).
    again = new_round(store, seed=1, generator=PathGenerator(), previous=0)
    new_round(store, seed=2, generator=PathGenerator(), previous=0)
    out = {t: tmp_path / f"r{t}.jsonl" for t in (1, 2, 3)}
    for t, path in out.items():
        export_round(store, t, path)

    def lines(t: int) -> list[str]:
        return [json.dumps({k: v for k, v in json.loads(line).items() if k != "round"},
                           sort_keys=True) for line in out[t].read_text().splitlines()]

    assert again.round == 2 and lines(1) == lines(2)
    assert lines(1) != lines(3)  # a new seed draws other paths
    row = json.loads(out[1].read_text().splitlines()[0])
    assert {"question", "answer", "pattern", "hops", "round", "seed", "theta_hash",
            "provenance"} <= row.keys()
    assert {"fact_id", "span", "start", "end", "url", "fetched_at"} <= \
        row["provenance"][0].keys()
    # Frozen: never modified, not even by regenerating the same round number.
    freeze_round(store, 1)
    before = out[1].read_text()
    with pytest.raises(RoundFrozenError):
        new_round(store, seed=9, generator=PathGenerator(), t=1)
    new_round(store, seed=9, generator=PathGenerator())
    export_round(store, 1, out[1])
    assert out[1].read_text() == before
    stats = collisions(store, [1, 2, 3], delta=0.05)
    assert stats["aggregate"]["graphs"] == report.graphs
    some = next(g for g in stats["graphs"].values() if g["k_min"] > 0)
    assert some["j_max"] == some["k_min"]  # same evidence in every round: full overlap
    assert 0 < some["bound"] <= 1 and some["k_needed_paper"] >= some["k_needed_tight"]
