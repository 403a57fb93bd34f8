"""The facts stage writes the versions it reads in batches, one transaction each: fewer
transactions than versions, none over ``WRITE_BATCH_VERSIONS``, every version marked and
the same facts as one transaction per version (the positive control: a batch of 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dwqa_graph.facts import stage
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP

from .conftest import ingest_pages
from .test_facts_attacks import short_pages, versions_read


def facts_and_writes(store: Store, nlp: CoreNLP, monkeypatch: pytest.MonkeyPatch
                     ) -> tuple[list[int], set[tuple[Any, ...]]]:
    """Read the stored pages; the versions each transaction wrote, and the facts."""
    sizes: list[int] = []
    write_plan = store.write_plan

    def counting(plan: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(len(dict(plan.steps).get("facts/mark", [])))
        return write_plan(plan, *args, **kwargs)

    monkeypatch.setattr(store, "write_plan", counting)
    extract_facts(store, nlp=nlp)
    monkeypatch.undo()
    facts = {tuple(r.values()) for r in store.read(
        "MATCH (f:Fact) RETURN f.id AS id, f.relation AS r, f.version_id AS v ORDER BY id")}
    return sizes, facts


def test_versions_are_written_in_batches(store: Store, nlp: CoreNLP, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    ingest_pages(store, tmp_path, short_pages(70))
    monkeypatch.setattr(stage, "WRITE_BATCH_S", 3600.0)  # batches by count only
    sizes, facts = facts_and_writes(store, nlp, monkeypatch)
    assert sum(sizes) == versions_read(store) == 70
    assert max(sizes) == stage.WRITE_BATCH_VERSIONS and len(sizes) == 3  # 32 + 32 + 6
    assert facts
    # One transaction per version (the batch of 1) writes the same facts.
    store.wipe()
    ingest_pages(store, tmp_path, short_pages(70))
    monkeypatch.setattr(stage, "WRITE_BATCH_VERSIONS", 1)
    sizes_one, facts_one = facts_and_writes(store, nlp, monkeypatch)
    assert sizes_one == [1] * 70 and facts_one == facts


def test_a_batch_waits_at_most_its_time(store: Store, nlp: CoreNLP, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ingest_pages(store, tmp_path, short_pages(6))
    monkeypatch.setattr(stage, "WRITE_BATCH_S", 0.0)  # every version is its batch's last
    sizes, _ = facts_and_writes(store, nlp, monkeypatch)
    assert sizes == [1] * 6
