"""The leak-transfer curve: Leak&Test at several settings of fact reuse between rounds.

Whether leaking round t helps on round t+1 depends on how much round t+1 reuses round t's
evidence: the overlap J of the collision bound (Eq. 6-7). A leaked model that learned facts
gains on a fresh round exactly where that round asks about leaked facts again. This
experiment varies the reuse and runs the whole Leak&Test protocol at each setting
(``SampleConfig.reuse``, applied by ``path_generate._exclude`` to round t+1 with round t's
facts):

* ``fresh`` (alias ``all``; the default of ``dwqa round new``): round t+1 never draws a path
  whose answer is computed from round t's facts alone; it may share one of them with a
  new fact (a subject's birth with another of its events);
* ``disjoint``: round t+1 never draws a path with any fact round t used; a seed graph
  without such a path sits the round out;
* ``avoid``: round t+1 avoids round t's facts while a path without them is left, else
  repeats (what the pool forces);
* ``independent``: draws ignore the previous round (with the few paths a seed graph has,
  consecutive rounds share many facts);
* ``reuse``: on every seed graph round t+1 draws only paths made of round t's facts while
  there is one: the same facts asked again. The heaviest reuse, with an item on every graph
  that had one;
* ``fresh:P``, ``disjoint:P``, ``avoid:P``, ``reuse:P`` (0 < P <= 1): the rule on a share
  P of the seed graphs (chosen per graph and round from its seed r), independent draws on
  the others -- the points between the ends.

Per setting it reports

* the **measured reuse**: the share of round t+1 items that use at least one fact some
  round-t item used (``any``), and the share that use only such facts (``all``), over the
  T-1 consecutive pairs (``cypher/eval/fact_reuse.cypher``);
* the **collision bound** t(t-1)·J_max/(2K²) per seed graph on the pool the setting allows
  (``rounds.collisions.graph_stats``): no evidence is refreshed between the experiment's
  rounds, so each graph's pool is the same every round and J_max = K; the mean and the
  worst graph are reported. The bound is for independent uniform draws (``independent``);
  ``fresh``, ``disjoint``, ``avoid`` and ``reuse`` steer the draws on the same pool, so their
  measured reuse lies below and above what the bound describes (``path_generate._exclude``);
* the Leak&Test result: mean gap with its two-sided 95% t interval, t, df and p of the
  one-sided test against ε (``leaktest_stats``).

Every setting's Leak&Test is stored as a LeakTest, the curve as a LeakCurve node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph.errors import UsageError
from dwqa_graph.evaluation.agents import Agent
from dwqa_graph.graph.store import Store
from dwqa_graph.leakage.leaktest import leaktest
from dwqa_graph.leakage.stats import DEFAULT_ALPHA, mean_interval
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.collisions import aggregate, graph_stats
from dwqa_graph.rounds.generate import Generator
from dwqa_graph.rounds.paths import pool_sizes
from dwqa_graph.rounds.sampling import Reuse, SampleConfig

#: Seeds of consecutive settings are this far apart, so no two settings share a round seed.
SEED_STRIDE = 1000


class CurvePoint(BaseModel):
    """One setting of the curve."""

    setting: str = Field(description="The setting as given: fresh, avoid, independent, "
                         "reuse or X:P ('all' is stored as given).")
    reuse_mode: str = Field("fresh", description="SampleConfig.reuse of the setting.")
    reuse_share: float = Field(1.0, description="SampleConfig.reuse_share of the setting.")
    rounds: list[int] = Field(description="The T rounds generated for this setting.")
    items: int = Field(description="Items in the fresh rounds 2..T.")
    reuse: float | None = Field(description="Share of round t+1 items using a fact of "
                                            "round t (at least one), over all pairs.")
    reuse_all: float | None = Field(description="Share using only round-t facts.")
    reuse_pairs: list[dict[str, int]] = Field(description="Per pair: prev, next, items, "
                                                          "any_reused, all_reused.")
    k_median: int | None
    bound_mean: float | None = Field(description="Mean over graphs of t(t-1)J_max/(2K^2).")
    bound_max: float | None
    gaps: list[float]
    gap: float | None
    ci_low: float | None
    ci_high: float | None
    t: float | None
    df: int | None
    p_value: float | None
    reject: bool
    leaktest_id: str


class LeakCurve(BaseModel):
    """``dwqa leaktest curve --json``."""

    id: str
    created_at: str
    agent: str
    leaked_agent: str
    scorer: str
    epsilon: float
    alpha: float
    T: int
    points: list[CurvePoint]


class ReuseSetting(BaseModel):
    """One point of the curve as the rounds run it."""

    label: str
    reuse: Reuse = "fresh"
    share: float = 1.0


#: Setting names -> SampleConfig.reuse; all but ``independent`` take ``:P`` (reuse_share).
MODES: dict[str, Reuse] = {
    "fresh": "fresh", "all": "fresh", "disjoint": "disjoint", "avoid": "avoid",
    "independent": "allow", "reuse": "prefer"}


def parse_settings(text: str) -> list[ReuseSetting]:
    """``fresh,fresh:0.5,independent,reuse:0.5,reuse`` -> the settings (module docstring)."""
    out: list[ReuseSetting] = []
    for part in (p.strip() for p in text.split(",")):
        name, colon, share = part.partition(":")
        p = _share(share) if colon else 1.0
        if name in MODES and p is not None and not (colon and name == "independent"):
            out.append(ReuseSetting(label=part, reuse=MODES[name], share=p))
        else:
            raise UsageError(f"reuse setting {part!r}: use fresh (or all), disjoint, "
                             "avoid, independent, reuse, or fresh:P / disjoint:P / "
                             "avoid:P / reuse:P with "
                             "0 < P <= 1 (e.g. fresh,fresh:0.5,independent,reuse:0.5,reuse)")
    if not out:
        raise UsageError("no reuse settings given")
    return out


def _share(text: str) -> float | None:
    try:
        x = float(text)
    except ValueError:
        return None
    return x if 0.0 < x <= 1.0 else None


def fact_reuse(store: Store, rounds: Sequence[int]) -> list[dict[str, int]]:
    """Per consecutive pair of ``rounds``: items of the later round, and how many reuse at
    least one / only facts of the earlier round."""
    pairs = [{"prev": a, "next": b} for a, b in zip(rounds, rounds[1:], strict=False)]
    if not pairs:
        return []
    return [{k: int(r[k]) for k in ("prev", "next", "items", "any_reused", "all_reused")}
            for r in store.query("eval/fact_reuse", pairs=pairs)]


def path_pools(store: Store, t: int, dataset: str | None = None) -> dict[str, int]:
    """K per seed graph: the fact-path pool of its documents as of round ``t``."""
    heads = store.query("paths/graphs", t=t, dataset=dataset, ids=None)
    return pool_sizes(store, [{"query_id": h["query_id"],
                               "versions": [d["version_id"] for d in h["documents"]]}
                              for h in heads]) if heads else {}


def leak_curve(store: Store, agent: Agent, leaked: Agent, *,
               settings: Sequence[ReuseSetting], rounds: int,
               generator: Generator, seed: int = 1, dataset: str | None = None,
               epsilon: float = 0.02, alpha: float = DEFAULT_ALPHA, scorer: str = "em",
               delta: float = 0.05, concurrency: int = 4,
               log: Callable[[str], None] = lambda s: None) -> LeakCurve:
    """Run Leak&Test once per setting (T fresh rounds each) and measure reuse and bound."""
    created = datetime.now(UTC).isoformat(timespec="seconds")
    points = []
    for n, s in enumerate(settings):
        cfg = SampleConfig(reuse=s.reuse, reuse_share=s.share)
        log(f"== setting {s.label}: reuse={s.reuse} share={s.share}")
        rep = leaktest(store, agent, leaked, rounds=rounds, generator=generator, cfg=cfg,
                       seed=seed + SEED_STRIDE * n, dataset=dataset, epsilon=epsilon,
                       alpha=alpha, scorer=scorer, concurrency=concurrency, log=log)
        d = rep.dynamic
        ts = [*d["leaked_rounds"], d["rounds"][-1]]
        pairs = fact_reuse(store, ts)
        items = sum(p["items"] for p in pairs)
        ks = path_pools(store, ts[-1], dataset)
        graphs = {q: graph_stats([k] * rounds, {(u, v): k for u in range(rounds)
                                                for v in range(u + 1, rounds)}, delta)
                  for q, k in ks.items() if k > 0}
        agg = aggregate(graphs, delta)
        lo, hi = mean_interval(d["gaps"])
        points.append(CurvePoint(
            setting=s.label, reuse_mode=s.reuse, reuse_share=s.share, rounds=ts, items=items,
            reuse=sum(p["any_reused"] for p in pairs) / items if items else None,
            reuse_all=sum(p["all_reused"] for p in pairs) / items if items else None,
            reuse_pairs=pairs, k_median=agg["k_median"], bound_mean=agg["mean_bound"],
            bound_max=agg["max_bound"], gaps=d["gaps"], gap=d["gap"], ci_low=lo, ci_high=hi,
            t=d["t"], df=d["df"], p_value=d["p_value"], reject=d["reject"],
            leaktest_id=rep.id))
        p = points[-1]
        log(f"setting {s.label}: reuse {p.reuse} gap {p.gap} t={p.t} df={p.df} "
            f"p={p.p_value}")
    curve = LeakCurve(id=stable_id("leakcurve", agent.spec, leaked.spec, created,
                                   *[p.leaktest_id for p in points]),
                      created_at=created, agent=agent.spec, leaked_agent=leaked.spec,
                      scorer=scorer, epsilon=epsilon, alpha=alpha, T=rounds, points=points)
    store.run_write("eval/leakcurve", id=curve.id, created_at=created,
                    report=curve.model_dump_json())
    return curve


def list_leakcurves(store: Store) -> list[LeakCurve]:
    return [LeakCurve.model_validate_json(r["report"])
            for r in store.query("eval/leakcurves")]


def curve_table(curve: LeakCurve) -> list[dict[str, Any]]:
    """The curve as rows for printing (``dwqa leaktest curve``) and the report."""
    return [{"setting": p.setting, "reuse": p.reuse, "reuse_all": p.reuse_all,
             "k_median": p.k_median, "bound_mean": p.bound_mean, "gap": p.gap,
             "ci": [p.ci_low, p.ci_high], "t": p.t, "df": p.df, "p_value": p.p_value,
             "reject": p.reject} for p in curve.points]
