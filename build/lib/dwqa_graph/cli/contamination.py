"""``dwqa contamination``: run-time, pretraining and paraphrase leakage checks."""

from __future__ import annotations

import click

from dwqa_graph.cli.common import (
    emit,
    friendly_errors,
    json_option,
    llm_option,
    open_llm,
    open_store,
)
from dwqa_graph.cli.evalopts import (
    question_set,
)
from dwqa_graph.config import Settings
from dwqa_graph.leakage.runtime import (
    DEFAULT_DATASET_HOSTS,
    DEFAULT_QUESTION_THRESHOLD,
    record_check,
    runtime_check,
)


@click.group("contamination")
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
    from dwqa_graph.leakage.pretraining import pretraining_report

    with open_store(settings) as store:
        name, items = question_set(store, dataset, round_t)
        ref = (question_set(store, reference_dataset, reference_round)[1]
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
    from dwqa_graph.leakage.paraphrase import find_paraphrases

    llm = open_llm(llm_spec)
    with open_store(settings) as store:
        name, items = question_set(store, dataset, round_t)
        other = (question_set(store, against_dataset, against_round)
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
