"""Test fixtures: a real Neo4j of the suite's own, a real small LLM, shared fakes, and the
markers that let a developer run only what needs neither.

Markers are applied from the fixtures a test uses (``neo4j``: settings/env/store; ``llm``: the
local model; ``slow``: builds or installs something), so ``pytest -m "not neo4j and not llm"``
is the fast subset that needs no service.


The suite never touches a user's database: it runs its own server (own data directory
``.dwqa/test``, own ports) started the same way ``dwqa db up`` starts one, and wipes only
that. If the server cannot start, the session fails — it does not skip.
Set ``DWQA_TEST_NEO4J_URI`` to run against another *disposable* server instead.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.config import Settings, load_settings
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph import server
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.report.models import (
    ContaminationCount,
    LeakSummary,
    MacroScore,
    ReportData,
    ScorePoint,
    StaticScore,
)
from dwqa_graph.rounds.collisions import collision_bound
from dwqa_graph.web.extract import extract
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import LocalWeb, serve
from tests.paths import DATA, EXAMPLES, HOTPOT, REPO_ROOT, SHARED

__all__ = ["DATA", "EXAMPLES", "FACT_PAGES", "HOTPOT", "PATH_PAGES", "SHARED", "build_facts",
           "example_run", "full_data", "genai_spans", "good_record", "ingest_pages", "log_citing",
           "openinference_spans", "otlp", "otlp_span", "raw_get", "round_facts", "scripted_model",
           "statuses"]

#: fixture name -> marker it implies (fixturenames include every fixture a test depends on).
FIXTURE_MARKS = {"settings": "neo4j", "env": "neo4j", "store": "neo4j", "llm_url": "llm",
                 "wheel_venv": "slow", "nlp": "nlp"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            if fixture in FIXTURE_MARKS:
                item.add_marker(FIXTURE_MARKS[fixture])


def scripted_model(replies: Iterable[str]) -> GenericFakeChatModel:
    """langchain-core's own fake chat model, answering ``replies`` in order (the shared
    stand-in for a real model in tests of the LLM path)."""
    return GenericFakeChatModel(messages=iter([AIMessage(r) for r in replies]))


def _test_settings() -> Settings:
    base = load_settings({})  # ignore the user's NEO4J_* on purpose
    explicit = os.environ.get("DWQA_TEST_NEO4J_URI")
    if explicit:
        return replace(base, uri=explicit, uri_explicit=True,
                       password_env=os.environ.get("DWQA_TEST_NEO4J_PASSWORD", base.password))
    bolt = int(os.environ.get("DWQA_TEST_BOLT_PORT", "7688"))
    http = int(os.environ.get("DWQA_TEST_HTTP_PORT", "7475"))
    # A non-default port gets its own data directory, so two suites can run side by side.
    # The server has auth on; its generated password lives in that directory (settings.password).
    home = REPO_ROOT / ".dwqa" / ("test" if bolt == 7688 else f"test-{bolt}")
    return replace(base, home=home).with_ports(bolt, http)


@pytest.fixture(scope="session")
def settings() -> Iterator[Settings]:
    s = _test_settings()
    started = not s.uri_explicit and not server.reachable(s)
    server.up(s)  # raises (fails the session) when Neo4j cannot start
    yield s
    if started and not os.environ.get("DWQA_KEEP_TEST_DB"):
        server.down(s)


@pytest.fixture(scope="session")
def env(settings: Settings) -> dict[str, str]:
    """Environment that points the CLI (in-process or subprocess) at the test server."""
    return {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
            "NEO4J_PASSWORD": settings.password, "DWQA_HOME": str(settings.home)}


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    """A store on an empty test database (schema applied)."""
    with Store(settings) as st:
        st.wipe()
        st.apply_schema()
        yield st


def graph_fingerprint(store: Store) -> dict[str, int]:
    """Node counts per label and relationship counts per type: equal graphs, equal prints."""
    rows = store.read(
        "MATCH (n) WITH labels(n)[0] AS k, count(*) AS c RETURN 'node:' + k AS k, c "
        "UNION ALL MATCH ()-[r]->() WITH type(r) AS k, count(*) AS c RETURN 'rel:' + k AS k, c")
    return {r["k"]: r["c"] for r in rows}


@pytest.fixture(scope="session")
def llm_url() -> Iterator[str]:
    """A real small model (SmolLM2-135M-Instruct) on llama.cpp's OpenAI-compatible server,
    started by ``scripts/llm-server`` (first run on a machine compiles llama.cpp: minutes).
    Fails — does not skip — when it cannot start."""
    script = REPO_ROOT / "scripts" / "llm-server"
    running = subprocess.run([str(script), "status"], capture_output=True).returncode == 0
    proc = subprocess.run([str(script), "start"], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        pytest.fail(f"scripts/llm-server could not start the local model:\n{proc.stderr[-3000:]}")
    yield proc.stdout.strip()
    if not running and not os.environ.get("DWQA_KEEP_TEST_DB"):
        subprocess.run([str(script), "stop"], capture_output=True)


@pytest.fixture(scope="session")
def nlp() -> Iterator[CoreNLP]:
    """One Stanford CoreNLP worker for the session (first use on a machine fetches the jars
    from Maven Central). Fails -- does not skip -- when it cannot start."""
    with CoreNLP(threads=2) as worker:
        yield worker


# -- shared builders (test modules import these from here, never from each other) --------


# -- the stage in Neo4j ------------------------------------------------------------------
FACT_PAGES = {
    "Titanic (1997 film)": "Titanic is a 1997 American epic romance film directed by James "
                           "Cameron. The film was released on December 19, 1997 in the "
                           "United States.",
    "James Cameron": "James Cameron (born August 16, 1954) is a Canadian filmmaker. Cameron "
                     "founded the production company Lightstorm Entertainment in 1990.",
    # A page whose fact meets no other: the control for the connectivity counts.
    "Ridley Scott": "Ridley Scott (born 30 November 1937) is an English filmmaker.",
    # Both sentences too short or pronoun-led for the claims stage: a version without claims,
    # whose facts the library still reads (connected to James Cameron's page: no).
    "Ed Wood": "Ed Wood was a filmmaker.\nHe was born on October 10, 1924.",
}


def ingest_pages(store: Store, tmp_path: Path, pages: dict[str, str]) -> None:
    item = {"_id": "q1", "question": "Who directed Titanic?", "answer": "James Cameron",
            "supporting_facts": [], "context": [[t, [x]] for t, x in pages.items()]}
    path = tmp_path / "pages.json"
    path.write_text(json.dumps([item]))
    ingest(store, [path], fmt="hotpotqa")
    extract_claims(store)


PATH_PAGES = {
    "Titanic (1997 film)": "Titanic is an American epic romance film directed by James "
                           "Cameron.\nTitanic was released on December 19, 1997.",
    "Avatar (2009 film)": "Avatar is an American epic science fiction film directed by James "
                          "Cameron.\nAvatar was released on December 18, 2009.",
    "James Cameron": "James Cameron (born August 16, 1954) is a Canadian filmmaker.\n"
                     "Cameron was born in Kapuskasing.",
    "Ridley Scott": "Ridley Scott (born 30 November 1937) is an English filmmaker.\n"
                    "Ridley Scott was born in South Shields.",
    "Tony Scott": "Tony Scott (21 June 1944 – 19 August 2012) was an English filmmaker.\n"
                  "Tony Scott was born in South Shields.",
}


def build_facts(store: Store, nlp: CoreNLP, tmp_path: Path, pages: dict[str, str]) -> None:
    ingest_pages(store, tmp_path, pages)
    extract_facts(store, nlp=nlp)


#: The port of ``films_pinned``: document ids come from URLs, so a fixed port makes the
#: films' rounds the same in every run (kept apart from the demo's 8765 and the exports' 8771).
FILMS_PORT = 8773


@pytest.fixture
def films(store: Store, nlp: CoreNLP, tmp_path: Path) -> Store:
    """The example's film pages (served on loopback, fetched) with claims and typed facts:
    ten seed graphs, each with fact paths. On a free port: document ids, and so which
    paths a round draws, differ from run to run; what a test asserts does not depend on
    them (``films_pinned`` is the same on a fixed port, for exact rounds)."""
    return load_films(store, nlp, tmp_path, port=0)


@pytest.fixture
def films_pinned(store: Store, nlp: CoreNLP, tmp_path: Path) -> Store:
    """``films`` served on ``FILMS_PORT``: the same document ids, so the same rounds, in every
    run -- for a test whose bounds hold for these rounds and not for every draw."""
    return load_films(store, nlp, tmp_path, port=FILMS_PORT)


def load_films(store: Store, nlp: CoreNLP, tmp_path: Path, port: int) -> Store:
    with serve(EXAMPLES / "web", port=port) as web:
        text = (EXAMPLES / "logs" / "film_runs.jsonl").read_text()
        log = tmp_path / "films.jsonl"
        log.write_text(text.replace("http://127.0.0.1:8765", web.url))
        ingest(store, [log], dataset="films")
        fetch(store, FetchOptions(allow_private=True))
    extract_claims(store, extractor="rule")
    extract_facts(store, nlp=nlp)
    return store


# -- whole rounds in Neo4j ------------------------------------------------------------------
def round_facts(store: Store, t: int) -> dict[str, set[str]]:
    """Query id -> the facts round t's item for it used, read the obvious way."""
    out: dict[str, set[str]] = {}
    for r in store.read("MATCH (:Round {t: $t})-[:CONTAINS]->(i:QAItem)-[:FROM]->(q:Query) "
                        "MATCH (i)-[:USES]->(f:Fact) RETURN q.id AS q, f.id AS f", {"t": t}):
        out.setdefault(r["q"], set()).add(r["f"])
    return out


def log_citing(tmp_path: Path, urls: list[str], name: str = "log") -> Path:
    """An agent log whose sources are ``urls`` (how Documents enter the graph)."""
    record = {"question": f"What do these {len(urls)} pages say?", "answer": "things",
              "thinking": "- They say things [1].",
              "sources": [{"id": i, "url": u, "title": u} for i, u in enumerate(urls, 1)]}
    path = tmp_path / f"{name}.jsonl"
    path.write_text(json.dumps(record) + "\n")
    return path


def statuses(store: Store) -> dict[str, str]:
    rows = store.read("MATCH (d:Document) RETURN d.url AS url, d.fetch_status AS s")
    return {r["url"]: r["s"] for r in rows}


def good_record(i: int) -> dict:
    return {"question": f"Question {i}?", "answer": f"answer {i}",
            "thinking": f"- Fact one [1].\n- Fact two [2].\n- Therefore answer {i}.",
            "sources": [{"id": 1, "url": f"https://ex.org/{i}/1", "title": "one"},
                        {"id": 2, "url": f"https://ex.org/{i}/2", "title": "two"}]}


def raw_get(web: LocalWeb, target: str) -> tuple[int, bytes]:
    """Send ``target`` byte for byte: HTTP clients normalise ``..`` away before sending."""
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as s:
        s.sendall(f"GET {target} HTTP/1.0\r\nHost: x\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def _collisions() -> dict[str, Any]:
    """The shape rounds.collisions() returns: 3 rounds, delta 0.05, with a simulation."""
    graphs: dict[str, dict[str, Any]] = {
        "q-big": {"k_per_round": [120, 118, 125], "k_min": 118, "j_max": 40,
                  "bound": collision_bound(3, 118, 40), "k_needed_tight": 49.0,
                  "k_needed_paper": 438.2, "simulated": 0.0061, "observed_repeat_rate": 0.0},
        "q-small": {"k_per_round": [6, 6, 6], "k_min": 6, "j_max": 6,
                    "bound": collision_bound(3, 6, 6), "k_needed_tight": 18.97,
                    "k_needed_paper": 46.48, "simulated": 0.4437, "observed_repeat_rate": 0.5},
        "q-empty": {"k_per_round": [0, 3, 2], "k_min": 0, "j_max": 0,
                    "observed_repeat_rate": None},
    }
    bounds = [g["bound"] for g in graphs.values() if "bound" in g]
    return {"rounds": [1, 2, 3], "delta": 0.05, "graphs": graphs, "aggregate": {
        "graphs": 3, "max_bound": max(bounds), "mean_bound": sum(bounds) / len(bounds),
        "observed_repeat_rate": 0.25, "graphs_over_delta": 1, "k_median": 6}}


def full_data(agent: str = "baseline", dataset: str = "freshqa") -> ReportData:
    scores = [
        ScorePoint(agent=agent, t=t, scorer=sc, score=s, ci_low=s - 0.05, ci_high=s + 0.05,
                   n=40, snapshot=t < 3)
        for t, s in ((1, 0.412), (2, 0.438), (3, 0.401)) for sc in ("em", "f1")
    ] + [ScorePoint(agent="memorize:baseline", t=t, scorer="em", score=0.5 + 0.01 * t,
                    ci_low=0.4, ci_high=0.7, n=40, snapshot=True) for t in (1, 2, 3)]
    return ReportData(
        generated_at="2026-01-02T03:04:05Z",
        scores=scores,
        macro=[MacroScore(agent=agent, scorer="em", rounds=[1, 2, 3], score=0.417,
                          ci_low=0.377, ci_high=0.457),
               MacroScore(agent="memorize:baseline", scorer="em", rounds=[2], score=0.52,
                          ci_low=0.4, ci_high=0.64)],
        static=[StaticScore(agent=agent, dataset=dataset, scorer="em", score=0.633,
                            ci_low=0.58, ci_high=0.69, n=300)],
        leaktests=[
            LeakSummary(
                id="lt-1", agent=agent, leaked_agent="memorize:baseline", scorer="em",
                epsilon=0.02,
                static={"dataset": dataset, "a_clean": 0.633, "a_leak": 0.871,
                        "gap": 0.238, "t": 9.87, "df": 299, "p_value": 1.23e-19, "n": 300,
                        "reject": True},
                dynamic={"rounds": [2, 3], "clean": [0.438, 0.401], "leaked": [0.45, 0.431],
                         "gaps": [0.012, 0.030], "gap": 0.021, "t": 0.0588, "df": 1,
                         "p_value": 0.4813, "reject": False, "note": ""}),
            LeakSummary(
                id="lt-2", agent=agent, leaked_agent="memorize:other", scorer="f1",
                epsilon=0.0, static=None,
                dynamic={"rounds": [2], "clean": [0.5], "leaked": [0.6], "gaps": [0.1],
                         "gap": 0.1, "t": None, "df": None, "p_value": None,
                         "reject": False, "note": "need at least 2 gaps"}),
        ],
        collisions=_collisions(),
        contamination=[
            ContaminationCount(dataset=dataset, kind="runtime", flagged=7, total=120,
                               by_reason={"answer_in_page": 5, "question_in_page": 2}),
            ContaminationCount(dataset=dataset, kind="pretraining", flagged=3, total=120),
            ContaminationCount(dataset="hotpotqa", kind="paraphrase", flagged=0, total=0),
            ContaminationCount(dataset="hotpotqa", kind="runtime", flagged=11, total=50),
        ],
    )


def _v(value: Any) -> dict[str, Any]:
    """An OTLP JSON AnyValue."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": value if isinstance(value, str) else json.dumps(value)}


def otlp_span(trace: str, span: str, parent: str, name: str, start: int,
          attrs: dict[str, Any]) -> dict[str, Any]:
    return {"traceId": trace, "spanId": span, "parentSpanId": parent, "name": name,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 1),
            "attributes": [{"key": k, "value": _v(v)} for k, v in attrs.items()]}


def example_run(k: int, logs: str = "agent_runs.jsonl") -> dict[str, Any]:
    """The example's k-th log with each source's page text (as a trace carries it)."""
    log = json.loads((EXAMPLES / "logs" / logs).read_text().splitlines()[k])
    for s in log["sources"]:
        html = (EXAMPLES / "web" / s["url"].rsplit("/", 1)[1]).read_text()
        s["text"] = extract(html, s["url"]).text
    return log


def otlp(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": []},
                               "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]}


def genai_spans(log: dict[str, Any], trace: str) -> list[dict[str, Any]]:
    """The run under the OpenTelemetry GenAI conventions: an agent span, a retrieval span,
    a fetch tool span per page, and the final chat span."""
    root = otlp_span(trace, "a0", "", "invoke_agent", 1_000, {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.input.messages": [{"role": "user", "content": log["question"]}],
        "gen_ai.output.messages": [{"role": "assistant", "content": log["answer"]}]})
    half = len(log["sources"]) // 2
    retrieval = otlp_span(trace, "r1", "a0", "retrieval", 2_000, {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.retrieval.query.text": log["question"],
        "gen_ai.retrieval.documents": [{"id": s["url"], "url": s["url"], "title": s["title"],
                                        "content": s["text"], "score": 1.0}
                                       for s in log["sources"][:half]]})
    tools = [otlp_span(trace, f"t{i}", "a0", "execute_tool fetch", 3_000 + i, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fetch_page",
        "gen_ai.tool.call.arguments": {"url": s["url"]},
        "gen_ai.tool.call.result": s["text"]}) for i, s in enumerate(log["sources"][half:])]
    chat = otlp_span(trace, "c9", "a0", "chat", 9_000, {
        "gen_ai.operation.name": "chat",
        "gen_ai.output.messages": [{"role": "assistant", "content": log["thinking"]}]})
    return [root, retrieval, *tools, chat]


def openinference_spans(log: dict[str, Any], trace: str) -> list[dict[str, Any]]:
    root = otlp_span(trace, "b0", "", "agent", 1_000, {
        "openinference.span.kind": "AGENT", "input.value": log["question"],
        "output.value": log["answer"]})
    attrs: dict[str, Any] = {"openinference.span.kind": "RETRIEVER",
                             "input.value": log["question"]}
    for n, s in enumerate(log["sources"]):
        p = f"retrieval.documents.{n}.document."
        attrs |= {p + "id": s["url"], p + "content": s["text"], p + "score": 0.5,
                  p + "metadata": {"url": s["url"], "title": s["title"]}}
    retriever = otlp_span(trace, "b1", "b0", "retrieve", 2_000, attrs)
    llm = otlp_span(trace, "b2", "b0", "llm", 3_000, {
        "openinference.span.kind": "LLM",
        "output.value": {"messages": [{"role": "assistant", "content": log["thinking"]}]}})
    return [root, retriever, llm]
