"""Everything ``dwqa report`` shows, read from the graph into ``report.ReportData``.

Kept apart from ``report`` (which only renders) so the rendering can be tested on hand-built
data and this module on a real graph.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from dwqa_graph.evaluation.evaluate import (
    EvalReport,
    item_score,
    list_runs,
    macro_score,
    run_scores,
    scores_from_props,
)
from dwqa_graph.graph.store import Store
from dwqa_graph.leakage.leaktest import list_leaktests
from dwqa_graph.leakage.runtime import latest_checks
from dwqa_graph.report.models import (
    Breakdown,
    ContaminationCount,
    ExampleItem,
    LeakSummary,
    MacroScore,
    Provenance,
    ReportData,
    RoundQuality,
    RunRow,
    ScorePoint,
    StaticScore,
    VerifyRow,
)
from dwqa_graph.rounds.path_generate import is_path_generator
from dwqa_graph.rounds.round import collisions, export_rows, list_rounds
from dwqa_graph.rounds.verify import history as verify_history

EXAMPLES = 3  # example items shown, with their provenance


def _score_points(store: Store) -> tuple[list[ScorePoint], dict[tuple[str, str], list[str]],
                                        list[EvalReport]]:
    points = []
    runs: dict[tuple[str, str], list[str]] = defaultdict(list)  # (agent, scorer) -> run ids
    shown = []
    for row in store.query("eval/score_points"):
        rep = EvalReport.model_validate_json(row["report"])
        shown.append(rep)
        for scorer, s in rep.scores.items():
            points.append(ScorePoint(agent=rep.agent, t=row["t"], scorer=scorer, score=s.score,
                                     ci_low=s.ci_low, ci_high=s.ci_high, n=s.n,
                                     snapshot=rep.snapshot, run_id=rep.run_id,
                                     errors=rep.errors, n_runs=row["n_runs"]))
            runs[(rep.agent, scorer)].append(rep.run_id)
    return points, runs, shown


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


def _static(store: Store) -> tuple[list[StaticScore], list[EvalReport]]:
    out, shown = [], []
    for row in store.query("eval/static_points"):
        rep = EvalReport.model_validate_json(row["report"])
        shown.append(rep)
        out += [StaticScore(agent=rep.agent, dataset=row["dataset"], scorer=k, score=s.score,
                            ci_low=s.ci_low, ci_high=s.ci_high, n=s.n, split=rep.split,
                            run_id=rep.run_id, errors=rep.errors, n_runs=row["n_runs"])
                for k, s in rep.scores.items()]
    return out, shown


def _breakdowns(store: Store, reports: list[EvalReport]) -> list[Breakdown]:
    out = []
    for rep in reports:
        target = rep.target + (f" [{rep.split}]" if rep.split else "")
        for by, groups in (("pattern", rep.by_pattern), ("hops", rep.by_hops)):
            for group, scores in groups.items():
                out += [Breakdown(agent=rep.agent, target=target, by=by, group=group,
                                  scorer=k, score=v.score, n=v.n)
                        for k, v in scores.items()]
    return out + _by_complexity(store, reports)


#: The item fields a round run is also scored by (the eval report scores it by hops).
LEVELS = ("sources", "constraints")


def _by_complexity(store: Store, reports: list[EvalReport]) -> list[Breakdown]:
    """Each shown round run's score by its items' sources and constraints (what makes a
    round harder besides its hops), read from the items the predictions answer."""
    runs = {rep.run_id: rep for rep in reports if rep.run_id}
    if not runs:
        return []
    cells: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    for row in store.query("rounds/item_levels", ids=sorted(runs)):
        rep = runs[row["run_id"]]
        scores = scores_from_props(row["p"])
        for by in LEVELS:
            if row[by] is None:
                continue
            for scorer in rep.scorers:
                cells[rep.run_id, by, str(row[by]), scorer].append(
                    item_score(scorer, scores, row["p"].get("judge")))
    out = []
    for (run_id, by, group, scorer), values in sorted(cells.items()):
        rep = runs[run_id]
        target = rep.target + (f" [{rep.split}]" if rep.split else "")
        out.append(Breakdown(agent=rep.agent, target=target, by=by, group=group,
                             scorer=scorer, score=sum(values) / len(values), n=len(values)))
    return out


def _examples(store: Store, rounds: list[dict[str, Any]], k: int = EXAMPLES) -> list[ExampleItem]:
    """Up to ``k`` items of the newest round with items, one per pattern first."""
    if not rounds:
        return []
    rows = export_rows(store, rounds[0]["t"])
    picked: list[dict[str, Any]] = []
    for r in rows:  # one per pattern, in the export's stable order
        if len(picked) < k and all(p["pattern"] != r["pattern"] for p in picked):
            picked.append(r)
    picked += [r for r in rows if r not in picked][: k - len(picked)]
    return [ExampleItem(round=r["round"], seed=r["seed"], theta_hash=r["theta_hash"],
                        pattern=r["pattern"], hops=r["hops"], question=r["question"],
                        answer=r["answer"], seed_question=r["seed_question"],
                        evidence=[p["evidence"] for p in r["provenance"]],
                        urls=list(dict.fromkeys(p["url"] for p in r["provenance"])))
            for r in picked]


def _quality(store: Store, rounds: list[dict[str, Any]]) -> list[RoundQuality]:
    """Per written round, oldest first: the rubric checks' counts stored with it."""
    stored = {r["t"]: r["quality"] for r in store.query("rounds/quality_list")}
    out = []
    for r in sorted(rounds, key=lambda r: r["t"]):
        graphs = int(r["items"]) + int(r["no_item"])
        base = {"t": r["t"], "generator": r["generator"], "graphs": graphs,
                "items": r["items"], "no_item": r["no_item"],
                "coverage": round(r["items"] / graphs, 4) if graphs else 0.0}
        raw = stored.get(r["t"])
        if not raw:
            out.append(RoundQuality(**base, recorded=False))
            continue
        q = json.loads(raw)
        # The counts come from the graph (items and NO_ITEM nodes), the rest as recorded.
        out.append(RoundQuality(**base, attempts=q.get("attempts", 0),
                                patterns=q.get("patterns", {}),
                                check_rejections=q.get("check_rejections", {}),
                                check_pass_rates=q.get("check_pass_rates", {}),
                                rejected_by_reason=q.get("rejected_by_reason", {}),
                                no_item_reasons=q.get("no_item_reasons", {}),
                                closed_book=q.get("closed_book")))
    return out


def _package_version() -> str:
    try:
        return version("dwqa-graph")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def gather(store: Store, *, collision_trials: int = 0) -> ReportData:
    points, runs, shown_rounds = _score_points(store)
    static, shown_static = _static(store)
    shown = {r.run_id for r in shown_rounds + shown_static}
    all_runs = [RunRow(id=r["id"], agent=r["agent"], target=r["target"], split=r["split"],
                       created_at=r["created_at"], n=r["n"], errors=r["errors"] or 0,
                       status=r["status"], failure=r["failure"], shown=r["id"] in shown)
                for r in list_runs(store)]
    all_rounds = list_rounds(store)
    round_rows = [r for r in all_rounds if r["items"]]
    # Collisions count the fact-path pool: only the paths generator's rounds drew from it
    rounds = sorted(r["t"] for r in round_rows if is_path_generator(r["generator"]))
    coll: dict[str, Any] | None = (collisions(store, rounds, trials=collision_trials)
                                   if len(rounds) >= 2 else None)
    return ReportData(
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        provenance=Provenance(package_version=_package_version(), rounds=[
            {k: r[k] for k in ("t", "seed", "theta_hash", "generator", "frozen", "items")}
            for r in sorted(round_rows, key=lambda r: r["t"])]),
        runs=all_runs, breakdowns=_breakdowns(store, shown_rounds + shown_static),
        examples=_examples(store, round_rows),
        scores=points, macro=_macro(store, runs, points), static=static,
        leaktests=[LeakSummary(id=r.id, agent=r.agent, leaked_agent=r.leaked_agent,
                               scorer=r.scorer, epsilon=r.epsilon, static=r.static,
                               dynamic=r.dynamic) for r in list_leaktests(store)],
        collisions=json.loads(json.dumps(coll, default=str)) if coll else None,
        # every written round, with items or not (a round with none is a quality finding)
        quality=_quality(store, [r for r in all_rounds if r["status"] == "complete"]),
        verification=[VerifyRow(**r) for r in verify_history(store)],
        # One bar per (dataset, agent or model checked): the subject is part of the label.
        contamination=[ContaminationCount(dataset=" · ".join(x for x in (c["dataset"],
                                                                          c["subject"]) if x),
                                          kind=c["kind"],
                                          unit="pairs" if c["kind"] == "paraphrase"
                                          else "items",
                                          flagged=c["flagged"], total=c["total"],
                                          by_reason=c["by_reason"])
                       for c in latest_checks(store)])
