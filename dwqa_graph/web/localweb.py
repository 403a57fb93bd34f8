"""A local web for offline runs: a folder of pages on loopback, searchable like SearxNG.

The pipeline searches through SearxNG's JSON API and fetches pages over HTTP. The demo and the
tests must run without internet and give the same answers on every run, so this module serves
one folder (``examples/web/``) over HTTP and answers ``/search?q=...&format=json`` in
SearxNG's format from a BM25 index of the pages' main text. For real runs users point the
same SearxNG client at a real SearxNG instance; nothing else changes.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import math
import multiprocessing
import os
import queue
import re
import selectors
import socket
import stat
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, BinaryIO, cast
from urllib.parse import parse_qs, quote, unquote, urlsplit

from pydantic import BaseModel

from dwqa_graph.errors import ServiceError
from dwqa_graph.text import tokens
from dwqa_graph.web.extract import extract

K1, B = 1.2, 0.75
PER_PAGE = 10  # SearxNG's page size
EXCERPT_CHARS = 280
# No charset parameter on purpose: clients must detect the encoding as they do on the real web.
CONTENT_TYPES = {".html": "text/html", ".htm": "text/html", ".txt": "text/plain"}
_WORD = re.compile(r"\w+")
_MARKUP = re.compile(r"<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>", re.IGNORECASE | re.DOTALL)
_SENTENCE = re.compile(r"[^\n]+?(?:[.!?](?=\s)|$)", re.MULTILINE)
# Below this many files a process pool is not worth starting.
_POOL_MIN_FILES = 64
#: Requests handled at once; more connections wait (as sockets, not threads).
THREADS = 16
#: Seconds a connection may stay silent, and the most a request's line and headers may take.
IDLE_TIMEOUT = 10.0
#: Connections waiting for their first byte beyond this many are closed at once.
MAX_WAITING = 4096
#: Largest request line + headers a client may send (a GET needs far less).
MAX_HEAD = 16384
MAX_PAGENO = 1000
#: Bytes of a served file read and sent at a time: a request never holds a whole file.
STREAM_CHUNK = 65536
#: Of the request threads, at most one in this many sends a file larger than one chunk at a
#: time (a slow reader holds its thread until the response deadline); the rest always serve
#: searches and small pages, and a large file asked for beyond that is answered 503.
STREAM_SHARE = 2
MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class Page:
    name: str
    title: str
    date: str | None
    text: str


class SearchHit(BaseModel):
    url: str
    title: str
    content: str
    publishedDate: str | None = None  # SearxNG's spelling, so hits serialise as its results do
    score: float


def _read_page(path: str) -> tuple[str, str | None, str]:
    """Title, date and indexable text of one file; a module function so a pool can run it."""
    file = Path(path)
    raw = file.read_bytes()
    try:
        doc = raw.decode("utf-8")
    except UnicodeDecodeError:  # most non-UTF-8 pages on the web are windows-1252
        doc = raw.decode("cp1252", errors="replace")
    ex = extract(doc, url=None, content_type=CONTENT_TYPES[file.suffix.lower()])
    # A page the extractor finds no article in must still be findable, so index all its words.
    text = ex.text or html.unescape(" ".join(_MARKUP.sub(" ", doc).split()))
    return ex.title or file.stem, ex.date, text


def _can_fork() -> bool:
    """Whether a process pool is safe here. Only fork is: spawn and forkserver re-run the
    caller's ``__main__`` in every worker (fatal for scripts without a main guard and for
    stdin), and forking a process that runs other threads can deadlock."""
    try:
        return len(os.listdir("/proc/self/task")) == 1  # OS threads, not just Python's
    except OSError:  # not Linux: stay in one process
        return False


def _excerpt(text: str, weights: dict[str, float]) -> str:
    """About EXCERPT_CHARS of ``text``, from the sentence that carries most query weight."""
    best, start = 0.0, 0
    for m in _SENTENCE.finditer(text):
        words = set(tokens(m.group()))
        weight = sum(w for term, w in weights.items() if term in words)
        if weight > best:
            best, start = weight, m.start()
    lead = ""
    if weights:
        terms = "|".join(re.escape(t) for t in weights)
        hit = re.compile(rf"\b(?:{terms})\b", re.IGNORECASE).search(text, start)
        if hit and hit.start() - start > EXCERPT_CHARS - 80:  # keep the match in view
            start = text.find(" ", hit.start() - 80) + 1
            lead = "…"
    window = text[start : start + EXCERPT_CHARS + 1]
    if len(window) > EXCERPT_CHARS:
        cut = window.rfind(" ", 0, EXCERPT_CHARS)
        window = window[: cut if cut > 0 else EXCERPT_CHARS]
        return lead + " ".join(window.split()) + " …"
    return lead + " ".join(window.split())


class PageIndex:
    """Okapi BM25 over the title and main text of every page in one folder."""

    def __init__(self, directory: Path, pages: list[Page]) -> None:
        self.directory = directory
        self.pages = sorted(pages, key=lambda p: p.name)  # index order breaks score ties
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._lengths: list[int] = []
        for i, page in enumerate(self.pages):
            counts = Counter(tokens(f"{page.title}\n{page.text}"))
            self._lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self._postings.setdefault(term, []).append((i, tf))
        self._avgdl = max(sum(self._lengths) / max(len(self.pages), 1), 1.0)

    @classmethod
    def from_dir(cls, path: str | Path, workers: int | None = None) -> PageIndex:
        """Index the folder's pages. ``workers`` (default: one per CPU, from 64 files on)
        extractor processes are used only where that is safe, see ``_can_fork``."""
        directory = Path(path)
        inside = directory.resolve()
        # Only regular files of this folder: a symlink to /etc/passwd is not a page.
        files = sorted(f for f in directory.iterdir() if f.suffix.lower() in CONTENT_TYPES
                       and not f.name.startswith(".") and f.is_file()
                       and f.resolve().parent == inside)
        if workers is None:
            workers = min(os.cpu_count() or 1, 8) if len(files) >= _POOL_MIN_FILES else 1
        if workers > 1 and _can_fork():
            ctx = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
                read = list(pool.map(_read_page, map(str, files), chunksize=16))
        else:
            read = [_read_page(str(f)) for f in files]
        return cls(directory, [Page(f.name, *r) for f, r in zip(files, read, strict=True)])

    def _idf(self, term: str) -> float:
        df = len(self._postings.get(term, ()))
        return math.log(1 + (len(self.pages) - df + 0.5) / (df + 0.5))

    def _rank(self, query: str) -> list[tuple[float, int]]:
        scores: dict[int, float] = {}
        for term in dict.fromkeys(tokens(query)):
            idf = self._idf(term)
            for i, tf in self._postings.get(term, ()):
                norm = K1 * (1 - B + B * self._lengths[i] / self._avgdl)
                scores[i] = scores.get(i, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
        return sorted(((s, i) for i, s in scores.items()), key=lambda si: (-si[0], si[1]))

    def search_page(self, query: str, limit: int = 10, offset: int = 0,
                    base_url: str | None = None) -> tuple[int, list[SearchHit]]:
        """(number of matching pages, hits ``offset`` to ``offset + limit``). URLs are
        ``base_url/<file>``, or ``file://`` URLs when no server is involved."""
        ranked = self._rank(query)
        weights = {t: self._idf(t) for t in tokens(query)}
        hits = []
        for score, i in ranked[offset : offset + limit]:
            page = self.pages[i]
            url = (f"{base_url.rstrip('/')}/{quote(page.name)}" if base_url
                   else (self.directory / page.name).resolve().as_uri())
            hits.append(SearchHit(url=url, title=page.title, content=_excerpt(page.text, weights),
                                  publishedDate=page.date, score=score))
        return len(ranked), hits

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        return self.search_page(query, limit)[1]


def _open_inside(directory: Path, name: str) -> tuple[BinaryIO, int] | None:
    """Regular file ``directory/name``, open, and its size, if the file actually opened lies
    in ``directory``, else None. Checked on the open descriptor, so a symlink swapped in
    between a check and the read cannot lead outside; O_NONBLOCK so a FIFO cannot hang."""
    try:
        fd = os.open(directory / name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    fh = os.fdopen(fd, "rb")
    try:
        real = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:  # no /proc (not Linux): the path check is the best there is
        real = (directory / name).resolve()
    info = os.fstat(fd)
    if real.parent != directory or not stat.S_ISREG(info.st_mode):
        fh.close()
        return None
    return fh, info.st_size


class _DeadlineReader(io.RawIOBase):
    """A socket reader for one request: first the bytes the dispatcher already read (the
    request's head), then the socket, each read waiting at most ``idle`` seconds and all of
    them ending at ``deadline``, so a client trickling a byte at a time is cut off too."""

    def __init__(self, sock: socket.socket, idle: float, head: bytes = b"") -> None:
        self.sock, self.idle, self.head = sock, idle, head
        self.deadline = time.monotonic() + idle

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("request not received in time")
        self.sock.settimeout(min(left, self.idle))
        return self.sock.recv_into(buffer)


class _Server(HTTPServer):
    """An HTTP server with a fixed pool of request threads.

    A new connection is parked in a selector, which reads its request line and headers
    without blocking, and only a complete head (up to the blank line) is handed to a thread:
    a thousand idle or half-sent requests hold a thousand sockets, not the threads, so fresh
    requests are served meanwhile. A parked connection whose head is not complete within
    ``idle`` seconds of connecting is closed (a request deadline, not an idle timeout), as
    is one whose head exceeds ``MAX_HEAD`` bytes."""

    web: LocalWeb
    # socketserver's default backlog of 5 makes a crawler with dozens of connections in
    # flight see SYN drops and 1 s connect retries; a real web server queues them.
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], threads: int, idle: float) -> None:
        super().__init__(address, _Handler)
        self.idle = idle
        #: Threads that may send a large file at once (``STREAM_SHARE``).
        self.streams = threading.BoundedSemaphore(max(1, threads // STREAM_SHARE))
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix=f"localweb:{address[1]}")
        self._selector = selectors.DefaultSelector()
        self._new: queue.SimpleQueue[tuple[socket.socket, Any]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        self._closing = False
        #: fd -> the request head the dispatcher read, for the handler thread to parse.
        self._heads: dict[int, bytes] = {}
        self._dispatcher = threading.Thread(target=self._dispatch, daemon=True,
                                            name=f"localweb-dispatch:{address[1]}")
        self._dispatcher.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        self._new.put((request, client_address))
        self._wake()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full: the dispatcher is awake anyway
            self._wake_w.send(b"\0")

    def _dispatch(self) -> None:
        sel = self._selector
        while not self._closing:
            for key, _ in sel.select(timeout=0.25):
                if key.data is None:
                    try:
                        while self._wake_r.recv(4096):
                            pass
                    except OSError:
                        pass
                    continue
                sock = cast(socket.socket, key.fileobj)
                try:
                    chunk = sock.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                head = key.data[2]
                head += chunk
                if chunk and b"\r\n\r\n" not in head and b"\n\n" not in head \
                        and len(head) <= MAX_HEAD:
                    continue  # the rest of the head has until the deadline to arrive
                sel.unregister(sock)
                if not chunk:  # closed before a whole request: nothing to answer
                    self.shutdown_request(sock)
                    continue
                sock.setblocking(True)
                self._heads[sock.fileno()] = bytes(head)
                self._pool.submit(self._serve, sock, key.data[0])
            while True:
                try:
                    sock, addr = self._new.get_nowait()
                except queue.Empty:
                    break
                if len(sel.get_map()) > MAX_WAITING:
                    self.shutdown_request(sock)
                    continue
                sock.setblocking(False)
                sel.register(sock, selectors.EVENT_READ,
                             (addr, time.monotonic() + self.idle, bytearray()))
            now = time.monotonic()
            for key in list(sel.get_map().values()):
                if key.data is not None and key.data[1] < now:  # idle too long
                    sel.unregister(key.fileobj)
                    self.shutdown_request(key.fileobj)  # type: ignore[arg-type]
        for key in list(sel.get_map().values()):
            sel.unregister(key.fileobj)
            if key.data is not None:
                self.shutdown_request(key.fileobj)  # type: ignore[arg-type]

    def _serve(self, sock: socket.socket, addr: Any) -> None:
        try:
            self.finish_request(sock, addr)
        except Exception:  # noqa: BLE001 - one client's trouble is not the server's
            self.handle_error(sock, addr)
        finally:
            self._heads.pop(sock.fileno(), None)
            self.shutdown_request(sock)

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]

    def server_close(self) -> None:
        super().server_close()
        if not hasattr(self, "_dispatcher"):
            return  # the bind failed inside HTTPServer.__init__: nothing else was started
        self._closing = True
        self._wake()
        self._dispatcher.join()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._selector.close()
        self._wake_r.close()
        self._wake_w.close()


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "dwqa-localweb"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle)
        head = self.server._heads.pop(self.connection.fileno(), b"")
        self.rfile = io.BufferedReader(_DeadlineReader(self.connection, self.server.idle,
                                                       head))

    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per request would drown the demo's and the tests' output

    def do_GET(self) -> None:
        self._guarded(with_body=True)

    def do_HEAD(self) -> None:
        self._guarded(with_body=False)

    def _guarded(self, with_body: bool) -> None:
        self.connection.settimeout(self.server.idle)  # the answer gets its own time
        try:
            self._respond(with_body)
        except (ConnectionError, TimeoutError):
            raise
        except Exception:  # noqa: BLE001 - a bug answers 500, it does not drop the client
            self.close_connection = True
            self._send(500, "text/plain; charset=utf-8", b"internal error\n", with_body)

    def _send(self, status: int, ctype: str, data: bytes, with_body: bool,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if with_body:
            self.wfile.write(data)

    def _send_file(self, fh: BinaryIO, size: int, ctype: str, with_body: bool) -> None:
        """Send ``size`` bytes of ``fh`` in ``STREAM_CHUNK`` pieces, all of them within the
        ``idle`` seconds the answer gets (as one ``sendall`` of the whole file had): a reader
        too slow for that is cut off. A file longer than one chunk needs one of the server's
        stream slots; without a free one it is answered 503 at once."""
        large = with_body and size > STREAM_CHUNK
        if large and not self.server.streams.acquire(blocking=False):
            self.close_connection = True
            return self._send(503, "text/plain; charset=utf-8",
                              b"busy: every stream slot is sending a large file; retry\n",
                              with_body, {"Retry-After": "1"})
        try:
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            if not with_body:
                return
            deadline = time.monotonic() + self.server.idle
            left = size
            while left > 0:
                chunk = fh.read(min(STREAM_CHUNK, left))
                if not chunk:  # the file shrank after fstat: the client sees a short body
                    self.close_connection = True
                    return
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("response not taken in time")
                self.connection.settimeout(min(remaining, self.server.idle))
                self.wfile.write(chunk)
                left -= len(chunk)
        finally:
            if large:
                self.server.streams.release()

    def _search_params(self, query: str) -> tuple[str, int] | str:
        """(q, pageno), or why the parameters are refused."""
        try:
            params = {k: v[0] for k, v in parse_qs(query, max_num_fields=20).items()}
        except ValueError:
            return "too many parameters\n"
        if params.get("format") != "json":
            return "only format=json is served (a real SearxNG enables it in settings.yml)\n"
        pageno = params.get("pageno", "1")
        # isdigit() alone accepts "²" and other digits int() refuses.
        # Length first: int() of thousands of digits raises (Python's int-digit limit).
        if not (pageno.isascii() and pageno.isdigit() and len(pageno) <= 6
                and 1 <= int(pageno) <= MAX_PAGENO):
            return f"pageno must be a whole number from 1 to {MAX_PAGENO}\n"
        q = params.get("q", "")
        if len(q) > MAX_QUERY_CHARS:
            return f"q longer than {MAX_QUERY_CHARS} characters\n"
        return q, int(pageno)

    def _respond(self, with_body: bool) -> None:
        web, text = self.server.web, "text/plain; charset=utf-8"
        # Not urlsplit: it would read "//etc/passwd" as a host name and a path.
        target, _, query = self.path.partition("#")[0].partition("?")
        path = unquote(urlsplit(target).path if "://" in target else target)
        if path == "/":
            return self._send(200, "text/html; charset=utf-8", web.index_html(), with_body)
        if path == "/search":
            checked = self._search_params(query)
            if isinstance(checked, str):
                return self._send(400, text, checked.encode(), with_body)
            q, pageno = checked
            total, hits = web.index.search_page(q, PER_PAGE, (pageno - 1) * PER_PAGE, web.url)
            results = [{**h.model_dump(), "engine": "dwqa-local"} for h in hits]
            doc = {"query": q, "number_of_results": total, "results": results, "answers": [],
                   "suggestions": [], "unresponsive_engines": []}
            data = json.dumps(doc, ensure_ascii=False).encode()
            return self._send(200, "application/json", data, with_body)
        name = path[1:]
        if "\0" in name or any(seg in (".", "..") for seg in re.split(r"[/\\]", name)):
            return self._send(400, text, b"bad path\n", with_body)
        # Only plain, visible files directly in the folder, checked on the opened file.
        if (any(c in name for c in "/\\:") or name.startswith(".")
                or (opened := _open_inside(web.directory, name)) is None):
            return self._send(404, text, b"not found\n", with_body)
        ctype = CONTENT_TYPES.get(Path(name).suffix.lower(), "application/octet-stream")
        fh, size = opened
        with fh:
            self._send_file(fh, size, ctype, with_body)


class LocalWeb:
    """A running local web: ``with serve("examples/web") as web: httpx.get(web.url + ...)``."""

    def __init__(self, directory: Path, index: PageIndex, host: str, port: int,
                 threads: int = THREADS, idle: float = IDLE_TIMEOUT) -> None:
        self.directory = directory.resolve()
        self.index = index
        try:
            self._server = _Server((host, port), threads, idle)
        except OSError as exc:  # the port is taken, or the host is not this machine's
            raise ServiceError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") \
                from exc
        self._server.web = self
        self.port: int = self._server.server_address[1]
        self.url = f"http://{host}:{self.port}"
        # A short poll interval: close() waits up to one interval for the serving loop to stop.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True, name=f"localweb:{self.port}")
        self._thread.start()

    def index_html(self) -> bytes:
        items = "".join(f'<li><a href="/{quote(p.name)}">{html.escape(p.title)}</a></li>\n'
                        for p in self.index.pages)
        return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>dwqa local web'
                f"</title></head><body><h1>{len(self.index.pages)} pages</h1>\n<ul>\n{items}"
                "</ul></body></html>\n").encode()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> LocalWeb:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def serve(directory: str | Path, host: str = "127.0.0.1", port: int = 0,
          index: PageIndex | None = None, threads: int = THREADS,
          idle: float = IDLE_TIMEOUT) -> LocalWeb:
    """Index ``directory`` (unless ``index`` is given) and serve it; port 0 picks a free one.
    ``threads`` requests are handled at once; ``idle`` seconds end a silent connection."""
    index = PageIndex.from_dir(directory) if index is None else index
    return LocalWeb(Path(directory), index, host, port, threads, idle)


def serve_forever(directory: str | Path, host: str = "127.0.0.1", port: int = 8765,
                  threads: int = THREADS, idle: float = IDLE_TIMEOUT) -> None:
    with serve(directory, host, port, threads=threads, idle=idle) as web:
        print(f"serving {len(web.index.pages)} pages from {directory} at {web.url} "
              f"(search: {web.url}/search?q=...&format=json)", file=sys.stderr, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
