"""``dwqa ingest``: agent logs -> seed graphs."""

from __future__ import annotations

from pathlib import Path

import click

from dwqa_graph.cli.common import (
    emit,
    friendly_errors,
    json_option,
    llm_option,
    open_llm,
    open_store,
)
from dwqa_graph.config import Settings
from dwqa_graph.errors import NotFoundError, UsageError
from dwqa_graph.ingest.logs import FORMATS, Problem, ingest
from dwqa_graph.ingest.steps import LLMStepParser, RuleStepParser, StepParser


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Log format; auto detects it per record.")
@click.option("--dataset", help="Dataset name recorded on every Query (default: file stem).")
@click.option("--parser", "parser_name", type=click.Choice(["rule", "llm"]), default="rule",
              show_default=True, help="Transcript step parser: the seed's rules, or its "
                                      "JSON-formatter prompt on --llm.")
@llm_option
@json_option
@click.pass_obj
@friendly_errors
def ingest_cmd(settings: Settings, paths: tuple[Path, ...], fmt: str, dataset: str | None,
               parser_name: str, llm_spec: str | None, as_json: bool) -> None:
    """Turn agent logs (or HotpotQA items) into seed graphs."""

    def show(problem: Problem) -> None:
        click.echo(str(problem), err=True)

    # Inputs first: a missing file is named even when the database is not reachable.
    for path in paths:
        if not path.is_file():
            raise NotFoundError(f"no such log file: {path}")
    llm = open_llm(llm_spec)
    if parser_name == "llm" and llm is None:
        raise UsageError("--parser llm needs --llm SPEC")
    parser: StepParser = LLMStepParser(llm) if parser_name == "llm" and llm else RuleStepParser()
    with open_store(settings) as store:
        report = ingest(store, paths, fmt=fmt, dataset=dataset, on_problem=show, parser=parser)
    extra = {"llm": llm.stats.model_dump()} if llm else {}
    emit(as_json, report.model_dump(exclude={"problems"}) | extra | {
        "problems": [p.model_dump() for p in report.problems]}, lambda: click.echo(
        f"ingested {report.ingested} of {report.records} records "
        f"({report.rejected} rejected) in {report.seconds:.2f}s"))
