"""``dwqa``: a thin CLI over the Python API.

Each command reads its options, calls one library function, and prints either a short
human summary or, with ``--json``, exactly one JSON object on stdout. Errors become a
one-line message on stderr and exit code 1; bad input records are reported on stderr as
``file:line: reason: detail`` while the command keeps going.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__, queries, server
from .claims import EXTRACTORS, extract_claims
from .cli_common import (
    F,
    echo_lines,
    emit,
    friendly_errors,
    json_option,
    llm_option,
    open_llm,
    open_store,
    parse_params,
)
from .cli_eval import register
from .config import Settings, load_settings
from .fetch import FetchOptions, fetch, parse_duration
from .generate import Generator, LLMGenerator, RuleGenerator
from .ingest import FORMATS, Problem, ingest
from .refresh import refresh
from .rounds import (
    collisions,
    export_round,
    freeze_round,
    list_rounds,
    new_round,
    show_round,
)
from .sampling import PATTERNS, SampleConfig
from .search import GraphSearch, SearchClient, SearxngClient
from .steps import LLMStepParser, RuleStepParser, StepParser
from .store import Store


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dwqa")
@click.pass_context
def main(ctx: click.Context) -> None:
    """dwqa-graph: fresh multi-hop QA rounds from evidence graphs in Neo4j."""
    ctx.obj = load_settings()


# -- db ------------------------------------------------------------------------------------
@main.group()
def db() -> None:
    """Start, stop and inspect Neo4j; apply the schema."""


@db.command("up")
@json_option
@click.pass_obj
@friendly_errors
def db_up(settings: Settings, as_json: bool) -> None:
    """Start Neo4j (or find the one NEO4J_URI names) and apply the schema."""
    state = server.up(settings)
    with open_store(settings) as store:
        applied = store.apply_schema()
    payload = {**state.__dict__, "schema": applied}
    emit(as_json, payload, lambda: click.echo(
        f"Neo4j is up ({state.mode}) at {state.uri}"
        + (f"; Browser: {state.browser}" if state.browser else "")))


@db.command("down")
@json_option
@click.pass_obj
@friendly_errors
def db_down(settings: Settings, as_json: bool) -> None:
    """Stop the Neo4j that `dwqa db up` started (never an external server)."""
    state = server.down(settings)
    emit(as_json, {"stopped": state.__dict__ if state else None}, lambda: click.echo(
        f"stopped {state.mode} Neo4j" if state else "no Neo4j started by dwqa is running"))


@db.command("status")
@json_option
@click.pass_obj
@friendly_errors
def db_status(settings: Settings, as_json: bool) -> None:
    """URI, version, edition and node counts."""
    info = server.status(settings)

    def human() -> None:
        if not info["running"]:
            click.echo(f"not running: {info['error']}")
            return
        click.echo(f"{info['uri']}  Neo4j {info['version']} {info['edition']} ({info['mode']})")
        if info.get("browser"):
            click.echo(f"Browser: {info['browser']}")
        for label, n in info["counts"].items():
            click.echo(f"  {label:<16} {n:>10,}")

    emit(as_json, info, human)
    if not info["running"]:
        sys.exit(1)


@db.command("schema")
@json_option
@click.pass_obj
@friendly_errors
def db_schema(settings: Settings, as_json: bool) -> None:
    """Apply cypher/schema/*.cypher (idempotent)."""
    with open_store(settings) as store:
        applied = store.apply_schema()
    emit(as_json, {"applied": applied}, lambda: click.echo("applied: " + ", ".join(applied)))


# -- ingest -----------------------------------------------------------------------------------
@main.command("ingest")
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

    llm = open_llm(llm_spec)
    if parser_name == "llm" and llm is None:
        raise ValueError("--parser llm needs --llm SPEC")
    parser: StepParser = LLMStepParser(llm) if parser_name == "llm" and llm else RuleStepParser()
    with open_store(settings) as store:
        report = ingest(store, paths, fmt=fmt, dataset=dataset, on_problem=show, parser=parser)
    extra = {"llm": llm.stats.model_dump()} if llm else {}
    emit(as_json, report.model_dump(exclude={"problems"}) | extra | {
        "problems": [p.model_dump() for p in report.problems]}, lambda: click.echo(
        f"ingested {report.ingested} of {report.records} records "
        f"({report.rejected} rejected) in {report.seconds:.2f}s"))


# -- claims ------------------------------------------------------------------------------------
@main.command("claims")
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


# -- rounds ------------------------------------------------------------------------------------
@main.group("round")
def round_group() -> None:
    """Dynamic rounds: one fresh, verified QA item per seed graph."""


def _int_list(text: str | None) -> list[int] | None:
    return [int(x) for x in text.split(",") if x.strip()] if text else None


@round_group.command("new")
@click.option("--seed", type=int, required=True, help="Round seed: r_i,t = H(seed, graph id).")
@click.option("--docs", type=int, default=3, show_default=True, help="k documents per graph.")
@click.option("--hops", type=int, default=2, show_default=True, help="Claims per question (2-4).")
@click.option("--patterns", default=",".join(PATTERNS), show_default=True,
              help="Comma-separated subset of temporal,comparison,causal,conjunction.")
@click.option("--min-buckets", type=int, default=2, show_default=True,
              help="Distinct documents a question must use.")
@click.option("--generator", "generator_name", type=click.Choice(["rule", "llm"]),
              default="rule", show_default=True)
@llm_option
@click.option("--judge-llm", "judge_spec", metavar="SPEC",
              help="Also verify each item with an LLM judge over the claims' spans.")
@click.option("--dataset", help="Only the seed graphs of this dataset.")
@click.option("--round", "round_t", type=int, help="Regenerate this (unfrozen) round.")
@json_option
@click.pass_obj
@friendly_errors
def round_new(settings: Settings, seed: int, docs: int, hops: int, patterns: str,
              min_buckets: int, generator_name: str, llm_spec: str | None,
              judge_spec: str | None, dataset: str | None, round_t: int | None,
              as_json: bool) -> None:
    """Create round t: sample, generate, verify and store one QA item per seed graph."""
    cfg = SampleConfig(docs=docs, hops=hops, min_buckets=min_buckets,
                       patterns=tuple(p.strip() for p in patterns.split(",") if p.strip()))
    if generator_name == "llm":
        llm = open_llm(llm_spec, concurrency=8)
        if llm is None:
            raise ValueError("--generator llm needs --llm SPEC")
        gen: Generator = LLMGenerator(llm, min_buckets=min_buckets)
    else:
        gen = RuleGenerator()
    with open_store(settings) as store:
        report = new_round(store, seed=seed, generator=gen, cfg=cfg, dataset=dataset,
                           t=round_t, judge_llm=open_llm(judge_spec))
    emit(as_json, report.model_dump(), lambda: click.echo(
        f"round {report.round}: {report.items} items for {report.graphs} seed graphs "
        f"({report.no_item} without a valid candidate) {report.patterns}"))


@round_group.command("list")
@json_option
@click.pass_obj
@friendly_errors
def round_list(settings: Settings, as_json: bool) -> None:
    """Every round: seed, generator, θ hash, items, frozen."""
    with open_store(settings) as store:
        rows = list_rounds(store)
    emit(as_json, rows, lambda: echo_lines(
        f"{r['t']:>4}  seed {r['seed']:<8} {r['generator']:<12} θ {r['theta_hash']}  "
        f"{r['items']:>5} items  {'frozen' if r['frozen'] else ''}" for r in rows))


@round_group.command("show")
@click.argument("t", type=int)
@json_option
@click.pass_obj
@friendly_errors
def round_show(settings: Settings, t: int, as_json: bool) -> None:
    """A round's settings, pattern counts and example items."""
    with open_store(settings) as store:
        info = show_round(store, t)
    emit(as_json, info)


@round_group.command("export")
@click.argument("t", type=int)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="JSONL file.")
@json_option
@click.pass_obj
@friendly_errors
def round_export(settings: Settings, t: int, out: Path, as_json: bool) -> None:
    """Write a round's items with provenance (claims, spans, offsets, URLs) as JSON lines."""
    with open_store(settings) as store:
        n = export_round(store, t, out)
    emit(as_json, {"round": t, "items": n, "out": str(out)},
         lambda: click.echo(f"wrote {n} items of round {t} to {out}"))


@round_group.command("freeze")
@click.argument("t", type=int)
@json_option
@click.pass_obj
@friendly_errors
def round_freeze(settings: Settings, t: int, as_json: bool) -> None:
    """Freeze round t for snapshot evaluation: it is never modified afterwards."""
    with open_store(settings) as store:
        info = freeze_round(store, t)
    emit(as_json, info, lambda: click.echo(f"round {t} frozen at {info['frozen_at']}"))


@round_group.command("collisions")
@click.option("--rounds", "rounds_text", metavar="T1,T2,...", help="Rounds (default: all).")
@click.option("--delta", type=float, default=0.05, show_default=True,
              help="Target collision probability for the K-needed figures.")
@click.option("--simulate", "trials", type=int, default=0,
              help="Monte-Carlo trials per graph (0: none).")
@json_option
@click.pass_obj
@friendly_errors
def round_collisions(settings: Settings, rounds_text: str | None, delta: float, trials: int,
                     as_json: bool) -> None:
    """Candidate pool size K, overlap J_max, observed repeats and the collision bound."""
    with open_store(settings) as store:
        stats = collisions(store, _int_list(rounds_text), delta, trials)
    emit(as_json, stats, lambda: click.echo(json.dumps(stats["aggregate"], indent=2)))


# -- web ---------------------------------------------------------------------------------------
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
        click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST",
                     help="Exempt this host from the private-address check (repeatable); "
                          "its redirects are still checked."),
    ]):
        f = opt(f)
    return f


def _options(concurrency: int, per_host: int, timeout: float, max_bytes: int,
             allow_private: bool, allow_hosts: tuple[str, ...]) -> FetchOptions:
    return FetchOptions(concurrency=concurrency, per_host=per_host, timeout=timeout,
                        max_bytes=max_bytes, allow_private=allow_private,
                        allow_hosts=frozenset(h.lower() for h in allow_hosts))


@main.command("fetch")
@fetch_options
@click.option("--refetch-older-than", "older", metavar="DURATION",
              help="Also re-fetch pages fetched longer ago than this (30m, 12h, 7d).")
@click.option("--retry-failed", is_flag=True, help="Also retry pages whose last fetch failed.")
@json_option
@click.pass_obj
@friendly_errors
def fetch_cmd(settings: Settings, concurrency: int, per_host: int, timeout: float,
              max_bytes: int, allow_private: bool, allow_hosts: tuple[str, ...],
              older: str | None, retry_failed: bool, as_json: bool) -> None:
    """Fetch every Document without a current version; extract its text as a version."""
    opts = _options(concurrency, per_host, timeout, max_bytes, allow_private, allow_hosts)
    with open_store(settings) as store:
        report = fetch(store, opts, older_than=parse_duration(older) if older else None,
                       retry_failed=retry_failed)
    emit(as_json, report.model_dump(), lambda: click.echo(
        f"fetched {report.documents} documents in {report.seconds:.1f}s: {report.ok} ok "
        f"({report.new_versions} new versions), {report.failed} failed "
        f"{report.failed_by_reason or ''}"))


def _search_client(searxng: str | None, store: Store) -> SearchClient:
    if searxng:
        return SearxngClient(searxng)
    return GraphSearch(store)


@main.command("refresh")
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
                as_json: bool) -> None:
    """Re-issue every seed query; add this round's RETRIEVE edges and fetch new pages."""
    opts = _options(concurrency, per_host, timeout, max_bytes, allow_private, allow_hosts)
    with open_store(settings) as store:
        report = refresh(store, _search_client(searxng, store), round_t=round_t, limit=limit,
                         dataset=dataset, fetch_options=opts)
    emit(as_json, report.model_dump(), lambda: click.echo(
        f"round {report.round}: {report.queries} queries, {report.results} results, "
        f"{report.new_documents} new documents"))


@main.command("search")
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
        hits = _search_client(searxng, store).search(query, limit=limit)
    emit(as_json, [h.model_dump() for h in hits],
         lambda: echo_lines(f"{h.rank:>3}. {h.title[:60]:<60} {h.url}" for h in hits))


@main.group()
def web() -> None:
    """A local web for offline runs."""


@web.command("serve")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, default=8765, show_default=True)
def web_serve(directory: Path, host: str, port: int) -> None:
    """Serve DIRECTORY's pages over HTTP and answer SearxNG-format /search from a BM25
    index over their extracted text. Runs until interrupted."""
    from .localweb import serve_forever

    serve_forever(directory, host=host, port=port)


# -- queries ---------------------------------------------------------------------------------
def _print_rows(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        click.echo(json.dumps(row, default=str, ensure_ascii=False))


@main.command("cypher")
@click.argument("query")
@click.option("--param", "params", multiple=True, metavar="K=V", help="Query parameter.")
@json_option
@click.pass_obj
@friendly_errors
def cypher_cmd(settings: Settings, query: str, params: tuple[str, ...], as_json: bool) -> None:
    """Run a read-only Cypher QUERY; rows as JSON (the server refuses writes)."""
    with open_store(settings) as store:
        rows = store.read(query, parse_params(params))
    emit(as_json, rows, lambda: _print_rows(rows))


_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@main.command("query")
@click.argument("name", required=False)
@click.option("--param", "params", multiple=True, metavar="K=V", help="Query parameter.")
@click.option("--list", "list_", is_flag=True, help="List the named exploration queries.")
@json_option
@click.pass_obj
@friendly_errors
def query_cmd(settings: Settings, name: str | None, params: tuple[str, ...], list_: bool,
              as_json: bool) -> None:
    """Run a named exploration query from cypher/explore/ (parameters default to null)."""
    if list_ or not name:
        names = [n.removeprefix("explore/") for n in queries.available(under="explore")]
        listing = {n: queries.description(f"explore/{n}") for n in names}
        emit(as_json, listing, lambda: echo_lines(f"{n:<20} {d}" for n, d in listing.items()))
        return
    text = queries.load(f"explore/{name}")
    values: dict[str, Any] = dict.fromkeys(_PARAM.findall(text))
    values.update(parse_params(params))
    with open_store(settings) as store:
        rows = store.read(text, values)
    emit(as_json, rows, lambda: _print_rows(rows))


# Evaluation and leakage commands live in their own module.
register(main)

if __name__ == "__main__":
    main()
