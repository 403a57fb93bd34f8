"""A Neo4j that is not ours, not there, or without our database: every command says so in
one line naming the server, where the password came from and the fix (with ``--json``, one
JSON error document), exit 1 — never a driver traceback. Inputs are checked before the
database is opened."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.config import Settings

COMMANDS = {
    "ingest": ["ingest", "LOG"],
    "round list": ["round", "list"],
    "eval": ["eval", "--round", "1", "--agent", "baseline"],
    "report": ["report", "--out", "OUT"],
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cases(settings: Settings) -> dict[str, tuple[dict[str, str], str]]:
    """name -> (environment, what the error line must say)."""
    base = {"NEO4J_URI": settings.uri, "DWQA_HOME": str(settings.home)}
    dead = f"bolt://127.0.0.1:{_free_port()}"
    return {
        "wrong password": ({**base, "NEO4J_PASSWORD": "not-the-password"},
                           f"Neo4j at {settings.uri} refused user 'neo4j' with the password "
                           "from NEO4J_PASSWORD"),
        "unreachable": ({**base, "NEO4J_URI": dead, "NEO4J_PASSWORD": "x"},
                        f"Neo4j is not reachable at {dead}"),
        "no such database": ({**base, "NEO4J_PASSWORD": settings.password,
                              "NEO4J_DATABASE": "nosuchdb"},
                             "has no database 'nosuchdb'"),
    }


@pytest.mark.parametrize("as_json", [False, True], ids=["human", "json"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_server_we_cannot_use_is_one_line(settings: Settings, tmp_path: Path, command: str,
                                            as_json: bool) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"question": "q?", "thinking": "t", "sources": []}\n')
    args = [str(log) if a == "LOG" else str(tmp_path / "out") if a == "OUT" else a
            for a in COMMANDS[command]] + (["--json"] if as_json else [])
    for case, (env, says) in _cases(settings).items():
        result = CliRunner().invoke(main, args, env=env)
        assert result.exit_code == 1, (case, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            (case, result.exception)  # no traceback
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("dwqa: error: ") and says in lines[0], \
            (case, result.stderr)
        assert "Fix:" in lines[0] and settings.password not in lines[0]
        if as_json:
            doc = json.loads(result.stdout)  # exactly one JSON document
            assert doc["error"]["type"] == "StoreError" and says in doc["error"]["message"]
        else:
            assert result.stdout == ""


def test_positive_control_the_right_password_works(settings: Settings, env: dict[str, str],
                                                   ) -> None:
    result = CliRunner().invoke(main, ["round", "list", "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert isinstance(json.loads(result.stdout), (list, dict))


def test_missing_input_is_named_before_the_database(settings: Settings) -> None:
    dead = f"bolt://127.0.0.1:{_free_port()}"
    result = CliRunner().invoke(main, ["ingest", "/no/such/file.jsonl"],
                                env={"NEO4J_URI": dead, "NEO4J_PASSWORD": "x"})
    assert result.exit_code == 1
    assert "no such log file: /no/such/file.jsonl" in result.stderr
    assert "not reachable" not in result.stderr


def test_text_the_driver_cannot_encode_names_the_parameter(env: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["cypher", "RETURN $p AS p", "--param", 'p="\\ud800"',
                                       "--json"], env=env)
    assert result.exit_code == 1, result.output
    assert "$p" in result.stderr and "lone surrogate" in result.stderr
    assert json.loads(result.stdout)["error"]["type"] == "UsageError"
    ok = CliRunner().invoke(main, ["cypher", "RETURN $p AS p", "--param", 'p="\\u00e9"',
                                   "--json"], env=env)
    assert ok.exit_code == 0 and json.loads(ok.stdout) == [{"p": "é"}]


def test_memory_is_sized_from_the_machine_and_overridable(settings: Settings) -> None:
    from dwqa_graph.config import load_settings, memory_defaults

    assert memory_defaults(24 << 30) == ("3072m", "3072m")  # this machine's size
    assert memory_defaults(4 << 30) == ("1024m", "512m")  # floors
    assert memory_defaults(256 << 30) == ("8192m", "4096m")  # ceilings
    s = load_settings({"DWQA_NEO4J_HEAP": "2G", "DWQA_NEO4J_PAGECACHE": "700m"})
    assert (s.neo4j_heap, s.neo4j_pagecache) == ("2g", "700m")
    for bad in ({"DWQA_NEO4J_HEAP": "lots"}, {"DWQA_BOLT_PORT": "99999"},
                {"DWQA_HTTP_PORT": "x"}):
        result = CliRunner().invoke(main, ["db", "status"], env=bad)
        assert result.exit_code == 2 and list(bad)[0] in result.stderr, result.output
        assert "Traceback" not in result.output
    # The running test server reports what it was started with.
    status = CliRunner().invoke(main, ["db", "status", "--json"],
                                env={"DWQA_HOME": str(settings.home),
                                     "DWQA_BOLT_PORT": str(settings.bolt_port),
                                     "DWQA_HTTP_PORT": str(settings.http_port)})
    memory = json.loads(status.stdout)["memory"]
    assert memory == {"heap": settings.neo4j_heap, "pagecache": settings.neo4j_pagecache}


@pytest.mark.parametrize("pair, why", [
    ('p={"\\ud800": 1}', r"\$p: a key the database cannot store \(a lone surrogate"),
    ('p={"a": [{"\\udfff": 1}]}', r"\$p\.a\[0\]: a key the database cannot store"),
    ("p\udcff=1", r"'p\\udcff': a name the database cannot take \(byte 0xff, which is not UTF-8"),
    ("p=caf\udce9", r"\$p: text the database cannot store \(byte 0xe9, which is not UTF-8"),
    ("p=" + "[" * 50_000, r"\$p: nested deeper than 32 levels"),
    ("p=" + "[" * 33 + "]" * 33, r"\$p(\[0\])+: nested deeper than 32 levels"),
    ("p=" + "9" * 5000, r"\$p: integer out of Neo4j's 64-bit range"),
    ("p=9223372036854775808", r"\$p: integer out of Neo4j's 64-bit range"),
], ids=["surrogate-key", "nested-surrogate-key", "byte-in-name", "byte-in-text",
        "deep-json", "depth-33", "5000-digits", "int64-plus-one"])
def test_param_the_driver_cannot_send_is_one_clear_line(env: dict[str, str], pair: str,
                                                       why: str) -> None:
    """What the driver cannot send is refused naming the parameter, not a TypeError or
    RecursionError traceback; the command line's bytes arrive as Python decodes argv."""
    result = CliRunner().invoke(main, ["cypher", "RETURN $p AS p", "--param", pair, "--json"],
                                env=env)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception is not None
    assert isinstance(result.exception, SystemExit)
    assert re.search("dwqa: error: --param " + why, result.stderr), result.stderr
    assert json.loads(result.stdout)["error"]["type"] == "UsageError"


def test_param_within_the_bounds_reaches_the_database(env: dict[str, str]) -> None:
    """Positive control for the bounds above: 32 levels, int64's largest, keys and text
    beyond ASCII all go through."""
    deep = "[" * 32 + "]" * 32
    for pair, value in ((f"p={deep}", json.loads(deep)),
                        ("p=9223372036854775807", 9223372036854775807),
                        ('p={"é": ["ü"]}', {"é": ["ü"]}),
                        ("p=plain text", "plain text")):
        ok = CliRunner().invoke(main, ["cypher", "RETURN $p AS p", "--param", pair, "--json"],
                                env=env)
        assert ok.exit_code == 0, ok.output
        assert json.loads(ok.stdout) == [{"p": value}]


def test_a_non_utf8_byte_on_a_real_command_line(env: dict[str, str]) -> None:
    """The byte as a shell passes it: argv decoded by Python itself, one line on stderr."""
    run = subprocess.run([sys.executable, "-m", "dwqa_graph.cli", "cypher", "RETURN $p AS p",
                          "--param", b"p\xff=1"], env={**os.environ, **env},
                         capture_output=True, timeout=120)
    assert run.returncode == 1, run.stderr
    assert run.stderr.strip().splitlines() == [
        b"dwqa: error: --param 'p\\udcff': a name the database cannot take (byte 0xff, which "
        b"is not UTF-8, at character 1)"]
