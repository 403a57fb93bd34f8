"""``dwqa expand``: seed graphs grow the pages of the entities they name."""

from __future__ import annotations

import sys
from contextlib import ExitStack

import click

from dwqa_graph.cli.common import emit, friendly_errors, json_option, open_store
from dwqa_graph.cli.web import _options as fetch_options_of, _search_client, fetch_options
from dwqa_graph.config import Settings
from dwqa_graph.facts.stage import FactsReport, extract_facts
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.web.expand import MAX_DEPTH, MAX_PAGES, MAX_RESULTS, ExpandReport, expand


@click.command("expand")
@click.option("--max-pages", type=click.IntRange(0, MAX_PAGES), default=5, show_default=True,
              help="Pages a seed graph may gain, over all depths and runs.")
@click.option("--depth", type=click.IntRange(1, MAX_DEPTH), default=1, show_default=True,
              help="2: the entities of the pages added are expanded too.")
@click.option("--dataset", help="Only the seed graphs of this dataset.")
@click.option("--searxng", envvar="DWQA_SEARXNG_URL", metavar="URL",
              help="SearxNG base URL (also DWQA_SEARXNG_URL); without it, search the "
                   "graph's own full-text index.")
@click.option("--limit", type=click.IntRange(1, MAX_RESULTS), default=10, show_default=True,
              help="Results per search looked at for the entity's page.")
@click.option("--no-fetch", is_flag=True,
              help="Only add the pages (depth 1); `dwqa fetch` and `dwqa facts` read them.")
@fetch_options
@json_option
@click.pass_obj
@friendly_errors
def expand_cmd(settings: Settings, max_pages: int, depth: int, dataset: str | None,
               searxng: str | None, limit: int, no_fetch: bool, concurrency: int,
               per_host: int, timeout: float, max_bytes: int, allow_private: bool,
               allow_hosts: tuple[str, ...], deadline: float, as_json: bool) -> None:
    """Search each seed graph's page-less entities by name, add the result whose title
    names the entity (provenance on an EXPANDED edge), fetch it through the SSRF guard and
    read its facts with CoreNLP. Safe to run again: it adds nothing twice."""
    opts = fetch_options_of(concurrency, per_host, timeout, max_bytes, allow_private,
                            allow_hosts, deadline)
    with ExitStack() as stack, open_store(settings) as store:
        nlp: list[CoreNLP] = []

        def read_facts() -> FactsReport:
            if not nlp:  # started once, and only when a page was added
                nlp.append(stack.enter_context(CoreNLP()))
            return extract_facts(store, nlp=nlp[0])

        report = expand(store, _search_client(searxng, store), max_pages=max_pages,
                        depth=depth, limit=limit, dataset=dataset, fetch_options=opts,
                        do_fetch=not no_fetch, read_facts=None if no_fetch else read_facts)
    emit(as_json, report.model_dump(), lambda: click.echo(_summary(report)))
    broken = sum(f.get("reader_failures", 0) for f in report.facts)
    if broken:
        click.echo(f"dwqa: error: the reader broke: {broken} versions were not read (left "
                   "pending: run `dwqa facts` again)", err=True)
        sys.exit(1)


def _summary(r: ExpandReport) -> str:
    fetched = sum(f.ok for f in r.fetch)
    failed: dict[str, int] = {}
    for f in r.fetch:
        for k, v in f.failed_by_reason.items():
            failed[k] = failed.get(k, 0) + v
    return (f"{r.graphs} seed graphs, {r.entities} page-less entities searched: "
            f"{r.pages_added} pages added to {r.graphs_grown} graphs "
            f"({r.new_documents} new, {fetched} fetched"
            + (f", fetch failed {failed}" if failed else "") + ") "
            f"by depth {r.by_depth or '{}'}; results rejected {r.rejected_by_reason or 'none'}; "
            f"{r.seconds:.1f}s (search {r.search_seconds:.1f}, fetch {r.fetch_seconds:.1f}, "
            f"read {r.read_seconds:.1f})"
            + (f"; {r.search_failures} searches failed (is the search endpoint up?)"
               if r.search_failures else ""))
