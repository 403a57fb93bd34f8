"""One CoreNLP worker shared by several commands (``dwqa nlp serve``, ``DWQA_CORENLP_SOCKET``):
a reader connected to it gets exactly the replies of a worker of its own, starts no Java,
and bad connections are refused without harm to the others."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dwqa_graph.errors import LanguageError
from dwqa_graph.facts.extract import CUES
from dwqa_graph.language import corenlp_server
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.language.corenlp_server import serve
from dwqa_graph.language.corenlp_socket import SOCKET_ENV, SocketWorker

from .paths import REPO_ROOT

TEXTS = ["Tesla was founded by Elon Musk in July 2003.",
         "Paris is a city on the Seine. It is large and old. Christopher Nolan directed "
         "Inception in 2010.",
         "Mats Fennick (born 30 January 1955) is a Valmoran screenwriter and novelist."]


def _start(path: Path, nlp: CoreNLP) -> Callable[[], None]:
    """``nlp`` served at ``path`` on a thread, listening when this returns; the result stops
    it (and checks that it stopped and took its socket file along)."""
    ready, stop = threading.Event(), threading.Event()
    server = threading.Thread(target=serve, args=(path, nlp),
                              kwargs={"ready": ready, "stop": stop}, daemon=True)
    server.start()
    assert ready.wait(30)

    def halt() -> None:
        stop.set()
        server.join(10)
        assert not server.is_alive() and not path.exists()

    return halt


@pytest.fixture
def shared(nlp: CoreNLP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The session's worker served at a socket that ``DWQA_CORENLP_SOCKET`` names."""
    path = tmp_path / "nlp.sock"
    halt = _start(path, nlp)
    monkeypatch.setenv(SOCKET_ENV, str(path))
    yield path
    halt()


def _raw(path: Path) -> tuple[socket.socket, Iterator[bytes]]:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(os.fspath(path))
    conn.settimeout(60)
    return conn, iter(conn.makefile("rb"))


def _hang_up(conn: socket.socket) -> None:
    """Close ``conn`` now (its file object would keep it open)."""
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)
    conn.close()


def test_a_connected_reader_gets_the_replies_of_a_worker_of_its_own(
        nlp: CoreNLP, shared: Path) -> None:
    assert stat.S_IMODE(shared.stat().st_mode) == 0o600  # its owner's alone
    own = [nlp.reply(t) for t in TEXTS]
    with CoreNLP() as client:
        assert isinstance(client._proc, SocketWorker)  # no Java of its own
        assert [client.reply(t) for t in TEXTS] == own
        docs = list(client.annotate_many([*TEXTS, ("x " * 60_000, None)]))
        # in order, each parsed; a refused text fails alone
        assert [d.sentences[0].tokens[0].word for d in docs[:3]] == ["Tesla", "Paris", "Mats"]
        assert isinstance(docs[3], LanguageError) and "limit" in str(docs[3])
        before = client.unread_sentences
        cued = client.annotate(TEXTS[1], cues=CUES)
        assert client.unread_sentences > before  # the cues travel: a sentence left unread
        assert cued.unread_words
    # a reader of another pipeline never uses the shared worker (it reads the default one)
    other = CoreNLP(annotators="tokenize,ssplit")
    assert other.annotators != CoreNLP().annotators and other.shared


def test_two_readers_share_one_worker_at_once(nlp: CoreNLP, shared: Path) -> None:
    own = [nlp.reply(t) for t in TEXTS]
    results: dict[int, list[dict]] = {}

    def read(i: int) -> None:
        with CoreNLP() as client:
            results[i] = [client.reply(t) for t in TEXTS * 2]

    threads = [threading.Thread(target=read, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == {i: own * 2 for i in range(3)}


def test_bad_requests_end_their_connection_only(shared: Path) -> None:
    bad = [b"no-length\n", b"id 12x\n", b"x" * 20_000 + b" 3\n",
           b"1 %d\n" % (corenlp_server.MAX_TEXT_BYTES + 1), b"1 5 a,b|c\nhello",
           b"$$ 5\nhello"]
    for header in bad:
        conn, lines = _raw(shared)
        assert next(lines) == b"ready\n"
        conn.sendall(header)
        rid, _, body = next(lines).partition(b"\t")
        assert rid == b"refused" and json.loads(body)["error"]
        assert next(lines, b"") == b""  # closed
        _hang_up(conn)
    # control: a well-formed request on a new connection is answered
    conn, lines = _raw(shared)
    assert next(lines) == b"ready\n"
    conn.sendall(b"a7 17\nParis is in 1900.")
    rid, _, body = next(lines).partition(b"\t")
    assert rid == b"a7" and json.loads(body)["sentences"]
    _hang_up(conn)
    # a connection that ends inside its text costs nothing
    conn, lines = _raw(shared)
    conn.sendall(b"ready-check 100\nshort")
    _hang_up(conn)
    with CoreNLP() as client:
        assert client.annotate(TEXTS[0]).sentences


def test_connections_over_the_bound_are_told_busy(
        nlp: CoreNLP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corenlp_server, "MAX_CLIENTS", 1)
    path = tmp_path / "one.sock"
    halt = _start(path, nlp)
    monkeypatch.setenv(SOCKET_ENV, str(path))
    try:
        first, lines = _raw(path)
        assert next(lines) == b"ready\n"
        with pytest.raises(LanguageError, match="busy"):
            CoreNLP().start()
        _hang_up(first)
        time.sleep(0.5)  # its thread ends and frees the place
        with CoreNLP() as client:  # control: the place is free again
            assert client.annotate(TEXTS[0]).sentences
    finally:
        halt()


def test_no_server_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SOCKET_ENV, str(tmp_path / "nobody.sock"))
    with pytest.raises(LanguageError, match="dwqa nlp serve"):
        CoreNLP().start()
    monkeypatch.setenv(SOCKET_ENV, str(tmp_path / ("d" * 120) / "x.sock"))
    with pytest.raises(LanguageError, match="at most 107"):
        CoreNLP().start()


def test_a_reader_whose_server_stopped_fails_and_does_not_hang(
        nlp: CoreNLP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "gone.sock"
    halt = _start(path, nlp)
    monkeypatch.setenv(SOCKET_ENV, str(path))
    with CoreNLP() as client:
        assert client.annotate(TEXTS[0]).sentences
        halt()
        client._proc.kill()  # type: ignore[union-attr]  # as the server's end would
        with pytest.raises(LanguageError, match="no shared CoreNLP worker"):
            client.annotate(TEXTS[1])
    assert nlp.annotate(TEXTS[0]).sentences  # the served worker itself is unharmed


def test_the_socket_path_is_checked(nlp: CoreNLP, tmp_path: Path) -> None:
    a_file = tmp_path / "file.sock"
    a_file.write_text("not a socket")
    with pytest.raises(LanguageError, match="not a socket"):
        serve(a_file, nlp)
    assert a_file.read_text() == "not a socket"  # left alone
    # a socket file a dead server left is replaced; a live server's is not
    stale = tmp_path / "stale.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(stale))
    dead.close()
    halt = _start(stale, nlp)
    try:
        with pytest.raises(LanguageError, match="already serves"):
            serve(stale, nlp)
        assert stale.exists()  # the live server's socket survives the attempt
    finally:
        halt()


def test_dwqa_nlp_serve_serves_until_terminated(tmp_path: Path) -> None:
    """The command as a script runs it: in the background, stopped with SIGTERM; its worker
    (a Java child) goes with it."""
    path = tmp_path / "cli.sock"
    env = {**os.environ, SOCKET_ENV: str(path)}  # as the demo exports it: never its own client
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([str(REPO_ROOT / ".venv/bin/dwqa"), "nlp", "serve"], env=env,
                            stderr=log, start_new_session=True)
    try:
        for _ in range(300):
            if path.exists():
                break
            time.sleep(0.1)
        os.environ[SOCKET_ENV] = str(path)
        try:
            with CoreNLP() as client:  # waits for the models to load
                assert client.annotate(TEXTS[0]).sentences
        finally:
            del os.environ[SOCKET_ENV]
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                                  text=True).stdout.split()
        assert children  # its Java worker
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, (tmp_path / "serve.log").read_text()
        assert not path.exists()
        for pid in children:
            assert not Path(f"/proc/{pid}").exists() or \
                "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
