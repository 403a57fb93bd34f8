"""Start, stop and inspect the Neo4j server the project uses (``dwqa db up|down|status``).

Order of preference for ``up``:
1. ``NEO4J_URI`` is set: use that server (we never start or stop a user's server);
2. a Docker engine answers: ``docker compose up -d --wait`` with the repo's compose file;
3. otherwise run Neo4j 5.26 Community from Maven Central jars on the machine's Java 17,
   with the small launcher in ``neo4j/`` (jars resolved by Maven into ~/.m2, data under
   ``$DWQA_HOME/neo4j``).

A server dwqa starts has authentication on (user ``neo4j``, the per-installation password in
``$DWQA_HOME/neo4j-password``, mode 0600), listens on 127.0.0.1 only, sends no wildcard CORS
header and cannot LOAD CSV from local files: any web page the user visits can send requests
to 127.0.0.1, so the server must not do anything for a caller without the password.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from dwqa_graph import maven
from dwqa_graph.config import LAUNCHER_DIR, Settings, load_settings
from dwqa_graph.errors import ServerError, StoreError
from dwqa_graph.graph.store import Store

COMPOSE_FILE = LAUNCHER_DIR / "docker-compose.yml"


#: Servers this process started. Keeping the Popen objects alive stops Python from warning
#: that a child is "still running" when they are garbage-collected: running is the point.
_LAUNCHED: dict[int, subprocess.Popen[bytes]] = {}



@dataclass
class ServerState:
    mode: str  # external | docker | local
    uri: str
    pid: int | None = None
    bolt_port: int | None = None
    http_port: int | None = None
    browser: str | None = None
    heap: str | None = None  # what the local server was started with
    pagecache: str | None = None


def _state_path(settings: Settings) -> Path:
    return settings.neo4j_home / "server.json"


def _read_state(settings: Settings) -> ServerState | None:
    try:
        return ServerState(**json.loads(_state_path(settings).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _write_state(settings: Settings, state: ServerState) -> None:
    _state_path(settings).parent.mkdir(parents=True, exist_ok=True)
    _state_path(settings).write_text(json.dumps(asdict(state), indent=2))


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def _auth_enforced(settings: Settings) -> bool:
    """False if the server lets in a made-up user: a server started before auth was on.
    (A made-up user, not neo4j with a wrong password, so no failed-login lockout of neo4j.)"""
    probe = Store(replace(settings, user="dwqa-auth-probe", password_env=secrets.token_hex(16)))
    try:
        probe.verify()
        return False
    except Exception:  # noqa: BLE001 - AuthError, or anything else: not let in
        return True
    finally:
        probe.close()


def reachable(settings: Settings) -> bool:
    """True if a Bolt server at ``settings.uri`` accepts our credentials."""
    store = Store(settings)
    try:
        store.verify()
        return True
    except (StoreError, Exception):  # auth errors, bad URIs: all mean "not usable"
        return False
    finally:
        store.close()


def _docker_available() -> bool:
    if os.environ.get("DWQA_NO_DOCKER") or not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _wait_for_bolt(settings: Settings, proc_alive: Any, log: Path | None) -> None:
    deadline = time.monotonic() + settings.start_timeout
    while time.monotonic() < deadline:
        if not proc_alive():
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise ServerError(f"Neo4j exited during start-up. Last log lines:\n{tail}")
        if _port_open(settings.bolt_port) and reachable(settings):
            return
        time.sleep(0.5)
    raise ServerError(
        f"Neo4j did not answer on {settings.uri} within {settings.start_timeout:.0f}s"
        + (f"; see {log}" if log else "")
    )


# -- local Java server -------------------------------------------------------------------
def _classpath(settings: Settings) -> str:
    """The launcher's jars (Neo4j 5.26), resolved by Maven once per user."""
    return maven.classpath(LAUNCHER_DIR / "pom.xml", "neo4j", ServerError)


def _start_local(settings: Settings) -> ServerState:
    java = shutil.which("java")
    if not java:
        raise ServerError("Java 17+ is needed to run Neo4j locally: install openjdk-17-jre "
                          "(or set NEO4J_URI to an existing server).")
    for port, what in ((settings.bolt_port, "Bolt"), (settings.http_port, "HTTP")):
        if _port_open(port):
            raise ServerError(
                f"port {port} ({what}) is already in use by another program: stop it, or pick "
                f"free ports with DWQA_BOLT_PORT / DWQA_HTTP_PORT, or point NEO4J_URI at it.")
    classpath = _classpath(settings)
    home = settings.neo4j_home
    (home / "logs").mkdir(parents=True, exist_ok=True)
    log = home / "logs" / "launcher.log"
    jvm_args = (LAUNCHER_DIR / "jvm.args").read_text().split()
    settings.password  # noqa: B018 - creates the password file (0600) before the launcher reads it
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [java, "-Xms512m", f"-Xmx{settings.neo4j_heap}", *jvm_args,
             *maven.main_class(LAUNCHER_DIR / "DwqaNeo4j.java", classpath, ServerError),
             "--home", str(home / "data"), "--bolt-port", str(settings.bolt_port),
             "--http-port", str(settings.http_port),
             "--pagecache", settings.neo4j_pagecache,
             # A path, not the password: argv is visible to every user in `ps`.
             "--password-file", str(settings.password_file)],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,  # survives the CLI that started it; `db down` stops it
        )
    _LAUNCHED[proc.pid] = proc
    state = ServerState(mode="local", uri=settings.uri, pid=proc.pid,
                        bolt_port=settings.bolt_port, http_port=settings.http_port,
                        browser=settings.browser_url, heap=settings.neo4j_heap,
                        pagecache=settings.neo4j_pagecache)
    _write_state(settings, state)
    try:
        _wait_for_bolt(settings, lambda: proc.poll() is None, log)
    except ServerError:
        _stop_pid(proc.pid)
        _state_path(settings).unlink(missing_ok=True)
        raise
    return state


def _stop_pid(pid: int, timeout: float = 60) -> None:
    try:
        os.kill(pid, signal.SIGTERM)  # the launcher's shutdown hook closes the store cleanly
    except ProcessLookupError:
        return
    child = _LAUNCHED.pop(pid, None)
    if child is not None:  # our own child: wait() also reaps it
        try:
            child.wait(timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.2)
    if _pid_alive(pid):
        os.kill(pid, signal.SIGKILL)


# -- public API ----------------------------------------------------------------------------
def up(settings: Settings) -> ServerState:
    """Make sure a Neo4j answers at ``settings.uri``; start one if we may. Idempotent."""
    if settings.uri_explicit:
        if reachable(settings):
            return ServerState(mode="external", uri=settings.uri)
        raise ServerError(f"NEO4J_URI={settings.uri} is not reachable with user "
                          f"{settings.user!r}: start that server, or unset NEO4J_URI to let "
                          "dwqa start its own.")
    state = _read_state(settings)
    if state and state.mode == "local" and _pid_alive(state.pid) and reachable(settings):
        if _auth_enforced(settings):
            return state
        # Started by an older dwqa with auth off: restart it with the password (same store).
        if state.pid:
            _stop_pid(state.pid)
        _state_path(settings).unlink(missing_ok=True)
        return _start_local(settings)
    if state and state.mode == "docker" and reachable(settings):
        return state
    if _docker_available():
        env = {**os.environ, "DWQA_BOLT_PORT": str(settings.bolt_port),
               "DWQA_HTTP_PORT": str(settings.http_port),
               "NEO4J_USER": settings.user, "NEO4J_PASSWORD": settings.password}
        proc = subprocess.run(["docker", "compose", "-f", str(COMPOSE_FILE), "up", "-d",
                               "--wait"], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            raise ServerError(f"docker compose up failed:\n{proc.stderr[-3000:]}")
        state = ServerState(mode="docker", uri=settings.uri, bolt_port=settings.bolt_port,
                            http_port=settings.http_port, browser=settings.browser_url)
        _write_state(settings, state)
        _wait_for_bolt(settings, lambda: True, None)
        return state
    return _start_local(settings)


def down(settings: Settings) -> ServerState | None:
    """Stop the server ``up`` started (never an external one). Returns what was stopped."""
    state = _read_state(settings)
    if state is None:
        return None
    if state.mode == "local" and state.pid:
        _stop_pid(state.pid)
    elif state.mode == "docker":
        subprocess.run(["docker", "compose", "-f", str(COMPOSE_FILE), "down"],
                       capture_output=True)
    _state_path(settings).unlink(missing_ok=True)
    return state


def status(settings: Settings) -> dict[str, Any]:
    """URI, version, edition, node counts — or ``running: false`` and why."""
    state = _read_state(settings)
    info: dict[str, Any] = {
        "uri": settings.uri,
        "mode": "external" if settings.uri_explicit else (state.mode if state else None),
        "pid": state.pid if state and not settings.uri_explicit else None,
    }
    with Store(settings) as store:
        try:
            store.verify()
        except StoreError as exc:
            return {**info, "running": False, "error": str(exc)}
        server = store.server_info()
        local = state is not None and not settings.uri_explicit
        return {**info, "running": True, "version": server.get("version"),
                "edition": server.get("edition"),
                # Built now, not read from the state file: the URL carries the connection
                # (dbms, db, auth method) for the settings in use.
                "browser": settings.browser_url if state and state.browser else None,
                "password_file": str(settings.password_file) if local else None,
                # Set by DWQA_NEO4J_HEAP / DWQA_NEO4J_PAGECACHE (else sized from the
                # machine's memory) when the server started; a restart applies new values.
                "memory": {"heap": state.heap, "pagecache": state.pagecache} if local
                and state else None,
                "counts": store.counts()}


def open_graph(settings: Settings | None = None, *, start: bool = True) -> Store:
    """The graph, ready to use: start the project's Neo4j if needed (``start``; an external
    ``NEO4J_URI`` server is only checked), connect, and apply the schema. Close the store
    (or use it as a context manager) when done; the server keeps running (``down`` stops it).
    """
    settings = settings or load_settings()
    if start:
        up(settings)
    store = Store(settings)
    try:
        store.verify()
        store.apply_schema()
    except BaseException:
        store.close()
        raise
    return store
