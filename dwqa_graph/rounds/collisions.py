"""How likely a seed graph is to repeat a QA pair across evaluation rounds (method note §3.3).

Each round *t* renders one QA pair per seed graph *i*, drawn from that graph's candidate
pool ``C_{i,t}`` (``K`` distinct fact paths, ``rounds/paths.py``). With
``J_{i,u,v} = |C_{i,u} ∩ C_{i,v}|`` and ``J_max = max_{u<v} J_{i,u,v}``, the union bound over
the ``t(t-1)/2`` round pairs gives::

    Pr[repeat within t rounds] <= t(t-1) * J_max / (2 K^2)            (note, eq. 3)

because rounds *u* and *v* draw the same candidate with probability
``|C_u ∩ C_v| / (K_u K_v)`` under uniform sampling. Solving ``bound <= delta`` for ``K``:

* tight form:  ``K >= sqrt(t(t-1) * J_max / (2 delta))``
* the note's printed form (eq. 4), ``J_max`` multiplying the root instead of sitting in it:
  ``K >= sqrt(t(t-1) / (2 delta)) * J_max`` -- larger, so still sufficient, when ``J_max >= 1``.

``simulate`` checks the bound by Monte Carlo; ``observed_repeat_rate`` measures what actually
happened in rendered rounds. Standard library + pydantic only (no numpy/scipy in this venv).

The drift between two consecutive rounds (``j_consecutive``) compares their candidates by
what their facts state (``content_key``), not by fact ids: a fact's id names its page
version, so a page edited elsewhere would count every path on it as drifted.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from dwqa_graph.errors import UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.rounds.paths import PATH_BATCH, Path, PathFact, paths_of

__all__ = [
    "SETTINGS",
    "CollisionStats",
    "by_setting",
    "collision_bound",
    "collision_stats",
    "constant_overlap_pools",
    "content_key",
    "content_pools",
    "k_needed_paper",
    "k_needed_tight",
    "max_overlap",
    "observed_repeat_rate",
    "pairwise_collision_bound",
    "shared",
    "simulate",
]


# -- validation ------------------------------------------------------------------------
def _check_rounds(t: int) -> None:
    # bool is an int subclass; True rounds is almost certainly a caller bug.
    if isinstance(t, bool) or not isinstance(t, int) or t < 0:
        raise UsageError(f"t (rounds) must be an int >= 0, got {t!r}")


def _check_j(j_max: float) -> None:
    # `not 0 <= x` (rather than `x < 0`) also rejects NaN.
    if not (0 <= j_max < math.inf):
        raise UsageError(f"j_max must be finite and >= 0, got {j_max!r}")


def _check_delta(delta: float) -> None:
    # delta = 0 needs K = inf, delta >= 1 is satisfied by any K: neither is a design target.
    if not (0 < delta < 1):
        raise UsageError(f"delta must be in (0, 1), got {delta!r}")


def _pairs(t: int) -> int:
    return t * (t - 1) // 2


# -- closed forms ----------------------------------------------------------------------
def _simple_bound(t: int, k: float, j_max: float) -> float:
    # Unvalidated core, shared with collision_stats, where K = min pool size may be below
    # J_max when pool sizes vary (the bound is then loose but still valid).
    if t < 2:
        return 0.0
    return min(1.0, t * (t - 1) * j_max / (2.0 * k * k))


def collision_bound(t: int, k: float, j_max: float) -> float:
    """Union bound on Pr[a seed graph repeats a pair within ``t`` rounds]: eq. 3, capped at 1.

    ``k`` is the pool size (``K``) and ``j_max`` the largest overlap between two rounds' pools;
    an overlap can never exceed a pool, hence ``0 <= j_max <= k``.
    """
    _check_rounds(t)
    if not (0 < k < math.inf):
        raise UsageError(f"k (pool size) must be finite and > 0, got {k!r}")
    _check_j(j_max)
    if j_max > k:
        raise UsageError(f"j_max must be <= k (an overlap cannot exceed the pool), got "
                         f"j_max={j_max!r} > k={k!r}")
    return _simple_bound(t, k, j_max)


def k_needed_tight(t: int, j_max: float, delta: float) -> float:
    """Smallest real ``K`` with ``t(t-1) J_max / (2K^2) <= delta``: ``sqrt(t(t-1) J_max/(2δ))``.

    Real-valued (take ``ceil`` for a pool size). It ignores the structural ``K >= J_max``; when
    ``J_max`` is large relative to ``t(t-1)/(2δ)`` the binding constraint is that one.
    """
    _check_rounds(t)
    _check_j(j_max)
    _check_delta(delta)
    return math.sqrt(t * (t - 1) * j_max / (2.0 * delta))


def k_needed_paper(t: int, j_max: float, delta: float) -> float:
    """The note's printed eq. 4: ``sqrt(t(t-1) / (2δ)) * J_max`` (``J_max`` outside the root).

    Equals the tight form times ``sqrt(J_max)``, so it is >= the tight form (still sufficient,
    just wasteful) exactly when ``J_max >= 1``; for ``0 < J_max < 1`` it would be too small.
    """
    _check_rounds(t)
    _check_j(j_max)
    _check_delta(delta)
    return math.sqrt(t * (t - 1) / (2.0 * delta)) * j_max


def _check_pools(pools: Sequence[set[Hashable]]) -> None:
    for r, pool in enumerate(pools):
        if not pool:
            raise UsageError(f"pool of round {r} is empty: nothing can be drawn from it")


def pairwise_collision_bound(pools: list[set[Hashable]]) -> float:
    """Exact union bound for arbitrary pools: ``sum_{u<v} |C_u ∩ C_v| / (|C_u| |C_v|)``, cap 1.

    ``collision_bound`` is this with every ``|C_r| = K`` and every overlap replaced by
    ``J_max``; this form stays tight when pool sizes or overlaps vary by round (and is the
    exact probability for two rounds).
    """
    _check_pools(pools)
    total = 0.0
    for u in range(len(pools)):
        for v in range(u + 1, len(pools)):
            total += len(pools[u] & pools[v]) / (len(pools[u]) * len(pools[v]))
    return min(1.0, total)


def max_overlap(pools: Sequence[set[Hashable]]) -> int:
    """``J_max``: the largest ``|C_u ∩ C_v|`` over round pairs ``u < v`` (0 for < 2 rounds)."""
    return max((len(pools[u] & pools[v])
                for u in range(len(pools)) for v in range(u + 1, len(pools))), default=0)


# -- Monte Carlo -----------------------------------------------------------------------
def _check_tkj(t: int, k: int, j: int) -> None:
    _check_rounds(t)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise UsageError(f"k must be an int >= 1, got {k!r}")
    if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j <= k:
        raise UsageError(f"j must be an int in [0, k={k}], got {j!r}")


def constant_overlap_pools(t: int, k: int, j: int) -> list[set[int]]:
    """``t`` pools of size ``k`` where every pair shares exactly ``j`` candidates.

    A shared core ``0..j-1`` plus ``k-j`` fresh ids per round, so ``J_{u,v} = J_max = j``.
    """
    _check_tkj(t, k, j)
    fresh = k - j
    return [set(range(j)) | set(range(j + r * fresh, j + (r + 1) * fresh)) for r in range(t)]


def _ordered(pool: set[Hashable]) -> list[Hashable]:
    # Set iteration order of str depends on PYTHONHASHSEED; sorting makes "index i of round r"
    # (and so the estimate for a seed) the same in every process. repr() covers mixed types.
    try:
        return sorted(pool)  # type: ignore[type-var]
    except TypeError:
        return sorted(pool, key=repr)


def simulate(
    pools: list[set[Hashable]] | None = None,
    *,
    t: int | None = None,
    k: int | None = None,
    j: int | None = None,
    trials: int = 20000,
    seed: int = 0,
) -> float:
    """Monte-Carlo Pr[two rounds draw the same candidate], one uniform draw per round.

    Give either explicit ``pools`` or ``(t, k, j)`` for ``constant_overlap_pools(t, k, j)``
    (simulated without building the sets). Deterministic for a ``seed``; for the same seed,
    ``simulate(constant_overlap_pools(t, k, j))`` and ``simulate(t=t, k=k, j=j)`` agree.
    """
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise UsageError(f"trials must be an int >= 1, got {trials!r}")
    rng = random.Random(seed)
    # One column of `trials` draws per round: Random.choices is one C-level-cheap call per
    # round instead of trials x rounds randrange calls.
    columns: list[list[Hashable]] = []
    if pools is not None:
        if (t, k, j) != (None, None, None):
            raise UsageError("give either pools or (t, k, j), not both")
        _check_pools(pools)
        for pool in pools:
            columns.append(rng.choices(_ordered(pool), k=trials))
    else:
        if t is None or k is None or j is None:
            raise UsageError(f"without pools, t, k and j are all required, got t={t!r}, "
                             f"k={k!r}, j={j!r}")
        _check_tkj(t, k, j)
        fresh = k - j
        for r in range(t):
            # Index i < j is the shared core item i; otherwise round r's own fresh item —
            # the same ids, in the same (sorted) order, as constant_overlap_pools.
            offset = r * fresh
            idx = rng.choices(range(k), k=trials)
            columns.append([i if i < j else i + offset for i in idx])
    rounds = len(columns)
    if rounds < 2:
        return 0.0
    hits = sum(len(set(row)) < rounds for row in zip(*columns, strict=True))
    return hits / trials


# -- observed --------------------------------------------------------------------------
def observed_repeat_rate(draws: list[list[Hashable]]) -> float:
    """Fraction of seed graphs whose drawn sequence (rounds 1..T) repeats some candidate."""
    if not draws:
        raise UsageError("draws is empty: no seed graphs to take a rate over")
    return sum(len(set(seq)) < len(seq) for seq in draws) / len(draws)


# -- drift by content ---------------------------------------------------------------------
def _fact_content(f: PathFact) -> list[Any]:
    # what the fact states about whom, without the sentence or version it was read from: a
    # re-read of an unchanged sentence on an edited page states the same
    return [f.relation, f.subject_id, f.object_id, f.date, f.year, f.when, f.value, f.unit,
            (f.phrase or "").lower() or None]


def content_key(p: Path) -> str:
    """A candidate's identity by content: its form, link and what each of its facts states
    (in the form's order), the same for the same path read from another page version."""
    return json.dumps([p.form, p.link, [_fact_content(f) for f in p.facts]])


def content_pools(store: Store, graphs: list[dict[str, Any]],
                  keep: Callable[[Path], bool]) -> dict[str, Counter[str]]:
    """Per entry of ``graphs`` ([{query_id, versions}]) its candidates that ``keep`` keeps,
    counted by ``content_key`` (a page that states a fact twice gives two candidates with
    one key: the sum of the counts is K)."""
    pools: dict[str, Counter[str]] = {g["query_id"]: Counter() for g in graphs}
    for i in range(0, len(graphs), PATH_BATCH):
        for q, paths in paths_of(store, graphs[i:i + PATH_BATCH]).items():
            pools[q] = Counter(content_key(p) for p in paths if keep(p))
    return pools


def shared(a: Counter[str], b: Counter[str]) -> int:
    """|C_a ∩ C_b| of two pools counted by content (each key as often as both have it)."""
    return sum((a & b).values())


# -- report ----------------------------------------------------------------------------
class CollisionStats(BaseModel):
    """Collision risk of one seed graph over its rounds (the same model whether the pools
    are counted in Cypher, as ``dwqa round collisions`` does, or given as sets)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    t: int = Field(description="Rounds (pools) observed for this graph.")
    k_per_round: list[int] = Field(description="Pool size K per round, in round order.")
    k_min: int = Field(description="Smallest pool size over the rounds (the K of eq. 3).")
    k_mean: float = Field(description="Mean pool size over the rounds.")
    j_max: int = Field(description="Largest overlap |C_u ∩ C_v| over round pairs u < v.")
    j_consecutive: list[int] = Field(
        default_factory=list, description="Observed overlap J between each two consecutive "
        "rounds of the graph, in round order (beside k_per_round): how far its candidates "
        "drifted between refreshes.")
    bound: float | None = Field(
        description="Eq. 3 with K = k_min: t(t-1) J_max / (2 K^2), cap 1; None if K = 0.")
    pairwise_bound: float | None = Field(
        description="sum_{u<v} |C_u ∩ C_v| / (|C_u||C_v|), cap 1: tighter when K varies.")
    k_needed_tight: float = Field(description="sqrt(t(t-1) J_max / (2 delta)).")
    k_needed_paper: float = Field(description="sqrt(t(t-1) / (2 delta)) * J_max (note, eq. 4).")
    delta: float = Field(description="Target collision probability.")
    observed_repeat_rate: float | None = Field(
        None, description="1.0 if the graph's actual draws repeat a candidate, else 0.0.")
    simulated: float | None = Field(None, description="Monte-Carlo estimate on these pools.")


def graph_stats(k_per_round: Sequence[int], overlaps: dict[tuple[int, int], int], delta: float,
                *, drawn: Sequence[Hashable] | None = None, trials: int = 0, seed: int = 0,
                pools: list[set[Hashable]] | None = None,
                weights: dict[tuple[int, int], int] | None = None,
                consecutive: Sequence[int] | None = None) -> CollisionStats:
    """``CollisionStats`` from pool sizes and pairwise overlaps (``(u, v) -> |C_u ∩ C_v|``
    for round indexes u < v). ``weights``: how many round pairs each key stands for, when
    rounds with the same evidence are given once (``(u, u)`` = pairs within u's group):
    hundreds of rounds then cost what their few distinct evidence sets cost. ``trials > 0``
    adds a Monte-Carlo estimate: on ``pools`` when the sets are known, else on
    constant-overlap pools of the same (t, K_min, J_max). ``consecutive``: J between each
    two consecutive rounds (from ``pools`` when they are given)."""
    _check_delta(delta)
    t, sizes = len(k_per_round), list(k_per_round)
    if consecutive is None and pools is not None:
        consecutive = [len(a & b) for a, b in zip(pools, pools[1:], strict=False)]
    k_min = min(sizes, default=0)
    j_max = max(overlaps.values(), default=0)
    bound = pairwise = simulated = None
    if k_min > 0:
        bound = _simple_bound(t, k_min, j_max)
        pairwise = min(1.0, sum((weights or {}).get((u, v), 1) * j / (sizes[u] * sizes[v])
                                for (u, v), j in overlaps.items()))
        if trials > 0:
            simulated = (simulate(pools, trials=trials, seed=seed) if pools is not None
                         else simulate(t=t, k=k_min, j=min(j_max, k_min), trials=trials,
                                       seed=seed))
    return CollisionStats(
        t=t, k_per_round=sizes, k_min=k_min, k_mean=sum(sizes) / t if t else 0.0, j_max=j_max,
        j_consecutive=list(consecutive or []),
        bound=bound, pairwise_bound=pairwise, k_needed_tight=k_needed_tight(t, j_max, delta),
        k_needed_paper=k_needed_paper(t, j_max, delta), delta=delta,
        observed_repeat_rate=observed_repeat_rate([list(drawn)]) if drawn else None,
        simulated=simulated)


def aggregate(graphs: dict[str, CollisionStats], delta: float) -> dict[str, Any]:
    """Over seed graphs: the worst bound (and its graph), the mean bound, how many graphs
    exceed ``delta``, the mean observed repeat rate (None without draws), the median K."""
    bounded = {g: s.bound for g, s in graphs.items() if s.bound is not None}
    observed = [s.observed_repeat_rate for s in graphs.values()
                if s.observed_repeat_rate is not None]
    worst = max(bounded, key=lambda g: bounded[g], default=None)
    ks = sorted(s.k_min for s in graphs.values())
    return {
        "graphs": len(graphs), "delta": delta,
        "max_bound": bounded[worst] if worst is not None else None, "worst_graph": worst,
        "mean_bound": sum(bounded.values()) / len(bounded) if bounded else None,
        "graphs_over_delta": sum(b > delta for b in bounded.values()),
        "observed_repeat_rate": sum(observed) / len(observed) if observed else None,
        "k_median": ks[len(ks) // 2] if ks else None,
    }


def collision_stats(
    pools_per_graph: dict[str, list[set[Any]]],
    draws: dict[str, list[Any]] | None,
    delta: float,
    *,
    trials: int = 0,
    seed: int = 0,
) -> dict[str, Any]:
    """``graph_stats`` for pools given as sets: ``{"graphs": {id: CollisionStats},
    "aggregate": aggregate(...)}``. ``trials > 0`` simulates on each graph's exact pools."""
    _check_delta(delta)
    draws = draws or {}
    unknown = sorted(set(draws) - set(pools_per_graph))
    if unknown:
        raise UsageError(f"draws for graphs without pools: {unknown!r}")
    graphs: dict[str, CollisionStats] = {}
    for gid, pools in pools_per_graph.items():
        if not pools:
            raise UsageError(f"graph {gid!r} has no rounds")
        if any(not p for p in pools):
            raise UsageError(f"graph {gid!r} has an empty pool in round "
                             f"{next(r for r, p in enumerate(pools) if not p)}")
        overlaps = {(u, v): len(pools[u] & pools[v])
                    for u in range(len(pools)) for v in range(u + 1, len(pools))}
        graphs[gid] = graph_stats([len(p) for p in pools], overlaps, delta,
                                  drawn=draws.get(gid), trials=trials, seed=seed, pools=pools)
    return {"graphs": graphs, "aggregate": aggregate(graphs, delta)}


#: The complexity settings ``dwqa round collisions --checked`` reports K and the bound for:
#: name -> (hops range, constraints range), as ``dwqa round new --hops/--constraints``.
SETTINGS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "all": ((1, 99), (0, 99)), "hops 2": ((2, 2), (0, 0)), "hops 3": ((3, 3), (0, 0)),
    "hops 4": ((4, 4), (0, 0)), "constraints 2": ((1, 99), (2, 99))}
#: The horizon of the per-setting bound: five rounds, as the paper's.
SETTING_HORIZON = 5


def by_setting(levels: dict[str, Counter[tuple[int, int]]],
               horizon: int = SETTING_HORIZON) -> dict[str, dict[str, Any]]:
    """Per complexity setting, over the graphs: how many have a candidate, the median K
    (askable paths of that setting, graphs without one counted as 0) and the bound
    t(t-1)/(2K) at ``horizon`` rounds for that K (J = K: the evidence unchanged, the worst
    case)."""
    out: dict[str, dict[str, Any]] = {}
    for name, ((h0, h1), (c0, c1)) in SETTINGS.items():
        ks = sorted(sum(n for (h, c), n in lv.items() if h0 <= h <= h1 and c0 <= c <= c1)
                    for lv in levels.values())
        k = ks[len(ks) // 2] if ks else 0
        out[name] = {"graphs_with_k": sum(x > 0 for x in ks), "median_k": k,
                     "bound": round(collision_bound(horizon, k, k), 4) if k else 1.0,
                     "rounds": horizon}
    return out
