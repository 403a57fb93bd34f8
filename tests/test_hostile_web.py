"""The hostile web test server does what its routes promise (checked with httpx)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from .hostile_web import (
    FLAKY_FAILURES,
    HUGE_BYTES,
    LATIN1_MARKER,
    OK_MARKER,
    TRUNCATED_SENT,
    HostileWeb,
)


@pytest.fixture
def web() -> Iterator[HostileWeb]:
    with HostileWeb() as w:
        yield w


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def test_ok_status_and_404(web: HostileWeb, client: httpx.Client) -> None:
    r = client.get(f"{web.url}/ok")
    assert r.status_code == 200 and r.headers["content-type"] == "text/html"
    assert OK_MARKER in r.text and r.text.count("<p>") >= 4
    assert client.get(f"{web.url}/status/418").status_code == 418
    assert client.get(f"{web.url}/status/204").content == b""
    assert client.get(f"{web.url}/nowhere").status_code == 404
    assert client.head(f"{web.url}/ok").content == b""


def test_flaky_and_retry_after(web: HostileWeb, client: httpx.Client) -> None:
    codes = [client.get(f"{web.url}/flaky").status_code for _ in range(FLAKY_FAILURES + 2)]
    assert codes == [503] * FLAKY_FAILURES + [200, 200]
    first = client.get(f"{web.url}/retry-after")
    assert (first.status_code, first.headers["retry-after"]) == (429, "1")
    assert client.get(f"{web.url}/retry-after").status_code == 200
    assert web.hits["/flaky"] == FLAKY_FAILURES + 2
    web.reset()
    assert client.get(f"{web.url}/flaky").status_code == 503


def test_redirects(web: HostileWeb, client: httpx.Client) -> None:
    r = client.get(f"{web.url}/redirect-chain/3", follow_redirects=True)
    assert r.status_code == 200 and len(r.history) == 3 and r.url.path == "/ok"
    r = client.get(f"{web.url}/redirect", params={"to": f"{web.url}/plain"}, follow_redirects=True)
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    with pytest.raises(httpx.TooManyRedirects):
        client.get(f"{web.url}/redirect-loop", follow_redirects=True)


def test_slow_times_out(web: HostileWeb) -> None:
    with httpx.Client(timeout=0.2) as quick:
        with pytest.raises(httpx.ReadTimeout):
            quick.get(f"{web.url}/slow", params={"seconds": "1"})
        assert quick.get(f"{web.url}/slow", params={"seconds": "0"}).status_code == 200


@pytest.mark.parametrize(("route", "length"),
                         [("/huge", str(HUGE_BYTES)), ("/huge-no-length", None)])
def test_huge(web: HostileWeb, client: httpx.Client, route: str, length: str | None) -> None:
    with client.stream("GET", web.url + route) as r:
        assert r.headers.get("content-length") == length
        assert sum(len(chunk) for chunk in r.iter_raw()) == HUGE_BYTES
    with client.stream("GET", web.url + route) as r:  # a fetcher that gives up early
        next(r.iter_raw())


def test_truncated_body_is_a_protocol_error(web: HostileWeb, client: httpx.Client) -> None:
    with client.stream("GET", f"{web.url}/truncated") as r:
        got = b""
        with pytest.raises(httpx.RemoteProtocolError):
            for chunk in r.iter_raw():
                got += chunk
    assert len(got) == TRUNCATED_SENT


def test_awkward_bodies(web: HostileWeb, client: httpx.Client) -> None:
    latin1 = client.get(f"{web.url}/latin1")
    assert latin1.headers["content-type"] == "text/html"  # no charset in the header
    assert LATIN1_MARKER in latin1.content.decode("iso-8859-1")
    with pytest.raises(UnicodeDecodeError):
        latin1.content.decode("utf-8")
    binary = client.get(f"{web.url}/binary")
    assert binary.headers["content-type"] == "text/html" and len(binary.content) == 65536
    assert client.get(f"{web.url}/pdf").content.startswith(b"%PDF-")
    empty = client.get(f"{web.url}/empty")
    assert (empty.status_code, empty.content) == (200, b"")
    assert "<article>" not in client.get(f"{web.url}/boilerplate").text
