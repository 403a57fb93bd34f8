"""Rounds: reproducibility, export, freezing and collisions of paths rounds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.errors import RoundFrozenError
from dwqa_graph.graph.store import Store
from dwqa_graph.registry import GENERATORS
from dwqa_graph.rounds.generate import Generation, make_generator
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import (
    collisions,
    export_round,
    export_rows,
    freeze_round,
    new_round,
)


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
    assert {"fact_id", "evidence", "start", "end", "url", "fetched_at"} <= \
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


class QuotingGenerator:
    """A plugin generator, as a user's package registers one: the paths generator's items,
    each question wrapped in a frame of its own and its round stored under its own name."""

    llm = None
    name = "quoting"

    def __init__(self) -> None:
        self.inner = PathGenerator()

    def theta(self) -> dict[str, Any]:
        return {**self.inner.theta(), "generator": self.name}

    def round(self, *args: Any) -> Generation:
        graphs, done, failed, stats = self.inner.round(*args)
        for _, qa in done:
            qa.question = f"Quiz: {qa.question}"
            qa.generator = self.name
        return graphs, done, failed, stats


@GENERATORS.register("quoting", summary="test generator: the paths items, framed")
def quoting_generator(llm: Any = None) -> QuotingGenerator:
    return QuotingGenerator()


def test_a_registered_generator_makes_the_round(films: Store, env: dict[str, str]) -> None:
    """`round new --generator NAME` builds the registered generator, and `new_round` makes
    the round with it: its items, its name and its θ are the round's."""
    result = CliRunner().invoke(main, ["round", "new", "--seed", "1", "--generator", "quoting",
                                       "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["generator"] == "quoting" and report["items"] > 0
    rows = export_rows(films, report["round"])
    assert rows and all(r["question"].startswith("Quiz: ") for r in rows)
    assert {r["generator"] for r in rows} == {"quoting"}
    [theta] = films.read("MATCH (r:Round {t: $t}) RETURN r.theta AS theta",
                         {"t": report["round"]})
    assert json.loads(theta["theta"])["generator"] == "quoting"
    # control: the built-in generator over the same graphs and seed frames nothing
    plain = new_round(films, seed=1, generator=make_generator("paths"), previous=0)
    plain_rows = export_rows(films, plain.round)
    assert plain_rows and not any(r["question"].startswith("Quiz: ") for r in plain_rows)
    assert sorted(r["question"] for r in plain_rows) == sorted(
        r["question"].removeprefix("Quiz: ") for r in rows)
