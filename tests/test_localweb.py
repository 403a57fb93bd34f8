"""The local web: pages and SearxNG-style search over real HTTP (no Neo4j needed)."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from dwqa_graph.text import tokens
from dwqa_graph.web.localweb import LocalWeb, PageIndex, _can_fork, serve
from tests.paths import REPO_ROOT

from .conftest import SHARED, raw_get

EXAMPLES = REPO_ROOT / "examples" / "web"
#: Every page of the example web (the index reads each).
PAGES = len(list(EXAMPLES.glob("*.html")))
REAL_WEB = SHARED / "real-web"
BRIDGE = "valmora-tram-medieval-bridge-discovery.html"
FIRE = "solvane-pilot-plant-fire.html"


@pytest.fixture(scope="module")
def web() -> Iterator[LocalWeb]:
    with serve(EXAMPLES) as w:
        yield w


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def search(client: httpx.Client, web: LocalWeb, q: str, **params: str | int) -> dict:
    r = client.get(f"{web.url}/search", params={"q": q, "format": "json", **params})
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    return r.json()


def test_page_is_served_byte_identical(web: LocalWeb, client: httpx.Client) -> None:
    r = client.get(f"{web.url}/{BRIDGE}")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html"  # no charset: the client must detect it
    assert r.content == (EXAMPLES / BRIDGE).read_bytes()
    head = client.head(f"{web.url}/{BRIDGE}")
    assert head.status_code == 200 and head.content == b""
    assert int(head.headers["content-length"]) == len(r.content)


@pytest.mark.parametrize(("query", "page"), [
    ("medieval bridge oak piles tree-ring dating", BRIDGE),
    ("pilot plant fire night shift formation room", FIRE),
    ("Miller's Bend archaeologists", BRIDGE),
])
def test_specific_words_rank_their_page_first(web: LocalWeb, client: httpx.Client, query: str,
                                              page: str) -> None:
    doc = search(client, web, query)
    assert doc["query"] == query
    assert doc["results"][0]["url"] == f"{web.url}/{page}"
    scores = [r["score"] for r in doc["results"]]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1]


def test_results_carry_searxng_fields(web: LocalWeb, client: httpx.Client) -> None:
    doc = search(client, web, "medieval bridge")
    assert doc["answers"] == [] and doc["suggestions"] == [] and doc["unresponsive_engines"] == []
    assert doc["number_of_results"] >= len(doc["results"]) > 0
    top = doc["results"][0]
    assert set(top) == {"url", "title", "content", "publishedDate", "engine", "score"}
    assert top["title"].startswith("Medieval bridge find puts")
    assert top["publishedDate"] == "2021-11-23"
    assert 100 <= len(top["content"]) <= 300 and "bridge" in top["content"].lower()
    for result in doc["results"]:
        assert result["engine"] == "dwqa-local"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", result["publishedDate"])
        assert result["url"].startswith(web.url + "/")
        assert client.get(result["url"]).status_code == 200  # every hit can be fetched


def test_pagination(web: LocalWeb, client: httpx.Client) -> None:
    first = search(client, web, "tramway battery flood")
    total = first["number_of_results"]
    assert total > 20 and len(first["results"]) == 10
    pages = [first] + [search(client, web, "tramway battery flood", pageno=n) for n in (2, 3, 4)]
    urls = [r["url"] for p in pages for r in p["results"]]
    assert len(urls) == len(set(urls)) == total
    assert all(p["number_of_results"] == total for p in pages)
    assert urls[:10] == [h.url for h in web.index.search_page("tramway battery flood", 10, 0,
                                                             web.url)[1]]
    assert search(client, web, "tramway battery flood", pageno=99)["results"] == []
    for bad in ("x", "0", "-1", "\u00b2", "1001"):  # 400, as SearxNG answers a bad pageno
        r = client.get(f"{web.url}/search", params={"q": "tram", "format": "json", "pageno": bad})
        assert r.status_code == 400 and "pageno" in r.text


def test_no_match_and_empty_query(web: LocalWeb, client: httpx.Client) -> None:
    assert search(client, web, "xylophone")["results"] == []
    assert search(client, web, "")["number_of_results"] == 0


def test_search_needs_format_json(web: LocalWeb, client: httpx.Client) -> None:
    for params in ({"q": "tram"}, {"q": "tram", "format": "html"}):
        r = client.get(f"{web.url}/search", params=params)
        assert r.status_code == 400 and "format=json" in r.text


def test_unknown_paths_are_404(web: LocalWeb, client: httpx.Client) -> None:
    for path in ("/nope.html", "/nope", "/search/x", "/README.md", "/.hidden"):
        assert client.get(web.url + path).status_code == 404
    assert client.head(web.url + "/nope.html").status_code == 404


@pytest.mark.parametrize("target", [
    "/../README.md", "/%2e%2e/README.md", "/..%2fREADME.md", "/%2E%2E%2Fpyproject.toml",
    "/..%5cREADME.md", "/.%2e/.%2e/pyproject.toml", "/x/../../README.md", "/%00README.md",
])
def test_path_traversal_is_refused(web: LocalWeb, target: str) -> None:
    assert raw_get(web, target) == (400, b"bad path\n")


@pytest.mark.parametrize("target", ["//etc/passwd", "/%2fetc%2fpasswd", "/%5cetc%5cpasswd",
                                    "/C:%5cWindows%5cwin.ini", "http://127.0.0.1/%2fetc%2fpasswd"])
def test_absolute_paths_are_not_found(web: LocalWeb, target: str) -> None:
    assert raw_get(web, target) == (404, b"not found\n")


def test_index_page_links_every_page(web: LocalWeb, client: httpx.Client) -> None:
    r = client.get(web.url + "/")
    assert r.status_code == 200
    links = set(re.findall(r'href="/([^"]+)"', r.text))
    assert links == {p.name for p in EXAMPLES.glob("*.html")}


def test_odd_folder(tmp_path: Path) -> None:
    """Text files, pages without an article, non-UTF-8 bytes, ties, other files, symlinks."""
    (tmp_path / "nav-only.html").write_text(
        "<html><body><nav><a href='/'>Quokkaville home</a></nav></body></html>")
    (tmp_path / "notes.txt").write_text("Wombat census.\nThe wombats of Quokkaville.\n")
    (tmp_path / "latin1.htm").write_bytes(
        "<html><body><p>Die Brücke über die Möhne.</p></body></html>".encode("latin-1"))
    for name in ("twin-b.html", "twin-a.html"):
        (tmp_path / name).write_text("<html><body><p>Identical twin pages.</p></body></html>")
    (tmp_path / "data.json").write_text("{}")
    (tmp_path / ".hidden.html").write_text("<p>Quokkaville secret</p>")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.html"
    outside.write_text("<p>outside</p>")
    (tmp_path / "link.html").symlink_to(outside)

    index = PageIndex.from_dir(tmp_path)
    assert [h.url.rsplit("/", 1)[1] for h in index.search("quokkaville")] == [
        "nav-only.html", "notes.txt"]  # the dotfile is neither indexed nor served
    assert [h.url.rsplit("/", 1)[1] for h in index.search("twin")] == [
        "twin-a.html", "twin-b.html"]  # equal scores: file-name order
    assert index.search("brücke")[0].url.endswith("/latin1.htm")
    assert index.search("wombats")[0].publishedDate is None

    with serve(tmp_path, index=index) as web, httpx.Client(timeout=10) as client:
        assert client.get(f"{web.url}/notes.txt").headers["content-type"] == "text/plain"
        data = client.get(f"{web.url}/data.json")
        assert data.headers["content-type"] == "application/octet-stream"
        assert client.get(f"{web.url}/link.html").status_code == 404  # symlink out of the folder
        assert client.get(f"{web.url}/.hidden.html").status_code == 404


def test_real_web_pages_are_findable_by_a_title_word() -> None:
    files = sorted(REAL_WEB.glob("*.html"))
    index = PageIndex.from_dir(REAL_WEB)
    assert [p.name for p in index.pages] == [f.name for f in files]
    for page in index.pages:
        words = tokens(page.title)
        assert words, page.name
        # The rarest title word has the best chance of ranking the page first.
        word = min(words, key=lambda w: (index.search_page(w, 1)[0], w))
        total, hits = index.search_page(word, limit=3)
        assert f"/{page.name}" in {h.url[h.url.rfind('/'):] for h in hits}, (page.name, word)
        assert all(h.content for h in hits)


def test_process_pool_reads_pages_like_one_process() -> None:
    # Run as a script on stdin in a fresh process: single-threaded (the only case that may use
    # a pool), and a __main__ that spawn/forkserver workers could not re-import.
    script = (f"import dwqa_graph.web.localweb as lw\nassert lw._can_fork()\n"
              f"pool = lw.PageIndex.from_dir({str(EXAMPLES)!r}, workers=2)\n"
              f"one = lw.PageIndex.from_dir({str(EXAMPLES)!r}, workers=1)\n"
              f"assert pool.pages == one.pages and len(one.pages) == {PAGES}\n")
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_no_pool_while_threads_run(web: LocalWeb) -> None:
    assert not _can_fork()  # the server's thread is running


def test_serve_forever_prints_its_url_and_stops_on_ctrl_c() -> None:
    # A shell that starts jobs in the background (nohup, `&` without job control) hands them
    # SIGINT ignored, and Python then installs no KeyboardInterrupt handler: the child gets
    # Ctrl-C's default back, as a terminal would give it.
    code = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "import dwqa_graph.web.localweb as lw; "
            f"lw.serve_forever({str(EXAMPLES)!r}, port=0)")
    with subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True) as proc:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.fullmatch(rf"serving {PAGES} pages from (\S+) at (http://127\.0\.0\.1:\d+) "
                         r"\(search: \2/search\?q=\.\.\.&format=json\)\n", line)
        assert m, line
        with httpx.Client(timeout=10) as client:
            assert client.get(f"{m[2]}/{BRIDGE}").status_code == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert proc.stderr.read() == ""  # no per-request log lines


def test_a_taken_port_is_one_clear_error(tmp_path: Path) -> None:
    """Binding a port another process holds is the user's to fix: the error names the
    address (it used to be an AttributeError from closing a half-built server)."""
    from click.testing import CliRunner

    from dwqa_graph.cli.main import main
    from dwqa_graph.errors import ServiceError

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with pytest.raises(ServiceError, match=f"127.0.0.1:{port}"):
            serve(EXAMPLES, port=port)
        result = CliRunner().invoke(main, ["web", "serve", str(EXAMPLES), "--port", str(port)])
        assert result.exit_code == 1 and f"127.0.0.1:{port}" in result.output, result.output
        assert "Traceback" not in result.output
    with serve(EXAMPLES, port=port) as web:  # control: free again, served
        assert web.port == port
