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

import os
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import replace

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from dwqa_graph.config import Settings, load_settings
from dwqa_graph.graph import server
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP
from tests.paths import DATA, EXAMPLES, HOTPOT, REPO_ROOT, SHARED

__all__ = ["DATA", "EXAMPLES", "HOTPOT", "SHARED", "scripted_model"]

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
