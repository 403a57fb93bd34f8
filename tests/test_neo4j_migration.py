"""A store and a running server from before auth was on keep working: `dwqa db up` restarts
the old auth-off server with the installation password, set before the connectors open
(Neo4j's set-initial-password mechanism), and the data is still there.

Runs a second Neo4j next to the suite's, on ports the OS picks (free at that moment)."""

from __future__ import annotations

import socket
import subprocess
from dataclasses import replace
from pathlib import Path

import neo4j
import pytest

from dwqa_graph.config import LAUNCHER_DIR, Settings
from dwqa_graph.graph import server
from dwqa_graph.graph.store import Store


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_auth_off_store_and_server_are_migrated(settings: Settings, tmp_path: Path) -> None:
    mine = replace(settings, home=tmp_path / "home", uri_explicit=False,
                   password_env=None).with_ports(_free_port(), _free_port())
    data = mine.neo4j_home / "data"
    data.mkdir(parents=True)
    # What an older dwqa ran: the launcher with auth off, recorded in server.json.
    classpath = server._classpath(settings)  # the suite's cached jar list
    with (mine.neo4j_home / "old.log").open("wb") as log:
        old = subprocess.Popen(
            ["java", "-Xms256m", "-Xmx768m", *(LAUNCHER_DIR / "jvm.args").read_text().split(),
             "-cp", classpath, str(LAUNCHER_DIR / "DwqaNeo4j.java"), "--home", str(data),
             "--bolt-port", str(mine.bolt_port), "--http-port", str(mine.http_port),
             "--pagecache", "64m", "--no-auth"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server._LAUNCHED[old.pid] = old  # so stopping it waits for (and reaps) our child
    server._write_state(mine, server.ServerState(mode="local", uri=mine.uri, pid=old.pid,
                                                 bolt_port=mine.bolt_port,
                                                 http_port=mine.http_port))
    try:
        server._wait_for_bolt(mine, lambda: old.poll() is None, mine.neo4j_home / "old.log")
        with neo4j.GraphDatabase.driver(mine.uri, auth=("anyone", "anything")) as d:
            d.execute_query("CREATE (:Legacy {v: 42})")  # auth off: anything goes
        assert not server._auth_enforced(mine)  # positive control for the probe

        state = server.up(mine)  # finds the auth-off server: restarts it with the password
        assert state.pid != old.pid and old.poll() is not None
        assert server._auth_enforced(mine)
        with Store(mine) as store:
            assert store.read("MATCH (n:Legacy) RETURN n.v AS v") == [{"v": 42}]
        for auth in (("neo4j", "neo4j"), ("anyone", "anything")):
            with (neo4j.GraphDatabase.driver(mine.uri, auth=auth) as d,
                  pytest.raises(neo4j.exceptions.AuthError)):
                d.verify_connectivity()
    finally:
        server.down(mine)
        if old.poll() is None:
            server._stop_pid(old.pid)
