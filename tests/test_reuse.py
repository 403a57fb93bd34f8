"""Claim reuse between consecutive rounds (``SampleConfig.reuse``, ``sampling.steer``).

'fresh' (the default) never draws a claim the previous round's items used; 'avoid' only
where nothing connected is left; 'allow' ignores the previous round; 'prefer' draws only its
claims. Unit tests on a hand-built seed graph, then whole rounds on the example corpus and
the HotpotQA sample in a real Neo4j, with the reuse counted by brute force.
"""

from __future__ import annotations

import json
from pathlib import Path

from dwqa_graph.graph.store import Store
from dwqa_graph.rounds.generate import RuleGenerator, theta_hash
from dwqa_graph.rounds.round import export_round, new_round
from dwqa_graph.rounds.sampling import (
    Bucket,
    ClaimRef,
    SampleConfig,
    SeedGraph,
    graph_seed,
    no_draw_reason,
    sample,
)

from .test_rounds import corpus  # noqa: F401  (fixture: example corpus + HotpotQA, claims)


def claim(cid: str, year: int, entity: str = "acme") -> ClaimRef:
    return ClaimRef(id=cid, text=f"Acme did {cid} in {year}.", event_years=[year],
                    event_names=[entity], mentions=[entity], names=["Acme"])


def graph(docs: dict[str, list[ClaimRef]]) -> SeedGraph:
    return SeedGraph(query_id="q1", question="What did Acme do?", evidence_round=1,
                     documents=[Bucket(document_id=d, url=f"http://x/{d}", version_id=f"v{d}",
                                       claims=cs) for d, cs in docs.items()])


#: Three documents, two dated claims each, all through the entity "acme": many temporal
#: candidates, so a draw that avoids any two claims still has others.
WIDE = graph({"d1": [claim("a1", 1990), claim("a2", 1991)],
              "d2": [claim("b1", 2000), claim("b2", 2001)],
              "d3": [claim("c1", 2010), claim("c2", 2011)]})
#: Two documents, one dated claim each: exactly one candidate.
NARROW = graph({"d1": [claim("a1", 1990)], "d2": [claim("b1", 2000)]})


def picked(g: SeedGraph, cfg: SampleConfig, r: int, attempt: int = 0) -> set[str] | None:
    s = sample(g, cfg, r, attempt)
    return None if s is None else {p.claim.id for p in s.picks}


def test_fresh_never_draws_a_previous_claim_while_another_candidate_exists() -> None:
    base = SampleConfig(patterns=("temporal",))
    draws = [picked(WIDE, base, graph_seed(s, "q1")) for s in range(30)]
    assert all(d is not None for d in draws)
    used = {c for d in draws if d for c in d}
    assert used == {"a1", "a2", "b1", "b2", "c1", "c2"}  # control: without a previous round
    for prev in ({"a1", "b1"}, {"a1", "a2"}, {"b2", "c1", "c2"}):
        for mode in ("fresh", "avoid"):
            cfg = base.model_copy(update={"reuse": mode, "previous_claims": frozenset(prev)})
            for s in range(30):
                got = picked(WIDE, cfg, graph_seed(s, "q1"))
                assert got is not None and not got & prev, (mode, prev, got)


def test_fresh_skips_a_graph_whose_only_candidate_was_used_avoid_repeats_it() -> None:
    prev = frozenset({"a1", "b1"})
    cfg = SampleConfig(patterns=("temporal",), previous_claims=prev)
    assert picked(NARROW, cfg.model_copy(update={"reuse": "allow"}), 7) == prev  # control
    assert picked(NARROW, cfg, 7) is None  # fresh (the default): no item rather than a repeat
    assert no_draw_reason(NARROW, cfg) == "no_fresh_candidate"
    lone = graph({"d1": [claim("a1", 1990)], "d2": [claim("b1", 2000, "other")]})
    assert no_draw_reason(lone, cfg) == "no_applicable_pattern"  # control: nothing to draw
    for attempt in range(cfg.attempts):
        assert picked(NARROW, cfg, 7, attempt) is None
    assert picked(NARROW, cfg.model_copy(update={"reuse": "avoid"}), 7) == prev
    # Only the previous round's claims matter: other ids change nothing.
    other = cfg.model_copy(update={"previous_claims": frozenset({"zz"})})
    assert picked(NARROW, other, 7) == prev


def test_avoid_falls_back_after_half_the_attempts() -> None:
    """'avoid' steers the first attempts // 2 draws only, so a graph whose fresh candidates
    all fail verification still gets an item (a repeat) in the later attempts."""
    prev = frozenset({"a1", "b1"})
    cfg = SampleConfig(patterns=("temporal",), reuse="avoid", previous_claims=prev)
    half = cfg.attempts // 2
    early = [picked(WIDE, cfg, 3, a) for a in range(half)]
    assert all(d is not None and not d & prev for d in early)
    late = [picked(WIDE, cfg, 3, a) for a in range(half, cfg.attempts)]
    assert any(d is not None and d & prev for d in late)  # unsteered again


def test_prefer_draws_only_previous_claims_and_share_picks_graphs() -> None:
    prev = frozenset({"a2", "c1"})
    cfg = SampleConfig(patterns=("temporal",), reuse="prefer", previous_claims=prev)
    for s in range(30):
        assert picked(WIDE, cfg, graph_seed(s, "q1")) == prev
    # A previous round without a connected candidate here (one claim): unchanged draws.
    lone = cfg.model_copy(update={"previous_claims": frozenset({"a2"})})
    assert any(picked(WIDE, lone, graph_seed(s, "q1")) != {"a2"} for s in range(30))
    # reuse_share: the rule applies to about that share of (graph, round) seeds, the others
    # draw as with 'allow' (and then mostly miss the two previous claims).
    half = cfg.model_copy(update={"reuse_share": 0.5})
    hits = sum(picked(WIDE, half, graph_seed(s, "q1")) == prev for s in range(200))
    assert 70 <= hits <= 140, hits
    none = cfg.model_copy(update={"reuse_share": 0.0})
    assert sum(picked(WIDE, none, graph_seed(s, "q1")) == prev for s in range(200)) < 40


def test_steering_is_reproducible_and_outside_theta() -> None:
    prev = frozenset({"a1", "b1"})
    cfg = SampleConfig(previous_claims=prev)
    assert sample(WIDE, cfg, 11) == sample(WIDE, cfg, 11)
    # The previous claims are graph state (like the evidence), not a parameter: θ and the
    # stored config hold the mode, not the ids.
    dumped = cfg.model_dump(mode="json")
    assert dumped["reuse"] == "fresh" and "previous_claims" not in dumped
    assert theta_hash({"sampling": dumped}) == theta_hash(
        {"sampling": SampleConfig().model_dump(mode="json")})
    assert theta_hash({"sampling": dumped}) != theta_hash(
        {"sampling": SampleConfig(reuse="allow").model_dump(mode="json")})


# -- whole rounds in Neo4j ------------------------------------------------------------------
def round_claims(store: Store, t: int) -> dict[str, set[str]]:
    """Query id -> the claims round t's item for it used, read the obvious way."""
    out: dict[str, set[str]] = {}
    for r in store.read("MATCH (:Round {t: $t})-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query) "
                        "MATCH (i)-[:USES]->(c:Claim) RETURN q.id AS q, c.id AS c", {"t": t}):
        out.setdefault(r["q"], set()).add(r["c"])
    return out


def test_rounds_fresh_by_default_prefer_on_request(corpus: Store,  # noqa: F811
                                                   tmp_path: Path) -> None:
    store = corpus
    gen = RuleGenerator()
    first = new_round(store, seed=1, generator=gen)
    assert first.items >= 5
    r1 = round_claims(store, 1)
    used1 = set().union(*r1.values())
    # Control: independent draws with another seed reuse round 1's claims on this corpus
    # (few connected candidates per graph) -- so the fresh round below is not fresh by luck.
    new_round(store, seed=2, generator=gen, cfg=SampleConfig(reuse="allow"), previous=1)
    assert sum(bool(c & used1) for c in round_claims(store, 2).values()) >= 3
    # The default: round 3 uses no claim of round 2 (its previous round), and still has items.
    fresh = new_round(store, seed=2, generator=gen)
    r2, r3 = round_claims(store, 2), round_claims(store, 3)
    used2 = set().union(*r2.values())
    assert fresh.items >= 1 and r3  # ids (and so draws) depend on the loopback port
    assert all(not c & used2 for c in r3.values())
    # Graphs left out had no candidate without round 2's claims: reported, not dropped.
    assert fresh.no_item == fresh.graphs - fresh.items
    assert fresh.no_item_reasons.get("no_fresh_candidate", 0) >= 1
    # Same seed, same graph state (evidence and previous round) -> the same items:
    # regenerate round 3 in place.
    export_round(store, 3, tmp_path / "a.jsonl")
    new_round(store, seed=2, generator=gen, t=3)
    export_round(store, 3, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    # 'prefer': round 4 asks about round 1's claims again, on every graph round 1 covered.
    heavy = new_round(store, seed=5, generator=gen, cfg=SampleConfig(reuse="prefer"),
                      previous=1)
    r4 = round_claims(store, 4)
    assert heavy.items >= first.items - 1
    reused = [q for q, c in r4.items() if c <= used1]
    assert len(reused) >= 0.8 * len(r4) and len(reused) >= 4
    rows = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert {r["theta_hash"] for r in rows} == {fresh.theta_hash}


def test_round_new_cli_reuse_option(store: Store, env: dict[str, str]) -> None:
    from click.testing import CliRunner

    from dwqa_graph.cli.main import main

    from .test_rounds import dicaprio

    dicaprio(store)

    def new(*args: str) -> dict:
        result = CliRunner().invoke(main, ["round", "new", "--seed", "1", "--generator", "rule",
                                           *args, "--json"],
                                    env=env)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    assert new()["round"] == 1
    # --reuse allow: round 1's draws again (same seed, previous round ignored) ...
    assert new("--reuse", "allow")["round"] == 2
    r1, r2 = round_claims(store, 1), round_claims(store, 2)
    assert r1 and r1 == r2
    # ... the default (fresh): the same seed, but none of round 2's claims.
    assert new()["round"] == 3
    r3 = round_claims(store, 3)
    assert r3 and all(not c & r2[q] for q, c in r3.items())
    # prefer: round 3's claims again.
    assert new("--reuse", "prefer")["round"] == 4
    assert round_claims(store, 4) == r3
    configs = {r["t"]: json.loads(r["config"])["reuse"] for r in store.read(
        "MATCH (r:Round) RETURN r.t AS t, r.config AS config")}
    assert configs == {1: "fresh", 2: "allow", 3: "fresh", 4: "prefer"}
    bad = CliRunner().invoke(main, ["round", "new", "--seed", "1", "--reuse", "some"], env=env)
    assert bad.exit_code != 0 and "fresh" in bad.output
