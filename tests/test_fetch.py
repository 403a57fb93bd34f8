"""Fetching over real HTTP on loopback: hostile pages, SSRF guard, resumable runs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.web.extract import extract
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from dwqa_graph.web.ssrf import BlockedURL, check_url
from dwqa_graph.web.urls import document_id

from .conftest import SHARED, log_citing, statuses
from .hostile_web import LATIN1_MARKER, OK_MARKER, HostileWeb

FAST = FetchOptions(allow_private=True, timeout=1.5, retries=2, backoff=0.05)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://10.0.0.1/", "http://[::1]/", "http://169.254.169.254/latest/",
    "http://localhost:8080/", "http://[::ffff:127.0.0.1]/", "http://metadata.google.internal/",
    "http://192.168.1.1/admin", "http://0.0.0.0/",
])
def test_ssrf_private_targets_refused(url: str) -> None:
    with pytest.raises(BlockedURL) as err:
        asyncio.run(check_url(url))
    assert err.value.reason == "blocked_address"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "gopher://x/"])
def test_ssrf_other_schemes_refused(url: str) -> None:
    with pytest.raises(BlockedURL) as err:
        asyncio.run(check_url(url, allow_private=True))  # even when private is allowed
    assert err.value.reason == "blocked_scheme"


def test_ssrf_through_the_fetcher(store: Store, tmp_path: Path) -> None:
    with HostileWeb() as web:
        # 127.0.0.1:port is exempt by name; its redirect to "localhost" (also loopback) is not.
        into_loopback = f"{web.url}/redirect?to=http://localhost:{web.port}/ok"
        urls = [f"{web.url}/ok", into_loopback, "http://10.0.0.1/", "file:///etc/passwd",
                f"http://[::1]:{web.port}/ok", "http://169.254.169.254/latest/meta-data/"]
        ingest(store, [log_citing(tmp_path, urls)])
        report = fetch(store, FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{web.port}"})))
        assert web.hits["/ok"] == 1  # only the exempt host's own page was ever requested
    got = statuses(store)
    assert got[f"{web.url}/ok"] == "ok"
    assert got[into_loopback] == "blocked_address"
    assert got["file:///etc/passwd"] == "blocked_scheme"
    assert report.failed_by_reason == {"blocked_address": 4, "blocked_scheme": 1}


EXPECTED = {
    "/ok": "ok", "/status/404": "http_404", "/status/500": "http_500", "/flaky": "ok",
    "/retry-after": "ok", "/slow?seconds=4": "timeout", "/redirect-loop": "redirect_loop",
    "/redirect-chain/3": "ok", "/redirect-chain/9": "too_many_redirects",
    "/huge": "too_large", "/huge-no-length": "too_large", "/truncated": "truncated",
    "/binary": "binary_content", "/pdf": "unsupported_content_type", "/latin1": "ok",
    "/empty": "empty_body", "/boilerplate": "no_text", "/plain": "ok",
}


def test_hostile_pages_are_recorded_with_reasons(store: Store, tmp_path: Path) -> None:
    with HostileWeb() as web:
        urls = [web.url + p for p in EXPECTED]
        dead = "http://127.0.0.1:9/nothing-listens-here"
        tls = f"https://127.0.0.1:{web.port}/ok"  # a plain-HTTP server behind https://
        ingest(store, [log_citing(tmp_path, [*urls, dead, tls])])
        report = fetch(store, FAST)
        assert web.hits["/flaky"] == 3 and web.hits["/retry-after"] == 2  # retried, then ok
    got = statuses(store)
    assert {p: got[web.url + p] for p in EXPECTED} == EXPECTED
    assert got[dead] == "connect_error"
    assert got[tls] == "tls_error"
    assert report.documents == len(EXPECTED) + 2
    assert report.ok == list(EXPECTED.values()).count("ok") == report.new_versions
    texts = {r["url"]: r["text"] for r in store.read(
        "MATCH (d:Document)-[:HAS_VERSION]->(v) RETURN d.url AS url, v.text AS text")}
    assert OK_MARKER in texts[web.url + "/ok"]
    assert LATIN1_MARKER in texts[web.url + "/latin1"]  # charset from <meta> only
    # Nothing pending: a second run fetches nothing; --retry-failed retries only failures.
    assert fetch(store, FAST).documents == 0


def test_unchanged_text_adds_no_version(store: Store, tmp_path: Path) -> None:
    with HostileWeb() as web:
        ingest(store, [log_citing(tmp_path, [f"{web.url}/ok", f"{web.url}/status/503"])])
        first = fetch(store, FAST)
        again = fetch(store, FAST, older_than=timedelta(0))
        retried = fetch(store, FAST, retry_failed=True)
    assert (first.new_versions, again.documents, again.ok, again.new_versions) == (1, 2, 1, 0)
    assert again.unchanged == 1
    assert retried.documents == 1 and retried.failed_by_reason == {"http_503": 1}
    [row] = store.read("MATCH (d:Document)-[:HAS_VERSION]->(v) RETURN count(v) AS n")
    assert row["n"] == 1


def test_real_web_pages(store: Store, tmp_path: Path) -> None:
    real = SHARED / "real-web"
    files = sorted(p.name for p in real.glob("*.html"))
    assert len(files) == 29
    with serve(real) as web:
        ingest(store, [log_citing(tmp_path, [f"{web.url}/{f}" for f in files])])
        report = fetch(store, FetchOptions(allow_private=True))
    assert report.documents == 29 and report.ok + report.failed == 29
    got = statuses(store)
    texts = {r["url"]: r["text"] for r in store.read(
        "MATCH (d:Document)-[:HAS_VERSION]->(v) RETURN d.url AS url, v.text AS text")}
    for f in files:
        url = f"{web.url}/{f}"
        usable = extract((real / f).read_bytes().decode("utf-8", "replace")).text
        if usable:  # every page trafilatura can handle arrives with its text
            assert got[url] == "ok", (f, got[url])
            assert len(texts[url]) > 100
        else:
            assert got[url] != "ok"


def test_killed_fetch_refetches_nothing_finished(store: Store, env: dict[str, str],
                                                 tmp_path: Path) -> None:
    with HostileWeb() as web:
        urls = [f"{web.url}/slow?seconds=0.25&page={i}" for i in range(60)]
        ingest(store, [log_citing(tmp_path, urls)])
        cmd = [sys.executable, "-m", "dwqa_graph.cli", "fetch", "--allow-private",
               "--concurrency", "2", "--json"]
        proc = subprocess.Popen(cmd, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(statuses(store).values()):
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        done = {r["id"]: r["at"] for r in store.read(
            "MATCH (d:Document) WHERE d.fetch_status = 'ok' RETURN d.id AS id, "
            "toString(d.fetched_at) AS at")}
        assert 0 < len(done) < 60
        hits_before = web.hits["/slow"]
        second = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True,
                                check=True)
    report = json.loads(second.stdout)
    assert report["documents"] == 60 - len(done)  # finished pages are not fetched again
    assert web.hits["/slow"] - hits_before == 60 - len(done)
    after = {r["id"]: r["at"] for r in store.read(
        "MATCH (d:Document) RETURN d.id AS id, toString(d.fetched_at) AS at")}
    assert all(after[i] == at for i, at in done.items())
    assert document_id(urls[0]) in after
