"""``dwqa report``: HTML + PNG + JSON report."""

from __future__ import annotations

from pathlib import Path

import click

from dwqa_graph.cli.common import (
    emit,
    friendly_errors,
    json_option,
    open_store,
)
from dwqa_graph.config import Settings
from dwqa_graph.report import write_report


@click.command("report")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Directory for index.html, report.json and the PNG plots.")
@click.option("--simulate", "trials", type=int, default=0, show_default=True,
              help="Monte-Carlo trials per graph for the collision plot (0: none).")
@json_option
@click.pass_obj
@friendly_errors
def report_cmd(settings: Settings, out: Path, trials: int, as_json: bool) -> None:
    """Write the HTML report: scores per round, leak gains, collisions, contamination."""
    with open_store(settings) as store:
        files = write_report(store, out, collision_trials=trials)
    emit(as_json, files.model_dump(mode="json"), lambda: click.echo(
        f"report: {files.index_html} ({len(files.plots)} plots; no data yet for "
        f"{', '.join(files.skipped) or 'nothing'})"))
