"""``dwqa dataset``: static benchmarks."""

from __future__ import annotations

from pathlib import Path

import click

from dwqa_graph.cli.common import (
    echo_lines,
    emit,
    friendly_errors,
    json_option,
    open_store,
)
from dwqa_graph.config import Settings
from dwqa_graph.evaluation.datasets import STATIC_FORMATS, import_static, list_static
from dwqa_graph.ingest.logs import Problem


@click.group("dataset")
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
