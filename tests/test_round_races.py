"""Rounds cannot be silently overwritten (issue 12, item 5): numbers are claimed atomically in
Neo4j, and a frozen round is never written -- checked under the round's lock in the very
transaction that writes the items. Real concurrent processes and threads, real Neo4j."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from neo4j.exceptions import ConstraintError

from dwqa_graph.cli.main import main
from dwqa_graph.config import Settings
from dwqa_graph.errors import ConflictError, RoundFrozenError, UsageError
from dwqa_graph.evaluation.agents import make_agent
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.leakage.leaktest import leaktest
from dwqa_graph.rounds.generate import QACandidate
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.paths import Path as FactPath
from dwqa_graph.rounds.render import Rendered
from dwqa_graph.rounds.round import export_round, freeze_round, list_rounds, new_round
from dwqa_graph.rounds.sampling import SampleConfig

from .conftest import PATH_PAGES, build_facts, round_facts

ORPHANS = "MATCH (i:QAItem) WHERE NOT EXISTS { (i)<-[:CONTAINS]-(:Round) } RETURN count(i) AS n"


#: Every round asks about the same facts again: the graph has a few paths, and under fresh
#: rounds how many items a round gets would depend on which run wrote round t-1 first.
ALLOW = SampleConfig(reuse="allow")


@pytest.fixture
def graph(store: Store, nlp: CoreNLP, tmp_path: Path) -> Store:
    """One seed graph of film pages with typed facts (tests/test_fact_paths.py)."""
    build_facts(store, nlp, tmp_path, PATH_PAGES)
    return store


def _orphans(store: Store) -> int:
    return int(store.read(ORPHANS)[0]["n"])


def _dwqa(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "dwqa_graph.cli", *args, "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _export(store: Store, t: int, path: Path) -> bytes:
    export_round(store, t, path)
    return path.read_bytes()


class GatedGenerator(PathGenerator):
    """The paths generator, but its first item waits for ``gate``: lets a test run a command
    while a round is being generated, deterministically."""

    def __init__(self, gate: threading.Event, started: threading.Event) -> None:
        super().__init__()
        self.gate, self.started = gate, started

    def candidate(self, path: FactPath, rendered: Rendered) -> QACandidate:
        self.started.set()
        self.gate.wait(120)
        return super().candidate(path, rendered)


def test_orphan_query_sees_an_orphan(graph: Store) -> None:
    """Positive control for the orphan count used below."""
    new_round(graph, seed=1, generator=PathGenerator(), cfg=ALLOW)
    assert _orphans(graph) == 0
    with graph._session(read=False) as s:
        s.run("CREATE (:QAItem {id: 'orphan'})").consume()
    assert _orphans(graph) == 1


def test_round_number_is_unique_in_the_graph(graph: Store) -> None:
    """Positive control for the claim: the constraint refuses a second Round with a used t."""
    new_round(graph, seed=1, generator=PathGenerator(), cfg=ALLOW)
    with pytest.raises(ConstraintError), graph._session(read=False) as s:
        s.run("CREATE (:Round {t: 1})").consume()


def test_ten_concurrent_round_new_processes(graph: Store, env: dict[str, str]) -> None:
    # --reuse allow: under fresh rounds a run that starts after another run wrote round t-1
    # avoids its facts, so how many items a round gets would depend on the interleaving;
    # numbering is what this test is about
    procs = [_dwqa(env, "round", "new", "--seed", str(100 + i),
                   "--reuse", "allow")
             for i in range(10)]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-2000:]
        reports.append(json.loads(out))
    numbers = sorted(r["round"] for r in reports)
    assert numbers == list(range(1, 11))  # ten distinct numbers, none skipped
    rounds = {r["t"]: r for r in list_rounds(graph)}
    assert sorted(rounds) == numbers
    for r in reports:  # every run's items are in its own round
        info = rounds[r["round"]]
        assert info["seed"] == r["seed"] and info["status"] == "complete"
        assert info["items"] == r["items"] >= 1
    assert _orphans(graph) == 0


def test_ten_concurrent_round_new_threads(graph: Store, settings: Settings) -> None:
    results: list[Any] = []

    def run(seed: int) -> None:
        with Store(settings) as st:
            try:
                results.append(new_round(st, seed=seed, generator=PathGenerator(), cfg=ALLOW))
            except Exception as exc:  # noqa: BLE001 - collected and asserted below
                results.append(exc)

    threads = [threading.Thread(target=run, args=(200 + i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(r.round for r in results) == list(range(1, 11))
    assert {r["t"]: r["seed"] for r in list_rounds(graph)} == {r.round: r.seed for r in results}
    assert _orphans(graph) == 0


def test_freeze_during_regeneration_wins(graph: Store, settings: Settings,
                                         tmp_path: Path) -> None:
    """`round new --round 1` is generating when `round freeze 1` commits: the regeneration
    writes nothing, the frozen round keeps its seed and its export's bytes."""
    new_round(graph, seed=7, generator=PathGenerator(), cfg=ALLOW)
    gate, started = threading.Event(), threading.Event()
    outcome: list[Any] = []

    def regenerate() -> None:
        with Store(settings) as st:
            try:
                outcome.append(new_round(st, seed=999, generator=GatedGenerator(gate, started),
                                         cfg=ALLOW, t=1))
            except Exception as exc:  # noqa: BLE001 - asserted below
                outcome.append(exc)

    worker = threading.Thread(target=regenerate)
    worker.start()
    assert started.wait(120)  # claimed and generating
    freeze_round(graph, 1)
    frozen = _export(graph, 1, tmp_path / "frozen.jsonl")
    gate.set()
    worker.join(120)
    assert isinstance(outcome[0], RoundFrozenError), outcome
    assert _export(graph, 1, tmp_path / "after.jsonl") == frozen
    assert graph.query("rounds/get", t=1)[0]["seed"] == 7
    assert {json.loads(line)["seed"] for line in frozen.splitlines()} == {7}
    with pytest.raises(RoundFrozenError):  # and later attempts are refused up front
        new_round(graph, seed=999, generator=PathGenerator(), cfg=ALLOW, t=1)
    assert _export(graph, 1, tmp_path / "later.jsonl") == frozen
    assert _orphans(graph) == 0


def test_regenerate_racing_freeze_processes(graph: Store, env: dict[str, str],
                                            tmp_path: Path) -> None:
    """The attack as run: `round new --round T --seed 999` racing `round freeze T`, as
    processes, on fresh rounds. Whatever the interleaving, the frozen round holds one
    generation's items whole, its node's seed matches its items, and its export stays
    byte-identical under every later command."""
    for t in (1, 2, 3):
        new_round(graph, seed=7, generator=PathGenerator(), cfg=ALLOW)
        regen = _dwqa(env, "round", "new", "--round", str(t), "--seed", "999",
                      "--reuse", "allow")
        freeze = _dwqa(env, "round", "freeze", str(t))
        r_out, r_err = regen.communicate(timeout=600)
        f_out, f_err = freeze.communicate(timeout=600)
        assert freeze.returncode == 0, f_out + f_err  # round t was written: it can freeze
        assert graph.query("rounds/get", t=t)[0]["frozen"] is True
        if regen.returncode != 0:
            assert "frozen" in r_out + r_err
        export = _export(graph, t, tmp_path / f"{t}.jsonl")
        seeds = {json.loads(line)["seed"] for line in export.splitlines()}
        info = graph.query("rounds/get", t=t)[0]
        assert seeds == {info["seed"]} and info["items"] == len(export.splitlines())
        again = _dwqa(env, "round", "new", "--round", str(t), "--seed", "31337",
                      "--reuse", "allow")
        again.communicate(timeout=600)
        assert again.returncode != 0
        assert _export(graph, t, tmp_path / f"{t}b.jsonl") == export
    assert _orphans(graph) == 0


def test_concurrent_regenerations_of_one_round(graph: Store, settings: Settings) -> None:
    """Two `round new --round 1` at once: the later claim wins, the earlier run writes
    nothing (it used to detach the winner's items and leave them orphaned)."""
    new_round(graph, seed=7, generator=PathGenerator(), cfg=ALLOW)
    gate, started = threading.Event(), threading.Event()
    first: list[Any] = []

    def slow() -> None:
        with Store(settings) as st:
            try:
                first.append(new_round(st, seed=11, generator=GatedGenerator(gate, started),
                                       cfg=ALLOW, t=1))
            except Exception as exc:  # noqa: BLE001 - asserted below
                first.append(exc)

    worker = threading.Thread(target=slow)
    worker.start()
    assert started.wait(120)
    second = new_round(graph, seed=12, generator=PathGenerator(), cfg=ALLOW, t=1)
    gate.set()
    worker.join(120)
    assert isinstance(first[0], ConflictError) and "claimed by another" in str(first[0])
    info = graph.query("rounds/get", t=1)[0]
    assert info["seed"] == 12 and info["items"] == second.items
    assert _orphans(graph) == 0  # the seed-7 items went with the regeneration


def test_failed_run_releases_its_number(graph: Store) -> None:
    class Broken(PathGenerator):
        def candidate(self, path: FactPath, rendered: Rendered) -> QACandidate:
            raise RuntimeError("model fell over")

    new_round(graph, seed=1, generator=PathGenerator(), cfg=ALLOW)
    with pytest.raises(RuntimeError):
        new_round(graph, seed=2, generator=Broken(), cfg=ALLOW)
    assert [r["t"] for r in list_rounds(graph)] == [1]  # no empty 'generating' round left
    assert new_round(graph, seed=3, generator=PathGenerator(), cfg=ALLOW).round == 2


def test_freeze_refuses_a_round_never_written(graph: Store, env: dict[str, str]) -> None:
    gate, started = threading.Event(), threading.Event()
    worker = threading.Thread(target=lambda: new_round(
        graph, seed=1, generator=GatedGenerator(gate, started)))
    worker.start()
    try:
        assert started.wait(120)
        with pytest.raises(ConflictError, match="being generated"):
            freeze_round(graph, 1)
        listing = CliRunner().invoke(main, ["round", "list"], env=env)
        assert listing.exit_code == 0 and "generating" in listing.output, listing.output
    finally:
        gate.set()
        worker.join(120)
    assert freeze_round(graph, 1)["t"] == 1  # once written, it freezes


# -- fresh rounds under concurrency ------------------------------------------------------------
def _computed_only_from(store: Store, t: int, previous: int) -> int:
    """Items of round ``t`` whose every fact is one round ``previous``'s items used (or one
    stating the same): what a model that learned ``previous`` computes without anything new."""
    used = {r["id"] for r in store.query("rounds/previous_facts", t=previous)}
    return sum(facts <= used for facts in round_facts(store, t).values())


def _claimed(store: Store, n: int) -> None:
    """Wait (bounded) until ``n`` rounds are claimed."""
    deadline = time.monotonic() + 120
    while len(list_rounds(store)) < n:
        assert time.monotonic() < deadline, list_rounds(store)
        time.sleep(0.1)


def test_a_fresh_round_waits_for_the_round_before_it(films: Store,
                                                     settings: Settings) -> None:
    """Round 1 is held mid-generation while rounds 2-5 are claimed: each of them waits for its
    predecessor to be written and steers against its facts. All five use one seed, so a round
    that read its predecessor too early (nothing written yet) drew exactly its items again."""
    gate, started = threading.Event(), threading.Event()
    results: dict[int, Any] = {}

    def run(i: int, gen: PathGenerator) -> None:
        with Store(settings) as st:
            try:
                results[i] = new_round(st, seed=1, generator=gen)
            except Exception as exc:  # noqa: BLE001 - asserted below
                results[i] = exc

    first = threading.Thread(target=run, args=(0, GatedGenerator(gate, started)))
    first.start()
    assert started.wait(120)  # round 1 claimed and generating
    others = [threading.Thread(target=run, args=(i, PathGenerator())) for i in range(1, 5)]
    for th in others:
        th.start()
    _claimed(films, 5)
    gate.set()
    for th in [first, *others]:
        th.join(600)
    assert not [r for r in results.values() if isinstance(r, Exception)], results
    reports = {r.round: r for r in results.values()}
    assert sorted(reports) == [1, 2, 3, 4, 5] and reports[1].items >= 5
    assert reports[1].previous is None
    for t in (2, 3, 4, 5):
        assert reports[t].previous == t - 1
        assert films.query("rounds/get", t=t)[0]["previous"] == t - 1
        assert _computed_only_from(films, t, t - 1) == 0, t
    assert reports[2].waited_seconds > 0  # it did wait for round 1
    assert sum(reports[t].items for t in (2, 3, 4, 5)) >= 4  # fresh rounds, not empty ones
    # Positive control: the same seed with repeats allowed draws round 5's items again, and
    # the count above sees every one of them.
    repeat = new_round(films, seed=1, generator=PathGenerator(), cfg=ALLOW)
    again = new_round(films, seed=1, generator=PathGenerator(), cfg=ALLOW)
    assert repeat.previous is None and again.items >= 5
    assert _computed_only_from(films, again.round, repeat.round) == again.items


def test_five_concurrent_round_new_processes_are_fresh(films: Store,
                                                       env: dict[str, str]) -> None:
    """The attack as run: five `dwqa round new` at once (one seed, so a round that did not
    see its predecessor's facts repeats its items). None has an item computed only from its
    predecessor's facts; each records the round it steered against."""
    procs = [_dwqa(env, "round", "new", "--seed", "1") for _ in range(5)]
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err[-2000:]
    rounds = {r["t"]: r for r in list_rounds(films)}
    assert sorted(rounds) == [1, 2, 3, 4, 5]
    assert all(r["status"] == "complete" for r in rounds.values())
    assert films.query("rounds/get", t=1)[0]["items"] >= 5
    for t in (2, 3, 4, 5):
        assert films.query("rounds/get", t=t)[0]["previous"] == t - 1
        assert _computed_only_from(films, t, t - 1) == 0, t


def test_a_predecessor_never_written_ends_the_wait_with_a_clear_error(
        films: Store, env: dict[str, str]) -> None:
    """A run that died holding round 1 (claimed, never written): a fresh round 2 waits at
    most its bound, then says which round and what to do, and gives its number back."""
    films.run_write("rounds/claim_next", claim="died")
    started = time.monotonic()
    with pytest.raises(ConflictError, match=r"round 1 was still being generated after 1 s.*"
                                            r"round new --round 1"):
        new_round(films, seed=1, generator=PathGenerator(), wait=1)
    assert 1 <= time.monotonic() - started < 60
    assert [r["t"] for r in list_rounds(films)] == [1]
    result = CliRunner().invoke(main, ["round", "new", "--seed", "1", "--wait", "0.2"],
                                env=env)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "dwqa: error: round 2 steers against round 1" in result.output, result.output
    # Positive control: a round that steers against nothing does not wait for round 1
    assert new_round(films, seed=1, generator=PathGenerator(), cfg=ALLOW, wait=0).round == 2
    # ... and once round 1 is regenerated, the next fresh round goes on
    new_round(films, seed=1, generator=PathGenerator(), t=1, previous=0)
    assert new_round(films, seed=2, generator=PathGenerator(), wait=0).previous == 2
    # a round never waits on itself or a later round: refused at once, its number given back
    with pytest.raises(UsageError, match="cannot steer against round 4"):
        new_round(films, seed=4, generator=PathGenerator(), previous=4, wait=60)
    assert sorted(r["t"] for r in list_rounds(films)) == [1, 2, 3]


def test_leaktest_steers_each_round_against_its_own_leaked_round(
        films: Store, settings: Settings) -> None:
    """A `round new` holds round 1 mid-generation while Leak&Test runs: its rounds wait for
    nothing outside the run, and each fresh round steered against exactly the round leaked
    before it."""
    gate, started = threading.Event(), threading.Event()

    def hold() -> None:
        with Store(settings) as st:
            new_round(st, seed=1, generator=GatedGenerator(gate, started), cfg=ALLOW)

    worker = threading.Thread(target=hold)
    worker.start()
    try:
        assert started.wait(120)
        a = make_agent("baseline", store=films)
        report = leaktest(films, a, make_agent("memorize:baseline", store=films), rounds=3,
                          generator=PathGenerator(), seed=11)
        assert worker.is_alive()  # round 1 is still being generated
    finally:
        gate.set()
        worker.join(600)
    dyn = report.dynamic
    assert dyn["leaked_rounds"] == [2, 3] and dyn["rounds"] == [3, 4]
    assert films.query("rounds/get", t=2)[0]["previous"] is None
    for leaked, t in zip(dyn["leaked_rounds"], dyn["rounds"], strict=True):
        assert films.query("rounds/get", t=t)[0]["previous"] == leaked
        assert _computed_only_from(films, t, leaked) == 0
