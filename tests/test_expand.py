"""Expand: seed graphs grow the pages of the entities they name, over a real local web, with
the real fetcher and SSRF guard, real CoreNLP and the suite's Neo4j."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.web.expand import ExpandReport, expand, title_names
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import LocalWeb, serve
from dwqa_graph.web.search import SearxngClient

from .conftest import EXAMPLES, graph_fingerprint, log_citing
from .hostile_web import HostileWeb

SEED = "film-the-salt-road.html"  # a film page naming its director, writer and studio

TOWN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{name} - OpenTownWiki</title>
<meta name="date" content="2024-03-02"></head>
<body><header><a href="/">OpenTownWiki</a></header>
<main><article><h1>{name}</h1>
<p>{name} is a small town on the northern coast of Valmora, at the mouth of the Sarnau river.
{name} was founded in {founded} as a ferry station on the road to Lindqvarn.</p>
<p>The town had a population of {people} at the 2021 census. Most of its people work in
fishing, in the ferry service or in the timber yards along the estuary.</p>
<p>The harbour of {name} opened in {harbour}, after the old wooden pier was lost in a winter
storm. A small museum on the quay tells the history of the ferry and its pilots.</p>
</article></main><footer><p>Text is available under a free licence.</p></footer>
</body></html>
"""


@pytest.fixture
def town_web(tmp_path: Path) -> Path:
    """The example web and the pages of two towns its people were born in: pages two hops
    from the Salt Road's (its director's and writer's birthplaces)."""
    root = tmp_path / "web"
    shutil.copytree(EXAMPLES / "web", root)
    for name, founded, people, harbour in (("Kellhaven", 1412, "4,120", 1887),
                                           ("Ketterby", 1530, "2,870", 1902)):
        (root / f"town-{name.lower()}.html").write_text(TOWN.format(
            name=name, founded=founded, people=people, harbour=harbour), encoding="utf-8")
    return root


def test_a_title_names_the_entity_only_as_its_page() -> None:
    assert title_names("Halvard Ostrem - OpenTownWiki", "Halvard Ostrem")
    assert title_names("Titanic (1997 film) - Wikipedia", "Titanic")
    assert title_names("Titanic (1997 film)", "Titanic")
    assert title_names("José Ferrer | Site", "Jose Ferrer")  # folded like entity keys
    assert title_names("nordlicht studios", "Nordlicht Studios")
    # pages that mention the name are other pages: their facts are not the entity's
    assert not title_names("List of works by Halvard Ostrem", "Halvard Ostrem")
    assert not title_names("Halvard Ostrem's films - OpenTownWiki", "Halvard Ostrem")
    assert not title_names("The Salt Road - OpenTownWiki", "Halvard Ostrem")
    assert not title_names("Halvard - OpenTownWiki", "Halvard Ostrem")
    assert not title_names("", "Halvard Ostrem")
    assert not title_names("Halvard Ostrem", "")


def local(web: LocalWeb, *more: str) -> FetchOptions:
    """Only the local web's host:port (and ``more``) exempt from the SSRF guard."""
    return FetchOptions(allow_hosts=frozenset({f"127.0.0.1:{web.port}", *more}))


def seed_graph(store: Store, nlp: CoreNLP, tmp_path: Path, web: LocalWeb,
               pages: tuple[str, ...] = (SEED,)) -> str:
    """A seed graph whose log cites ``pages`` of the example web, fetched and read."""
    ingest(store, [log_citing(tmp_path, [f"{web.url}/{p}" for p in pages])])
    fetch(store, local(web))
    extract_facts(store, nlp=nlp)
    [q] = store.read("MATCH (q:Query) RETURN q.id AS id")
    return str(q["id"])


def expanded(store: Store) -> list[dict[str, Any]]:
    return store.read(
        "MATCH (q:Query)-[x:EXPANDED]->(d:Document) "
        "RETURN q.id AS q, x.entity AS entity, x.entity_id AS entity_id, x.query AS query, "
        "x.reason AS reason, x.depth AS depth, x.rank AS rank, x.round AS round, "
        "x.at IS NOT NULL AS at, d.id AS doc, d.url AS url, d.fetch_status AS status, "
        "EXISTS { (d)-[:HAS_VERSION]->() } AS fetched, "
        # the page's subject is the entity by name (the resolver may type them apart: a
        # town a fact names is a PLACE, its page's untagged subject MISC)
        "EXISTS { MATCH (e:NamedEntity {id: x.entity_id}), (s:NamedEntity)-[:SUBJECT_OF]->(d) "
        "         WHERE s.norm = e.norm } AS its_page "
        "ORDER BY depth, entity")


def graph_urls(store: Store, qid: str) -> list[str]:
    """The documents a round draws from for the graph (paths/graphs, as rounds read it)."""
    [g] = store.query("paths/graphs", t=0, dataset=None, ids=[qid])
    return [d["url"] for d in g["documents"]]


def candidates(store: Store, level: int = 1) -> list[str]:
    [g] = store.query("expand/candidates", dataset=None, ids=None, level=level,
                      max_entities=1000)
    return [e["name"] for e in g["entities"]]


def reader(store: Store, nlp: CoreNLP) -> Any:
    return lambda: extract_facts(store, nlp=nlp)


def test_expand_grows_a_graph_within_its_bounds(store: Store, nlp: CoreNLP, tmp_path: Path,
                                                town_web: Path) -> None:
    with serve(town_web) as web:
        qid = seed_graph(store, nlp, tmp_path, web)
        client = SearxngClient(web.url)
        # The control: the film's director and writer have pages on the web, not in the graph.
        assert {"Halvard Ostrem", "Ruth Aldane"} <= set(candidates(store))
        assert graph_urls(store, qid) == [f"{web.url}/{SEED}"]
        # the searches a graph may cost: SEARCHES_PER_PAGE per page it may still gain
        [capped] = store.query("expand/candidates", dataset=None, ids=None, level=1,
                               max_entities=1)
        assert len(capped["entities"]) == 1
        none = expand(store, client, max_pages=0, fetch_options=local(web),
                      read_facts=reader(store, nlp))
        assert none.searches == 0 and none.pages_added == 0 and expanded(store) == []
        first = expand(store, client, max_pages=2, fetch_options=local(web),
                       read_facts=reader(store, nlp))
        rows = expanded(store)
        assert first.pages_added == 2 and len(rows) == 2, first
        assert first.graphs == 1 and first.graphs_grown == 1 and first.by_depth == {1: 2}
        assert {r["entity"] for r in rows} == {"Halvard Ostrem", "Ruth Aldane"}
        for r in rows:
            assert r["q"] == qid and r["depth"] == 1 and r["round"] == 0 and r["at"]
            assert r["query"] == r["entity"] and r["rank"] >= 1
            assert "has no page in it" in r["reason"] and r["entity"] in r["reason"]
            # the entity got its page: fetched, read, and the entity is its subject
            assert r["status"] == "ok" and r["fetched"] and r["its_page"], r
        # rounds draw from the grown graph: the seed page first, then the added pages
        urls = graph_urls(store, qid)
        assert urls[0] == f"{web.url}/{SEED}" and set(urls[1:]) == {r["url"] for r in rows}
        assert not set(candidates(store)) & {r["entity"] for r in rows}

        # a re-run adds nothing and searches only what is still page-less
        print_before = graph_fingerprint(store)
        again = expand(store, client, max_pages=2, fetch_options=local(web),
                       read_facts=reader(store, nlp))
        assert again.pages_added == 0 and again.searches == 0 and again.fetch == []
        assert graph_fingerprint(store) == print_before

        # --depth 2: the birthplaces the added pages name, both with a page on the web; the
        # third page of --max-pages 3 takes one of them, a re-run no more
        assert {"Kellhaven", "Ketterby"} <= set(candidates(store, level=2))
        deeper = expand(store, client, max_pages=3, depth=2, fetch_options=local(web),
                        read_facts=reader(store, nlp))
        assert deeper.pages_added == 1 and deeper.by_depth == {2: 1}, deeper
        print_deep = graph_fingerprint(store)
        assert expand(store, client, max_pages=3, depth=2, fetch_options=local(web),
                      read_facts=reader(store, nlp)).pages_added == 0
        assert graph_fingerprint(store) == print_deep
        # a larger budget lets the other birthplace in
        assert expand(store, client, max_pages=4, depth=2, fetch_options=local(web),
                      read_facts=reader(store, nlp)).pages_added == 1
        rows = expanded(store)
        depth2 = [r for r in rows if r["depth"] == 2]
        assert {r["entity"] for r in depth2} == {"Kellhaven", "Ketterby"}, rows
        assert all(r["status"] == "ok" and r["its_page"] for r in rows), rows
        for r in depth2:  # named by a fact of a page added at depth 1
            [hit] = store.read(
                "MATCH (:Query {id: $q})-[:EXPANDED {depth: 1}]->(:Document)-[:HAS_VERSION]->"
                "(:DocumentVersion)<-[:READ_FROM]-(:Fact)-[:SUBJECT|OBJECT]->"
                "(e:NamedEntity {id: $e}) RETURN count(*) > 0 AS named",
                {"q": qid, "e": r["entity_id"]})
            assert hit["named"], r
        assert len(graph_urls(store, qid)) == 5
        client.close()


class _Searx(ThreadingHTTPServer):
    answers: dict[str, list[dict[str, str]]]


class _Answers(BaseHTTPRequestHandler):
    """SearxNG's JSON API answering each query with the results a test scripted."""

    server: _Searx

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        hits = self.server.answers.get(query.get("q", ""), []) if query.get("pageno") == "1" \
            else []
        body = json.dumps({"results": [{"content": "", **h} for h in hits]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def searx() -> Iterator[_Searx]:
    server = _Searx(("127.0.0.1", 0), _Answers)
    server.answers = {}
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def test_hostile_results_are_rejected_with_a_reason(store: Store, nlp: CoreNLP, tmp_path: Path,
                                                    searx: _Searx) -> None:
    with serve(EXAMPLES / "web") as web, HostileWeb() as bad:
        qid = seed_graph(store, nlp, tmp_path, web)
        good = f"{web.url}/film-halvard-ostrem.html"
        searx.answers = {
            "Halvard Ostrem": [
                {"url": "http://169.254.169.254/latest/meta-data/", "title": "Halvard Ostrem"},
                {"url": f"{bad.url}/ok", "title": "Halvard Ostrem's films - OpenTownWiki"},
                {"url": good, "title": "Halvard Ostrem - OpenTownWiki"}],
            "Ruth Aldane": [
                {"url": "http://10.1.2.3/ruth-aldane", "title": "Ruth Aldane"},
                {"url": f"{bad.url}/huge", "title": "Ruth Aldane - OpenTownWiki"}],
        }
        opts = FetchOptions(max_bytes=1_000_000, allow_hosts=frozenset(
            {f"127.0.0.1:{web.port}", f"127.0.0.1:{bad.port}"}))
        client = SearxngClient(f"http://127.0.0.1:{searx.server_address[1]}")
        report = expand(store, client, max_pages=5, fetch_options=opts,
                        read_facts=reader(store, nlp))
        client.close()
    assert report.rejected_by_reason == {"blocked_address": 2, "title_mismatch": 1}, report
    reasons = {(r.url, r.reason) for r in report.rejections}
    assert ("http://169.254.169.254/latest/meta-data/", "blocked_address") in reasons
    assert ("http://10.1.2.3/ruth-aldane", "blocked_address") in reasons
    assert (f"{bad.url}/ok", "title_mismatch") in reasons
    # nothing of a rejected result is written
    urls = {r["url"] for r in store.read("MATCH (d:Document) RETURN d.url AS url")}
    assert not urls & {"http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/ruth-aldane",
                       f"{bad.url}/ok"}
    # the huge page joined (its title names the entity) but the fetch's size cap refused it:
    # recorded on the page, which has no version and so is in no round
    rows = {r["entity"]: r for r in expanded(store)}
    assert rows["Halvard Ostrem"]["url"] == good and rows["Halvard Ostrem"]["its_page"]
    assert rows["Ruth Aldane"]["status"] == "too_large" and not rows["Ruth Aldane"]["fetched"]
    assert report.fetch[0].failed_by_reason == {"too_large": 1}
    assert graph_urls(store, qid) == [f"{web.url}/{SEED}", good]


def test_cli_expand_no_fetch_then_fetch_converges(store: Store, nlp: CoreNLP, tmp_path: Path,
                                                  env: dict[str, str]) -> None:
    runner = CliRunner()
    with serve(EXAMPLES / "web") as web:
        qid = seed_graph(store, nlp, tmp_path, web)
        host = f"127.0.0.1:{web.port}"
        args = ["expand", "--searxng", web.url, "--allow-host", host, "--max-pages", "2"]
        bad = runner.invoke(main, [*args, "--no-fetch", "--depth", "2"], env=env)
        assert bad.exit_code == 1 and "drop --no-fetch" in bad.output
        assert "Traceback" not in bad.output and expanded(store) == []
        # a search endpoint that is down: said, not a traceback, nothing written
        down = runner.invoke(main, ["expand", "--searxng", "http://127.0.0.1:9",
                                    "--allow-host", host], env=env)
        assert down.exit_code == 0 and "searches failed" in down.output, down.output
        assert expanded(store) == []
        out = runner.invoke(main, [*args, "--no-fetch", "--json"], env=env)
        assert out.exit_code == 0, out.output
        report = ExpandReport.model_validate_json(out.stdout)
        assert report.pages_added == 2 and report.fetch == []
        assert [r["fetched"] for r in expanded(store)] == [False, False]
        # pages added without a fetch (or by a run killed before it) are fetched by `dwqa fetch`
        fetched = runner.invoke(main, ["fetch", "--allow-host", host, "--json"], env=env)
        assert fetched.exit_code == 0 and json.loads(fetched.stdout)["ok"] == 2
        extract_facts(store, nlp=nlp)
        assert all(r["fetched"] and r["its_page"] for r in expanded(store))
        assert len(graph_urls(store, qid)) == 3
