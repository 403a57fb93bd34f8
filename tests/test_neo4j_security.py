"""The local Neo4j no web page can drive (issue 12, item 1), against the suite's real server:
auth on with the installation's generated password (0600), no wildcard CORS, a foreign
origin's `tx/commit` refused with or without a preflight (no data out, nothing written),
Bolt over WebSocket from a foreign origin unable to log in or run anything, LOAD CSV from
files off (tests/test_readonly.py), loopback only."""

from __future__ import annotations

import base64
import json
import socket
import stat
from pathlib import Path

import httpx
import neo4j
import pytest

from dwqa_graph.config import Settings, installation_password, load_settings
from dwqa_graph.errors import UsageError
from dwqa_graph.graph import server
from dwqa_graph.graph.store import Store

EVIL = "http://evil.example"


def _tx_url(settings: Settings) -> str:
    return f"http://127.0.0.1:{settings.http_port}/db/{settings.database}/tx/commit"


def _body(statement: str) -> str:
    return json.dumps({"statements": [{"statement": statement}]})


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _count(store: Store, label: str) -> int:
    return int(store.counts().get(label, 0))


def test_password_file_is_private_and_used(settings: Settings, store: Store) -> None:
    if settings.uri_explicit:
        pytest.fail("this test needs the suite's own server (unset DWQA_TEST_NEO4J_URI)")
    mode = stat.S_IMODE(settings.password_file.stat().st_mode)
    assert mode == 0o600
    password = settings.password_file.read_text().strip()
    assert len(password) >= 32 and password == settings.password
    assert store.read("RETURN 1 AS ok") == [{"ok": 1}]  # the store logs in with it
    assert "dbms=neo4j://neo4j@127.0.0.1" in settings.browser_url
    assert password not in settings.browser_url


@pytest.mark.parametrize("auth", [None, ("intruder", "intruder"), ("neo4j", "dwqa-local")])
def test_bolt_refuses_callers_without_the_password(settings: Settings,
                                                   auth: tuple[str, str] | None) -> None:
    """No auth, a made-up user, the old fixed password: all refused (one neo4j attempt only,
    below the failed-login lockout)."""
    with (neo4j.GraphDatabase.driver(settings.uri, auth=auth) as driver,
          pytest.raises(neo4j.exceptions.AuthError)):
        driver.verify_connectivity()
    assert server._auth_enforced(settings)


def test_cross_origin_commit_without_preflight_is_refused(settings: Settings,
                                                          store: Store) -> None:
    """What a page can send with no preflight: a 'simple' cross-origin POST (text/plain), and
    the JSON one a page could send in no-cors mode. Neither writes nor returns data."""
    with httpx.Client(timeout=30) as http:
        for ctype in ("text/plain", "application/json"):
            r = http.post(_tx_url(settings), content=_body("CREATE (:CrossOrigin) RETURN 1"),
                          headers={"Origin": EVIL, "Content-Type": ctype})
            assert r.status_code in (401, 403, 415), (ctype, r.status_code, r.text)
            assert r.headers.get("access-control-allow-origin") not in ("*", EVIL)
            assert '"results"' not in r.text or '"data"' not in r.text
            read = http.post(_tx_url(settings), content=_body("MATCH (n) RETURN count(n) AS c"),
                             headers={"Origin": EVIL, "Content-Type": ctype})
            assert read.status_code in (401, 403, 415)
            assert '"data"' not in read.text
    assert _count(store, "CrossOrigin") == 0


def test_cross_origin_commit_with_preflight_is_refused(settings: Settings,
                                                       store: Store) -> None:
    """The preflight a page's credentialed JSON request needs does not allow the page's
    origin, so a browser never sends the request; sent anyway without the password (a page
    does not know it), it is refused and writes nothing."""
    with httpx.Client(timeout=30) as http:
        pre = http.request("OPTIONS", _tx_url(settings), headers={
            "Origin": EVIL, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        allowed = pre.headers.get("access-control-allow-origin")
        assert allowed not in ("*", EVIL)
        assert allowed == f"http://127.0.0.1:{settings.http_port}"  # the Browser's own origin
        for password in (None, "neo4j", "dwqa-local"):
            headers = {"Origin": EVIL, "Content-Type": "application/json"}
            if password:
                headers["Authorization"] = _basic("intruder", password)
            r = http.post(_tx_url(settings), content=_body("CREATE (:CrossOrigin) RETURN 1"),
                          headers=headers)
            assert r.status_code == 401, (password, r.status_code, r.text)
            assert r.headers.get("access-control-allow-origin") not in ("*", EVIL)
    assert _count(store, "CrossOrigin") == 0


def test_positive_control_the_password_does_write(settings: Settings, store: Store) -> None:
    """The same request with the installation password works: the refusals above are the
    auth check, and the 'nothing written' count would have seen a write."""
    with httpx.Client(timeout=30) as http:
        r = http.post(_tx_url(settings), content=_body("CREATE (:CrossOrigin) RETURN 1 AS one"),
                      headers={"Content-Type": "application/json",
                               "Authorization": _basic(settings.user, settings.password)})
    assert r.status_code == 200, r.text
    assert r.json()["results"][0]["data"][0]["row"] == [1]
    assert _count(store, "CrossOrigin") == 1


def test_listens_on_loopback_only(settings: Settings) -> None:
    """Neither port answers on another local address of this machine (if it has one)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: just picks the outbound address
            other = s.getsockname()[0]
    except OSError:
        other = None
    if other is None or other.startswith("127."):
        other = None
    for port in (settings.bolt_port, settings.http_port):
        with socket.socket() as s:  # positive control: loopback answers
            s.settimeout(5)
            assert s.connect_ex(("127.0.0.1", port)) == 0
        if other:
            with socket.socket() as s:
                s.settimeout(5)
                assert s.connect_ex((other, port)) != 0, (other, port)


# -- Bolt over WebSocket, as a page's JavaScript would open it ------------------------------------
def _pack_str(s: str) -> bytes:
    b = s.encode()
    assert len(b) < 16
    return bytes([0x80 + len(b)]) + b


def _pack_map(m: dict[str, str]) -> bytes:
    return bytes([0xA0 + len(m)]) + b"".join(_pack_str(k) + _pack_str(v) for k, v in m.items())


class _WsBolt:
    """A minimal Bolt 4.4 client over a WebSocket with a foreign Origin header."""

    def __init__(self, port: int, origin: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        key = base64.b64encode(b"0123456789abcdef").decode()
        self.sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        self.upgraded = head.startswith(b"HTTP/1.1 101")
        self.buf = b""

    def _send(self, payload: bytes) -> None:
        mask = b"\x01\x02\x03\x04"
        frame = bytes([0x82]) + (bytes([0x80 | len(payload)]) if len(payload) < 126
                                 else bytes([0x80 | 126]) + len(payload).to_bytes(2, "big"))
        self.sock.sendall(frame + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _recv(self, n: int) -> bytes:
        while len(self.buf) < n:
            head = self._exact(2)
            size = head[1] & 0x7F
            if size == 126:
                size = int.from_bytes(self._exact(2), "big")
            elif size == 127:
                size = int.from_bytes(self._exact(8), "big")
            data = self._exact(size)
            if head[0] & 0x0F == 0x8:  # close frame
                raise ConnectionError("closed by server")
            self.buf += data
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed by server")
            data += chunk
        return data

    def handshake(self) -> bytes:
        self._send(b"\x60\x60\xb0\x17" + b"\x00\x00\x04\x04" + b"\x00" * 12)
        return self._recv(4)

    def message(self, signature: int, *fields: bytes) -> tuple[int, bytes]:
        body = bytes([0xB0 + len(fields), signature]) + b"".join(fields)
        self._send(len(body).to_bytes(2, "big") + body + b"\x00\x00")
        msg = b""
        while True:
            size = int.from_bytes(self._recv(2), "big")
            if size == 0:
                break
            msg += self._recv(size)
        return msg[1], msg

    def close(self) -> None:
        self.sock.close()


def _ws_session(settings: Settings, auth: dict[str, str]) -> tuple[int, bytes, int | None]:
    """HELLO with ``auth`` then RUN a CREATE; returns (hello signature, hello bytes, RUN
    signature or None if the server closed the connection)."""
    ws = _WsBolt(settings.bolt_port, EVIL)
    try:
        assert ws.upgraded  # Neo4j 5.26 has no WebSocket Origin check: the password is the guard
        assert ws.handshake() == b"\x00\x00\x04\x04"
        sig, msg = ws.message(0x01, _pack_map({"user_agent": "evil/1.0", **auth}))
        try:
            run, _ = ws.message(0x10, _pack_str("CREATE (:Ws)"), b"\xa0", b"\xa0")
        except (ConnectionError, OSError):
            run = None
        return sig, msg, run
    finally:
        ws.close()


@pytest.mark.parametrize("auth", [{"scheme": "none"},
                                  {"scheme": "basic", "principal": "intruder",
                                   "credentials": "neo4j"}])
def test_bolt_websocket_from_a_foreign_origin_is_refused(settings: Settings, store: Store,
                                                         auth: dict[str, str]) -> None:
    sig, msg, run = _ws_session(settings, auth)
    assert sig == 0x7F and b"Unauthorized" in msg  # FAILURE
    assert run != 0x70  # the RUN is not accepted (IGNORED, FAILURE or connection closed)
    assert _count(store, "Ws") == 0


def test_bolt_websocket_positive_control(settings: Settings, store: Store) -> None:
    """The same client with the password logs in and writes: the refusals above are the auth
    check, and the count above would have seen a write."""
    ws = _WsBolt(settings.bolt_port, EVIL)
    try:
        assert ws.handshake() == b"\x00\x00\x04\x04"
        pw = settings.password.encode()
        hello = (bytes([0xA4]) + _pack_str("user_agent") + _pack_str("ok/1.0")
                 + _pack_str("scheme") + _pack_str("basic")
                 + _pack_str("principal") + _pack_str(settings.user)
                 + _pack_str("credentials") + bytes([0xD0, len(pw)]) + pw)
        sig, _ = ws.message(0x01, hello)
        assert sig == 0x70  # SUCCESS
        assert ws.message(0x10, _pack_str("CREATE (:Ws)"), b"\xa0", b"\xa0")[0] == 0x70  # RUN
        assert ws.message(0x3F, b"\xa1" + _pack_str("n") + b"\xff")[0] == 0x70  # PULL all
    finally:
        ws.close()
    assert _count(store, "Ws") == 1


def test_wrong_logons_from_a_page_cannot_lock_our_commands_out(settings: Settings,
                                                                 store: Store) -> None:
    """A page can open Bolt over WebSocket and send wrong passwords for the real user; that
    used to lock the user for seconds after three (every dwqa command failed meanwhile)."""
    for _ in range(6):
        sig, msg, _ = _ws_session(settings, {"scheme": "basic", "principal": settings.user,
                                             "credentials": "wrong-password"})
        assert sig == 0x7F and b"RateLimit" not in msg  # each one refused, none rate-limited
    fresh = Store(settings)  # a new connection must log in now, not in 5 seconds
    try:
        assert fresh.read("RETURN 1 AS ok") == [{"ok": 1}]
    finally:
        fresh.close()


def test_cli_finds_the_password_without_neo4j_env(settings: Settings) -> None:
    """No NEO4J_URI / NEO4J_PASSWORD: the CLI reads the installation's password file, and
    `db up` / `db status` say where it is (never the password itself)."""
    if settings.uri_explicit:
        pytest.fail("this test needs the suite's own server (unset DWQA_TEST_NEO4J_URI)")
    from click.testing import CliRunner

    from dwqa_graph.cli.main import main

    runner = CliRunner(env={"NEO4J_URI": None, "NEO4J_PASSWORD": None,  # None: unset
                            "DWQA_HOME": str(settings.home),
                            "DWQA_BOLT_PORT": str(settings.bolt_port),
                            "DWQA_HTTP_PORT": str(settings.http_port)})
    up = runner.invoke(main, ["db", "up", "--json"])
    assert up.exit_code == 0, up.output
    payload = json.loads(up.stdout)
    assert payload["mode"] == "local" and payload["password_file"] == str(settings.password_file)
    assert settings.password not in up.output
    status = runner.invoke(main, ["db", "status"])
    assert status.exit_code == 0, status.output
    assert f"password in {settings.password_file}" in status.output
    assert settings.password not in status.output


def test_installation_password_file(tmp_path: Path) -> None:
    """Created 0600 on first use, the same for every concurrent first user, stable after;
    a file others can read is tightened; an empty one is an error, not a weak password."""
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "home" / "neo4j-password"
    with ThreadPoolExecutor(8) as pool:
        seen = set(pool.map(lambda _: installation_password(path), range(32)))
    assert len(seen) == 1 and len(seen.pop()) >= 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["neo4j-password"]  # no temp left
    first = installation_password(path)
    path.chmod(0o644)
    assert installation_password(path) == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("\n")
    with pytest.raises(UsageError):
        installation_password(path)


def test_settings_password_sources(tmp_path: Path) -> None:
    local = load_settings({"DWQA_HOME": str(tmp_path)})
    assert local.password == installation_password(tmp_path / "neo4j-password")
    external = load_settings({"DWQA_HOME": str(tmp_path), "NEO4J_URI": "bolt://db:7687"})
    assert external.password == "dwqa-local"  # unchanged for a user's server
    explicit = load_settings({"DWQA_HOME": str(tmp_path), "NEO4J_PASSWORD": "s3cret-pw"})
    assert explicit.password == "s3cret-pw"
    assert "s3cret" not in repr(explicit)
