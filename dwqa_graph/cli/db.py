"""``dwqa db``, ``dwqa cypher``, ``dwqa query``: the server, read-only Cypher, named queries."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import click

from dwqa_graph.cli.common import (
    echo_lines,
    emit,
    friendly_errors,
    json_option,
    open_store,
    parse_params,
)
from dwqa_graph.config import Settings, package_data
from dwqa_graph.graph import queries, server


@click.group()
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
    password_file = None if settings.uri_explicit else str(settings.password_file)
    payload = {**state.__dict__, "schema": applied, "password_file": password_file}
    emit(as_json, payload, lambda: click.echo(
        f"Neo4j is up ({state.mode}) at {state.uri}"
        + (f"; Browser: {state.browser}" if state.browser else "")
        + (f" (user {settings.user}, password in {password_file})" if password_file else "")))


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
            click.echo(f"  {settings.browser_login}")
            click.echo("  captions (Query by its text, Document by title, Claim by text): "
                       "run `dwqa db browser --style` and paste its line into the Browser")
        if info.get("memory"):
            click.echo(f"  memory: heap {info['memory']['heap']}, page cache "
                       f"{info['memory']['pagecache']} (DWQA_NEO4J_HEAP / "
                       "DWQA_NEO4J_PAGECACHE, applied at `dwqa db up`)")
        for label, n in info["counts"].items():
            click.echo(f"  {label:<16} {n:>10,}")

    emit(as_json, info, human)
    if not info["running"]:
        sys.exit(1)


@db.command("browser")
@click.option("--style", is_flag=True,
              help="Print the `:style` command that loads dwqa's captions and colours.")
@json_option
@click.pass_obj
@friendly_errors
def db_browser(settings: Settings, style: bool, as_json: bool) -> None:
    """The Neo4j Browser URL with the connection filled in, how to log in, and (--style)
    the one-line `:style` command for dwqa's Browser style (neo4j/browser.grass)."""
    grass = package_data("neo4j/browser.grass").read_text(encoding="utf-8")
    command = ":style " + " ".join(grass.split())
    payload = {"url": settings.browser_url, "login": settings.browser_login,
               "style_file": str(package_data("neo4j/browser.grass")), "style": command}
    if style:
        emit(as_json, payload, lambda: click.echo(command))
        return
    emit(as_json, payload, lambda: echo_lines([
        settings.browser_url, settings.browser_login,
        f"style: paste the output of `dwqa db browser --style` into the Browser editor and "
        f"run it (or drag {payload['style_file']} onto the frame `:style` shows)"]))


@db.command("schema")
@json_option
@click.pass_obj
@friendly_errors
def db_schema(settings: Settings, as_json: bool) -> None:
    """Apply cypher/schema/*.cypher (idempotent)."""
    with open_store(settings) as store:
        applied = store.apply_schema()
    emit(as_json, {"applied": applied}, lambda: click.echo("applied: " + ", ".join(applied)))




def _print_rows(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        click.echo(json.dumps(row, default=str, ensure_ascii=False))


@click.command("cypher")
@click.argument("query")
@click.option("--param", "params", multiple=True, metavar="K=V", help="Query parameter.")
@json_option
@click.pass_obj
@friendly_errors
def cypher_cmd(settings: Settings, query: str, params: tuple[str, ...], as_json: bool) -> None:
    """Run a read-only Cypher QUERY; rows as JSON.

    Only read clauses and the read-only procedures db.labels, db.relationshipTypes,
    db.propertyKeys, db.schema.*, db.index.fulltext.query* (no LOAD CSV, no SHOW/TERMINATE,
    no dbms.*); it runs in a read transaction, so the server refuses writes too."""
    with open_store(settings) as store:
        rows = store.read(query, parse_params(params))
    emit(as_json, rows, lambda: _print_rows(rows))


_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@click.command("query")
@click.argument("name", required=False)
@click.option("--param", "params", multiple=True, metavar="K=V", help="Query parameter.")
@click.option("--list", "list_", is_flag=True, help="List the named exploration queries.")
@json_option
@click.pass_obj
@friendly_errors
def query_cmd(settings: Settings, name: str | None, params: tuple[str, ...], list_: bool,
              as_json: bool) -> None:
    """Run a named exploration query from cypher/explore/ (parameters default to the
    values its `:param` lines set, which is what Neo4j Browser uses when it is pasted)."""
    if list_ or not name:
        names = [n.removeprefix("explore/") for n in queries.available(under="explore")]
        listing = {n: queries.description(f"explore/{n}") for n in names}
        emit(as_json, listing, lambda: echo_lines(f"{n:<20} {d}" for n, d in listing.items()))
        return
    text = queries.load_from("explore", name)  # refuses names outside cypher/explore
    defaults = queries.defaults(f"explore/{name}")
    values: dict[str, Any] = dict.fromkeys(_PARAM.findall(text))
    values.update(defaults)
    values.update(parse_params(params))
    with open_store(settings) as store:
        rows = store.read(text, values)
    emit(as_json, rows, lambda: _print_rows(rows))
