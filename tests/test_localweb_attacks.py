"""Attacks on ``dwqa web serve`` (issue 12): symlinks out of the folder, bad parameters,
idle and trickling clients, a thousand connections. Real sockets on loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from dwqa_graph.web.localweb import STREAM_SHARE, PageIndex, serve

from .conftest import raw_get

PAGE = "<html><body><article><p>The {w} of Quokkaville met on Tuesday to count wombats in " \
       "the lower valley, as every year since 1901.</p></article></body></html>"


def folder(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "inside.html").write_text(PAGE.format(w="council"))
    secret = tmp_path / "secret.html"
    secret.write_text(PAGE.format(w="zanzibarite"))
    (site / "escape.html").symlink_to(secret)                 # out of the folder
    (site / "alias.html").symlink_to(site / "inside.html")    # stays inside: allowed
    os.mkfifo(site / "pipe.html")                             # would block a plain open()
    return site


def test_no_symlink_out_of_the_folder(tmp_path: Path) -> None:
    site = folder(tmp_path)
    index = PageIndex.from_dir(site)
    assert sorted(p.name for p in index.pages) == ["alias.html", "inside.html"]
    assert index.search("zanzibarite") == []  # the outside file's words are not searchable
    with serve(site, index=index) as web, httpx.Client(timeout=10) as client:
        assert client.get(f"{web.url}/escape.html").status_code == 404
        assert client.get(f"{web.url}/pipe.html").status_code == 404  # answered, not hung
        assert "council" in client.get(f"{web.url}/alias.html").text  # positive control
        # A link swapped to point outside after indexing is still refused when served.
        (site / "alias.html").unlink()
        (site / "alias.html").symlink_to(tmp_path / "secret.html")
        assert client.get(f"{web.url}/alias.html").status_code == 404
        assert client.get(f"{web.url}/inside.html").status_code == 200


def test_bad_parameters_are_400_and_the_server_goes_on(tmp_path: Path) -> None:
    site = folder(tmp_path)
    with serve(site) as web:
        for target in ("/search?q=x&format=json&pageno=%C2%B2",   # pageno=² (isdigit, no int)
                       "/search?q=x&format=json&pageno=%EF%BC%91",  # full-width 1
                       "/search?q=x&format=json&pageno=99999999999999999999999",
                       "/search?q=x&format=json&pageno=" + "9" * 5000,  # int() would raise
                       "/search?format=json&q=" + "a" * 3000,
                       "/search?format=json&" + "&".join(f"k{i}=v" for i in range(50))):
            status, body = raw_get(web, target)
            assert status == 400 and body.endswith(b"\n"), (target, status, body)
        status, body = raw_get(web, "/search?q=council&format=json&pageno=1")
        assert status == 200 and b"inside.html" in body


def idle_clients(port: int, n: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(n)]


def test_idle_clients_hold_no_threads_and_time_out(tmp_path: Path) -> None:
    site = folder(tmp_path)
    threads_before = threading.active_count()
    with serve(site, threads=4, idle=1.0) as web:
        clients = idle_clients(web.port, 1000)
        try:
            # Served while a thousand connections sit idle ...
            with httpx.Client(timeout=10) as client:
                assert client.get(f"{web.url}/inside.html").status_code == 200
            # ... by at most 4 request threads, a dispatcher and the accept loop.
            assert threading.active_count() <= threads_before + 4 + 2
            # Every idle connection is closed by the server (recv sees EOF, not our timeout).
            for c in clients:
                assert c.recv(1) == b""
        finally:
            for c in clients:
                c.close()
        with httpx.Client(timeout=10) as client:  # and it still serves afterwards
            assert client.get(f"{web.url}/inside.html").status_code == 200


def test_a_trickling_client_is_cut_off(tmp_path: Path) -> None:
    site = folder(tmp_path)
    request = b"GET /inside.html HTTP/1.0\r\nHost: x\r\nX-Slow: " + b"s" * 40 + b"\r\n\r\n"
    with serve(site, threads=2, idle=1.0) as web, \
            socket.create_connection(("127.0.0.1", web.port), timeout=30) as s:
        sent = 0
        try:
            for i in range(len(request)):  # a byte every 0.1 s: each read is quick ...
                s.sendall(request[i : i + 1])
                sent += 1
                time.sleep(0.1)
            reply = s.recv(65536)
        except (BrokenPipeError, ConnectionResetError):
            reply = b""
        # ... but the whole request had a deadline: the server answered nothing in full.
        assert not reply.startswith(b"HTTP/1.0 200"), reply[:40]
        assert sent < len(request) or reply == b""


def test_half_sent_requests_hold_no_threads(tmp_path: Path) -> None:
    """A thousand clients that send half a request (no blank line) while a fresh request
    comes: the fresh one is answered within 2 s (the half-sent ones wait in the selector,
    not in the 4 request threads), and the half-sent ones are closed at their deadline."""
    site = folder(tmp_path)
    with serve(site, threads=4, idle=5.0) as web:
        clients = idle_clients(web.port, 1000)
        try:
            for c in clients:
                c.sendall(b"GET /inside.html HTTP/1.1\r\nHost: x\r\n")  # never finished
            time.sleep(0.5)  # the dispatcher has read them all
            started = time.monotonic()
            with httpx.Client(timeout=10) as client:
                assert client.get(f"{web.url}/inside.html").status_code == 200
            assert time.monotonic() - started < 2.0
            for c in clients[:20]:  # at the deadline: closed, nothing answered
                assert c.recv(1) == b""
        finally:
            for c in clients:
                c.close()
        # A head split over several packets still reaches a thread once complete.
        with socket.create_connection(("127.0.0.1", web.port), timeout=10) as s:
            s.sendall(b"GET /inside.html HTTP/1.0\r\n")
            time.sleep(0.2)
            s.sendall(b"Host: x\r\n\r\n")
            assert s.recv(64).startswith(b"HTTP/1.0 200")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_slow_readers_of_a_large_file_hold_a_bounded_share(tmp_path: Path) -> None:
    """16 clients ask `dwqa web serve` (16 threads) for a 40 MB file and read nothing: the
    file is sent in STREAM_CHUNK pieces (the server's memory does not grow by the file per
    request), at most 16 // STREAM_SHARE of them hold a thread -- the others are answered
    503 at once -- and a search is answered meanwhile. At the response deadline the slow
    ones are cut off; then a normal client gets the file whole."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "inside.html").write_text(PAGE.format(w="council"))
    big = bytes(range(256)) * (40 * 4096)  # 40 MiB
    (site / "big.bin").write_bytes(big)
    port, idle, threads = _free_port(), 5.0, 16
    server = subprocess.Popen([sys.executable, "-m", "dwqa_graph.cli", "web", "serve",
                               str(site), "--port", str(port), "--threads", str(threads),
                               "--idle-timeout", str(idle)], stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    readers: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/inside.html", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.2)
        before = _rss_mib(server.pid)
        for _ in range(16):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a reader that lags
            s.settimeout(30)
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /big.bin HTTP/1.0\r\nHost: x\r\n\r\n")
            readers.append(s)
        heads = [s.recv(12) for s in readers]  # the status line only: still not reading
        assert heads.count(b"HTTP/1.0 200") == threads // STREAM_SHARE, heads
        assert heads.count(b"HTTP/1.0 503") == 16 - threads // STREAM_SHARE, heads
        started = time.monotonic()
        search = httpx.get(f"{url}/search?q=council&format=json", timeout=30)
        assert search.status_code == 200 and "inside.html" in search.text
        assert time.monotonic() - started < 2.0  # not queued behind the slow readers
        grown = _rss_mib(server.pid) - before
        assert grown < 64, f"server grew by {grown:.0f} MiB"  # not 16 x 40 MiB
        # The slow readers are cut off at the response deadline, their files unfinished
        # (read from only after it: a reader that drains in time gets the whole file).
        time.sleep(max(0.0, started + idle + 1 - time.monotonic()))
        for s, head in zip(readers, heads, strict=True):
            got = len(head)
            while chunk := s.recv(1 << 20):
                got += len(chunk)
            assert got < len(big) if head.endswith(b"200") else got < 1024
        assert time.monotonic() - started < idle + 15
        # Positive control: the slots are free again, and a client that reads gets it all.
        r = httpx.get(f"{url}/big.bin", timeout=30)
        assert r.status_code == 200 and r.content == big
        assert r.headers["content-length"] == str(len(big))
    finally:
        for s in readers:
            s.close()
        server.terminate()
        server.communicate(timeout=30)
