"""The CLI: thin, every command documented, --json prints one JSON document."""

from __future__ import annotations

import json
import re
import socket
from dataclasses import replace
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.config import Settings
from dwqa_graph.errors import ServerError
from dwqa_graph.graph import queries, server
from dwqa_graph.graph.store import Store

from .conftest import DATA


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        out.append((*prefix, name))
        if isinstance(cmd, click.Group):
            out += all_commands(cmd, (*prefix, name))
    return out


@pytest.mark.parametrize("path", all_commands(main))
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0
    cmd: click.Command = main
    for name in path:
        cmd = cmd.get_command(click.Context(cmd), name)  # type: ignore[attr-defined]
    assert cmd.help and len(cmd.help.strip()) > 10, path


def run_json(env: dict[str, str], *args: str) -> object:
    result = CliRunner().invoke(main, [*args, "--json"], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_ingest_status_cypher_and_query(store: Store, env: dict[str, str]) -> None:
    report = run_json(env, "ingest", str(DATA / "meta_austin.json"), "--dataset", "meta")
    assert report["ingested"] == 1 and report["rejected"] == 0  # type: ignore[index]
    status = run_json(env, "db", "status")
    assert status["running"] is True  # type: ignore[index]
    assert status["version"].startswith("5.26")  # type: ignore[index]
    assert status["edition"] == "community"  # type: ignore[index]
    assert status["counts"]["Document"] == 15  # type: ignore[index]
    rows = run_json(env, "cypher", "MATCH (q:Query) WHERE q.dataset = $d RETURN q.text AS t",
                    "--param", "d=meta")
    assert rows == [{"t": "When did Meta move its headquarters to Austin?"}]
    chain = run_json(env, "query", "evidence_chain")
    assert {r["cite"] for r in chain if r["cite"]} == {4, 6, 8, 9, 10}  # type: ignore[union-attr]
    uncited = run_json(env, "query", "uncited_sources")
    assert len(uncited) == 10  # type: ignore[arg-type]  # 15 sources, 5 cited
    listing = run_json(env, "query", "--list")
    assert "evidence_chain" in listing  # type: ignore[operator]


def test_cypher_is_read_only(store: Store, env: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["cypher", "CREATE (:Intruder) RETURN 1", "--json"],
                                env=env)
    assert result.exit_code == 1
    # refused by the read allow-list before the server's read transaction (tests/test_readonly)
    assert "CREATE is not a read clause" in json.loads(result.stdout)["error"]["message"]
    assert "Intruder" not in store.counts()


def test_bad_input_exits_cleanly(store: Store, env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "ok?", "thinking": "A [1].", "sources": []}\n{oops\n')
    result = CliRunner().invoke(main, ["ingest", str(path), "--json"], env=env)
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["rejected_by_reason"] == {"malformed_json": 1}
    assert f"{path}:2: rejected: malformed_json" in result.stderr
    missing = CliRunner().invoke(main, ["ingest", str(tmp_path / "nope.jsonl")], env=env)
    assert missing.exit_code == 1 and "no such log file" in missing.stderr


def test_port_in_use_is_named(settings: Settings, tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        busy = replace(settings, home=tmp_path, uri_explicit=False).with_ports(port, port + 1)
        with pytest.raises(ServerError, match=f"port {port} .*already in use"):
            server.up(busy)


def test_missing_java_is_named(settings: Settings, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no java, no docker, no mvn on PATH
    lonely = replace(settings, home=tmp_path, uri_explicit=False).with_ports(1, 2)
    with pytest.raises(ServerError, match="Java 17"):
        server.up(lonely)


def test_unreachable_explicit_uri_is_an_error(settings: Settings) -> None:
    gone = replace(settings, uri="bolt://127.0.0.1:9", uri_explicit=True)
    with pytest.raises(ServerError, match="not reachable"):
        server.up(gone)


def test_module_entry_point_has_every_command() -> None:
    """``python -m dwqa_graph.cli`` (how tests and scripts spawn it) sees the evaluation
    commands too: cli.py runs as __main__ there, which once broke their registration."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "dwqa_graph.cli", "--help"], capture_output=True,
                         text=True, check=True).stdout
    for name in ("eval", "leaktest", "contamination", "report", "dataset", "runs", "fetch"):
        assert f"  {name} " in out, name


def test_an_all_errors_eval_exits_1_and_is_listed_as_failed(store: Store,
                                                          env: dict[str, str]) -> None:
    run_json(env, "dataset", "import", str(DATA / "freshqa_sample.csv"), "--name", "fresh")
    dead = "perplexica:http://127.0.0.1:9"  # nothing listens on port 9
    args = ["eval", "--dataset", "fresh", "--split", "test", "--agent", dead]
    result = CliRunner().invoke(main, [*args, "--json"], env=env)
    assert result.exit_code == 1
    error = json.loads(result.stdout)["error"]  # one JSON document, even for an error
    assert error["type"] == "RunFailedError"
    assert "failed on all 3 items" in error["message"] and "no score" in error["message"]
    human = CliRunner().invoke(main, args, env=env)
    assert human.exit_code == 1 and "failed on all 3 items" in human.stderr
    runs = run_json(env, "runs", "list")
    assert [(r["status"], r["errors"], r["split"]) for r in runs] == [  # type: ignore[index]
        ("failed", 3, "test"), ("failed", 3, "test")]
    listing = CliRunner().invoke(main, ["runs", "list"], env=env)
    assert listing.stdout.count("FAILED") == 2 and "fresh:test" in listing.stdout
    shown = run_json(env, "runs", "show", runs[0]["id"])  # type: ignore[index]
    assert shown["status"] == "failed" and shown["scores"] == {}  # type: ignore[index]
    # Positive control: a working agent on the same split scores, and --split is honoured.
    ok = run_json(env, "eval", "--dataset", "fresh", "--split", "test", "--agent",
                  "python:json:dumps", "--judge-mode", "strict")
    assert ok["status"] == "ok" and ok["n"] == 3 and ok["split"] == "test"  # type: ignore[index]
    assert ok["judge"] == "fresheval-strict:rule" and "judge" in ok["scores"]  # type: ignore[index]
    bad_split = CliRunner().invoke(main, ["eval", "--dataset", "fresh", "--split", "dev",
                                          "--agent", "python:json:dumps"], env=env)
    assert bad_split.exit_code == 1 and "no 'dev' items" in bad_split.stderr


def test_hotpotqa_sets_are_scored_with_the_official_f1(store: Store, env: dict[str, str]) -> None:
    from .conftest import HOTPOT

    run_json(env, "dataset", "import", str(HOTPOT), "--name", "hotpot")
    report = run_json(env, "eval", "--dataset", "hotpot", "--agent", "python:json:dumps")
    assert report["scorers"] == ["em", "f1", "hotpot_f1"]  # type: ignore[index]


def test_db_browser_url_and_style(env: dict[str, str]) -> None:
    info = run_json(env, "db", "browser")
    url = info["url"]  # type: ignore[index]
    assert "/browser/?dbms=" in url and "&db=neo4j&preselectAuthMethod=" in url
    style = CliRunner().invoke(main, ["db", "browser", "--style"], env=env).stdout
    assert style.startswith(":style node {") and "\n" not in style.strip()
    for label, prop in (("Query", "text"), ("Document", "title"), ("Claim", "text")):
        assert f'node.{label} {{' in style
        block = style.split(f"node.{label} {{")[1].split(";  }")[0].split("; }")[0]
        assert f'caption: "{{{prop}}}"' in block


def test_browser_url_prefills_the_connection() -> None:
    local = Settings(home=Path("/tmp/x")).with_ports(7700, 7487)
    assert local.browser_url == ("http://127.0.0.1:7487/browser/?dbms=neo4j://neo4j@127.0.0.1:"
                                 "7700&db=neo4j&preselectAuthMethod=NATIVE")
    assert "/tmp/x/neo4j-password" in local.browser_login
    remote = replace(local, uri="neo4j+s://db.example.org:7687", uri_explicit=True)
    # "+" is escaped: in a query string it would read as a space.
    assert remote.browser_url.endswith("?dbms=neo4j%2Bs://neo4j@db.example.org:7687&db=neo4j"
                                       "&preselectAuthMethod=NATIVE")
    assert "NEO4J_PASSWORD" in remote.browser_login


@pytest.mark.parametrize("name", [n.removeprefix("explore/")
                                  for n in queries.available(under="explore")])
def test_explore_queries_run_as_pasted(name: str, store: Store) -> None:
    """Every $parameter an exploration query uses gets a default from a :param line before
    the statement, so pasting the file into Neo4j Browser never asks for one; and the
    statement runs on the server with those defaults (the syntax is the server's to judge)."""

    text = queries.load_file(f"explore/{name}")
    defaults, cypher = queries.browser_script(text)
    assert queries.load(f"explore/{name}") == cypher  # what the store runs
    assert queries.defaults(f"explore/{name}") == defaults
    used = set(re.findall(r"\$([A-Za-z_]\w*)", cypher))
    assert used and used <= set(defaults), (used, defaults)
    assert not any(line.startswith(":") for line in cypher.splitlines())
    assert not cypher.endswith(";")
    assert isinstance(store.read(cypher, defaults), list)
