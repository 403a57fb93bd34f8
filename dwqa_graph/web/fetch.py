"""Stage 2 — fetch: every Document URL without a current version -> a DocumentVersion.

Network and CPU are separate stages so neither stalls the other: an asyncio loop downloads
with bounded global and per-host concurrency, and trafilatura extraction (CPU-bound) runs
in a process pool fed through a bounded hand-off. Every result, success or failure, is
recorded on its Document as it completes (in small batches), so killing a run loses at most
the pages in flight and a re-run fetches nothing that was finished.

A version's id hashes (document, text): an unchanged page adds no version.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import random
import re
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin

import httpx
import zstandard
from charset_normalizer import from_bytes
from pydantic import BaseModel, Field, field_validator

from dwqa_graph._pool import process_pool
from dwqa_graph._progress import progress
from dwqa_graph._version import __version__
from dwqa_graph.errors import UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.models import stable_id
from dwqa_graph.web.extract import extract
from dwqa_graph.web.ssrf import BlockedURL, check_scheme_and_host, check_url, parse_allowed

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = (*HTML_TYPES, "text/plain")
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
#: Less main text than this is boilerplate (a cookie notice, a nav bar), not a page.
MIN_WORDS = 15
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
#: Content codings we decode ourselves, each with a bounded output (see ``decode_content``).
#: Brotli is not among them (no decoder is installed), so it is neither asked for nor accepted.
ACCEPT_ENCODING = "gzip, deflate, zstd"
#: ``Content-Encoding: gzip, gzip, gzip`` is legal but no real server stacks codings; a
#: longer chain is refused rather than decoded layer after layer.
MAX_ENCODING_LAYERS = 2
#: RFC 9659 caps a zstd window for HTTP at 8 MB; a frame asking for more is refused, so a
#: crafted frame cannot make the decoder allocate a huge window.
ZSTD_MAX_WINDOW = 8 << 20


class FetchOptions(BaseModel):
    """How a fetch run behaves; every field is a CLI option or setting."""

    concurrency: int = Field(32, ge=1, description="Downloads in flight, all hosts.")
    per_host: int = Field(8, ge=1, description="Downloads in flight per host.")
    timeout: float = Field(20.0, gt=0, description="Seconds for connect / each read.")
    deadline: float = Field(60.0, gt=0, description="Seconds for a whole page: connect, "
                            "headers, body, redirects and retries together.")
    retries: int = Field(2, ge=0, description="Extra attempts on 429, 5xx and network errors.")
    backoff: float = Field(0.5, ge=0, description="First retry delay; doubles per attempt.")
    max_bytes: int = Field(5_000_000, ge=1, description="Body size cap.")
    max_redirects: int = Field(5, ge=0)
    allow_private: bool = Field(False, description="Allow loopback/private addresses.")
    allow_hosts: frozenset[str] = Field(frozenset(), description="host:port pairs exempt "
                                        "from the private-address check (only that port; "
                                        "redirects are still checked).")
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1,
                         description="Extraction processes.")
    user_agent: str = f"dwqa-graph/{__version__} (+evaluation crawler)"

    @field_validator("allow_hosts", mode="before")
    @classmethod
    def _host_ports(cls, value: Any) -> frozenset[str]:
        try:
            return frozenset(parse_allowed(str(v)) for v in value)
        except ValueError as exc:
            raise ValueError(str(exc)) from None


class FetchResult(BaseModel):
    """One fetch attempt of one Document, as recorded in the graph."""

    document_id: str
    url: str
    reason: str = Field(description="'ok' or why the fetch failed (a short key).")
    detail: str = ""
    final_url: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    bytes: int = 0
    fetched_at: str
    text: str | None = None
    title: str | None = None
    published: str | None = None
    extractor: str | None = None
    content_hash: str | None = None
    version_id: str | None = None
    network_s: float = 0.0
    extract_s: float = 0.0

    @field_validator("detail")
    @classmethod
    def _storable(cls, value: str) -> str:
        # Error messages may quote hostile input (a lone surrogate cannot be stored).
        return value.encode("utf-8", "backslashreplace").decode("utf-8")


class FetchReport(BaseModel):
    """The ``--json`` summary of a fetch run."""

    documents: int = 0
    ok: int = 0
    new_versions: int = 0
    unchanged: int = 0
    failed: int = 0
    failed_by_reason: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    pages_per_s: float = 0.0
    network_seconds: float = Field(0.0, description="Summed over concurrent downloads.")
    extract_seconds: float = Field(0.0, description="Summed over extraction workers.")
    extract_cpu_seconds: float = Field(0.0, description="CPU time of the extraction workers.")
    network_utilisation: float = Field(0.0, description="network_seconds / (wall x slots).")
    extract_utilisation: float = Field(0.0, description="extract_seconds / (wall x workers).")


class FetchFailure(Exception):
    def __init__(self, reason: str, detail: str = "", **info: Any) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail, self.info = reason, detail, info


def parse_duration(text: str) -> timedelta:
    """``90s``, ``30m``, ``12h``, ``7d``, ``2w``."""
    m = _DURATION.match(text)
    if not m:
        raise UsageError(f"duration {text!r}: use a number and s, m, h, d or w (e.g. 7d)")
    unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}[m.group(2)]
    return timedelta(**{unit: float(m.group(1))})


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# -- extraction (runs in worker processes) ------------------------------------------------
def decode_body(body: bytes, header_charset: str | None) -> str:
    """Header charset, then <meta charset>, then strict UTF-8, then detection."""
    if b"\x00" in body[:8192]:
        raise FetchFailure("binary_content", "NUL bytes in a text response")
    candidates = [header_charset] if header_charset else []
    m = _META_CHARSET.search(body[:4096])
    if m:
        candidates.append(m.group(1).decode("ascii", "replace"))
    candidates.append("utf-8")
    for enc in candidates:
        try:
            return body.decode(enc)
        except (LookupError, UnicodeDecodeError):
            continue
    best = from_bytes(body[:200_000]).best()
    if best is None:
        raise FetchFailure("binary_content", "no text encoding fits the bytes")
    return body.decode(best.encoding, errors="replace")


def extract_page(body: bytes, header_charset: str | None, content_type: str,
                 url: str) -> dict[str, Any]:
    """Decode and extract in a worker; returns plain data (crosses a process boundary)."""
    started, cpu = time.perf_counter(), time.process_time()
    try:
        html = decode_body(body, header_charset)
        page = extract(html, url=url, content_type=content_type)
        words = len(page.text.split())
        if words < MIN_WORDS and not content_type.startswith("text/plain"):
            raise FetchFailure("no_text", f"{words} words of main text (minimum {MIN_WORDS})")
        return {"reason": "ok", "text": page.text, "title": page.title,
                "published": page.date, "extractor": page.extractor,
                "extract_s": time.perf_counter() - started,
                "extract_cpu_s": time.process_time() - cpu}
    except FetchFailure as exc:
        return {"reason": exc.reason, "detail": exc.detail,
                "extract_s": time.perf_counter() - started,
                "extract_cpu_s": time.process_time() - cpu}


# -- content decoding ------------------------------------------------------------------------
def _too_large(limit: int) -> FetchFailure:
    return FetchFailure("too_large", f"decoded body exceeds {limit} bytes")


def _inflate(data: bytes, limit: int, wbits: int) -> bytes:
    """zlib/gzip/raw deflate with at most ``limit`` bytes of output, whatever the ratio.

    Concatenated gzip members are decoded one after another, as browsers do."""
    out = bytearray()
    while data:
        d = zlib.decompressobj(wbits)
        while not d.eof:
            # max_length bounds each call; what did not fit waits in unconsumed_tail (or
            # in zlib's window, which the next call with no new input drains).
            chunk = d.decompress(data, limit + 1 - len(out))
            data = d.unconsumed_tail
            out += chunk
            if len(out) > limit:
                raise _too_large(limit)
            if not chunk and not data:
                return bytes(out)  # the stream stops short: keep what arrived
        data = d.unused_data if wbits > 16 and d.unused_data.strip(b"\0") else b""
    return bytes(out)


def _zstd(data: bytes, limit: int) -> bytes:
    dctx = zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW)
    out = bytearray()
    with dctx.stream_reader(io.BytesIO(data), read_across_frames=True) as reader:
        while chunk := reader.read(min(1 << 20, limit + 1 - len(out))):
            out += chunk
            if len(out) > limit:
                raise _too_large(limit)
    return bytes(out)


def _deflate(data: bytes, limit: int) -> bytes:
    # "deflate" is zlib-wrapped by the RFC, raw by some servers: try both, like browsers.
    try:
        return _inflate(data, limit, zlib.MAX_WBITS)
    except zlib.error:
        return _inflate(data, limit, -zlib.MAX_WBITS)


_DECODERS = {
    "gzip": lambda data, limit: _inflate(data, limit, 16 + zlib.MAX_WBITS),
    "x-gzip": lambda data, limit: _inflate(data, limit, 16 + zlib.MAX_WBITS),
    "deflate": _deflate,
    "zstd": _zstd,
}


def decode_content(raw: bytes, content_encoding: str, limit: int) -> bytes:
    """Undo ``Content-Encoding`` (a comma-separated chain, applied in order) with the size
    cap on the DECODED bytes of every layer, so no ratio and no stacking gets past it.
    Codings we cannot decode are refused: handing undecoded bytes on would be worse."""
    codings = [c.strip().lower() for c in content_encoding.split(",")]
    codings = [c for c in codings if c and c != "identity"]
    unknown = [c for c in codings if c not in _DECODERS]
    if unknown:
        raise FetchFailure("unsupported_encoding", f"Content-Encoding {', '.join(unknown)}")
    if len(codings) > MAX_ENCODING_LAYERS:
        raise FetchFailure("unsupported_encoding", f"{len(codings)} stacked content codings "
                           f"({content_encoding}); at most {MAX_ENCODING_LAYERS}")
    data = raw
    for coding in reversed(codings):
        try:
            data = _DECODERS[coding](data, limit)
        except (zlib.error, zstandard.ZstdError) as exc:
            raise FetchFailure("bad_encoding", f"{coding}: {exc}"[:200]) from exc
    return data


# -- download --------------------------------------------------------------------------------
def _retry_after(resp: httpx.Response, default: float) -> float:
    value = resp.headers.get("retry-after")
    if not value:
        return default
    try:
        return min(float(value), 30.0)
    except ValueError:
        try:
            return max(0.0, min((parsedate_to_datetime(value) - datetime.now(UTC))
                                .total_seconds(), 30.0))
        except (TypeError, ValueError):
            return default


async def _get_once(client: httpx.AsyncClient, url: str, opts: FetchOptions,
                    ) -> tuple[httpx.Response, bytes, str]:
    """One GET following redirects by hand, so every hop passes the SSRF guard."""
    seen = {url}
    current = url
    for _hop in range(opts.max_redirects + 1):
        await check_url(current, allow_private=opts.allow_private, allow_hosts=opts.allow_hosts)
        try:
            request = client.build_request("GET", current,
                                           headers={"accept-encoding": ACCEPT_ENCODING})
        except Exception as exc:  # noqa: BLE001 - the guard passed it; the client did not
            raise FetchFailure("invalid_url", f"{type(exc).__name__}: {exc}"[:200]) from exc
        resp = await client.send(request, stream=True)
        try:
            if resp.is_redirect and "location" in resp.headers:
                nxt = urljoin(current, resp.headers["location"])
                if nxt in seen:
                    raise FetchFailure("redirect_loop", f"{current} -> {nxt}")
                seen.add(nxt)
                current = nxt
                continue
            if resp.status_code >= 400:
                return resp, b"", current
            ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype and ctype not in TEXT_TYPES:
                raise FetchFailure("unsupported_content_type", ctype,
                                   http_status=resp.status_code, content_type=ctype)
            length = resp.headers.get("content-length")
            if length and length.isascii() and length.isdigit() and (
                    len(length) > 18 or int(length) > opts.max_bytes):
                raise FetchFailure("too_large", f"Content-Length {length} > {opts.max_bytes}")
            # Raw bytes, capped as they arrive (endless streams, lying lengths); decoding
            # comes after, capped again on its output (bombs, stacked codings).
            chunks, size = [], 0
            async for chunk in resp.aiter_raw():
                size += len(chunk)
                if size > opts.max_bytes:
                    raise FetchFailure("too_large", f"body exceeds {opts.max_bytes} bytes")
                chunks.append(chunk)
            raw = b"".join(chunks)
            del chunks
            body = decode_content(raw, resp.headers.get("content-encoding", ""), opts.max_bytes)
            return resp, body, current
        finally:
            await resp.aclose()
    raise FetchFailure("too_many_redirects", f"more than {opts.max_redirects} redirects")


async def download(client: httpx.AsyncClient, url: str, opts: FetchOptions,
                   ) -> tuple[httpx.Response, bytes, str]:
    """GET with retries, all within ``opts.deadline`` seconds.

    httpx's timeouts bound each connect and each read, so a server sending a byte a second
    (headers or body) never trips them; the deadline bounds the page as a whole."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + opts.deadline
    try:
        async with asyncio.timeout_at(deadline):
            return await _download(client, url, opts, deadline)
    except TimeoutError as exc:
        if loop.time() < deadline:
            raise  # not ours
        raise FetchFailure("deadline", f"page not complete within {opts.deadline:g}s "
                                       "(connect, headers, body and retries)") from exc


async def _download(client: httpx.AsyncClient, url: str, opts: FetchOptions, deadline: float,
                    ) -> tuple[httpx.Response, bytes, str]:
    """GET with retries (429/5xx/network errors, exponential backoff, Retry-After)."""
    loop = asyncio.get_running_loop()
    delay = opts.backoff
    for attempt in range(opts.retries + 1):
        # No retry whose wait alone would run past the deadline: report this attempt instead.
        last = attempt == opts.retries or loop.time() + delay >= deadline
        try:
            resp, body, final = await _get_once(client, url, opts)
        except httpx.TimeoutException as exc:
            if last:
                raise FetchFailure("timeout", type(exc).__name__) from exc
        except httpx.RemoteProtocolError as exc:
            if last:
                raise FetchFailure("truncated", str(exc)[:200]) from exc
        except httpx.ConnectError as exc:
            msg = str(exc)
            if "SSL" in msg or "certificate" in msg.lower():
                raise FetchFailure("tls_error", msg[:200]) from exc
            if last:
                raise FetchFailure("connect_error", msg[:200]) from exc
        except httpx.InvalidURL as exc:  # e.g. a port the client refuses at connect time
            raise FetchFailure("invalid_url", str(exc)[:200]) from exc
        except (httpx.TransportError, httpx.DecodingError) as exc:
            if last:
                raise FetchFailure("network_error", f"{type(exc).__name__}: {exc}"[:200]) from exc
        else:
            if resp.status_code not in RETRY_STATUS or last:
                return resp, body, final
            delay = _retry_after(resp, delay)
            if loop.time() + delay >= deadline:
                return resp, body, final
        await asyncio.sleep(delay * (1 + random.random() * 0.1))  # noqa: S311 - jitter only
        delay *= 2
    raise AssertionError("unreachable")


# -- the stage -------------------------------------------------------------------------------
class _FetchRun:
    """One ``fetch_all``: downloads on the event loop, extraction in a process pool, and the
    time spent in each (for the report's utilisation figures)."""

    def __init__(self, opts: FetchOptions, on_result: Any, pool: Any,
                 advance: Callable[[int], None]) -> None:
        self.opts, self.on_result, self.pool, self.advance = opts, on_result, pool, advance
        self.per_host: defaultdict[str, asyncio.Semaphore] = defaultdict(
            lambda: asyncio.Semaphore(opts.per_host))
        # Bounded hand-off to the extraction pool: downloads keep going while workers are
        # busy, but never pile up more than a few pages per worker in memory.
        self.extract_slots = asyncio.Semaphore(opts.workers * 4)
        self.pending: set[asyncio.Task[None]] = set()
        self.totals = {"network": 0.0, "extract": 0.0, "extract_cpu": 0.0}

    async def record(self, result: FetchResult) -> None:
        await self.on_result(result)
        self.advance(1)

    async def extract(self, doc: dict[str, str], base: dict[str, Any], body: bytes,
                      charset: str | None, ctype: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            out = await loop.run_in_executor(self.pool, extract_page, body, charset, ctype,
                                             base["final_url"])
        except Exception as exc:  # noqa: BLE001 - e.g. a worker killed by the OOM killer
            out = {"reason": "extract_error", "detail": f"{type(exc).__name__}: {exc}"[:300],
                   "extract_s": 0.0, "extract_cpu_s": 0.0}
        finally:
            self.extract_slots.release()
        self.totals["extract"] += out.pop("extract_s")
        self.totals["extract_cpu"] += out.pop("extract_cpu_s")
        result = FetchResult(**base, **out)
        if result.reason == "ok" and result.text:
            result.content_hash = hashlib.sha256(result.text.encode()).hexdigest()
            result.version_id = stable_id(doc["id"], "text", result.text)
        await self.record(result)

    async def worker(self, client: httpx.AsyncClient, queue: asyncio.Queue[dict[str, str]]
                     ) -> None:
        while not queue.empty():
            doc = queue.get_nowait()
            try:
                await self.one(client, doc)
            except Exception as exc:  # noqa: BLE001 - one page never ends the run
                await self.record(FetchResult(
                    document_id=doc["id"], url=doc["url"], fetched_at=now_iso(),
                    reason="error", detail=f"{type(exc).__name__}: {exc}"[:300]))

    async def one(self, client: httpx.AsyncClient, doc: dict[str, str]) -> None:
        base: dict[str, Any] = {"document_id": doc["id"], "url": doc["url"],
                                "fetched_at": now_iso()}
        t0 = time.perf_counter()
        try:
            # An unusable URL is recorded like any other failure (invalid_url), so it is
            # never pending again.
            host = check_scheme_and_host(doc["url"])[0]
            async with self.per_host[host]:
                # Network time starts once the host slot is ours: waiting for a slot is
                # politeness, not the network.
                t0 = time.perf_counter()
                resp, body, final = await download(client, doc["url"], self.opts)
        except (FetchFailure, BlockedURL) as exc:
            info = getattr(exc, "info", {})
            await self.record(FetchResult(**base, reason=exc.reason, detail=exc.detail,
                                          network_s=time.perf_counter() - t0, **info))
            return
        finally:
            self.totals["network"] += time.perf_counter() - t0
        ctype = resp.headers.get("content-type", "text/html")
        base.update(final_url=final, http_status=resp.status_code,
                    content_type=ctype.split(";")[0].strip() or None,
                    bytes=len(body), network_s=time.perf_counter() - t0)
        if resp.status_code >= 400:
            await self.record(FetchResult(**base, reason=f"http_{resp.status_code}",
                                          detail=resp.reason_phrase))
            return
        if not body.strip():
            await self.record(FetchResult(**base, reason="empty_body"))
            return
        await self.extract_slots.acquire()
        task = asyncio.create_task(self.extract(doc, base, body, resp.charset_encoding,
                                                base["content_type"] or "text/html"))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def run(self, docs: list[dict[str, str]]) -> None:
        queue: asyncio.Queue[dict[str, str]] = asyncio.Queue()
        for d in docs:
            queue.put_nowait(d)
        opts = self.opts
        limits = httpx.Limits(max_connections=opts.concurrency,
                              max_keepalive_connections=opts.concurrency)
        timeout = httpx.Timeout(opts.timeout, connect=min(opts.timeout, 10.0))
        async with httpx.AsyncClient(follow_redirects=False, timeout=timeout, limits=limits,
                                     headers={"user-agent": opts.user_agent},
                                     trust_env=False) as client:
            await asyncio.gather(*(self.worker(client, queue)
                                   for _ in range(min(opts.concurrency, max(len(docs), 1)))))
            while self.pending:
                await asyncio.gather(*list(self.pending))


async def fetch_all(docs: list[dict[str, str]], opts: FetchOptions,
                    on_result: Any) -> FetchReport:
    """Fetch ``docs`` ([{id, url}]) and hand each FetchResult to ``await on_result(r)``."""
    report = FetchReport(documents=len(docs))
    started = time.perf_counter()
    with process_pool(opts.workers) as pool, progress("fetch", len(docs)) as advance:
        run = _FetchRun(opts, on_result, pool, advance)
        await run.run(docs)
    totals = run.totals
    wall = time.perf_counter() - started
    report.seconds = round(wall, 3)
    report.pages_per_s = round(len(docs) / wall, 1) if wall else 0.0
    report.network_seconds = round(totals["network"], 3)
    report.extract_seconds = round(totals["extract"], 3)
    report.extract_cpu_seconds = round(totals["extract_cpu"], 3)
    if wall:
        report.network_utilisation = round(totals["network"] / (wall * opts.concurrency), 3)
        report.extract_utilisation = round(totals["extract"] / (wall * opts.workers), 3)
    return report


def pending_documents(store: Store, *, older_than: timedelta | None = None,
                      retry_failed: bool = False, ids: list[str] | None = None,
                      ) -> list[dict[str, str]]:
    cutoff = (datetime.now(UTC) - older_than).isoformat() if older_than is not None else None
    return store.query("fetch/pending", cutoff=cutoff, retry_failed=retry_failed, ids=ids)


def fetch(store: Store, opts: FetchOptions | None = None, *, older_than: timedelta | None = None,
          retry_failed: bool = False, ids: list[str] | None = None,
          flush_every: int = 100, flush_seconds: float = 1.0) -> FetchReport:
    """Fetch every Document that needs it and record the results. Synchronous entry point."""
    opts = opts or FetchOptions()
    docs = pending_documents(store, older_than=older_than, retry_failed=retry_failed, ids=ids)
    failed: Counter[str] = Counter()
    buffer: list[dict[str, Any]] = []
    created = {"versions": 0, "ok": 0}
    last_flush = [time.monotonic()]

    async def flush() -> None:
        rows = list(buffer)
        buffer.clear()
        last_flush[0] = time.monotonic()
        if rows:
            # The driver is synchronous: write from a thread so downloads keep flowing.
            stats = await asyncio.to_thread(store.write, "fetch/record", rows)
            created["versions"] += stats.nodes_created

    async def on_result(result: FetchResult) -> None:
        if result.reason == "ok":
            created["ok"] += 1
        else:
            failed[result.reason] += 1
        buffer.append(result.model_dump(exclude={"network_s", "extract_s"}))
        # Flush by count or age, so a killed run loses at most ~a second of results.
        if len(buffer) >= flush_every or time.monotonic() - last_flush[0] >= flush_seconds:
            await flush()

    async def run() -> FetchReport:
        report = await fetch_all(docs, opts, on_result)
        await flush()
        return report

    report = asyncio.run(run())
    report.ok = created["ok"]
    report.new_versions = created["versions"]
    report.unchanged = created["ok"] - created["versions"]
    report.failed = sum(failed.values())
    report.failed_by_reason = dict(sorted(failed.items()))
    return report
