"""``dwqa facts``: typed facts and resolved entities read from every version's claims."""

from __future__ import annotations

import sys

import click

from dwqa_graph.cli.common import (
    emit,
    friendly_errors,
    json_option,
    llm_option,
    open_llm,
    open_store,
    registry_option,
)
from dwqa_graph.config import Settings
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.registry import FACT_EXTRACTORS


@click.command("facts")
@registry_option("--extractor", default="corenlp", show_default=True,
                 registry=FACT_EXTRACTORS, help="Fact extractor:")
@llm_option
@click.option("--concurrency", type=int, default=4, show_default=True,
              help="LLM calls in flight.")
@click.option("--dask", "dask", metavar="ADDRESS", envvar="DASK_SCHEDULER_ADDRESS",
              help="Read the pages on the workers of this Dask scheduler "
              "(tcp://HOST:8786; env DASK_SCHEDULER_ADDRESS), each with its own CoreNLP; "
              "this process writes them (docs: Facts on a cluster).")
@json_option
@click.pass_obj
@friendly_errors
def facts_cmd(settings: Settings, extractor: str, llm_spec: str | None, concurrency: int,
              dask: str | None, as_json: bool) -> None:
    """Read typed facts (entity, relation, entity | date | quantity) from every
    DocumentVersion this extractor has not read yet, resolve their entities, and store
    them with their evidence spans (see `dwqa query entity_facts`). Exits 1 when the reader
    broke (a CoreNLP worker that died twice with a text in flight, or could not be
    restarted; on a cluster: a batch that failed twice); pages refused for their own text
    are warnings."""
    llm = open_llm(llm_spec, concurrency) if llm_spec else None
    with open_store(settings) as store:
        report = extract_facts(store, extractor=extractor, llm=llm, dask=dask)
    for problem in report.problems:
        click.echo(f"warning: {problem}", err=True)
    emit(as_json, report.model_dump(), lambda: click.echo(
        f"{report.versions} versions: {report.facts} facts about {report.entities} entities "
        f"({', '.join(f'{k} {v}' for k, v in report.by_relation.items()) or 'none'}) in "
        f"{report.seconds:.1f}s, {report.tokens_per_s:,.0f} tokens/s"
        + (f"; {report.failed_versions} versions unread" if report.failed_versions else "")
        + (f"; {report.sentences_skipped} sentences over the length limit skipped"
           if report.sentences_skipped else "")
        + (f"; {report.sentences_unread} sentences without a cue left unread"
           if report.sentences_unread else "")
        + (f"; model facts rejected: {report.rejected_by_reason}"
           if report.rejected_by_reason else "")))
    if report.reader_failures:
        # Not the pages' fault (those are warnings above and leave exit 0): the run is
        # incomplete, and a script must not take it for done.
        click.echo(f"dwqa: error: the reader broke: {report.reader_failures} versions were "
                   "not read (left pending: run `dwqa facts` again)", err=True)
        sys.exit(1)
