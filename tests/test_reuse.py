"""Fact reuse between consecutive rounds (``SampleConfig.reuse``, ``path_generate._exclude``).

'fresh' (the default) never draws a path whose answer is computed from the previous round's
facts alone; 'disjoint' never draws a path with any of them; 'avoid' is 'disjoint' only
where something else is left (or after half the attempts); 'allow' ignores the
previous round; 'prefer' draws only paths of its facts. Unit tests on a hand-built seed graph,
then whole rounds on the example's film pages in a real Neo4j, with the reuse counted by
brute force.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.graph.store import Store
from dwqa_graph.rounds.forms import computed_from
from dwqa_graph.rounds.generate import theta_hash
from dwqa_graph.rounds.path_generate import PathGenerator, _draw
from dwqa_graph.rounds.paths import Path as FactPath, PathFact, PathGraph
from dwqa_graph.rounds.round import export_round, export_rows, new_round, previous_facts
from dwqa_graph.rounds.sampling import SampleConfig, graph_seed

from .conftest import round_facts


def fact(fid: str) -> PathFact:
    return PathFact(id=fid, relation="born", subject_id=fid, subject=fid.upper(),
                    subject_type="person", year=1900, evidence=f"{fid} was born in 1900.",
                    start=0, end=10, version_id="v")


def graph(*paths: tuple[str, str]) -> PathGraph:
    return PathGraph(query_id="q1", question="Who?", evidence_round=1, documents=[],
                     paths=[FactPath(form="temporal", facts=[fact(a), fact(b)])
                            for a, b in paths])


#: Six paths over six facts: a draw that avoids any two facts still has others.
WIDE = graph(("a", "b"), ("c", "d"), ("e", "f"), ("a", "c"), ("b", "d"), ("e", "a"))
#: One path: exactly one candidate.
NARROW = graph(("a", "b"))


def picked(g: PathGraph, cfg: SampleConfig, r: int, attempt: int = 0) -> set[str] | None:
    p = _draw(g, cfg, r, attempt, set())
    return None if p is None else {f.id for f in p.facts}


def test_disjoint_never_draws_a_previous_fact_while_another_path_exists() -> None:
    base = SampleConfig(reuse="disjoint")
    draws = [picked(WIDE, base, graph_seed(s, "q1")) for s in range(30)]
    used = {f for d in draws if d for f in d}
    assert used == set("abcdef")  # control: without a previous round
    for prev in ({"a", "b"}, {"c", "e"}, {"a", "d"}):
        cfg = base.model_copy(update={"previous_facts": frozenset(prev)})
        for s in range(30):
            got = picked(WIDE, cfg, graph_seed(s, "q1"))
            assert got is not None and not got & prev


def test_fresh_draws_no_path_computed_from_previous_facts_alone() -> None:
    prev = frozenset({"a", "b", "c", "d"})
    cfg = SampleConfig(previous_facts=prev)
    draws = [picked(WIDE, cfg, graph_seed(s, "q1")) for s in range(40)]
    # every draw needs a fact the previous round did not use ...
    assert all(d is not None and d - prev for d in draws)
    # ... and may share one with it: a path through "a" and the new "e" (what 'disjoint'
    # never draws: the positive control that the two rules differ)
    assert {"a", "e"} in draws and {"e", "f"} in draws
    disjoint = cfg.model_copy(update={"reuse": "disjoint"})
    assert all(picked(WIDE, disjoint, graph_seed(s, "q1")) == {"e", "f"} for s in range(40))
    # A comparison is computed from its two compared facts; its link facts say why the two
    # subjects are compared, so new links do not make a leaked comparison fresh.
    comp = PathGraph(query_id="q1", question="Who?", evidence_round=1, documents=[],
                     paths=[FactPath(form="comparison", facts=[fact("a"), fact("b"),
                                                                fact("x"), fact("y")])])
    assert picked(comp, SampleConfig(previous_facts=frozenset({"a", "b"})), 1) is None
    assert picked(comp, SampleConfig(previous_facts=frozenset({"a", "x", "y"})), 1) == {
        "a", "b", "x", "y"}


def test_fresh_skips_a_graph_whose_only_path_was_used_avoid_repeats_it() -> None:
    assert picked(NARROW, SampleConfig(previous_facts=frozenset({"a", "b"})), 1) is None
    assert picked(NARROW, SampleConfig(previous_facts=frozenset({"a"})), 1) == {"a", "b"}
    prev = frozenset({"a"})
    assert picked(NARROW, SampleConfig(reuse="disjoint", previous_facts=prev), 1) is None
    avoid = SampleConfig(reuse="avoid", previous_facts=prev)
    assert picked(NARROW, avoid, 1) == {"a", "b"}  # nothing else: the pool forces it
    assert picked(NARROW, SampleConfig(reuse="allow", previous_facts=prev), 1) == {"a", "b"}


def test_avoid_falls_back_after_half_the_attempts() -> None:
    prev = frozenset({"a", "b", "c"})
    cfg = SampleConfig(reuse="avoid", previous_facts=prev, attempts=4)
    early = [picked(WIDE, cfg, graph_seed(s, "q1"), 0) for s in range(30)]
    assert all(d is not None and not d & prev for d in early)
    late = [picked(WIDE, cfg, graph_seed(s, "q1"), 2) for s in range(30)]
    assert any(d and d & prev for d in late)  # from attempt attempts // 2: unrestricted


def test_prefer_draws_only_previous_facts_and_share_picks_graphs() -> None:
    prev = frozenset({"a", "b", "c", "d"})
    cfg = SampleConfig(reuse="prefer", previous_facts=prev)
    for s in range(30):
        got = picked(WIDE, cfg, graph_seed(s, "q1"))
        assert got is not None and got <= prev
    lone = cfg.model_copy(update={"previous_facts": frozenset({"f"})})
    assert picked(WIDE, lone, 3) is not None  # no path of previous facts only: unchanged
    none = cfg.model_copy(update={"reuse_share": 0.0})
    assert sum(not (picked(WIDE, none, graph_seed(s, "q1")) or set()) <= prev
               for s in range(60)) > 5  # outside the share: independent draws


def test_steering_is_reproducible_and_outside_theta() -> None:
    prev = frozenset({"a", "b"})
    cfg = SampleConfig(previous_facts=prev)
    assert picked(WIDE, cfg, 11) == picked(WIDE, cfg, 11)
    # The previous facts are graph state (like the evidence), not a parameter: θ and the
    # stored config hold the mode, not the ids.
    dumped = cfg.model_dump(mode="json")
    assert dumped["reuse"] == "fresh" and "previous_facts" not in dumped
    assert theta_hash({"sampling": dumped}) == theta_hash(
        {"sampling": SampleConfig().model_dump(mode="json")})
    assert theta_hash({"sampling": dumped}) != theta_hash(
        {"sampling": SampleConfig(reuse="allow").model_dump(mode="json")})


def test_a_fresh_round_prefers_the_facts_its_items_already_use() -> None:
    """Within a round, a draw takes first the paths needing the fewest facts the round's
    items do not already compute from; each tier keeps the draw's own order."""
    used = frozenset({"a", "b"})
    cfg = SampleConfig()
    for s in range(30):
        r = graph_seed(s, "q1")
        assert picked(WIDE, cfg, r) is not None
        assert _draw(WIDE, cfg, r, 0, set(), used).key == "temporal:a,b"  # type: ignore[union-attr]
        # "a,b" taken by another graph: a path adding one fact to them, never (c,d) or (e,f)
        got = _draw(WIDE, cfg, r, 0, {"temporal:a,b"}, used)
        assert got is not None and len({f.id for f in got.facts} - used) == 1
    # control: without the round's facts the draws are spread over every path
    assert len({frozenset(picked(WIDE, cfg, graph_seed(s, "q1")) or ()) for s in range(30)}) >= 5
    # only fresh rounds steer so: 'allow' draws independently
    allow = SampleConfig(reuse="allow")
    assert len({_draw(WIDE, allow, graph_seed(s, "q1"), 0, set(), used).key  # type: ignore[union-attr]
                for s in range(30)}) >= 4


def _two_rounds(page: PathGraph, graphs: int, prefer: bool) -> tuple[int, int]:
    """Items in two consecutive fresh rounds for ``graphs`` seed graphs citing one page
    (each path asked once per round), drawing as ``PathRound.search`` does: with the round's
    facts preferred, or without."""
    counts, previous = [], frozenset[str]()
    for t in (1, 2):
        cfg = SampleConfig(previous_facts=previous)
        taken: set[str] = set()
        used: set[str] = set()
        for i in range(graphs):
            p = _draw(page, cfg, graph_seed(t, f"q{i}"), 0, frozenset(taken),
                      frozenset(used) if prefer else frozenset())
            if p is not None:
                taken.add(p.key)
                used |= {f.id for f in computed_from(p)}
        counts.append(len(taken))
        previous = frozenset(used)
    return counts[0], counts[1]


def test_preferring_the_rounds_facts_leaves_the_next_round_items() -> None:
    """Ten seed graphs cite one page of eight facts (every two a path). Drawn independently,
    round 1's ten items use nearly all eight facts and the fresh round 2 has few paths left
    with a new fact; preferring round 1's own facts, round 1 stays within a few of them and
    round 2 covers every graph again."""
    facts = "abcdefgh"
    page = graph(*[(x, y) for i, x in enumerate(facts) for y in facts[i + 1:]])
    assert _two_rounds(page, 10, prefer=True) == (10, 10)
    first, second = _two_rounds(page, 10, prefer=False)  # control
    assert first == 10 and second < 10


def test_a_fresh_round_draws_a_graphs_recent_candidates_last() -> None:
    """A graph's own items of the last rounds come last in their tier: the collision bound
    counts a graph asking its own item again. Control: without them the draw takes the
    same first path; 'allow' draws ignore them."""
    for s in range(30):
        r = graph_seed(s, "q1")
        first = _draw(WIDE, SampleConfig(), r, 0, set())
        assert first is not None
        cfg = SampleConfig(recent={"q1": frozenset({first.key})})
        again = _draw(WIDE, cfg, r, 0, set())
        assert again is not None and again.key != first.key
        # the rest of the order is the draw's own, the recent path moved to its end
        n = len(WIDE.paths)
        assert [_draw(WIDE, cfg, r, a, set()) for a in range(n)] == \
            [_draw(WIDE, SampleConfig(), r, a, set()) for a in range(1, n)] + [first]
        # another graph's recent items change nothing
        assert _draw(WIDE, SampleConfig(recent={"q2": frozenset({first.key})}), r, 0,
                     set()) == first
        allow = SampleConfig(reuse="allow", recent=cfg.recent)
        assert _draw(WIDE, allow, r, 0, set()) == _draw(WIDE, SampleConfig(reuse="allow"),
                                                        r, 0, set())
    # a graph with only its recent path still asks it
    only = _draw(NARROW, SampleConfig(recent={"q1": frozenset({"temporal:a,b"})}), 1, 0, set())
    assert only is not None and only.key == "temporal:a,b"


def _one_round(page: PathGraph, graphs: int, cap: int | None) -> Counter[str]:
    """How many items name each fact in one fresh round of ``graphs`` seed graphs citing one
    page, drawn as ``PathRound.search`` draws them (the round's facts preferred, at most ``cap``
    items naming one fact)."""
    cfg = SampleConfig(max_per_fact=cap)
    taken: set[str] = set()
    used: set[str] = set()
    named: Counter[str] = Counter()
    for i in range(graphs):
        crowded = frozenset(f for f, n in named.items() if cap is not None and n >= cap)
        p = _draw(page, cfg, graph_seed(1, f"q{i}"), 0, frozenset(taken), frozenset(used),
                  crowded)
        if p is not None:
            taken.add(p.key)
            used |= {f.id for f in computed_from(p)}
            named.update(f.id for f in p.facts)
    return named


def test_a_round_names_one_fact_in_at_most_max_per_fact_items() -> None:
    """Seed graphs citing one page share its facts, and a fresh round prefers the facts its
    items already use: uncapped, one fact stands in most of the items (the FreshQA rounds
    had one fact in up to 9). With ``max_per_fact`` no fact is in more items, and the
    graphs still get items from the page's other facts (twelve facts: room for ten items
    at two each)."""
    facts = "abcdefghijkl"
    page = graph(*[(x, y) for i, x in enumerate(facts) for y in facts[i + 1:]])
    free = _one_round(page, 10, None)  # control
    assert sum(free.values()) == 20 and max(free.values()) > 3
    for cap in (2, 3):
        named = _one_round(page, 10, cap)
        assert max(named.values()) <= cap
        assert sum(named.values()) == 20  # still ten items of two facts
    # a draw skips every path naming a crowded fact, and has none when all do
    for s in range(30):
        got = _draw(WIDE, SampleConfig(), graph_seed(s, "q1"), 0, set(),
                    crowded=frozenset({"a"}))
        assert got is not None and "a" not in {f.id for f in got.facts}
    assert _draw(NARROW, SampleConfig(), 1, 0, set(), crowded=frozenset({"b"})) is None


def sentences_of(store: Store, ids: set[str]) -> dict[str, str]:
    """Fact id -> the sentence it was read from (version, start)."""
    return {r["id"]: r["s"] for r in store.read(
        "MATCH (f:Fact)-[:READ_FROM]->(v:DocumentVersion) WHERE f.id IN $ids "
        "RETURN f.id AS id, v.id + ':' + toString(f.start) AS s", {"ids": sorted(ids)})}


def test_rounds_fresh_by_default_prefer_on_request(films: Store,
                                                   tmp_path: Path) -> None:
    store = films
    gen = PathGenerator()
    first = new_round(store, seed=1, generator=gen)
    assert first.items >= 5
    r1 = round_facts(store, 1)
    used1 = set().union(*r1.values())
    # Control: independent draws with another seed reuse round 1's facts on these pages
    # (few paths per graph) -- so the fresh round below is not fresh by luck.
    new_round(store, seed=2, generator=gen, cfg=SampleConfig(reuse="allow"), previous=1)
    assert sum(bool(f & used1) for f in round_facts(store, 2).values()) >= 2
    # The default: every item of round 3 needs a fact round 2 (its previous round) did not
    # use, and the round still has items.
    fresh = new_round(store, seed=2, generator=gen)
    r2, r3 = round_facts(store, 2), round_facts(store, 3)
    used2 = set().union(*r2.values())
    assert fresh.items >= 1 and r3
    assert all(f - used2 for f in r3.values())
    # Graphs left out are reported, not dropped.
    assert fresh.no_item == fresh.graphs - fresh.items
    # Same seed, same graph state (evidence and previous round) -> the same items:
    # regenerate round 3 in place.
    export_round(store, 3, tmp_path / "a.jsonl")
    new_round(store, seed=2, generator=gen, t=3)
    export_round(store, 3, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    # 'prefer': round 4 asks about round 1's facts again, on every graph round 1 covered.
    heavy = new_round(store, seed=5, generator=gen, cfg=SampleConfig(reuse="prefer"),
                      previous=1)
    r4 = round_facts(store, 4)
    assert heavy.items >= first.items - 1
    # round 1's facts are its items' sentences: another fact of one is as leaked
    said = sentences_of(store, used1 | set().union(*r4.values()))
    said1 = {said[f] for f in used1}
    reused = [q for q, f in r4.items() if {said[x] for x in f} <= said1]
    assert len(reused) >= 0.8 * len(r4) and len(reused) >= 4
    rows = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert {r["theta_hash"] for r in rows} == {fresh.theta_hash}
    # a fresh round reads each graph's candidates of the last RECENT_ROUNDS rounds, keyed as
    # Path.key spells them (counted here from the export of rounds 1-4)
    recent = previous_facts(store, 5, SampleConfig()).recent
    expected: dict[str, set[str]] = {}
    for t in (1, 2, 3, 4):
        for row in export_rows(store, t):
            facts = ",".join(sorted(p["fact_id"] for p in row["provenance"]))
            expected.setdefault(row["query_id"], set()).add(f"{row['pattern']}:{facts}")
    assert recent and {q: set(k) for q, k in recent.items()} == expected
    assert previous_facts(store, 5, SampleConfig(reuse="disjoint")).recent == {}


def test_round_new_cli_reuse_option(films: Store, env: dict[str, str]) -> None:
    def new(*args: str) -> dict:
        result = CliRunner().invoke(main, ["round", "new", "--seed", "1", *args, "--json"],
                                    env=env)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    assert new("--reuse", "allow")["round"] == 1
    # --reuse allow: round 1's draws again (same seed, previous round ignored) ...
    assert new("--reuse", "allow")["round"] == 2
    r1, r2 = round_facts(films, 1), round_facts(films, 2)
    assert r1 and r1 == r2
    # ... the default (fresh): the same seed, but no item made of round 2's facts alone ...
    assert new()["round"] == 3
    r3 = round_facts(films, 3)
    used2 = set().union(*r2.values())
    assert r3 and all(f - used2 for f in r3.values())
    # ... and --reuse disjoint: none of round 3's facts at all.
    assert new("--reuse", "disjoint")["round"] == 4
    r4 = round_facts(films, 4)
    used3 = set().union(*r3.values())
    assert r4 and all(not f & used3 for f in r4.values())
    # --max-per-fact 1: no fact in two items of the round (control: round 1, drawn the
    # same way without it, names one fact in several)
    assert max(Counter(f for fs in r1.values() for f in fs).values()) > 1
    assert new("--max-per-fact", "1", "--reuse", "allow")["round"] == 5
    r5 = round_facts(films, 5)
    assert r5 and max(Counter(f for fs in r5.values() for f in fs).values()) == 1


def test_previous_facts_include_every_fact_stating_the_same(films: Store) -> None:
    """The example states some facts in two sentences ("It was founded in 1949" on the
    studio's page, "Nordlicht Studios was founded there by Reske in 1949" on its founder's);
    a round that avoided only the ids the previous round used asked the same question again
    from the other sentence. The previous facts are every fact stating what the previous
    round's items used, and every fact of a sentence they used (a leak carries the spans
    whole), counted here by brute force over all facts."""
    from dwqa_graph.rounds.round import previous_facts

    rows = films.read("MATCH (f:Fact)-[:SUBJECT]->(s:NamedEntity) "
                      "MATCH (f)-[:READ_FROM]->(v:DocumentVersion) "
                      "OPTIONAL MATCH (f)-[:OBJECT]->(o:NamedEntity) "
                      "RETURN f.id AS id, s.id AS s, f.relation AS rel, f.verb AS verb, "
                      "f.year AS year, f.value AS value, o.id AS o, "
                      "v.id + ':' + toString(f.start) AS sentence")
    statement = {r["id"]: (r["s"], r["rel"], r["verb"] or "", r["year"], r["value"], r["o"])
                 for r in rows}
    sentence = {r["id"]: r["sentence"] for r in rows}
    same: dict[tuple, set[str]] = {}
    for fid, key in statement.items():
        same.setdefault(key, set()).add(fid)
    told: dict[str, set[str]] = {}
    for fid, where in sentence.items():
        told.setdefault(where, set()).add(fid)
    duplicated = {f for ids in same.values() if len(ids) > 1 for f in ids}
    assert duplicated  # control: the example does state facts twice
    hit = shared = False
    for seed in range(1, 9):
        report = new_round(films, seed=seed, generator=PathGenerator(),
                           cfg=SampleConfig(reuse="allow"))
        used = set().union(*round_facts(films, report.round).values())
        expected = {f for u in used for f in same[statement[u]] | told[sentence[u]]}
        got = previous_facts(films, report.round + 1, SampleConfig(), report.round)
        assert got.previous_facts == expected
        hit = hit or bool(used & duplicated)
        # control: some round used a sentence that states another fact too
        shared = shared or bool({f for u in used for f in told[sentence[u]]} - used)
    assert hit and expected  # some round used a fact stated twice
    assert shared
