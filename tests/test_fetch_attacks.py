"""Attacks on the fetcher (issue 12): URLs the client cannot parse, compression bombs and
stacked codings, servers that trickle one byte at a time, --allow-host with a port.

Every hostile response comes from a real server on loopback (tests/hostile_web.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from dwqa_graph.cli.main import main
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.web.fetch import FetchFailure, FetchOptions, decode_content, fetch
from dwqa_graph.web.refresh import refresh
from dwqa_graph.web.search import SearchResult
from dwqa_graph.web.ssrf import BlockedURL, check_url, parse_allowed

from .conftest import log_citing, statuses
from .hostile_web import OK_MARKER, HostileWeb, bomb

#: Each of these made ``dwqa fetch`` abort with a traceback (issue 12, item 2).
BAD_URLS = [
    "http://0177.0.0.1/",                 # octal IPv4: httpx refuses it
    "http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/",  # full-width digits
    "http://127.000.000.001/",            # zero-padded IPv4
    "http://exa\tmple.org/",              # an embedded tab
    "http://127.0.0.1:99999/",            # port out of range
    "http://example.org:-1/",             # negative port
    "http://[::1/",                       # broken IPv6 literal
    "http://ex\u2028ample.org/",          # a line separator in the host (bad IDNA)
    "http:///no-host",                    # no host at all
]


def test_every_bad_url_is_recorded_and_the_run_goes_on(store: Store, env: dict[str, str],
                                                        tmp_path: Path) -> None:
    with HostileWeb() as web:
        good = [f"{web.url}/ok", f"{web.url}/plain"]
        # Bad and good interleaved: a bad one early must not stop the ones after it.
        urls = [u for pair in zip(BAD_URLS, good + [""] * len(BAD_URLS), strict=False)
                for u in pair if u]
        report = ingest(store, [log_citing(tmp_path, urls)])
        assert report.ingested == 1  # bad URLs are the fetch stage's business
        assert report.warnings_by_reason["invalid_url"] == len(BAD_URLS)  # named at ingest
        cmd = [sys.executable, "-m", "dwqa_graph.cli", "fetch", "--allow-host",
               f"127.0.0.1:{web.port}", "--json"]
        first = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True,
                               text=True, check=True, timeout=300)
        second = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True,
                                text=True, check=True, timeout=300)
        assert web.hits["/ok"] == 1 and web.hits["/plain"] == 1
    run1, run2 = json.loads(first.stdout), json.loads(second.stdout)
    assert run1["documents"] == len(BAD_URLS) + 2
    assert run1["ok"] == 2
    assert run1["failed_by_reason"] == {"invalid_url": len(BAD_URLS)}
    assert run2["documents"] == 0  # every bad URL is recorded: nothing is pending again
    got = statuses(store)
    assert {u: got[u] for u in BAD_URLS} == dict.fromkeys(BAD_URLS, "invalid_url")
    assert got[good[0]] == got[good[1]] == "ok"
    details = store.read("MATCH (d:Document {fetch_status: 'invalid_url'}) "
                         "RETURN d.fetch_detail AS detail")
    assert all(r["detail"] for r in details)  # each with why


@pytest.mark.parametrize("url", BAD_URLS)
def test_the_guard_calls_bad_urls_invalid(url: str) -> None:
    with pytest.raises(BlockedURL) as err:
        asyncio.run(check_url(url, allow_private=True))
    assert err.value.reason == "invalid_url"


EXPECTED = {
    # Bombs: a few KB on the wire, 200 MB decoded; the cap is on decoded bytes.
    "/bomb/gzip": "too_large", "/bomb/deflate": "too_large",
    "/bomb/gzip-gzip": "too_large", "/bomb/zstd": "too_large",
    # Honest encodings decode (positive controls), odd ones are refused with a reason.
    "/encoded/gzip": "ok", "/encoded/gzip-gzip": "ok", "/encoded/deflate": "ok",
    "/encoded/raw-deflate": "ok", "/encoded/zstd": "ok",
    "/encoded/gzip-gzip-gzip": "unsupported_encoding", "/encoded/br": "unsupported_encoding",
    "/encoded/corrupt-gzip": "bad_encoding",
    # A byte every 0.25 s never trips a 5 s read timeout; only the page deadline ends it.
    "/trickle-headers?interval=0.25": "deadline", "/trickle-body?interval=0.25": "deadline",
    # Controls for the deadline: a page slower than nothing but within it is fetched.
    "/slow?seconds=0.5": "ok", "/ok": "ok",
    # What held before still holds.
    "/huge": "too_large", "/huge-no-length": "too_large", "/truncated": "truncated",
}


def test_bombs_codings_and_trickles_end_with_reasons(store: Store, tmp_path: Path) -> None:
    for kind in ("gzip", "deflate", "gzip-gzip", "zstd"):
        body, _ = bomb(kind)  # built before the clock of any fetch starts
        assert len(body) < 300_000
    with HostileWeb() as web:
        urls = [web.url + p for p in EXPECTED]
        ingest(store, [log_citing(tmp_path, urls)])
        opts = FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{web.port}"}), timeout=5.0,
                            deadline=3.0, retries=1, backoff=0.05)
        report = fetch(store, opts)
    got = statuses(store)
    assert {p: got[web.url + p] for p in EXPECTED} == EXPECTED
    assert report.ok == list(EXPECTED.values()).count("ok")
    details = {r["url"]: r["detail"] for r in store.read(
        "MATCH (d:Document) RETURN d.url AS url, d.fetch_detail AS detail")}
    assert "decoded body exceeds 5000000" in details[web.url + "/bomb/gzip-gzip"]
    assert "within 3s" in details[web.url + "/trickle-headers?interval=0.25"]
    texts = {r["url"]: r["text"] for r in store.read(
        "MATCH (d:Document)-[:HAS_VERSION]->(v) RETURN d.url AS url, v.text AS text")}
    for p in ("/encoded/gzip", "/encoded/gzip-gzip", "/encoded/zstd", "/encoded/raw-deflate"):
        assert OK_MARKER in texts[web.url + p]


def test_decode_content_caps_every_layer() -> None:
    body, coding = bomb("gzip-gzip")
    with pytest.raises(FetchFailure) as err:
        decode_content(body, coding, 5_000_000)
    assert err.value.reason == "too_large"
    # The same bomb under a cap above its size decodes whole: the cap is what stops it.
    small, small_coding = bomb("gzip-gzip", 8)
    assert decode_content(small, small_coding, 9 << 20) == bytes(8 << 20)
    with pytest.raises(FetchFailure) as err:
        decode_content(b"x", "compress", 100)
    assert err.value.reason == "unsupported_encoding"
    assert decode_content(b"plain", "identity", 100) == b"plain"


def test_allow_host_exempts_only_that_port(store: Store, tmp_path: Path) -> None:
    with HostileWeb() as web, HostileWeb() as other:
        into_other = f"{web.url}/redirect?to={other.url}/ok"
        urls = [f"{web.url}/ok", f"{other.url}/ok", into_other]
        ingest(store, [log_citing(tmp_path, urls)])
        fetch(store, FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{web.port}"})))
        assert other.hits["/ok"] == 0  # the same address on another port was never asked
        assert web.hits["/ok"] == 1
    got = statuses(store)
    assert got[f"{web.url}/ok"] == "ok"
    assert got[f"{other.url}/ok"] == got[into_other] == "blocked_address"


def test_allow_host_needs_a_port(env: dict[str, str]) -> None:
    assert parse_allowed("LocalHost:8765") == "localhost:8765"
    assert parse_allowed("[::1]:80") == "[::1]:80"
    for bad in ("127.0.0.1", "127.0.0.1:99999", "host:80/path", "user@host:80"):
        with pytest.raises(ValueError, match="HOST:PORT"):
            parse_allowed(bad)
    with pytest.raises(ValidationError):
        FetchOptions(allow_hosts=frozenset({"127.0.0.1"}))
    result = CliRunner().invoke(main, ["fetch", "--allow-host", "127.0.0.1"], env=env)
    assert result.exit_code != 0 and "HOST:PORT" in result.output


class _HostileSearch:
    """A search engine whose results are hostile: unparseable URLs and a lone surrogate."""

    name = "hostile"

    def __init__(self, good: str) -> None:
        self.urls = ["http://127.0.0.1:99999/x", "http://0177.0.0.1/", "http://ex\udc80.org/",
                     good]

    def search(self, query: str, limit: int = 10) -> list[SearchResult]:
        return [SearchResult(url=u, title="t", content="c", rank=i, engine=self.name)
                for i, u in enumerate(self.urls, 1)]


def test_refresh_survives_hostile_search_results(store: Store, tmp_path: Path) -> None:
    with HostileWeb() as web:
        ingest(store, [log_citing(tmp_path, [f"{web.url}/plain"])])
        opts = FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{web.port}"}))
        report = refresh(store, _HostileSearch(f"{web.url}/ok"), round_t=1, fetch_options=opts)
        assert web.hits["/ok"] == 1
    assert report.failures == {"invalid_unicode": 1}  # skipped: Neo4j cannot store it
    assert report.results == 3
    assert report.fetch is not None
    assert report.fetch.failed_by_reason == {"invalid_url": 2} and report.fetch.ok == 1
