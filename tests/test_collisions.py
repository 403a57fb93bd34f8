"""The collision bound (method note, eq. 3/4) and the Monte-Carlo check that it holds."""

import math

import pytest

from dwqa_graph.rounds.collisions import (
    CollisionStats,
    collision_bound,
    collision_stats,
    constant_overlap_pools,
    k_needed_paper,
    k_needed_tight,
    max_overlap,
    observed_repeat_rate,
    pairwise_collision_bound,
    simulate,
)

TRIALS = 20000


def _se(p: float, n: int = TRIALS) -> float:
    return math.sqrt(p * (1 - p) / n)


def _birthday(t: int, k: int) -> float:
    """Exact Pr[some repeat] for t uniform draws from one pool of k (identical pools)."""
    return 1 - math.prod(1 - i / k for i in range(t))


# -- closed forms ----------------------------------------------------------------------
@pytest.mark.parametrize(("t", "k", "j", "expected"), [
    (2, 10, 10, 0.1),       # 2*1*10 / (2*100)
    (5, 100, 3, 0.003),     # 5*4*3 / (2*10000)
    (10, 150, 5, 0.01),     # the tight K below lands exactly on delta
    (0, 10, 10, 0.0), (1, 10, 10, 0.0),  # fewer than two rounds cannot collide
    (8, 5, 5, 1.0),         # 8*7*5/50 = 5.6, capped
    (5, 20, 0, 0.0),        # disjoint pools never collide
])
def test_collision_bound_hand_values(t: int, k: float, j: float, expected: float) -> None:
    assert collision_bound(t, k, j) == pytest.approx(expected)


def test_k_needed_hand_values() -> None:
    assert k_needed_tight(10, 5, 0.01) == pytest.approx(math.sqrt(90 * 5 / 0.02))
    assert k_needed_tight(10, 5, 0.01) == pytest.approx(150.0)
    assert k_needed_paper(10, 5, 0.01) == pytest.approx(math.sqrt(90 / 0.02) * 5)
    assert k_needed_paper(10, 5, 0.01) == pytest.approx(335.41, abs=0.01)
    assert k_needed_tight(1, 5, 0.01) == k_needed_paper(1, 5, 0.01) == 0.0
    # Plugging the tight K back in gives exactly delta.
    assert collision_bound(7, k_needed_tight(7, 4, 0.05), 4) == pytest.approx(0.05)


def test_bound_monotone() -> None:
    ks = [10, 20, 50, 100, 1000]
    assert all(collision_bound(5, a, 3) > collision_bound(5, b, 3)
               for a, b in zip(ks, ks[1:], strict=False))
    ts = [2, 3, 5, 8, 13]
    assert all(collision_bound(a, 1000, 3) < collision_bound(b, 1000, 3)
               for a, b in zip(ts, ts[1:], strict=False))
    js = [0, 1, 3, 10, 100]
    assert all(collision_bound(5, 1000, a) < collision_bound(5, 1000, b)
               for a, b in zip(js, js[1:], strict=False))


@pytest.mark.parametrize("t", [2, 3, 10, 50])
@pytest.mark.parametrize("j", [0, 1, 1.5, 4, 37, 500])
@pytest.mark.parametrize("delta", [0.001, 0.05, 0.5])
def test_paper_form_at_least_tight_when_j_at_least_1(t: int, j: float, delta: float) -> None:
    tight, paper = k_needed_tight(t, j, delta), k_needed_paper(t, j, delta)
    assert paper >= tight
    assert paper == pytest.approx(tight * math.sqrt(j))
    # Both are sufficient: at either K the bound is within delta.
    if j:
        assert collision_bound(t, max(paper, j), j) <= delta + 1e-12


def test_paper_form_too_small_below_one() -> None:
    # Fractional J_max (e.g. an averaged overlap) flips the order: the printed form undershoots.
    assert k_needed_paper(10, 0.25, 0.01) < k_needed_tight(10, 0.25, 0.01)


@pytest.mark.parametrize(("call", "quoted"), [
    (lambda: collision_bound(3, 0, 0), "0"),
    (lambda: collision_bound(3, -2.5, 0), "-2.5"),
    (lambda: collision_bound(3, 10, 11), "11"),
    (lambda: collision_bound(3, 10, -1), "-1"),
    (lambda: collision_bound(3, 10, float("nan")), "nan"),
    (lambda: collision_bound(-1, 10, 1), "-1"),
    (lambda: k_needed_tight(3, 1, 0.0), "0.0"),
    (lambda: k_needed_paper(3, 1, 1.0), "1.0"),
    (lambda: k_needed_tight(3, -3, 0.1), "-3"),
    (lambda: simulate(t=3, k=5, j=6), "6"),
    (lambda: simulate(t=3, k=0, j=0), "0"),
    (lambda: simulate([{1}], t=3, k=5, j=1), "not both"),
    (lambda: simulate(t=3, k=5), "None"),
    (lambda: simulate([{1}, set()]), "round 1"),
    (lambda: simulate(t=2, k=2, j=1, trials=0), "0"),
    (lambda: pairwise_collision_bound([set(), {1}]), "round 0"),
    (lambda: observed_repeat_rate([]), "empty"),
])
def test_bad_inputs_raise_quoting_the_value(call, quoted: str) -> None:
    with pytest.raises(ValueError, match=f".*{quoted}"):
        call()


# -- pools -----------------------------------------------------------------------------
@pytest.mark.parametrize(("t", "k", "j"), [(2, 10, 10), (5, 100, 3), (8, 20, 0), (4, 7, 3)])
def test_pairwise_equals_simple_bound_for_constant_overlap(t: int, k: int, j: int) -> None:
    pools = constant_overlap_pools(t, k, j)
    assert [len(p) for p in pools] == [k] * t
    assert {len(pools[u] & pools[v]) for u in range(t) for v in range(u + 1, t)} <= {j}
    assert max_overlap(pools) == (j if t > 1 else 0)
    assert pairwise_collision_bound(pools) == pytest.approx(collision_bound(t, k, j))


def test_pairwise_bound_varying_pools() -> None:
    pools: list[set[object]] = [{"a", "b"}, {"a", "b", "c", "d"}, {"x"}]
    # (a,b)&(a,b,c,d): 2/(2*4); nothing shared with {x}.
    assert pairwise_collision_bound(pools) == pytest.approx(0.25)
    # The simple bound with K = min size = 1 and J_max = 2 is valid but useless here.
    assert max_overlap(pools) == 2
    assert pairwise_collision_bound([{1}, {1}, {1}]) == 1.0  # 3 pairs of prob 1, capped


# -- Monte Carlo -----------------------------------------------------------------------
GRID = [(t, k, j) for t in (2, 3, 5, 8) for k in (5, 20, 50)
        for j in sorted({0, 1, k // 2, k})]


@pytest.mark.parametrize(("t", "k", "j"), GRID)
def test_bound_holds_against_simulation(t: int, k: int, j: int) -> None:
    sim = simulate(t=t, k=k, j=j, trials=TRIALS, seed=t * 1000 + k * 10 + j)
    bound = collision_bound(t, k, j)
    assert sim <= bound + 3 * _se(sim)
    if j == 0:
        assert sim == 0.0
    if t == 2:  # one pair of rounds: the union bound is the exact probability j/k^2
        assert abs(sim - bound) <= 3 * _se(bound) + 1e-12
    if j == k:  # identical pools: the birthday problem, so the simulator itself is checked
        exact = _birthday(t, k)
        assert abs(sim - exact) <= 3 * _se(exact) + 1e-12
        assert exact <= bound + 1e-12


def test_simulate_deterministic_and_pool_path_matches_tkj_path() -> None:
    a = simulate(t=5, k=20, j=7, trials=5000, seed=3)
    assert a == simulate(t=5, k=20, j=7, trials=5000, seed=3)
    assert a == simulate(constant_overlap_pools(5, 20, 7), trials=5000, seed=3)
    assert simulate(t=1, k=5, j=5) == simulate([{"only"}]) == simulate([]) == 0.0
    assert simulate([{"a"}, {"a"}], trials=100) == 1.0


def test_simulate_string_pools_near_exact() -> None:
    # Two rounds, pools of strings sharing 3 of 4 / 6: exact probability 3/24 = 0.125.
    pools: list[set[object]] = [{"a", "b", "c", "d"}, {"a", "b", "c", "x", "y", "z"}]
    sim = simulate(pools, trials=TRIALS, seed=11)
    assert abs(sim - 0.125) <= 3 * _se(0.125)
    assert pairwise_collision_bound(pools) == pytest.approx(0.125)




# -- observed + report -----------------------------------------------------------------
def test_observed_repeat_rate_hand_examples() -> None:
    assert observed_repeat_rate([["a", "b", "c"]]) == 0.0
    assert observed_repeat_rate([["a", "b", "a"]]) == 1.0
    assert observed_repeat_rate([["a", "b", "a"], ["x", "y"], [], [("d", 1), ("d", 1)]]) == 0.5
    assert observed_repeat_rate([[1, 2, 3], [3, 2, 1], [1, 1]]) == pytest.approx(1 / 3)


def test_collision_stats_per_graph_and_aggregate() -> None:
    pools = {
        "g1": constant_overlap_pools(4, 10, 2),
        "g2": [{"p", "q"}, {"p", "q", "r", "s"}, {"z"}],
        "g3": [{"only"}],
    }
    draws = {"g1": [0, 5, 0, 9], "g2": ["p", "r", "z"]}
    out = collision_stats(pools, draws, 0.05, trials=2000)
    g1, g2, g3 = (out["graphs"][g] for g in ("g1", "g2", "g3"))
    assert isinstance(g1, CollisionStats)
    assert (g1.t, g1.k_min, g1.k_mean, g1.j_max) == (4, 10, 10.0, 2)
    assert g1.bound == pytest.approx(collision_bound(4, 10, 2)) == pytest.approx(0.12)
    assert g1.pairwise_bound == pytest.approx(g1.bound)
    assert g1.k_needed_tight == pytest.approx(k_needed_tight(4, 2, 0.05))
    assert g1.k_needed_paper == pytest.approx(k_needed_paper(4, 2, 0.05))
    assert g1.observed_repeat_rate == 1.0 and g1.simulated is not None
    # g2: K = min size 1 < J_max 2 -- the simple bound is still computed (loose, capped).
    assert (g2.k_min, g2.j_max, g2.bound) == (1, 2, 1.0)
    assert g2.pairwise_bound == pytest.approx(0.25)
    assert g2.observed_repeat_rate == 0.0
    assert g3.bound == 0.0 and g3.observed_repeat_rate is None and g3.simulated == 0.0
    assert g1.k_per_round == [10, 10, 10, 10]
    agg = out["aggregate"]
    assert agg["graphs"] == 3 and agg["delta"] == 0.05
    assert (agg["max_bound"], agg["worst_graph"]) == (1.0, "g2")
    assert agg["graphs_over_delta"] == 2
    assert agg["observed_repeat_rate"] == pytest.approx(0.5)
    assert collision_stats(pools, None, 0.05)["aggregate"]["observed_repeat_rate"] is None
    assert out["graphs"]["g1"].model_dump()["delta"] == 0.05


def test_collision_stats_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="'nope'"):
        collision_stats({"g": [{1}]}, {"nope": [1]}, 0.1)
    with pytest.raises(ValueError, match="'g'.*round 1"):
        collision_stats({"g": [{1}, set()]}, None, 0.1)
    with pytest.raises(ValueError, match="'g'"):
        collision_stats({"g": []}, None, 0.1)
    with pytest.raises(ValueError, match="1.5"):
        collision_stats({"g": [{1}]}, None, 1.5)


def test_rounds_on_the_same_evidence_are_counted_once_with_weights() -> None:
    """Grouped input (each distinct evidence once, pairs weighted) gives the statistics of
    every pair of rounds spelled out: what lets `round collisions` handle 1,000+ rounds."""
    from dwqa_graph.rounds.collisions import graph_stats

    ks = [10, 10, 10, 14, 14]  # rounds 0-2 on evidence A, 3-4 on B; |A ∩ B| = 6
    full = {(u, v): (10 if v < 3 else 6 if u < 3 else 14) for u in range(5)
            for v in range(u + 1, 5)}
    grouped = {(0, 0): 10, (3, 3): 14, (0, 3): 6}
    weights = {(0, 0): 3, (3, 3): 1, (0, 3): 6}
    a = graph_stats(ks, full, 0.05)
    b = graph_stats(ks, grouped, 0.05, weights=weights)
    assert a.pairwise_bound == pytest.approx(b.pairwise_bound)
    assert (a.j_max, a.bound, a.k_min) == (b.j_max, b.bound, b.k_min)
    # Positive control: without the weights the grouped pairs undercount.
    c = graph_stats(ks, grouped, 0.05)
    assert c.pairwise_bound is not None and b.pairwise_bound is not None
    assert c.pairwise_bound < b.pairwise_bound
