"""Attacks on ``dwqa web serve`` (issue 12): symlinks out of the folder, bad parameters,
idle and trickling clients, a thousand connections. Real sockets on loopback."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import httpx

from dwqa_graph.web.localweb import PageIndex, serve

from .test_localweb import raw_get

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
