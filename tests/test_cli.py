"""The CLI: thin, every command documented, --json prints one JSON document."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.config import Settings
from dwqa_graph.errors import ServerError
from dwqa_graph.graph import server
from dwqa_graph.graph.store import Store

from .conftest import DATA


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, cmd in group.commands.items():
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
        cmd = cmd.commands[name]  # type: ignore[attr-defined]
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
    assert "CREATE is not a read clause" in result.output
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
