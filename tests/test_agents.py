"""Agents: the baseline over the graph and over the local web, Python callables, Perplexica
and an OpenAI-compatible model over real loopback HTTP, closed-book answers from scripted
models, memorised leaks, and bad specs."""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
)

from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents import (
    Agent,
    AgentAnswer,
    LeakableAgent,
    RetrievedDoc,
    make_agent,
    short_answer,
)
from dwqa_graph.evaluation.agents.base import MAX_TRACE_CHARS
from dwqa_graph.evaluation.agents.baseline import BaselineAgent, PageRead, WebPages
from dwqa_graph.evaluation.agents.closedbook import ClosedBookAgent
from dwqa_graph.evaluation.agents.memorize import MemorizingAgent
from dwqa_graph.evaluation.reader import answer_type, split_sentences
from dwqa_graph.evaluation.scoring import exact_match
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.llm import LLM, load_prompt
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from dwqa_graph.web.search import SearchResult
from tests.conftest import scripted_model
from tests.paths import EXAMPLES

LOCAL = FetchOptions(allow_private=True)

# Factual questions whose answers stand verbatim in examples/web (golds as SQuAD aliases).
FACTS: list[tuple[str, list[str]]] = [
    ("In what year were the oak trees of the medieval bridge at Miller's Bend felled?",
     ["1342"]),
    ("How many stops does the Valmora Riverside Tramway have?", ["22"]),
    ("Who led the excavation of the medieval bridge in Valmora?",
     ["Hanna Vestergaard", "Dr. Hanna Vestergaard"]),
    ("How much will the Grelling flood retention basin cost?", ["74 million euros"]),
    ("When did construction of the Grelling flood retention basin begin?", ["15 April 2024"]),
    ("Which company built the Lumen 30 trams?", ["Norvik Rail Works"]),
    ("How much rain fell in Hollin on 18 and 19 July 2022?", ["148 mm"]),
    ("Who is the chief executive of Solvane Energy?", ["Maren Ekdahl", "Dr. Maren Ekdahl"]),
]


# -- helpers the python: specs point at ------------------------------------------------------
CALLS: list[str] = []
_CALLS_LOCK = threading.Lock()


def echo_agent(question: str) -> str:
    with _CALLS_LOCK:
        CALLS.append(question)
    return f"inner: {question}"


def dict_agent(question: str) -> dict[str, Any]:
    return {"answer": "42", "steps": ["looked it up"],
            "retrieved": [{"url": "http://example.org/a", "text": "x" * (MAX_TRACE_CHARS + 5),
                           "rank": 1}]}


def model_agent(question: str) -> AgentAnswer:
    return AgentAnswer(answer="Paris", steps=["knew it"])


def broken_agent(question: str) -> str:
    raise RuntimeError("model server down")


def bad_dict_agent(question: str) -> dict[str, Any]:
    return {"answr": "typo in the key"}


def number_agent(question: str) -> int:
    return 7


NOT_CALLABLE = 3


# -- fixtures ----------------------------------------------------------------------------------
@pytest.fixture
def example_graph(store: Store, tmp_path: Path) -> Store:
    """The example corpus as the demo builds it: served on loopback, logs ingested, fetched."""
    with serve(EXAMPLES / "web") as web:
        log = tmp_path / "example.jsonl"
        log.write_text((EXAMPLES / "logs" / "agent_runs.jsonl").read_text()
                       .replace("http://127.0.0.1:8765", web.url))
        ingest(store, [log])
        report = fetch(store, LOCAL)
    assert report.ok == 33
    return store


class _Stub(ThreadingHTTPServer):
    """Perplexica's /api/search and an OpenAI-compatible /v1/chat/completions on loopback;
    ``mode`` picks how the next replies misbehave, ``bodies`` keeps what was posted."""

    mode = "ok"
    bodies: list[dict[str, Any]]
    paths: list[str]
    # Shutting down waits for handlers, so a slow reply cannot outlive its test.
    daemon_threads = False

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the agent under test hung up on a slow reply: expected


PERPLEXICA_REPLY = {
    "message": "The tramway opened on 14 September 2023 [1][2], about nine months late [3].",
    "sources": [
        {"pageContent": "The Valmora Riverside Tramway opened to passengers on 14 September "
                        "2023.", "metadata": {"title": "Opening day", "url": "http://a.test/1"}},
        {"pageContent": "Opened | 14 September 2023" + " filler" * 5000,
         "metadata": {"title": "Wiki", "url": "http://a.test/2"}},
        {"pageContent": "nine months later than first planned",
         "metadata": {"title": "Delay", "url": "http://a.test/3"}},
    ],
}


class _StubHandler(BaseHTTPRequestHandler):
    server: _Stub

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _reply(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(data)
        self.server.paths.append(self.path)
        mode = self.server.mode
        if mode == "500":
            return self._reply(500, b"Internal Server Error: chat model not configured",
                               "text/plain")
        if mode == "malformed":
            return self._reply(200, b'{"message": "The tram opened on [1')
        if mode == "wrong_shape":
            return self._reply(200, json.dumps({"sources": []}).encode())
        if mode == "slow":
            time.sleep(1.0)
        if self.path == "/v1/chat/completions":
            content = "Answer: \"1342\"\nThe trees were felled then."
            return self._reply(200, json.dumps({
                "choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
            }).encode())
        return self._reply(200, json.dumps(PERPLEXICA_REPLY).encode())


@pytest.fixture
def stub() -> Iterator[_Stub]:
    server = _Stub(("127.0.0.1", 0), _StubHandler)
    server.bodies, server.paths = [], []
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


def stub_url(server: _Stub) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_caches = itertools.count()


def scripted(tmp_path: Path, *replies: str) -> LLM:
    """A scripted chat model behind the project's LLM runner (its own reply cache)."""
    model = scripted_model(replies)
    return LLM(model, cache_path=tmp_path / f"llm{next(_caches)}.sqlite", retries=0)


# -- the baseline's text analysis --------------------------------------------------------------
def test_question_types_and_sentences() -> None:
    assert [answer_type(q) for q in (
        "In what year did it open?", "When did it open?", "How many stops are there?",
        "How much did it cost?", "What was the cost of the line?", "Who led the dig?",
        "Which company built the trams?", "Did the line open late?", "What caused the fire?",
        "Why did it open late?")] == [
        "year", "date", "number", "quantity", "quantity", "entity", "entity", "yesno",
        "subject", "other"]
    text = ("The excavation, led by archaeologist Dr. Hanna Vestergaard, lasted seven months. "
            "It cost 1.2 million euros.\n| Stops | 22 |\n|---|---|\nNo full stop here")
    assert split_sentences(text) == [
        "The excavation, led by archaeologist Dr. Hanna Vestergaard, lasted seven months.",
        "It cost 1.2 million euros.", "Stops; 22", "No full stop here"]


def test_short_answer_cleanup() -> None:
    assert short_answer('\n\nAnswer: "1342"\nBecause the tree rings say so.') == "1342"
    assert short_answer("**Answer:** Maren Ekdahl") == "Maren Ekdahl"
    assert short_answer("final answer - 'Norvik Rail Works'") == "Norvik Rail Works"
    assert short_answer("  \n\t\n") == ""


class _OnePageSearch:
    """A search engine over one invented page, and its reader: the baseline's rules alone."""

    name = "one-page"
    url = "http://zorblat.test/bridge"
    text = ("The Zorblat bridge\n"
            "A spring flood destroyed the old Zorblat ferry in 1899.\n"
            "The Zorblat bridge was opened on 3 May 1901 by Mayor Edda Quist. It is 212 metres "
            "long and cost 4.5 million marks. The old ferry was replaced by the bridge.\n"
            "Trams have crossed it since 1927, because the guild paid for rails.")

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def search(self, query: str, limit: int = 10) -> list[SearchResult]:
        if self.fail:
            raise RuntimeError("index offline")
        if "zorblat" not in query.lower():
            return []
        return [SearchResult(url=self.url, title="Zorblat", content="", rank=1,
                             engine=self.name)]

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        return [PageRead(url=h.url, title=h.title, text=self.text, source="page")
                for h in hits]


@pytest.mark.parametrize(("question", "answer"), [
    ("When was the Zorblat bridge opened?", "3 May 1901"),
    ("In which year was the Zorblat bridge opened?", "1901"),
    ("Who opened the Zorblat bridge?", "Edda Quist"),
    ("How long is the Zorblat bridge?", "212 metres"),
    ("How much did the Zorblat bridge cost?", "4.5 million marks"),
    ("What destroyed the old Zorblat ferry?", "A spring flood"),
    ("What replaced the old Zorblat ferry?", "the bridge"),
    ("Was the Zorblat bridge opened in 1901?", "yes"),
    ("Was the Zorblat bridge opened in 1950?", "no"),
])
def test_baseline_rules_on_one_page(question: str, answer: str) -> None:
    page = _OnePageSearch()
    agent = BaselineAgent("baseline:test", page, page)
    reply = agent.answer(question)
    assert (reply.answer, reply.error) == (answer, None), reply.steps
    assert reply.retrieved == [RetrievedDoc(url=page.url, title="Zorblat", text=page.text,
                                            rank=1)]


def test_baseline_without_results_or_search() -> None:
    page = _OnePageSearch()
    nothing = BaselineAgent("baseline:test", page, page).answer("Who built the Eiffel tower?")
    assert (nothing.answer, nothing.error, nothing.retrieved) == ("", None, [])
    assert nothing.steps[0].endswith("-> 0 results")
    why = BaselineAgent("baseline:test", page, page).answer("Why do trams cross Zorblat?")
    assert why.answer and "?" not in why.answer and len(why.answer) < len(page.text) / 4
    broken = BaselineAgent("baseline:test", _OnePageSearch(fail=True), page).answer("Zorblat?")
    assert broken.answer == "" and broken.error == (
        "search failed (one-page): RuntimeError: index offline")


# -- the baseline over the graph ---------------------------------------------------------------
def test_baseline_over_the_graph(example_graph: Store) -> None:
    agent = make_agent("baseline", store=example_graph)
    assert isinstance(agent, BaselineAgent) and not isinstance(agent, LeakableAgent)
    replies = [agent.answer(q) for q, _ in FACTS]
    scores = [exact_match(r.answer, golds) for r, (_, golds) in zip(replies, FACTS, strict=True)]
    assert sum(scores) >= len(FACTS) - 2, [r.answer for r in replies]
    for reply, score in zip(replies, scores, strict=True):
        assert reply.error is None
        if score:  # a right answer was read in a retrieved page, and the trace has it
            assert any(reply.answer in d.text for d in reply.retrieved)
        assert 1 <= len(reply.retrieved) <= 5
        assert [d.rank for d in reply.retrieved] == list(range(1, len(reply.retrieved) + 1))
        assert all(d.url.startswith("http://127.0.0.1:") and d.url.endswith(".html")
                   for d in reply.retrieved)
        # The trace holds the full stored page text, not the search excerpt of ~300 chars.
        assert max(len(d.text) for d in reply.retrieved) > 1000
        assert reply.steps[0].startswith("search graph:")
        assert sum(s.startswith("read [") for s in reply.steps) == len(reply.retrieved)
        assert any(s.startswith("best sentence") for s in reply.steps)
        assert any(s.startswith("answer type:") for s in reply.steps)
    stops = replies[1]
    assert stops.answer == "22"
    assert any("22 stops" in d.text for d in stops.retrieved)
    # Several evaluation threads at once get the same answers as one at a time.
    with ThreadPoolExecutor(6) as pool:
        again = list(pool.map(agent.answer, [q for q, _ in FACTS] * 2))
    assert [r.answer for r in again] == [r.answer for r in replies] * 2
    agent.close()


def test_baseline_reads_the_newest_version(store: Store, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    page = site / "zorblat.html"

    def write(year: int) -> None:
        page.write_text(
            "<html><head><title>The Zorblat bridge</title></head><body><article>"
            f"<h1>The Zorblat bridge</h1><p>The Zorblat bridge over the Quenn was opened in "
            f"{year} by the river guild of Ostmark. It carried carts, cattle and pilgrims "
            "across the marshes for two centuries.</p></article></body></html>")

    write(1901)
    with serve(site) as web:
        url = f"{web.url}/zorblat.html"
        record = {"question": "What is the Zorblat bridge?", "answer": "a bridge",
                  "thinking": "- It is a bridge [1].",
                  "sources": [{"id": 1, "url": url, "title": "Zorblat"}]}
        log = tmp_path / "log.jsonl"
        log.write_text(json.dumps(record) + "\n")
        ingest(store, [log])
        assert fetch(store, LOCAL).new_versions == 1
        write(1911)
        assert fetch(store, LOCAL, older_than=timedelta(0)).new_versions == 1
    # Text known at ingest (HotpotQA style) has a version but no current_version.
    item = {"_id": "h1", "question": "q?", "answer": "a", "supporting_facts": [],
            "context": [["Quennbridge", ["The Quennbridge ferry was replaced in 1877."]]]}
    (tmp_path / "hotpot.json").write_text(json.dumps([item]))
    ingest(store, [tmp_path / "hotpot.json"], fmt="hotpotqa")
    [versions] = store.read("MATCH (:Document {url: $url})-[:HAS_VERSION]->(v) "
                            "RETURN count(v) AS n", {"url": url})
    assert versions["n"] == 2
    [row] = store.query("agents/version_text", urls=[url, "http://nowhere.test/x"])
    assert row["url"] == url and "opened in 1911" in row["text"]
    [hotpot] = store.read("MATCH (d:Document)-[:HAS_VERSION]->(v) WHERE d.url <> $url "
                          "RETURN d.url AS url, d.current_version AS cv", {"url": url})
    assert hotpot["cv"] is None
    [row] = store.query("agents/version_text", urls=[hotpot["url"]])
    assert "replaced in 1877" in row["text"]

    agent = make_agent("baseline", store=store)
    reply = agent.answer("In what year was the Zorblat bridge opened?")
    agent.close()
    assert reply.answer == "1911"
    assert reply.retrieved[0].url == url and "1901" not in reply.retrieved[0].text


# -- the baseline over the local web (SearxNG API + HTTP fetch) --------------------------------
def test_baseline_over_the_local_web() -> None:
    with serve(EXAMPLES / "web") as web:
        agent = make_agent(f"baseline:{web.url}")
        assert isinstance(agent, BaselineAgent) and isinstance(agent.pages, WebPages)
        # The local web serves its pages where it answers searches: that host:port only.
        assert agent.pages.options.allow_hosts == {f"127.0.0.1:{web.port}"}
        assert not agent.pages.options.allow_private
        try:
            with ThreadPoolExecutor(4) as pool:
                replies = list(pool.map(agent.answer, [q for q, _ in FACTS]))
        finally:
            agent.close()
    scores = [exact_match(r.answer, golds) for r, (_, golds) in zip(replies, FACTS, strict=True)]
    assert sum(scores) >= len(FACTS) - 2, [r.answer for r in replies]
    stops = replies[1]
    assert stops.answer == "22" and stops.error is None
    assert stops.steps[0].startswith("search searxng:")
    assert all(d.url.startswith(web.url) for d in stops.retrieved)
    # Fetched and extracted page text: far more than SearxNG's 280-character excerpt.
    assert any("has 22 stops" in d.text and len(d.text) > 1000 for d in stops.retrieved)
    assert any("page text" in s for s in stops.steps)


class _Searx(ThreadingHTTPServer):
    results: list[dict[str, str]]


class _SearxHandler(BaseHTTPRequestHandler):
    server: _Searx

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        page = 1 if "pageno=1" in self.path else 2
        body = json.dumps({"results": self.server.results if page == 1 else []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_failed_page_falls_back_to_the_snippet() -> None:
    with serve(EXAMPLES / "web") as web:
        searx = _Searx(("127.0.0.1", 0), _SearxHandler)
        searx.results = [
            {"url": f"{web.url}/gone.html", "title": "Gone",
             "content": "The Zorblat ferry carried 480 passengers per day in 1931."},
            {"url": f"{web.url}/valmora-tram-faq.html", "title": "FAQ", "content": "..."}]
        thread = threading.Thread(target=searx.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        agent = make_agent(f"baseline:http://127.0.0.1:{searx.server_address[1]}")
        question = "How many passengers per day did the Zorblat ferry carry?"
        try:
            # Results on loopback but not on the search endpoint's port are refused (the
            # guard stays on for pages found through a loopback SearxNG) ...
            blocked = agent.answer(question)
            assert isinstance(agent, BaselineAgent) and isinstance(agent.pages, WebPages)
            # ... unless that host:port is exempt too.
            opts = agent.pages.options
            agent.pages.options = opts.model_copy(update={"allow_hosts": opts.allow_hosts | {
                f"127.0.0.1:{web.port}"}})
            reply = agent.answer(question)
        finally:
            agent.close()
            searx.shutdown()
            searx.server_close()
            thread.join()
    assert [d.text for d in blocked.retrieved] == [r["content"] for r in searx.results]
    assert "search snippet (blocked_address" in blocked.steps[1]
    assert "search snippet (blocked_address" in blocked.steps[2]
    assert reply.answer == "480" and reply.error is None
    gone, faq = reply.retrieved
    assert gone.text == searx.results[0]["content"]  # the 404 page's snippet was read
    assert "search snippet (http_404)" in reply.steps[1]
    assert "Riverside Tramway" in faq.text and "page text" in reply.steps[2]


def test_private_pages_are_refused_except_the_search_endpoint() -> None:
    remote = make_agent("baseline:https://searx.example.org")
    assert isinstance(remote, BaselineAgent) and isinstance(remote.pages, WebPages)
    assert not remote.pages.options.allow_private
    assert remote.pages.options.allow_hosts == {"searx.example.org:443"}
    remote.close()
    hits = [SearchResult(url=url, title="t", content="the snippet", rank=1, engine="searxng")
            for url in ("http://127.0.0.1:9/admin", "ftp://files.example.org/a", "http://[::1")]
    reads = WebPages(FetchOptions(retries=0)).read(hits)
    assert [(r.source, r.text) for r in reads] == [("snippet", "the snippet")] * 3
    assert [r.detail.split(":")[0] for r in reads] == [
        "blocked_address", "blocked_scheme", "invalid_url"]  # untrusted URLs never raise


def test_search_failure_is_an_error_not_a_raise() -> None:
    agent = make_agent(f"baseline:http://127.0.0.1:{closed_port()}", timeout=2)
    reply = agent.answer("When did the tram open?")
    agent.close()
    assert reply.answer == "" and reply.error is not None
    assert reply.error.startswith("search failed (searxng)")


def test_reader_llm_and_its_fallback(tmp_path: Path) -> None:
    question = FACTS[1][0]
    with serve(EXAMPLES / "web") as web:
        reader = scripted(tmp_path, 'Answer: "22"')
        good = make_agent(f"baseline:{web.url}", reader_llm=reader)
        read = good.answer(question)
        good.close()
        broken = scripted(tmp_path)  # no replies: every call fails
        bad = make_agent(f"baseline:{web.url}", reader_llm=broken)
        fallback = bad.answer(question)
        bad.close()
        silent = scripted(tmp_path, "\n  \n")
        quiet = make_agent(f"baseline:{web.url}", reader_llm=silent)
        empty = quiet.answer(question)
        quiet.close()
    for llm in (reader, broken, silent):
        llm.close()  # the caller's models: the agents leave them open
    assert read.answer == "22" and any(s.startswith("answer (reader") for s in read.steps)
    assert reader.stats.calls == 1
    assert fallback.answer == "22" and fallback.error is None  # the rule answer
    assert any("failed (error); rule answer kept" in s for s in fallback.steps)
    assert broken.stats.failures == {"error": 1}
    assert empty.answer == "22" and any("gave no answer" in s for s in empty.steps)
    prompt = load_prompt("reader").render(question="Q?", sentences="- S.")
    assert "Q?" in prompt and "- S." in prompt and "I don't know" in prompt


# -- python callables --------------------------------------------------------------------------
def test_python_agents() -> None:
    echo = make_agent(f"python:{__name__}:echo_agent")
    assert echo.answer("Who?") == AgentAnswer(answer="inner: Who?")
    assert echo.spec == f"python:{__name__}:echo_agent"
    as_dict = make_agent(f"python:{__name__}:dict_agent").answer("q")
    assert as_dict.answer == "42" and as_dict.steps == ["looked it up"]
    assert as_dict.retrieved[0].rank == 1
    assert len(as_dict.retrieved[0].text) == MAX_TRACE_CHARS  # capped like every trace
    assert make_agent(f"python:{__name__}:model_agent").answer("q").answer == "Paris"

    failed = make_agent(f"python:{__name__}:broken_agent").answer("q")
    assert failed == AgentAnswer(answer="", error="RuntimeError: model server down")
    bad = make_agent(f"python:{__name__}:bad_dict_agent").answer("q")
    assert bad.answer == "" and bad.error is not None and "not an AgentAnswer" in bad.error
    number = make_agent(f"python:{__name__}:number_agent").answer("q")
    assert number.error is not None and "returned int" in number.error
    # A dotted attribute path reaches a method of an object in the module.
    assert make_agent("python:json:decoder.JSONDecoder").answer('"x"').error is not None


# -- Perplexica --------------------------------------------------------------------------------
def test_perplexica_over_http(stub: _Stub) -> None:
    agent = make_agent(f"perplexica:{stub_url(stub)}/")
    reply = agent.answer("When did the tramway open?")
    assert reply.error is None
    assert reply.answer == "The tramway opened on 14 September 2023, about nine months late."
    assert [(d.rank, d.url, d.title) for d in reply.retrieved] == [
        (1, "http://a.test/1", "Opening day"), (2, "http://a.test/2", "Wiki"),
        (3, "http://a.test/3", "Delay")]
    assert reply.retrieved[0].text.startswith("The Valmora Riverside Tramway opened")
    assert len(reply.retrieved[1].text) == MAX_TRACE_CHARS
    assert stub.paths == ["/api/search"]
    assert stub.bodies == [{"query": "When did the tramway open?", "focusMode": "webSearch",
                            "optimizationMode": "speed", "history": [], "stream": False}]
    agent.close()

    tuned = make_agent(f"perplexica:{stub_url(stub)}?focusMode=academicSearch"
                       "&optimizationMode=balanced")
    tuned.answer("q")
    tuned.close()
    assert stub.paths[-1] == "/api/search"
    assert (stub.bodies[-1]["focusMode"], stub.bodies[-1]["optimizationMode"]) == (
        "academicSearch", "balanced")


@pytest.mark.parametrize(("mode", "expected"), [
    ("500", "HTTP 500 from Perplexica"),
    ("malformed", "malformed JSON from Perplexica"),
    ("wrong_shape", "malformed reply from Perplexica"),
    ("slow", "timeout: Perplexica"),
])
def test_perplexica_failures_are_errors(stub: _Stub, mode: str, expected: str) -> None:
    stub.mode = mode
    agent = make_agent(f"perplexica:{stub_url(stub)}", timeout=0.5)
    reply = agent.answer("When did the tramway open?")
    agent.close()
    assert reply.answer == "" and reply.retrieved == []
    assert reply.error is not None and reply.error.startswith(expected), reply.error
    if mode == "500":
        assert "chat model not configured" in reply.error


def test_perplexica_down_is_an_error() -> None:
    agent = make_agent(f"perplexica:http://127.0.0.1:{closed_port()}")
    reply = agent.answer("q")
    agent.close()
    assert reply.error is not None and reply.error.startswith("connection error")


# -- closed book -------------------------------------------------------------------------------
def closed_book(tmp_path: Path, *replies: str) -> ClosedBookAgent:
    return ClosedBookAgent("closedbook:scripted", scripted(tmp_path, *replies))


@pytest.mark.parametrize(("reply", "answer"), [
    ("Paris", "Paris"),
    ('Answer: "1342"\nThe tree rings were dated in 1998.', "1342"),
    ("\n\n**Answer:** 'Maren Ekdahl'\n", "Maren Ekdahl"),
    ("I don't know", "I don't know"),
])
def test_closed_book_answers(tmp_path: Path, reply: str, answer: str) -> None:
    agent = closed_book(tmp_path, reply)
    out = agent.answer("Who is the chief executive of Solvane Energy?")
    agent.close()
    assert (out.answer, out.error, out.retrieved) == (answer, None, [])
    assert out.steps[0].startswith("closed book:") and agent.llm.stats.calls == 1


@pytest.mark.parametrize("reply", ["", "   \n\t\n", "...\n***", '""'])
def test_closed_book_garbage_is_an_error(tmp_path: Path, reply: str) -> None:
    agent = closed_book(tmp_path, reply)
    out = agent.answer("When did the tramway open?")
    agent.close()
    assert out.answer == ""
    assert out.error is not None and out.error.startswith("llm unusable reply")


def test_closed_book_model_failure_is_an_error(tmp_path: Path) -> None:
    agent = closed_book(tmp_path)  # out of replies: the fake raises
    out = agent.answer("When did the tramway open?")
    agent.close()
    assert out.answer == "" and out.error is not None and out.error.startswith("llm error")
    assert agent.llm.stats.failures == {"error": 1}


def test_closed_book_prompt() -> None:
    prompt = load_prompt("closed_book")
    text = prompt.render(question="When did the tramway open?")
    assert prompt.name == "closed_book" and prompt.version == "1"
    assert "When did the tramway open?" in text and "I don't know" in text
    assert "{{" not in text


def test_closed_book_from_spec_over_http(stub: _Stub, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    agent = make_agent(f"closedbook:{stub_url(stub)}/v1#tiny", llm_cache=cache)
    assert isinstance(agent, ClosedBookAgent)
    questions = [f"In what year were the trees of bridge {i} felled?" for i in range(8)]
    with ThreadPoolExecutor(8) as pool:  # one model runner shared by evaluation threads
        replies = list(pool.map(agent.answer, questions * 2))
    assert all((r.answer, r.error) == ("1342", None) for r in replies)
    assert agent.llm.stats.calls + agent.llm.stats.cache_hits == 16
    assert agent.llm.stats.calls >= 8 and agent.llm.stats.failures == {}
    posted = stub.bodies[0]
    assert posted["model"] == "tiny" and posted["max_tokens"] == 64
    assert "felled" in posted["messages"][0]["content"]
    agent.close()
    assert cache.exists()

    down = make_agent(f"closedbook:http://127.0.0.1:{closed_port()}/v1", llm_cache=cache,
                      timeout=2)
    out = down.answer("When did the tramway open?")
    down.close()
    assert out.answer == "" and out.error is not None and out.error.startswith("llm error")


def test_closed_book_with_fake_list_model(tmp_path: Path) -> None:
    model = FakeListChatModel(responses=["Answer: Norvik Rail Works", "1342"])
    agent = ClosedBookAgent("closedbook:list", LLM(model, cache_path=tmp_path / "c.sqlite"))
    assert agent.answer("Which company built the Lumen 30 trams?").answer == "Norvik Rail Works"
    assert agent.answer("In what year were the oak trees felled?").answer == "1342"
    # The same question again is a cache hit, not a third model call.
    assert agent.answer("Which company built the Lumen 30 trams?").answer == "Norvik Rail Works"
    assert (agent.llm.stats.calls, agent.llm.stats.cache_hits) == (2, 1)
    agent.close()


# -- a leaked agent ----------------------------------------------------------------------------
def test_memorize_leak_hit_miss_forget() -> None:
    agent = make_agent(f"memorize:python:{__name__}:echo_agent")
    assert isinstance(agent, MemorizingAgent) and isinstance(agent, LeakableAgent)
    assert agent.spec == f"memorize:python:{__name__}:echo_agent"
    leaked = [("When did the Valmora Riverside Tramway open?", "14 September 2023"),
              ("Who led the excavation?", "Hanna Vestergaard"),
              ("Who led the excavation?", "Hanna Vestergaard")]
    assert agent.leak(leaked) == 2

    exact = agent.answer("When did the Valmora Riverside Tramway open?")
    assert exact == AgentAnswer(answer="14 September 2023", steps=["memorised: exact"])
    normalised = agent.answer("  when did the valmora riverside tramway OPEN ")
    assert normalised.answer == "14 September 2023"
    assert normalised.steps == ["memorised: normalised"] and normalised.retrieved == []
    CALLS.clear()
    miss = agent.answer("When did the Kellhaven Lakeside Tram open?")
    assert miss.answer == "inner: When did the Kellhaven Lakeside Tram open?"
    assert CALLS == ["When did the Kellhaven Lakeside Tram open?"]

    agent.forget()
    assert agent.answer("Who led the excavation?").answer == "inner: Who led the excavation?"
    assert agent.leak([("???", "x")]) == 1
    assert agent.answer("!!!").answer == "inner: !!!"  # punctuation alone matches nothing
    agent.close()


def test_memorize_is_thread_safe() -> None:
    agent = make_agent(f"memorize:python:{__name__}:echo_agent")
    assert isinstance(agent, MemorizingAgent)
    pairs = [(f"Question number {i}?", f"answer {i}") for i in range(400)]

    def leak_chunk(start: int) -> int:
        return agent.leak(pairs[start:start + 50])

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(leak_chunk, range(0, 400, 50)))
    assert agent.leak([]) == 400
    asked = [q if i % 3 else q.upper().rstrip("?") for i, (q, _) in enumerate(pairs)]
    asked += [f"Unleaked {i}" for i in range(100)]
    with ThreadPoolExecutor(16) as pool:
        replies = list(pool.map(agent.answer, asked))
    assert [r.answer for r in replies[:400]] == [a for _, a in pairs]
    assert [r.answer for r in replies[400:]] == [f"inner: Unleaked {i}" for i in range(100)]
    assert sum(r.steps == ["memorised: normalised"] for r in replies) == 134
    agent.close()


def test_memorize_wraps_any_spec(stub: _Stub) -> None:
    agent = make_agent(f"memorize:perplexica:{stub_url(stub)}")
    assert isinstance(agent, MemorizingAgent)
    agent.leak([("leaked?", "yes")])
    assert agent.answer("leaked?").answer == "yes" and stub.bodies == []
    assert agent.answer("fresh?").answer.startswith("The tramway opened")
    agent.close()


# -- specs -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "message"), [
    ("", "unknown agent spec ''"),
    ("gpt4", "unknown agent spec 'gpt4': use baseline[:SEARXNG_URL] | closedbook:LLMSPEC"),
    ("baseline", "needs a Neo4j store"),
    ("baseline:ftp://example.org", "expected an http(s) URL"),
    ("baseline:", "nothing after 'baseline:'"),
    ("python", "'python' needs an argument"),
    ("python:json", "use python:module:function"),
    ("python:no_such_module_xyz:answer", "cannot import module 'no_such_module_xyz'"),
    ("python:json:no_such_function", "module 'json' has no 'no_such_function'"),
    (f"python:{__name__}:NOT_CALLABLE", "is a int, not a function"),
    ("perplexica:localhost:3000", "expected an http(s) URL"),
    ("perplexica:http://127.0.0.1:3000?focus=web", "unknown option(s) focus"),
    ("closedbook:", "nothing after 'closedbook:'"),
    ("closedbook:llama:7b", "closedbook: unknown --llm 'llama:7b'"),
    ("memorize:nonsense", "unknown agent spec 'nonsense'"),
])
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(AgentError) as err:
        make_agent(spec)
    assert message in str(err.value)


def test_every_agent_meets_the_protocol(tmp_path: Path, stub: _Stub) -> None:
    agents: list[Agent] = [
        make_agent(f"python:{__name__}:echo_agent"),
        make_agent(f"perplexica:{stub_url(stub)}"),
        make_agent(f"closedbook:{stub_url(stub)}/v1", llm_cache=tmp_path / "c.sqlite"),
        make_agent(f"baseline:{stub_url(stub)}"),
        make_agent(f"memorize:python:{__name__}:echo_agent"),
    ]
    for agent in agents:
        assert isinstance(agent, Agent)
        assert isinstance(agent.answer("q?"), AgentAnswer)
        agent.close()
    assert RetrievedDoc(url="u", rank=1).text == ""
