"""Perplexica v1.10, v1.11 and v1.12 on loopback: the agent answers through each, and
``ingest --format perplexica`` keeps each version's page text.

Each server checks requests the way that release's ``src/app/api/search/route.ts`` does and
answers in the shape its ``docs/API/SEARCH.md`` documents:

- v1.10: no ``/api/providers``; 400 without ``focusMode``; optional ``chatModel``
  ``{provider, name}``; sources carry ``pageContent``.
- v1.11: ``/api/providers``; 400 without ``focusMode``; 500 without ``chatModel``
  ``{providerId, key}`` (the route reads ``body.chatModel.providerId``); ``pageContent``.
- v1.12: ``/api/providers``; 400 "Missing sources or query" without ``sources``; models as
  v1.11; sources carry ``content``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents import make_agent
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest

PROVIDER_ID = "550e8400-e29b-41d4-a716-446655440000"
PROVIDERS = {"providers": [
    {"id": "0b7c7f4e-empty", "name": "Empty", "chatModels": [], "embeddingModels": []},
    {"id": PROVIDER_ID, "name": "OpenAI",
     "chatModels": [{"name": "GPT 4 Omni Mini", "key": "gpt-4o-mini"},
                    {"name": "GPT 4 Omni", "key": "gpt-4o"}],
     "embeddingModels": [{"name": "Text Embedding 3 Large", "key": "text-embedding-3-large"}]},
]}
PAGES = [
    ("The Valmora Riverside Tramway opened to passengers on 14 September 2023.",
     "Opening day", "http://a.test/1"),
    ("The line was nine months later than first planned.", "Delay", "http://a.test/2"),
]
MESSAGE = "The tramway opened on 14 September 2023 [1], nine months late [2]."


class _Perplexica(ThreadingHTTPServer):
    version: str
    bodies: list[dict[str, Any]]
    gets: list[str]


class _Handler(BaseHTTPRequestHandler):
    server: _Perplexica

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _json(self, status: int, doc: Any) -> None:
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.server.gets.append(self.path)
        if self.path == "/api/providers" and self.server.version != "1.10":
            return self._json(200, PROVIDERS)
        # Next.js answers an unknown route with its 404 page.
        body = b"<!DOCTYPE html><title>404: This page could not be found.</title>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(body)
        v = self.server.version
        if self.path != "/api/search":
            return self._json(404, {"message": "not found"})
        if v == "1.12":
            if not body.get("sources") or not body.get("query"):
                return self._json(400, {"message": "Missing sources or query"})
        elif not body.get("focusMode") or not body.get("query"):
            return self._json(400, {"message": "Missing focus mode or query"})
        if v in ("1.11", "1.12"):
            models = [body.get("chatModel"), body.get("embeddingModel")]
            if not all(isinstance(m, dict) and m.get("providerId") == PROVIDER_ID
                       and m.get("key") for m in models):
                return self._json(500, {"message": "An error has occurred."})
        elif "chatModel" in body and set(body["chatModel"]) - {"provider", "name",
                                                                "customOpenAIBaseURL",
                                                                "customOpenAIKey"}:
            return self._json(400, {"message": "Invalid model selected"})
        text_key = "content" if v == "1.12" else "pageContent"
        sources = [{text_key: text, "metadata": {"title": title, "url": url}}
                   for text, title, url in PAGES]
        return self._json(200, {"message": MESSAGE, "sources": sources})


def _serve(version: str) -> Iterator[_Perplexica]:
    server = _Perplexica(("127.0.0.1", 0), _Handler)
    server.version, server.bodies, server.gets = version, [], []
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture(params=["1.10", "1.11", "1.12"])
def perplexica(request: pytest.FixtureRequest) -> Iterator[_Perplexica]:
    yield from _serve(request.param)


def url_of(server: _Perplexica) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def _check_answer(server: _Perplexica, spec: str) -> None:
    agent = make_agent(spec)
    try:
        for _ in range(2):  # the second question reuses what the first one found out
            reply = agent.answer("When did the tramway open?")
            assert reply.error is None, reply.error
            assert reply.answer == "The tramway opened on 14 September 2023, nine months late."
            assert [(d.rank, d.url, d.title, d.text) for d in reply.retrieved] == [
                (i, url, title, text) for i, (text, title, url) in enumerate(PAGES, start=1)]
    finally:
        agent.close()


def test_every_version_answers_through_the_agent(perplexica: _Perplexica) -> None:
    v = perplexica.version
    _check_answer(perplexica, f"perplexica:{url_of(perplexica)}")
    last = perplexica.bodies[-1]
    if v == "1.12":
        assert last["sources"] == ["web"] and "focusMode" not in last
    else:
        assert last["focusMode"] == "webSearch" and "sources" not in last
    if v == "1.10":
        assert "chatModel" not in last  # optional there: the server's default model
    else:
        # Defaults: the first provider that lists a chat / embedding model.
        assert last["chatModel"] == {"providerId": PROVIDER_ID, "key": "gpt-4o-mini"}
        assert last["embeddingModel"] == {"providerId": PROVIDER_ID,
                                          "key": "text-embedding-3-large"}
    # Detection is done once: one providers lookup; v1.11 costs one rejected request only.
    assert perplexica.gets == ["/api/providers"]
    assert len(perplexica.bodies) == (3 if v == "1.11" else 2)


def test_the_version_can_be_fixed_in_the_spec(perplexica: _Perplexica) -> None:
    v = perplexica.version
    spec = (f"perplexica:{url_of(perplexica)}?api={v}&chatModel=OpenAI/gpt-4o"
            "&embeddingModel=OpenAI/text-embedding-3-large&optimizationMode=balanced"
            "&systemInstructions=Answer+briefly")
    _check_answer(perplexica, spec)
    assert len(perplexica.bodies) == 2  # no probing, no retry
    last = perplexica.bodies[-1]
    assert last["optimizationMode"] == "balanced"
    assert last["systemInstructions"] == "Answer briefly"
    if v == "1.10":
        assert perplexica.gets == []
        assert last["chatModel"] == {"provider": "OpenAI", "name": "gpt-4o"}
    else:
        # The provider was named by its name; the request carries its id.
        assert last["chatModel"] == {"providerId": PROVIDER_ID, "key": "gpt-4o"}


def test_the_wrong_fixed_version_fails_loudly() -> None:
    # Positive control: the servers do reject the other versions' shapes.
    for server in _serve("1.12"):
        reply = make_agent(f"perplexica:{url_of(server)}?api=1.11").answer("q")
        assert reply.error is not None and reply.error.startswith("HTTP 400"), reply.error
        assert "Missing sources" in reply.error
    for server in _serve("1.11"):
        reply = make_agent(f"perplexica:{url_of(server)}?api=1.10").answer("q")
        assert reply.error is not None and reply.error.startswith("HTTP 500"), reply.error


def test_a_server_without_models_is_an_error() -> None:
    for server in _serve("1.12"):
        agent = make_agent(f"perplexica:{url_of(server)}")
        agent._providers = lambda: []  # type: ignore[attr-defined]  # nothing configured
        reply = agent.answer("q")
        assert reply.error is not None and "lists no chatModel" in reply.error
        assert server.bodies == []


@pytest.mark.parametrize(("spec", "message"), [
    ("perplexica:http://127.0.0.1:3000?api=2.0", "api='2.0'"),
    ("perplexica:http://127.0.0.1:3000?chatModel=gpt-4o", "expected PROVIDER/KEY"),
    ("perplexica:http://127.0.0.1:3000?sources=,", "names no source"),
])
def test_bad_perplexica_specs(spec: str, message: str) -> None:
    with pytest.raises(AgentError, match=message):
        make_agent(spec)


def test_ingest_keeps_page_text_of_every_version(perplexica: _Perplexica, store: Store,
                                                 tmp_path: Path) -> None:
    """A reply as each version serves it, saved with its question, ingests with its text."""
    agent = make_agent(f"perplexica:{url_of(perplexica)}")
    agent.answer("When did the tramway open?")
    agent.close()
    import httpx  # the raw reply, exactly as the server sent it

    body = perplexica.bodies[-1]
    raw = httpx.post(f"{url_of(perplexica)}/api/search", json=body).json()
    key = "content" if perplexica.version == "1.12" else "pageContent"
    assert all(key in s for s in raw["sources"])  # the version's own spelling
    path = tmp_path / "perplexica.jsonl"
    path.write_text(json.dumps({"question": "When did the tramway open?", "response": raw}))
    report = ingest(store, [path], fmt="perplexica")
    assert report.ingested == 1, report
    rows = store.read("MATCH (:Query)-[r:RETRIEVE]->(d:Document) "
                      "RETURN r.cite AS cite, d.url AS url, r.snippet AS snippet ORDER BY cite")
    assert [(r["url"], r["snippet"]) for r in rows] == [(url, text) for text, _, url in PAGES]
