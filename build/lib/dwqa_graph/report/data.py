"""Everything ``dwqa report`` shows, read from the graph into ``report.ReportData``.

Kept apart from ``report`` (which only renders) so the rendering can be tested on hand-built
data and this module on a real graph.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from dwqa_graph.evaluation.evaluate import EvalReport, macro_score, run_scores
from dwqa_graph.graph.store import Store
from dwqa_graph.leakage.leaktest import list_leaktests
from dwqa_graph.leakage.runtime import latest_checks
from dwqa_graph.report.models import (
    ContaminationCount,
    LeakSummary,
    MacroScore,
    ReportData,
    ScorePoint,
    StaticScore,
)
from dwqa_graph.rounds.round import collisions, list_rounds


def _score_points(store: Store) -> tuple[list[ScorePoint], dict[tuple[str, str], list[str]]]:
    points = []
    runs: dict[tuple[str, str], list[str]] = defaultdict(list)  # (agent, scorer) -> run ids
    for row in store.query("eval/score_points"):
        rep = EvalReport.model_validate_json(row["report"])
        for scorer, s in rep.scores.items():
            points.append(ScorePoint(agent=rep.agent, t=row["t"], scorer=scorer, score=s.score,
                                     ci_low=s.ci_low, ci_high=s.ci_high, n=s.n,
                                     snapshot=rep.snapshot))
            runs[(rep.agent, scorer)].append(rep.run_id)
    return points, runs


def _macro(store: Store, runs: dict[tuple[str, str], list[str]],
           points: list[ScorePoint]) -> list[MacroScore]:
    """Eq. 8 over every round each agent was scored on (the window is "all rounds so far")."""
    out = []
    for (agent, scorer), run_ids in sorted(runs.items()):
        if len(run_ids) < 2:
            continue
        m = macro_score(list(run_scores(store, run_ids, scorer).values()))
        rounds = sorted(p.t for p in points if p.agent == agent and p.scorer == scorer)
        out.append(MacroScore(agent=agent, scorer=scorer, rounds=rounds, score=m.score,
                              ci_low=m.ci_low, ci_high=m.ci_high))
    return out


def _static(store: Store) -> list[StaticScore]:
    out = []
    for row in store.query("eval/static_points"):
        rep = EvalReport.model_validate_json(row["report"])
        out += [StaticScore(agent=rep.agent, dataset=row["dataset"], scorer=k, score=s.score,
                            ci_low=s.ci_low, ci_high=s.ci_high, n=s.n)
                for k, s in rep.scores.items()]
    return out


def gather(store: Store, *, collision_trials: int = 0) -> ReportData:
    points, runs = _score_points(store)
    rounds = [r["t"] for r in list_rounds(store) if r["items"]]
    coll: dict[str, Any] | None = (collisions(store, rounds, trials=collision_trials)
                                   if len(rounds) >= 2 else None)
    return ReportData(
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        scores=points, macro=_macro(store, runs, points), static=_static(store),
        leaktests=[LeakSummary(id=r.id, agent=r.agent, leaked_agent=r.leaked_agent,
                               scorer=r.scorer, epsilon=r.epsilon, static=r.static,
                               dynamic=r.dynamic) for r in list_leaktests(store)],
        collisions=json.loads(json.dumps(coll, default=str)) if coll else None,
        # One bar per (dataset, agent or model checked): the subject is part of the label.
        contamination=[ContaminationCount(dataset=" · ".join(x for x in (c["dataset"],
                                                                          c["subject"]) if x),
                                          kind=c["kind"],
                                          flagged=c["flagged"], total=c["total"],
                                          by_reason=c["by_reason"])
                       for c in latest_checks(store)])
