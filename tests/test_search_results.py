"""SearxNG results as real instances can send them: missing or null url / title / content are
skipped and counted, never a crash; the local web only sends usable results."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.evaluation.agents import make_agent
from dwqa_graph.web.localweb import serve
from dwqa_graph.web.search import SearxngClient, result_problem
from tests.paths import REPO_ROOT

GOOD = {"url": "http://a.test/1", "title": "Opening day", "content": "The tram opened.",
        "publishedDate": None, "engine": "bing"}
BAD: list[tuple[Any, str]] = [
    ({**GOOD, "url": None}, "null_url"),
    ({k: v for k, v in GOOD.items() if k != "url"}, "no_url"),
    ({**GOOD, "url": ""}, "empty_url"),
    ({**GOOD, "url": 42}, "bad_url"),
    ({**GOOD, "title": None}, "null_title"),
    ({k: v for k, v in GOOD.items() if k != "title"}, "no_title"),
    ({**GOOD, "content": None}, "null_content"),
    ({k: v for k, v in GOOD.items() if k != "content"}, "no_content"),
    ({**GOOD, "content": ["a"]}, "bad_content"),
    ({**GOOD, "publishedDate": 2023}, "bad_publishedDate"),
    ("just a string", "not_an_object"),
    (None, "not_an_object"),
]


class _Searx(ThreadingHTTPServer):
    pages: list[Any]


class _Handler(BaseHTTPRequestHandler):
    server: _Searx

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        page = int(self.path.split("pageno=")[1].split("&")[0])
        doc = self.server.pages[page - 1] if page <= len(self.server.pages) else {"results": []}
        body = json.dumps(doc).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def searx() -> Iterator[_Searx]:
    server = _Searx(("127.0.0.1", 0), _Handler)
    server.pages = []
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def url_of(server: _Searx) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.mark.parametrize(("hit", "reason"), BAD)
def test_result_problems(hit: Any, reason: str) -> None:
    assert result_problem(hit) == reason


def test_good_results_pass() -> None:
    assert result_problem(GOOD) is None
    assert result_problem({**GOOD, "title": "", "content": ""}) is None  # SearxNG's own ""


def test_bad_results_are_skipped_and_counted(searx: _Searx) -> None:
    second = {**GOOD, "url": "http://a.test/2", "title": "Second"}
    searx.pages = [{"results": [hit for hit, _ in BAD] + [GOOD]}, {"results": [second]}]
    client = SearxngClient(url_of(searx))
    results, skipped = client.search_counted("tram", limit=5)
    assert [(r.rank, r.url) for r in results] == [(1, "http://a.test/1"), (2, "http://a.test/2")]
    expected = {}
    for _, reason in BAD:
        expected[reason] = expected.get(reason, 0) + 1
    assert dict(skipped) == expected and sum(skipped.values()) == len(BAD)
    client.search("tram", limit=5)
    assert client.skipped[BAD[0][1]] == 2  # counted over the client's life as well
    client.close()


def test_a_page_of_only_bad_results_ends_the_search(searx: _Searx) -> None:
    # A server that repeats the same broken page for every pageno must not loop forever.
    searx.pages = [{"results": [{**GOOD, "url": None}]}] * 50
    client = SearxngClient(url_of(searx))
    results, skipped = client.search_counted("tram", limit=10)
    client.close()
    assert results == [] and skipped == {"null_url": 1}


def test_malformed_documents_are_no_results_not_a_crash(searx: _Searx) -> None:
    searx.pages = [{"results": None}]
    client = SearxngClient(url_of(searx))
    assert client.search("tram") == []
    searx.pages = [["not", "an", "object"]]
    assert client.search("tram") == []
    client.close()


def test_the_baseline_says_what_it_skipped(searx: _Searx) -> None:
    searx.pages = [{"results": [{**GOOD, "url": None}, {**GOOD, "content": None}, GOOD]}]
    agent = make_agent(f"baseline:{url_of(searx)}", timeout=2)
    reply = agent.answer("When did the tram open?")
    agent.close()
    assert reply.error is None
    assert "skipped unusable results: null_content 1, null_url 1" in reply.steps


def test_cli_search_counts_skipped(searx: _Searx, env: dict[str, str]) -> None:
    searx.pages = [{"results": [{**GOOD, "title": None}, GOOD]}]
    result = CliRunner().invoke(main, ["search", "tram", "--searxng", url_of(searx)], env=env)
    assert result.exit_code == 0, result.output
    assert "http://a.test/1" in result.stdout
    assert "skipped 1 unusable result(s): null_title 1" in result.stderr


def test_the_local_web_sends_only_usable_results(tmp_path: Path) -> None:
    # Pages without a <title> or without text still come back with a title and content.
    (tmp_path / "notitle.html").write_text("<html><body><p>The ferry sails at noon every "
                                           "day from the old harbour.</p></body></html>")
    (tmp_path / "bare.txt").write_text("ferry")
    for folder in (REPO_ROOT / "examples" / "web", tmp_path):
        with serve(folder) as web:
            client = SearxngClient(web.url)
            for query in ("ferry", "tram", "the", "Valmora bridge"):
                _, skipped = client.search_counted(query, limit=20)
                assert not skipped, (folder, query, skipped)
            hits = client.search("ferry", limit=5)
            client.close()
        assert all(h.url and h.title for h in hits)
    assert {h.title for h in hits} == {"notitle", "bare"}
