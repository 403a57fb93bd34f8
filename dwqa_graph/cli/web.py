"""``dwqa fetch``, ``dwqa refresh``, ``dwqa search``, ``dwqa web serve``: the web stage."""

from __future__ import annotations

from pathlib import Path

import click
from pydantic import ValidationError

from dwqa_graph.cli.common import (
    F,
    echo_lines,
    emit,
    friendly_errors,
    json_option,
    open_store,
)
from dwqa_graph.config import Settings
from dwqa_graph.errors import UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.web.fetch import FetchOptions, fetch, parse_duration
from dwqa_graph.web.refresh import refresh
from dwqa_graph.web.search import SearchClient, make_search_client
from dwqa_graph.web.ssrf import parse_allowed


def fetch_options(f: F) -> F:
    """Options shared by every command that fetches pages."""
    for opt in reversed([
        click.option("--concurrency", type=int, default=32, show_default=True,
                     help="Downloads in flight over all hosts."),
        click.option("--per-host", type=int, default=8, show_default=True,
                     help="Downloads in flight per host."),
        click.option("--timeout", type=float, default=20.0, show_default=True,
                     help="Seconds to connect / per read."),
        click.option("--max-bytes", type=int, default=5_000_000, show_default=True,
                     help="Body size cap."),
        click.option("--allow-private", is_flag=True, envvar="DWQA_ALLOW_PRIVATE",
                     help="Allow loopback and private addresses (local web, tests). "
                          "Also DWQA_ALLOW_PRIVATE=1."),
        click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST:PORT",
                     help="Exempt this host:port (only that port) from the private-address "
                          "check (repeatable); its redirects are still checked."),
        click.option("--deadline", type=float, default=60.0, show_default=True,
                     help="Seconds for a whole page (connect, headers, body, retries)."),
    ]):
        f = opt(f)
    return f


def _options(concurrency: int, per_host: int, timeout: float, max_bytes: int,
             allow_private: bool, allow_hosts: tuple[str, ...], deadline: float,
             ) -> FetchOptions:
    try:
        hosts = frozenset(parse_allowed(h) for h in allow_hosts)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    try:
        return FetchOptions(concurrency=concurrency, per_host=per_host, timeout=timeout,
                            max_bytes=max_bytes, allow_private=allow_private,
                            allow_hosts=hosts, deadline=deadline)
    except ValidationError as exc:
        raise UsageError(str(exc)) from exc


@click.command("fetch")
@fetch_options
@click.option("--refetch-older-than", "older", metavar="DURATION",
              help="Also re-fetch pages fetched longer ago than this (30m, 12h, 7d).")
@click.option("--retry-failed", is_flag=True, help="Also retry pages whose last fetch failed.")
@json_option
@click.pass_obj
@friendly_errors
def fetch_cmd(settings: Settings, concurrency: int, per_host: int, timeout: float,
              max_bytes: int, allow_private: bool, allow_hosts: tuple[str, ...],
              deadline: float, older: str | None, retry_failed: bool, as_json: bool) -> None:
    """Fetch every Document without a current version; extract its text as a version."""
    opts = _options(concurrency, per_host, timeout, max_bytes, allow_private, allow_hosts,
                    deadline)
    with open_store(settings) as store:
        report = fetch(store, opts, older_than=parse_duration(older) if older else None,
                       retry_failed=retry_failed)
    emit(as_json, report.model_dump(), lambda: click.echo(
        f"fetched {report.documents} documents in {report.seconds:.1f}s: {report.ok} ok "
        f"({report.new_versions} new versions), {report.failed} failed "
        f"{report.failed_by_reason or ''}"))


def _search_client(searxng: str | None, store: Store) -> SearchClient:
    return make_search_client(f"searxng:{searxng}" if searxng else "graph", store)


@click.command("refresh")
@click.option("--round", "round_t", type=int, help="Round number (default: last round + 1).")
@click.option("--searxng", envvar="DWQA_SEARXNG_URL", metavar="URL",
              help="SearxNG base URL (also DWQA_SEARXNG_URL); without it, search the "
                   "graph's own full-text index.")
@click.option("--limit", type=int, default=10, show_default=True, help="Results per query.")
@click.option("--dataset", help="Only the seed queries of this dataset.")
@fetch_options
@json_option
@click.pass_obj
@friendly_errors
def refresh_cmd(settings: Settings, round_t: int | None, searxng: str | None, limit: int,
                dataset: str | None, concurrency: int, per_host: int, timeout: float,
                max_bytes: int, allow_private: bool, allow_hosts: tuple[str, ...],
                deadline: float, as_json: bool) -> None:
    """Re-issue every seed query; add this round's RETRIEVE edges and fetch new pages."""
    opts = _options(concurrency, per_host, timeout, max_bytes, allow_private, allow_hosts,
                    deadline)
    with open_store(settings) as store:
        report = refresh(store, _search_client(searxng, store), round_t=round_t, limit=limit,
                         dataset=dataset, fetch_options=opts)
    emit(as_json, report.model_dump(), lambda: click.echo(
        f"round {report.round}: {report.queries} queries, {report.results} results, "
        f"{report.new_documents} new documents"))


@click.command("search")
@click.argument("query")
@click.option("--searxng", envvar="DWQA_SEARXNG_URL", metavar="URL",
              help="SearxNG base URL; without it, search the graph's full-text index.")
@click.option("--limit", type=int, default=10, show_default=True)
@json_option
@click.pass_obj
@friendly_errors
def search_cmd(settings: Settings, query: str, searxng: str | None, limit: int,
               as_json: bool) -> None:
    """Search with the same client refresh and agents use."""
    with open_store(settings) as store:
        client = _search_client(searxng, store)
        hits = client.search(query, limit=limit)
    skipped = dict(getattr(client, "skipped", {}))

    def human() -> None:
        echo_lines(f"{h.rank:>3}. {h.title[:60]:<60} {h.url}" for h in hits)
        if skipped:
            click.echo(f"skipped {sum(skipped.values())} unusable result(s): "
                       + ", ".join(f"{k} {v}" for k, v in sorted(skipped.items())), err=True)

    emit(as_json, [h.model_dump() for h in hits], human)


@click.group()
def web() -> None:
    """A local web for offline runs."""


@web.command("serve")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8765, show_default=True)
@click.option("--threads", type=click.IntRange(1, 1024), default=16, show_default=True,
              help="Requests handled at once; other connections wait without a thread.")
@click.option("--idle-timeout", "idle", type=click.FloatRange(0.1, 3600), default=10.0,
              show_default=True, help="Seconds before a silent connection is closed (also "
                                      "the most a request's headers may take).")
@friendly_errors
def web_serve(directory: Path, host: str, port: int, threads: int, idle: float) -> None:
    """Serve DIRECTORY's pages over HTTP and answer SearxNG-format /search from a BM25
    index over their extracted text. Runs until interrupted."""
    from dwqa_graph.web.localweb import serve_forever

    serve_forever(directory, host=host, port=port, threads=threads, idle=idle)
