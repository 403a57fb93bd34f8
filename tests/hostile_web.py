"""A hostile little web on loopback, for testing an HTTP fetcher's robustness.

Each route misbehaves the way some real site does: errors, flaky 503s, rate limits, slow
answers, redirect loops, bodies too big (with and without Content-Length), bodies cut short,
binary junk labelled as HTML, PDFs, a Latin-1 page whose charset only its <meta> tag names,
empty pages and pages that are all boilerplate. Some attack the client on purpose:
compression bombs (``/bomb/gzip``, ``/bomb/gzip-gzip``, ``/bomb/zstd``, ...: a few KB on the
wire, hundreds of MB decoded), codings nobody can decode (``/encoded/br``), and servers
that trickle one byte per ``interval`` seconds through the headers (``/trickle-headers``)
or the body (``/trickle-body``). Counters are per server, so a test that
starts its own ``HostileWeb`` sees ``/flaky`` fail exactly twice.

    with HostileWeb() as web:
        result = fetch(f"{web.url}/flaky")
        assert web.hits["/flaky"] == 3
"""

from __future__ import annotations

import functools
import gzip
import random
import sys
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import zstandard

HUGE_BYTES = 20 * 1024 * 1024
TRUNCATED_CLAIMED, TRUNCATED_SENT = 10_000, 100
FLAKY_FAILURES = 2
SLOW_MAX_SECONDS = 60.0  # a typo in a test must not hang the suite for hours
OK_MARKER = "The harbour pilots of Osterwick"
LATIN1_MARKER = "Größe der Brücke über die Möhne"
PLAIN_MARKER = "Plain text has no markup at all."

OK_HTML = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{OK_MARKER}</title>
<meta name="date" content="2024-05-02"></head>
<body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<main><article><h1>{OK_MARKER}</h1>
<p>{OK_MARKER} guide about 1,900 ships a year through the narrow channel into the port. The
service was founded in 1873, after three grain ships ran aground in a single winter storm.</p>
<p>Each pilot trains for four years before taking a vessel alone. Trainees first learn the tides
and the sandbanks, then the radio procedures, and finally the handling of large container ships
in strong cross winds.</p>
<p>In 2023 the pilots moved into a new station on the north pier. The old wooden station, built
in 1911, now houses a small museum about the history of the port and its lifeboats.</p>
<p>The harbour master expects traffic to grow by a tenth once the new quay opens in 2026, and
the service plans to hire six more pilots over the next three years.</p>
</article></main><footer><p>&copy; 2024 Osterwick Port News</p></footer></body></html>
""".encode()

LATIN1_HTML = f"""<!DOCTYPE html>
<html lang="de"><head><meta charset="iso-8859-1"><title>Die Brücke über die Möhne</title></head>
<body><article><h1>Die Brücke über die Möhne</h1>
<p>Die {LATIN1_MARKER} überrascht noch heute viele Besucher. Sie wurde 1887 aus Bruchstein
gebaut und ist seitdem fünfmal renoviert worden.</p>
<p>Während des Hochwassers im Frühjahr 1956 blieb die Brücke als einzige im Tal unbeschädigt.
Die Gemeinde ließ danach die Pfeiler verstärken und einen Fußweg anbauen.</p>
<p>Heute überqueren täglich etwa 4.000 Fahrzeuge die Brücke. Für Lastwagen über 7,5 Tonnen
ist sie seit 2019 gesperrt, weil Gutachter Risse in zwei Bögen gefunden haben.</p>
</article></body></html>
""".encode("iso-8859-1")

BOILERPLATE_HTML = b"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Welcome</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/shop">Shop</a></li>
<li><a href="/about">About us</a></li><li><a href="/contact">Contact</a></li></ul></nav>
<div class="cookie-banner"><p>We use cookies to improve your experience.</p>
<button>Accept all</button></div>
<footer><p>&copy; 2024 Example Ltd. All rights reserved.</p>
<ul><li><a href="/privacy">Privacy</a></li><li><a href="/imprint">Imprint</a></li></ul></footer>
</body></html>
"""

PLAIN_TEXT = f"""{PLAIN_MARKER}

This is the second paragraph of a plain text page. It has several sentences. None of them
contains a tag.

And this is the third paragraph, which ends the page.
""".encode()

PDF = (b"%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n"
       b"2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n")
BINARY = random.Random(1234).randbytes(64 * 1024)

_HUGE_HEAD = b"<!DOCTYPE html><html><head><title>Huge</title></head><body><article>\n"
_HUGE_TAIL = b"</article></body></html>\n"
_HUGE_PARA = b"<p>" + b"All work and no play makes a page far too large to keep. " * 8 + b"</p>\n"


#: Decoded size of the test bombs: 40x the fetcher's 5 MB cap, yet a few KB on the wire.
BOMB_MB = 200
#: A trickling server stops after this many bytes even if nobody hangs up.
TRICKLE_MAX_BYTES = 600


def _zeros(total: int, compressor: object) -> bytes:
    block, parts = bytes(1 << 20), []
    for _ in range(total >> 20):
        parts.append(compressor.compress(block))  # type: ignore[attr-defined]
    parts.append(compressor.flush())  # type: ignore[attr-defined]
    return b"".join(parts)


def bomb(kind: str, mb: int = BOMB_MB) -> tuple[bytes, str]:
    """(body, Content-Encoding) decoding to ``mb`` MB of zeros; built once per process."""
    return _bomb(kind, mb)


@functools.lru_cache(maxsize=16)
def _bomb(kind: str, mb: int) -> tuple[bytes, str]:
    total = mb << 20
    if kind == "gzip":
        return _zeros(total, zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)), "gzip"
    if kind == "deflate":
        return _zeros(total, zlib.compressobj(9)), "deflate"
    if kind == "gzip-gzip":  # the inner gzip is itself ~1000:1 compressible
        return gzip.compress(bomb("gzip", mb)[0], 9), "gzip, gzip"
    if kind == "zstd":
        return _zeros(total, zstandard.ZstdCompressor(level=19).compressobj()), "zstd"
    raise KeyError(kind)


def encoded(kind: str) -> tuple[bytes, str]:
    """OK_HTML under the coding(s) ``kind`` names: the positive controls for decoding."""
    if kind == "gzip":
        return gzip.compress(OK_HTML), "gzip"
    if kind == "gzip-gzip":
        return gzip.compress(gzip.compress(OK_HTML)), "gzip, gzip"
    if kind == "gzip-gzip-gzip":
        return gzip.compress(gzip.compress(gzip.compress(OK_HTML))), "gzip, gzip, gzip"
    if kind == "deflate":
        return zlib.compress(OK_HTML), "deflate"
    if kind == "raw-deflate":
        c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
        return c.compress(OK_HTML) + c.flush(), "deflate"
    if kind == "zstd":
        return zstandard.ZstdCompressor().compress(OK_HTML), "zstd"
    if kind == "br":  # not brotli at all: a client must refuse the coding, not read it
        return OK_HTML, "br"
    if kind == "corrupt-gzip":
        return b"\x1f\x8b\x08\x00" + bytes(64), "gzip"
    raise KeyError(kind)


def huge_chunks(total: int = HUGE_BYTES) -> Iterator[bytes]:
    """Yield an HTML document of exactly ``total`` bytes in ~64 KB pieces."""
    fill = total - len(_HUGE_HEAD) - len(_HUGE_TAIL)
    block = _HUGE_PARA * (65536 // len(_HUGE_PARA))
    yield _HUGE_HEAD
    blocks, rest = divmod(fill, len(block))
    for _ in range(blocks):
        yield block
    paras, pad = divmod(rest, len(_HUGE_PARA))
    yield _HUGE_PARA * paras + b" " * pad
    yield _HUGE_TAIL


class _Server(ThreadingHTTPServer):
    web: HostileWeb

    def handle_error(self, request: object, client_address: object) -> None:
        # Clients are expected to hang up on /huge and /slow; anything else is a bug here.
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # chunked transfer encoding needs it
    server_version = "hostile-web"

    def log_message(self, format: str, *args: object) -> None:
        pass  # a failing fetcher test should show the fetcher's output, not a request log

    def do_GET(self) -> None:
        self._route(with_body=True)

    def do_HEAD(self) -> None:
        self._route(with_body=False)

    def _head(self, status: int, ctype: str | None, length: int | None,
              extra: dict[str, str] | None = None) -> None:
        # One request per connection keeps close() simple: no idle keep-alive threads linger.
        self.close_connection = True
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.send_header("Connection", "close")
        self.end_headers()

    def _send(self, status: int, ctype: str, body: bytes, with_body: bool,
              extra: dict[str, str] | None = None) -> None:
        self._head(status, ctype, len(body), extra)
        if with_body:
            self.wfile.write(body)

    def _redirect(self, location: str, with_body: bool) -> None:
        self._send(302, "text/plain", b"moved\n", with_body, {"Location": location})

    def _route(self, with_body: bool) -> None:
        web = self.server.web
        parts = urlsplit(self.path)
        path, query = parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}
        n = web.hit(path)
        html, text = "text/html", "text/plain"
        ok = (200, html, OK_HTML, with_body)
        if path == "/ok":
            self._send(*ok)
        elif path.startswith("/status/") and path[8:].isdigit() and 200 <= int(path[8:]) < 600:
            code = int(path[8:])
            if code in (204, 304):
                self._head(code, None, None)
            else:
                self._send(code, text, f"status {code}\n".encode(), with_body)
        elif path == "/flaky":
            if n <= FLAKY_FAILURES:
                self._send(503, text, b"try again later\n", with_body)
            else:
                self._send(*ok)
        elif path == "/retry-after":
            if n == 1:
                self._send(429, text, b"slow down\n", with_body, {"Retry-After": "1"})
            else:
                self._send(*ok)
        elif path == "/slow":
            time.sleep(min(max(float(query.get("seconds", "5")), 0.0), SLOW_MAX_SECONDS))
            self._send(*ok)
        elif path == "/redirect" and "to" in query:
            self._redirect(query["to"], with_body)
        elif path == "/redirect-loop":
            self._redirect(f"{web.url}/redirect-loop", with_body)
        elif path.startswith("/redirect-chain/") and path[16:].isdigit():
            hops = int(path[16:])
            if hops == 0:
                self._send(*ok)
            else:
                self._redirect(f"{web.url}/redirect-chain/{hops - 1}" if hops > 1
                               else f"{web.url}/ok", with_body)
        elif path == "/huge":
            self._head(200, html, HUGE_BYTES)
            for chunk in huge_chunks() if with_body else ():
                self.wfile.write(chunk)
        elif path == "/huge-no-length":
            self._head(200, html, None, {"Transfer-Encoding": "chunked"})
            for chunk in huge_chunks() if with_body else ():
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            if with_body:
                self.wfile.write(b"0\r\n\r\n")
        elif path == "/truncated":
            self._head(200, html, TRUNCATED_CLAIMED)
            if with_body:
                self.wfile.write(OK_HTML[:TRUNCATED_SENT])  # then close: the body stops short
        elif path == "/binary":
            self._send(200, html, BINARY, with_body)
        elif path == "/pdf":
            self._send(200, "application/pdf", PDF, with_body)
        elif path == "/latin1":
            self._send(200, html, LATIN1_HTML, with_body)  # charset only in <meta>
        elif path == "/empty":
            self._send(200, html, b"", with_body)
        elif path == "/boilerplate":
            self._send(200, html, BOILERPLATE_HTML, with_body)
        elif path == "/plain":
            self._send(200, "text/plain; charset=utf-8", PLAIN_TEXT, with_body)
        elif path.startswith("/bomb/"):
            try:
                body, coding = bomb(path[6:], int(query.get("mb", BOMB_MB)))
            except (KeyError, ValueError):
                return self._send(404, text, b"no such bomb\n", with_body)
            self._send(200, html, body, with_body, {"Content-Encoding": coding})
        elif path.startswith("/encoded/"):
            try:
                body, coding = encoded(path[9:])
            except KeyError:
                return self._send(404, text, b"no such coding\n", with_body)
            self._send(200, html, body, with_body, {"Content-Encoding": coding})
        elif path in ("/trickle-headers", "/trickle-body"):
            self._trickle(path == "/trickle-headers", float(query.get("interval", "1")))
        else:
            self._send(404, text, b"not found\n", with_body)


    def _trickle(self, in_headers: bool, interval: float) -> None:
        """One byte per ``interval`` s: each read gets a byte long before any per-read
        timeout, so only an overall deadline ends the download."""
        self.close_connection = True
        head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                + b"".join(b"X-Pad-%d: %s\r\n" % (i, b"p" * 40) for i in range(20))
                + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(OK_HTML))
        if in_headers:
            stream, start = head + OK_HTML, 0
        else:
            self.wfile.write(head)
            self.wfile.flush()
            stream, start = OK_HTML, 0
        for i in range(start, min(len(stream), TRICKLE_MAX_BYTES)):
            time.sleep(max(interval, 0.01))
            self.wfile.write(stream[i : i + 1])
            self.wfile.flush()


class HostileWeb:
    """The hostile web on ``127.0.0.1`` (port 0 picks a free port); a context manager."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hits: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server = _Server((host, port), _Handler)
        self._server.web = self
        self.port: int = self._server.server_address[1]
        self.url = f"http://{host}:{self.port}"
        # A short poll interval: close() waits up to one interval for the serving loop to stop.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True, name=f"hostile-web:{self.port}")
        self._thread.start()

    def hit(self, path: str) -> int:
        """Count a request to ``path``; returns how many there have been, this one included."""
        with self._lock:
            self.hits[path] += 1
            return self.hits[path]

    def reset(self) -> None:
        with self._lock:
            self.hits.clear()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> HostileWeb:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
