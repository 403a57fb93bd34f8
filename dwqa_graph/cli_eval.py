"""``dwqa`` commands for evaluation and leakage: dataset, eval, runs, contamination,
leaktest, report. Same conventions as ``cli`` (helpers in ``cli_common``): one library call per
command, ``--json`` prints exactly one JSON object, known failures are one line on stderr.
Heavy modules (matplotlib, scipy.stats) are imported inside the commands that need them, so
every other ``dwqa`` command starts without paying for them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from .agents import Agent, make_agent
from .cli_common import (
    echo_lines,
    emit,
    friendly_errors,
    json_option,
    llm_option,
    open_llm,
    open_store,
)
from .config import Settings
from .contamination import (
    DEFAULT_DATASET_HOSTS,
    DEFAULT_QUESTION_THRESHOLD,
    record_check,
    runtime_check,
)
from .datasets import STATIC_FORMATS, import_static, list_static, static_items
from .evaluate import (
    SCORERS,
    EvalReport,
    Judge,
    LLMJudge,
    evaluate,
    list_runs,
    load_run,
    macro,
    round_is_frozen,
    round_items,
)
from .generate import RuleGenerator
from .ingest import Problem
from .models import EvalItem
from .sampling import SampleConfig
from .store import Store


def parse_rounds(text: str) -> list[int]:
    """``3``, ``1,2,5`` or ``2-6`` (ranges inclusive) -> sorted distinct round numbers."""
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            out.update(range(int(lo), int(hi) + 1) if sep else [int(lo)])
        except ValueError:
            raise ValueError(f"bad round list {text!r}: use 3, 1,2,5 or 2-6") from None
    if not out:
        raise ValueError("no rounds given")
    return sorted(out)


def parse_scorers(text: str) -> list[str]:
    scorers = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in scorers if s not in SCORERS]
    if bad or not scorers:
        raise ValueError(f"unknown scorer(s) {bad}; choose from {','.join(SCORERS)}")
    return scorers


@contextlib.contextmanager
def opened_agent(spec: str, store: Store, reader_spec: str | None = None) -> Iterator[Agent]:
    agent = make_agent(spec, store=store, reader_llm=open_llm(reader_spec))
    try:
        yield agent
    finally:
        agent.close()


agent_option = click.option(
    "--agent", "agent_spec", required=True, metavar="SPEC",
    help="baseline | baseline:SEARXNG_URL | python:MODULE:FUNC | perplexica:URL | "
         "closedbook:LLMSPEC | memorize:SPEC")
reader_option = click.option("--reader-llm", "reader_spec", metavar="SPEC",
                             help="Optional LLM reader for the baseline agent.")
concurrency_option = click.option("--concurrency", type=int, default=4, show_default=True,
                                  help="Questions in flight.")


def _question_set(store: Store, dataset: str | None,
                  round_t: int | None) -> tuple[str, list[EvalItem]]:
    if (dataset is None) == (round_t is None):
        raise ValueError("give exactly one of --dataset NAME and --round T")
    if dataset is not None:
        return dataset, static_items(store, dataset)
    return f"round:{round_t}", round_items(store, round_t or 0)


def _human_eval(r: EvalReport) -> None:
    scores = "  ".join(f"{k} {v.score:.3f} [{v.ci_low:.3f}, {v.ci_high:.3f}]"
                       for k, v in r.scores.items())
    click.echo(f"{r.target}{' (snapshot)' if r.snapshot else ''}: {r.agent} on {r.n} items: "
               f"{scores}  ({r.errors} agent errors)  run {r.run_id}")


def register(main: click.Group) -> None:  # noqa: C901 - one nested definition per command
    # -- static datasets -----------------------------------------------------------------------
    @main.group("dataset")
    def dataset_group() -> None:
        """Static benchmarks (HotpotQA JSON, FreshQA CSV) to score and leak like a round."""

    @dataset_group.command("import")
    @click.argument("path", type=click.Path(path_type=Path))
    @click.option("--name", required=True, help="Name to evaluate it by (--dataset NAME).")
    @click.option("--format", "fmt", type=click.Choice(STATIC_FORMATS), default="auto",
                  show_default=True, help="auto: .csv is FreshQA, anything else HotpotQA.")
    @json_option
    @click.pass_obj
    @friendly_errors
    def dataset_import(settings: Settings, path: Path, name: str, fmt: str,
                       as_json: bool) -> None:
        """Import a static benchmark; bad records are reported and skipped."""

        def show(p: Problem) -> None:
            click.echo(str(p), err=True)

        with open_store(settings) as store:
            report = import_static(store, path, name, fmt, on_problem=show)
        emit(as_json, report.model_dump(), lambda: click.echo(
            f"{report.name}: imported {report.imported} of {report.records} records "
            f"({report.rejected} rejected {report.rejected_by_reason or ''})"))

    @dataset_group.command("list")
    @json_option
    @click.pass_obj
    @friendly_errors
    def dataset_list(settings: Settings, as_json: bool) -> None:
        """Imported static benchmarks."""
        with open_store(settings) as store:
            rows = list_static(store)
        emit(as_json, rows, lambda: echo_lines(
            f"{r['name']:<24} {r['format']:<9} {r['items']:>6} items  {r['file']}" for r in rows))

    # -- eval ------------------------------------------------------------------------------------
    @main.command("eval")
    @click.option("--round", "rounds_text", metavar="T|T1,T2|T1-T2",
                  help="Round(s); several also give the macro score over them (Eq. 8).")
    @click.option("--dataset", help="A static benchmark imported with `dwqa dataset import`.")
    @agent_option
    @click.option("--scorer", "scorer_text", default="em,f1", show_default=True,
                  help="Comma-separated: em, f1, judge.")
    @click.option("--judge-llm", "judge_spec", metavar="SPEC",
                  help="LLM for the judge scorer (default: the offline rule judge).")
    @reader_option
    @concurrency_option
    @json_option
    @click.pass_obj
    @friendly_errors
    def eval_cmd(settings: Settings, rounds_text: str | None, dataset: str | None,
                 agent_spec: str, scorer_text: str, judge_spec: str | None,
                 reader_spec: str | None, concurrency: int, as_json: bool) -> None:
        """Run an agent on round(s) or a static benchmark; score, store and print."""
        if bool(rounds_text) == bool(dataset):
            raise ValueError("give exactly one of --round T and --dataset NAME")
        scorers = parse_scorers(scorer_text)
        llm = open_llm(judge_spec) if "judge" in scorers else None
        judge: Judge | None = LLMJudge(llm) if llm else None
        with open_store(settings) as store, opened_agent(agent_spec, store, reader_spec) as agent:
            targets: list[tuple[str, int | None, list[EvalItem], bool]] = (
                [(f"round:{t}", t, round_items(store, t), round_is_frozen(store, t))
                 for t in parse_rounds(rounds_text)] if rounds_text else
                [(dataset or "", None, static_items(store, dataset or ""), False)])
            reports = []
            for target, t, items, frozen in targets:
                report, _ = evaluate(store, agent, items, target=target, round_t=t,
                                     scorers=scorers, judge=judge, concurrency=concurrency,
                                     snapshot=frozen)
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
                _human_eval(r)
            if macro_out:
                for s, v in macro_out["scores"].items():
                    click.echo(f"macro {s} over rounds {window}: {v['score']:.3f} "
                               f"[{v['ci_low']:.3f}, {v['ci_high']:.3f}]")

        emit(as_json, payload, human)

    @main.group("runs")
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
            f"{r['id']}  {r['created_at']}  {r['target']:<14} {r['n']:>5} items  {r['agent']}"
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
        emit(as_json, payload, lambda: _human_eval(report))

    # -- contamination ---------------------------------------------------------------------------
    @main.group("contamination")
    def contamination_group() -> None:
        """Leakage checks: run-time (retrieved answers), pretraining, paraphrases."""

    @contamination_group.command("runtime")
    @click.option("--run", "run_id", required=True, help="An EvalRun id (see `dwqa runs list`).")
    @click.option("--hosts", default=",".join(DEFAULT_DATASET_HOSTS), show_default=True,
                  help="Dataset hosts (host or host/path-prefix), comma-separated.")
    @click.option("--threshold", type=float, default=DEFAULT_QUESTION_THRESHOLD,
                  show_default=True, help="Fuzzy question match (rapidfuzz partial_ratio).")
    @json_option
    @click.pass_obj
    @friendly_errors
    def contamination_runtime(settings: Settings, run_id: str, hosts: str, threshold: float,
                              as_json: bool) -> None:
        """Flag predictions whose retrieved sources hold the question and its answer, or
        come from a dataset host."""
        host_list = [h.strip() for h in hosts.split(",") if h.strip()]
        with open_store(settings) as store:
            report = runtime_check(store, run_id, hosts=host_list, threshold=threshold)
        emit(as_json, report.model_dump(), lambda: click.echo(
            f"{report.dataset}: {report.flagged} of {report.predictions} predictions flagged "
            f"{report.by_reason or ''}"))

    @contamination_group.command("pretraining")
    @click.option("--llm", "llm_spec", required=True, metavar="SPEC",
                  help="The model to test; Min-K% needs an OpenAI-compatible URL "
                       "(http://HOST:PORT/v1#model) that returns prompt log-probs.")
    @click.option("--dataset", help="A static benchmark.")
    @click.option("--round", "round_t", type=int, help="Or a round.")
    @click.option("--reference-dataset", help="Reference set (Min-K% is only meaningful "
                                              "relative to questions the model cannot have seen).")
    @click.option("--reference-round", type=int, help="Or a round as the reference.")
    @click.option("--k", type=float, default=0.2, show_default=True,
                  help="Min-K%: fraction of lowest-probability tokens averaged.")
    @json_option
    @click.pass_obj
    @friendly_errors
    def contamination_pretraining(settings: Settings, llm_spec: str, dataset: str | None,
                                  round_t: int | None, reference_dataset: str | None,
                                  reference_round: int | None, k: float, as_json: bool) -> None:
        """Guided completion (ROUGE-L / exact match of the model's continuation of each
        question) and Min-K% Prob."""
        from .pretraining import pretraining_report

        with open_store(settings) as store:
            name, items = _question_set(store, dataset, round_t)
            ref = (_question_set(store, reference_dataset, reference_round)[1]
                   if reference_dataset or reference_round is not None else None)
            report = pretraining_report(items, llm_spec, dataset_name=name, reference_items=ref,
                                        cache_path=settings.home / "cache" / "llm.sqlite", k=k)
            guided = report["guided_completion"]
            record_check(store, "pretraining", name, llm_spec, flagged=guided["suspected"],
                         total=guided["scored"],
                         by_reason={"guided_completion": guided["suspected"]}, report=report)

        def human() -> None:
            mk = report["min_k_prob"]
            click.echo(f"{name}: guided completion mean ROUGE-L {guided['mean_rouge_l']}, "
                       f"{guided['suspected']} of {guided['scored']} suspected; Min-K% "
                       f"{mk['mean'] if mk['available'] else 'unavailable: ' + mk['reason']}")

        emit(as_json, report, human)

    @contamination_group.command("paraphrase")
    @click.option("--dataset", help="A static benchmark.")
    @click.option("--round", "round_t", type=int, help="Or a round.")
    @click.option("--against-dataset", help="Cross mode: only pairs between the two sets.")
    @click.option("--against-round", type=int, help="Cross mode against a round.")
    @llm_option
    @json_option
    @click.pass_obj
    @friendly_errors
    def contamination_paraphrase(settings: Settings, dataset: str | None, round_t: int | None,
                                 against_dataset: str | None, against_round: int | None,
                                 llm_spec: str | None, as_json: bool) -> None:
        """Paraphrase pairs in a question set (the seed's prompt with --llm, else the rule
        judge) after a lexical prefilter; pairs found / pairs possible."""
        from .paraphrase import find_paraphrases

        llm = open_llm(llm_spec)
        with open_store(settings) as store:
            name, items = _question_set(store, dataset, round_t)
            other = (_question_set(store, against_dataset, against_round)
                     if against_dataset or against_round is not None else None)
            report = find_paraphrases([(i.id, i.question) for i in items],
                                      other=[(i.id, i.question) for i in other[1]]
                                      if other else None, llm=llm)
            label = f"{name} x {other[0]}" if other else name
            record_check(store, "paraphrase", label, report.judge,
                         flagged=report.total_paraphrase_pairs,
                         total=report.total_possible_pairs,
                         by_reason={"paraphrase_pairs": report.total_paraphrase_pairs},
                         report=report.model_dump(mode="json"))
        emit(as_json, report.model_dump(mode="json"), lambda: click.echo(
            f"{label}: {report.total_paraphrase_pairs} paraphrase pairs of "
            f"{report.total_possible_pairs} possible ({report.candidate_pairs} candidates "
            f"after the prefilter), judge {report.judge}"))

    # -- leaktest --------------------------------------------------------------------------------
    @main.command("leaktest")
    @agent_option
    @click.option("--leaked-agent", "leaked_spec", required=True, metavar="SPEC",
                  help="The leaked model M_leak, e.g. memorize:baseline.")
    @click.option("--rounds", "n_rounds", type=int, required=True,
                  help="T: fresh rounds to generate (T-1 gaps; T >= 3 for a t statistic).")
    @click.option("--epsilon", type=float, default=0.02, show_default=True,
                  help="Tolerance: H0 mean gap <= epsilon.")
    @click.option("--alpha", type=float, default=0.05, show_default=True)
    @click.option("--static", "static_name", metavar="NAME",
                  help="Also leak this static benchmark whole and test the gain on it.")
    @click.option("--scorer", type=click.Choice(["em", "f1"]), default="em", show_default=True)
    @click.option("--seed", type=int, default=1, show_default=True,
                  help="Seed of the first generated round; round j uses seed + j.")
    @click.option("--dataset", help="Only the seed graphs of this dataset.")
    @click.option("--docs", type=int, default=3, show_default=True)
    @click.option("--hops", type=int, default=2, show_default=True)
    @click.option("--export-leak", "export", type=click.Path(path_type=Path),
                  help="Write the leaked rounds as chat fine-tuning JSONL.")
    @concurrency_option
    @json_option
    @click.pass_obj
    @friendly_errors
    def leaktest_cmd(settings: Settings, agent_spec: str, leaked_spec: str, n_rounds: int,
                     epsilon: float, alpha: float, static_name: str | None, scorer: str,
                     seed: int, dataset: str | None, docs: int, hops: int, export: Path | None,
                     concurrency: int, as_json: bool) -> None:
        """Leak&Test: leak round t into M_leak, score both on fresh round t+1; test the mean
        gap against epsilon (and the static leak gain with --static)."""
        from .leaktest import leaktest  # scipy.stats: imported only when testing

        cfg = SampleConfig(docs=docs, hops=hops)
        with open_store(settings) as store, \
                opened_agent(agent_spec, store) as agent, \
                opened_agent(leaked_spec, store) as leaked:
            report = leaktest(store, agent, leaked, rounds=n_rounds, generator=RuleGenerator(),
                              cfg=cfg, seed=seed, dataset=dataset, epsilon=epsilon,
                              alpha=alpha, scorer=scorer, static=static_name,
                              concurrency=concurrency, export=export,
                              log=lambda s: click.echo(s, err=True))

        def human() -> None:
            if report.static:
                s = report.static
                click.echo(f"static {s['dataset']}: clean {s['a_clean']:.3f} leaked "
                           f"{s['a_leak']:.3f} gap {s['gap']:+.3f} p={s['p_value']}")
            d = report.dynamic
            click.echo(f"dynamic rounds {d['rounds']}: gaps {d['gaps']} mean {d['gap']} "
                       f"t={d['t']} df={d['df']} p={d['p_value']} (epsilon {epsilon})")

        emit(as_json, report.model_dump(), human)

    # -- report ----------------------------------------------------------------------------------
    @main.command("report")
    @click.option("--out", type=click.Path(path_type=Path), required=True,
                  help="Directory for index.html, report.json and the PNG plots.")
    @click.option("--simulate", "trials", type=int, default=0, show_default=True,
                  help="Monte-Carlo trials per graph for the collision plot (0: none).")
    @json_option
    @click.pass_obj
    @friendly_errors
    def report_cmd(settings: Settings, out: Path, trials: int, as_json: bool) -> None:
        """Write the HTML report: scores per round, leak gains, collisions, contamination."""
        from .report import render_report  # matplotlib: imported only when reporting
        from .report_data import gather

        with open_store(settings) as store:
            data = gather(store, collision_trials=trials)
        files = render_report(data, out)
        emit(as_json, files.model_dump(mode="json"), lambda: click.echo(
            f"report: {files.index_html} ({len(files.plots)} plots; no data yet for "
            f"{', '.join(files.skipped) or 'nothing'})"))
