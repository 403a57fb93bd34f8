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
import os
import random
import re
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin

import httpx
from charset_normalizer import from_bytes
from pydantic import BaseModel, Field

from dwqa_graph import __version__
from dwqa_graph._pool import process_pool
from dwqa_graph._progress import progress
from dwqa_graph.errors import UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.models import stable_id
from dwqa_graph.web.extract import extract
from dwqa_graph.web.ssrf import BlockedURL, check_url

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = (*HTML_TYPES, "text/plain")
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
#: Less main text than this is boilerplate (a cookie notice, a nav bar), not a page.
MIN_WORDS = 15
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")


class FetchOptions(BaseModel):
    """How a fetch run behaves; every field is a CLI option or setting."""

    concurrency: int = Field(32, ge=1, description="Downloads in flight, all hosts.")
    per_host: int = Field(8, ge=1, description="Downloads in flight per host.")
    timeout: float = Field(20.0, gt=0, description="Seconds for connect / each read.")
    retries: int = Field(2, ge=0, description="Extra attempts on 429, 5xx and network errors.")
    backoff: float = Field(0.5, ge=0, description="First retry delay; doubles per attempt.")
    max_bytes: int = Field(5_000_000, ge=1, description="Body size cap.")
    max_redirects: int = Field(5, ge=0)
    allow_private: bool = Field(False, description="Allow loopback/private addresses.")
    allow_hosts: frozenset[str] = Field(frozenset(), description="Hosts exempt from the "
                                        "private-address check (redirects are still checked).")
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1,
                         description="Extraction processes.")
    user_agent: str = f"dwqa-graph/{__version__} (+evaluation crawler)"


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
        async with client.stream("GET", current) as resp:
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
            if length and length.isdigit() and int(length) > opts.max_bytes:
                raise FetchFailure("too_large", f"Content-Length {length} > {opts.max_bytes}")
            chunks, size = [], 0
            async for chunk in resp.aiter_bytes():
                size += len(chunk)
                if size > opts.max_bytes:
                    raise FetchFailure("too_large", f"body exceeds {opts.max_bytes} bytes")
                chunks.append(chunk)
            return resp, b"".join(chunks), current
    raise FetchFailure("too_many_redirects", f"more than {opts.max_redirects} redirects")


async def download(client: httpx.AsyncClient, url: str, opts: FetchOptions,
                   ) -> tuple[httpx.Response, bytes, str]:
    """GET with retries (429/5xx/network errors, exponential backoff, Retry-After)."""
    delay = opts.backoff
    for attempt in range(opts.retries + 1):
        last = attempt == opts.retries
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
        except (httpx.TransportError, httpx.DecodingError) as exc:
            if last:
                raise FetchFailure("network_error", f"{type(exc).__name__}: {exc}"[:200]) from exc
        else:
            if resp.status_code not in RETRY_STATUS or last:
                return resp, body, final
            delay = _retry_after(resp, delay)
        await asyncio.sleep(delay * (1 + random.random() * 0.1))  # noqa: S311 - jitter only
        delay *= 2
    raise AssertionError("unreachable")


# -- the stage -------------------------------------------------------------------------------
async def fetch_all(docs: list[dict[str, str]], opts: FetchOptions,
                    on_result: Any) -> FetchReport:
    """Fetch ``docs`` ([{id, url}]) and hand each FetchResult to ``await on_result(r)``."""
    report = FetchReport(documents=len(docs))
    started = time.perf_counter()
    queue: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    for d in docs:
        queue.put_nowait(d)
    per_host: defaultdict[str, asyncio.Semaphore] = defaultdict(
        lambda: asyncio.Semaphore(opts.per_host))
    # Bounded hand-off to the extraction pool: downloads keep going while workers are busy,
    # but never pile up more than a few pages per worker in memory.
    extract_slots = asyncio.Semaphore(opts.workers * 4)
    loop = asyncio.get_running_loop()
    pending: set[asyncio.Task[None]] = set()
    totals = {"network": 0.0, "extract": 0.0, "extract_cpu": 0.0}
    limits = httpx.Limits(max_connections=opts.concurrency,
                          max_keepalive_connections=opts.concurrency)
    timeout = httpx.Timeout(opts.timeout, connect=min(opts.timeout, 10.0))

    with process_pool(opts.workers) as pool, \
            progress("fetch", len(docs)) as advance:

        async def finish(doc: dict[str, str], base: dict[str, Any], body: bytes,
                         charset: str | None, ctype: str) -> None:
            try:
                out = await loop.run_in_executor(pool, extract_page, body, charset, ctype,
                                                 base["final_url"])
            finally:
                extract_slots.release()
            totals["extract"] += out.pop("extract_s")
            totals["extract_cpu"] += out.pop("extract_cpu_s")
            result = FetchResult(**base, **out)
            if result.reason == "ok" and result.text:
                result.content_hash = hashlib.sha256(result.text.encode()).hexdigest()
                result.version_id = stable_id(doc["id"], "text", result.text)
            await on_result(result)
            advance(1)

        async def worker(client: httpx.AsyncClient) -> None:
            while not queue.empty():
                doc = queue.get_nowait()
                host = httpx.URL(doc["url"]).host if doc["url"].startswith("http") else ""
                base: dict[str, Any] = {"document_id": doc["id"], "url": doc["url"],
                                        "fetched_at": now_iso()}
                t0 = time.perf_counter()
                try:
                    async with per_host[host]:
                        # Network time starts once the host slot is ours: waiting for a
                        # slot is politeness, not the network.
                        t0 = time.perf_counter()
                        resp, body, final = await download(client, doc["url"], opts)
                except (FetchFailure, BlockedURL) as exc:
                    info = getattr(exc, "info", {})
                    await on_result(FetchResult(**base, reason=exc.reason, detail=exc.detail,
                                                network_s=time.perf_counter() - t0, **info))
                    advance(1)
                    continue
                finally:
                    totals["network"] += time.perf_counter() - t0
                ctype = resp.headers.get("content-type", "text/html")
                base.update(final_url=final, http_status=resp.status_code,
                            content_type=ctype.split(";")[0].strip() or None,
                            bytes=len(body), network_s=time.perf_counter() - t0)
                if resp.status_code >= 400:
                    await on_result(FetchResult(**base, reason=f"http_{resp.status_code}",
                                                detail=resp.reason_phrase))
                    advance(1)
                    continue
                if not body.strip():
                    await on_result(FetchResult(**base, reason="empty_body"))
                    advance(1)
                    continue
                await extract_slots.acquire()
                task = asyncio.create_task(finish(doc, base, body, resp.charset_encoding,
                                                  base["content_type"] or "text/html"))
                pending.add(task)
                task.add_done_callback(pending.discard)

        async with httpx.AsyncClient(follow_redirects=False, timeout=timeout, limits=limits,
                                     headers={"user-agent": opts.user_agent},
                                     trust_env=False) as client:
            await asyncio.gather(*(worker(client) for _ in range(min(opts.concurrency,
                                                                     max(len(docs), 1)))))
            while pending:
                await asyncio.gather(*list(pending))

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
