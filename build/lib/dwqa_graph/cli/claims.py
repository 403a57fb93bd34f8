"""``dwqa claims``: claims with verified verbatim spans."""

from __future__ import annotations

import click

from dwqa_graph.claims.extract import EXTRACTORS, extract_claims
from dwqa_graph.cli.common import (
    emit,
    friendly_errors,
    json_option,
    llm_option,
    open_llm,
    open_store,
)
from dwqa_graph.config import Settings


@click.command("claims")
@click.option("--extractor", type=click.Choice(EXTRACTORS), default="rule", show_default=True,
              help="rule: self-contained sentences, no model; llm: the seed's prompt.")
@llm_option
@click.option("--concurrency", type=int, default=4, show_default=True,
              help="LLM calls in flight.")
@json_option
@click.pass_obj
@friendly_errors
def claims_cmd(settings: Settings, extractor: str, llm_spec: str | None, concurrency: int,
               as_json: bool) -> None:
    """Extract atomic claims with verified verbatim spans for every DocumentVersion the
    extractor has not processed yet."""
    llm = open_llm(llm_spec, concurrency) if extractor == "llm" else None
    with open_store(settings) as store:
        report = extract_claims(store, extractor=extractor, llm=llm)
    emit(as_json, report.model_dump(), lambda: click.echo(
        f"{report.versions} versions: {report.claims} claims stored, {report.rejected} "
        f"rejected {report.rejected_by_reason or ''} in {report.seconds:.1f}s"))
