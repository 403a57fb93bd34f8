"""``dwqa eval`` and ``dwqa runs``: evaluate an agent, read stored runs."""

from __future__ import annotations

from typing import Any

import click

from dwqa_graph.cli.common import (
    echo_lines,
    emit,
    friendly_errors,
    json_option,
    open_llm,
    open_store,
    registry_option,
)
from dwqa_graph.cli.evalopts import (
    agent_option,
    concurrency_option,
    human_eval,
    opened_agent,
    parse_rounds,
    parse_scorers,
    reader_option,
)
from dwqa_graph.config import Settings
from dwqa_graph.errors import UsageError
from dwqa_graph.evaluation.datasets import SPLITS, list_static, static_items
from dwqa_graph.evaluation.evaluate import (
    JUDGE_MODES,
    MAX_ERRORS,
    AnswerBasis,
    Judge,
    evaluate,
    list_runs,
    load_run,
    macro,
    make_judge,
    round_is_frozen,
    round_items_basis,
)
from dwqa_graph.models import EvalItem
from dwqa_graph.registry import SCORERS


@click.command("eval")
@click.option("--round", "rounds_text", metavar="T|T1,T2|T1-T2",
              help="Round(s); several also give the macro score over them (Eq. 8).")
@click.option("--dataset", help="A static benchmark imported with `dwqa dataset import`.")
@click.option("--split", type=click.Choice(SPLITS),
              help="Only this split of the static benchmark (FreshQA: dev or test).")
@agent_option
@registry_option("--scorer", "scorer_text", default=None,
                 registry=SCORERS, help="Comma-separated scorers (default em,f1; on a "
                 "HotpotQA set also hotpot_f1, its official answer F1): judge (see "
                 "--judge-mode) |")
@click.option("--judge-mode", type=click.Choice(JUDGE_MODES), default="answer",
              show_default=True,
              help="What the judge scorer grades: answer (CORRECT / INCORRECT / "
                   "NOT_ATTEMPTED against the golds), or FreshQA's FreshEval relaxed / strict.")
@click.option("--judge-llm", "judge_spec", metavar="SPEC",
              help="LLM for the judge scorer (default: the offline rules).")
@click.option("--max-errors", type=click.FloatRange(0, 1), default=MAX_ERRORS,
              show_default=True,
              help="Largest share of items the agent may fail on; above it (or when every "
                   "item fails) the run is stored as failed, exits 1 and has no score.")
@click.option("--original", is_flag=True,
              help="On a verified round (`dwqa round verify`), score against the answers "
                   "the round was made with (a snapshot comparison) instead of those that "
                   "hold now; unsupported items are then scored too.")
@reader_option
@concurrency_option
@json_option
@click.pass_obj
@friendly_errors
def eval_cmd(settings: Settings, rounds_text: str | None, dataset: str | None,
             split: str | None, agent_spec: str, scorer_text: str | None, judge_mode: str,
             judge_spec: str | None, max_errors: float, original: bool,
             reader_spec: str | None, concurrency: int, as_json: bool) -> None:
    """Run an agent on round(s) or a static benchmark; score, store and print."""
    if bool(rounds_text) == bool(dataset):
        raise UsageError("give exactly one of --round T and --dataset NAME")
    if split and not dataset:
        raise UsageError("--split applies to a static benchmark: use it with --dataset")
    scorers = parse_scorers(scorer_text or "em,f1")
    if judge_mode != "answer" and "judge" not in scorers:
        scorers.append("judge")  # asking for FreshEval means asking for the judge
    llm = open_llm(judge_spec) if "judge" in scorers else None
    judge: Judge | None = make_judge(judge_mode, llm) if "judge" in scorers else None
    with open_store(settings) as store, opened_agent(agent_spec, store, reader_spec) as agent:
        if dataset and scorer_text is None and any(
                r["name"] == dataset and r["format"] == "hotpotqa" for r in list_static(store)):
            scorers.append("hotpot_f1")
        if original and not rounds_text:
            raise UsageError("--original applies to a verified round: use it with --round")
        targets: list[tuple[str, int | None, tuple[list[EvalItem], AnswerBasis | None],
                            bool]] = (
            [(f"round:{t}", t, round_items_basis(store, t, original=original),
              round_is_frozen(store, t)) for t in parse_rounds(rounds_text)] if rounds_text
            else [(dataset or "", None, (static_items(store, dataset or "", split), None),
                   False)])
        reports = []
        for target, t, (items, basis), frozen in targets:
            report, _ = evaluate(store, agent, items, target=target, round_t=t,
                                 scorers=scorers, judge=judge, concurrency=concurrency,
                                 snapshot=frozen, max_errors=max_errors, split=split,
                                 answers=basis)
            reports.append(report)
        window = [t for _, t, _, _ in targets if t is not None]
        macro_out = (macro(store, agent.spec, window, scorers) if len(window) > 1 else None)
    extra: dict[str, Any] = {"llm": llm.stats.model_dump()} if llm else {}
    # A model-backed agent's own calls and failures (closed book, or the baseline's reader).
    agent_llm = getattr(agent, "llm", None) or getattr(agent, "reader_llm", None)
    if agent_llm is not None:
        extra["agent_llm"] = agent_llm.stats.model_dump()
    if len(reports) == 1 and macro_out is None:
        payload: dict[str, Any] = reports[0].model_dump(mode="json") | extra
    else:
        payload = {"runs": [r.model_dump(mode="json") for r in reports],
                   "macro": macro_out} | extra

    def human() -> None:
        for r in reports:
            human_eval(r)
            if r.answers is not None:
                a = r.answers
                click.echo(f"  scored against the {a.answers} answers (verification "
                           f"{a.verification}): {a.changed} changed, {a.unsupported} "
                           + ("unsupported left out" if a.answers == "verified" else
                              "unsupported scored") + f", {a.unverified} unverified")
        if macro_out:
            for s, v in macro_out["scores"].items():
                click.echo(f"macro {s} over rounds {window}: {v['score']:.3f} "
                           f"[{v['ci_low']:.3f}, {v['ci_high']:.3f}]")

    emit(as_json, payload, human)

@click.group("runs")
def runs_group() -> None:
    """Stored evaluation runs."""

@runs_group.command("list")
@click.option("--agent", "agent_spec", help="Only this agent spec.")
@json_option
@click.pass_obj
@friendly_errors
def runs_list(settings: Settings, agent_spec: str | None, as_json: bool) -> None:
    """Runs, newest first."""
    with open_store(settings) as store:
        rows = list_runs(store, agent_spec)
    emit(as_json, rows, lambda: echo_lines(
        f"{r['id']}  {r['created_at']}  {r['status'].upper():<6} "
        f"{r['target'] + (':' + r['split'] if r.get('split') else ''):<14} {r['n']:>5} items "
        f"{r['errors'] or 0:>4} errors  {r['agent']}"
        + (f"  ({r['failure']})" if r.get("failure") else "")
        for r in rows))

@runs_group.command("show")
@click.argument("run_id")
@click.option("--predictions", is_flag=True, help="Include every prediction and trace.")
@json_option
@click.pass_obj
@friendly_errors
def runs_show(settings: Settings, run_id: str, predictions: bool, as_json: bool) -> None:
    """One run's summary (and predictions)."""
    with open_store(settings) as store:
        report, preds = load_run(store, run_id)
    payload = report.model_dump(mode="json")
    if predictions:
        payload["predictions"] = [p.model_dump(mode="json") for p in preds]
    emit(as_json, payload, lambda: human_eval(report))
