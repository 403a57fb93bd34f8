"""The tool-using web agent (``react:LLMSPEC``) against the project's real local web over
loopback: a scripted chat model (its replies are the fixture tests/data/react_bridge.json)
answers a bridge question in two searches and a fetch, with every search and page in the
trace; the same through native tool calling, with the real OpenAI-compatible client and a
loopback server replaying tool calls (tests/data/react_bridge_tools.json); each kind of bad
reply ends its item with a counted reason while the run completes; and the real local model
runs a small item set to the end."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents import make_agent
from dwqa_graph.evaluation.agents.base import MAX_ANSWER_CHARS
from dwqa_graph.evaluation.agents.baseline import WebPages, _endpoint_host
from dwqa_graph.evaluation.agents.react import Bounds, ReactAgent, has_native_tools
from dwqa_graph.evaluation.evaluate import evaluate
from dwqa_graph.graph.store import Store
from dwqa_graph.llm import LLM
from dwqa_graph.models import EvalItem
from dwqa_graph.openai_compat import OpenAICompatChat
from dwqa_graph.web.fetch import FetchOptions
from dwqa_graph.web.localweb import LocalWeb, serve
from dwqa_graph.web.search import SearxngClient

from .conftest import DATA, scripted_model
from .paths import EXAMPLES
from .replay_llm import replay

FIXTURE = json.loads((DATA / "react_bridge.json").read_text())


@pytest.fixture(scope="module")
def web() -> Iterator[LocalWeb]:
    with serve(EXAMPLES / "web") as w:
        yield w


def agent(web: LocalWeb, replies: list[str], **bounds: float) -> ReactAgent:
    replies = [r.replace("{WEB}", web.url) for r in replies]
    options = FetchOptions(allow_hosts=_endpoint_host(web.url), timeout=10, deadline=10,
                           retries=1, workers=1)
    # No reply cache: a scripted model answers in order, whatever the prompt.
    return ReactAgent("react:scripted", LLM(scripted_model(replies), use_cache=False),
                      SearxngClient(web.url, timeout=10), WebPages(options),
                      bounds=Bounds(**bounds))  # type: ignore[arg-type]


def test_bridge_question_in_two_searches_and_a_fetch(web: LocalWeb, store: Store) -> None:
    a = agent(web, FIXTURE["replies"])
    reply = a.answer(FIXTURE["question"])
    assert reply.error is None and reply.answer == FIXTURE["answer"]
    searches = [s for s in reply.steps if s.startswith("search ")]
    fetches = [s for s in reply.steps if s.startswith("fetch ")]
    assert len(searches) == 2 and all("-> 0 results" not in s for s in searches)
    assert len(fetches) == 1
    [page] = reply.retrieved
    assert page.url.startswith(web.url) and FIXTURE["answer"] in page.text  # what it read
    # Through evaluate: scored, and the page it read is in the stored trace, where the
    # run-time leakage check finds the answer.
    from dwqa_graph.leakage.runtime import runtime_check

    item = EvalItem(id="bridge", question=FIXTURE["question"], golds=[FIXTURE["answer"]],
                    source="static", dataset="react-test")
    report, preds = evaluate(store, agent(web, FIXTURE["replies"]), [item],
                             target="static:react-test", scorers=["em"])
    assert report.scores["em"].score == 1.0 and report.errors == 0
    [stored] = store.read("MATCH (p:Prediction {id: $id})-[r:RETRIEVED]->(d:Document) "
                          "RETURN d.url AS url, r.text AS text", {"id": preds[0].id})
    assert stored["url"] == page.url and FIXTURE["answer"] in stored["text"]
    # The run-time leakage check reads that trace (the page answers, but is no copy of the
    # question-answer pair: not flagged).
    check = runtime_check(store, report.run_id)
    assert (check.predictions, check.flagged) == (1, 0)


BAD = {
    "no_action": ["I believe the answer is probably Valmora."],
    "malformed_action": ["Action: browse: the tramway"],
    "blocked_url": ["Action: fetch: http://169.254.169.254/latest/meta-data/"],
    "tool_loop": ["Action: search: Valmora tramway", "Action: search: Valmora tramway"],
    "step_limit": ["Action: search: Valmora tramway", "Action: search: Valmora council",
                   "Action: search: Valmora bridge", "Action: search: Valmora opening"],
}


def test_bad_replies_end_their_item_with_a_counted_reason(web: LocalWeb,
                                                          store: Store) -> None:
    for reason, replies in BAD.items():
        reply = agent(web, replies, steps=4).answer("When did the tramway open?")
        assert reply.answer == "" and reply.error and reply.error.startswith(reason + ":"), \
            (reason, reply.error)
    # One run over all of them and a good item (concurrency 1: the scripted replies are
    # taken in item order): the run completes, the failures are counted by reason.
    replies = [r for rs in BAD.values() for r in rs] + FIXTURE["replies"]
    items = [EvalItem(id=k, question="When did the tramway open?", golds=["x"],
                      source="static", dataset="react-bad") for k in BAD]
    items.append(EvalItem(id="ok", question=FIXTURE["question"], golds=[FIXTURE["answer"]],
                          source="static", dataset="react-bad"))
    report, preds = evaluate(store, agent(web, replies, steps=4), items,
                             target="static:react-bad", scorers=["em"], concurrency=1,
                             max_errors=1.0)
    assert report.n == 6 and report.errors == 5
    assert report.errors_by_reason == {r: 1 for r in BAD}
    assert preds[-1].answer == FIXTURE["answer"]


def test_spec_is_checked() -> None:
    for bad in ("react:", "react:http://127.0.0.1:1/v1@steps=0",
                "react:http://127.0.0.1:1/v1@colour=red"):
        with pytest.raises(AgentError):
            make_agent(bad)
    with pytest.raises(AgentError, match="needs a Neo4j store"):
        make_agent("react:http://127.0.0.1:1/v1")


def test_real_local_model_runs_to_the_end(web: LocalWeb, llm_url: str) -> None:
    """SmolLM2-135M follows the protocol poorly; whatever it does, every question ends
    (an answer or a counted reason) within its bounds, with what it did in the trace."""
    from dwqa_graph.evaluation.agents.react import REASONS

    a = make_agent(f"react:{llm_url}@search={web.url},steps=3,deadline=60")
    try:
        for q in ("When did the Valmora Riverside Tramway open?",
                  "Who founded Solvane Energy?"):
            reply = a.answer(q)
            assert reply.answer or (reply.error and reply.error.split(":")[0] in REASONS), \
                reply.error
            assert reply.steps[0].startswith("react:") and len(reply.steps) >= 2
    finally:
        a.close()


TOOLS_FIXTURE = json.loads((DATA / "react_bridge_tools.json").read_text())


def _wire(web: LocalWeb, replies: list[dict[str, object]]) -> list[str | dict[str, object]]:
    return json.loads(json.dumps(replies).replace("{WEB}", web.url))


def native_agent(web: LocalWeb, url: str, *, native: bool = True, steps: int = 8,
                 ) -> ReactAgent:
    options = FetchOptions(allow_hosts=_endpoint_host(web.url), timeout=10, deadline=10,
                           retries=1, workers=1)
    llm = LLM(OpenAICompatChat(base_url=url), use_cache=False, retries=0)
    return ReactAgent("react:native", llm, SearxngClient(web.url, timeout=10),
                      WebPages(options), bounds=Bounds(steps=steps), native=native)


def test_native_tool_calls_answer_the_bridge_question(web: LocalWeb) -> None:
    """The real client sends the tools in the chat API's ``tools`` field, reads the calls
    the server returns, answers each with a tool message carrying its call id, and takes the
    reply with no call as the answer."""
    with replay({}, _wire(web, TOOLS_FIXTURE["replies"])) as srv:
        reply = native_agent(web, srv.url).answer(TOOLS_FIXTURE["question"])
    assert reply.error is None and reply.answer == TOOLS_FIXTURE["answer"], reply.steps
    assert "native tool calls" in reply.steps[0]
    assert len([s for s in reply.steps if s.startswith("search ")]) == 2
    [page] = reply.retrieved
    assert TOOLS_FIXTURE["answer"] in page.text
    assert len(srv.requests) == 4
    assert all({t["function"]["name"] for t in r["tools"]} == {"search", "fetch"}
               for r in srv.requests)
    last = srv.requests[-1]["messages"]
    results = [m for m in last if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == ["call_1", "call_2", "call_3"]
    assert TOOLS_FIXTURE["answer"] in results[-1]["content"]  # the page went back to it
    calls = [m for m in last if m["role"] == "assistant"]
    assert [c["tool_calls"][0]["function"]["name"] for c in calls] == [
        "search", "search", "fetch"]
    # the control: the text protocol on the same server sends no tools field
    with replay({}, ["Final: 14 September 2023"]) as srv:
        text = native_agent(web, srv.url, native=False).answer(TOOLS_FIXTURE["question"])
    assert text.answer == TOOLS_FIXTURE["answer"] and "tools" not in srv.requests[0]
    assert "text protocol" in text.steps[0]


def _call(name: str, arguments: str, cid: str = "c1") -> dict[str, object]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}]}


NATIVE_BAD: dict[str, list[str | dict[str, object]]] = {
    "no_action": [{"role": "assistant", "content": ""}],
    "malformed_action": [_call("search", "{not json")],
    "blocked_url": [_call("fetch", json.dumps({"url": "http://169.254.169.254/latest/"}))],
    "tool_loop": [_call("search", '{"query": "Valmora tramway"}'),
                  _call("search", '{"query": "Valmora tramway"}', "c2")],
    "step_limit": [_call("search", json.dumps({"query": q}), f"c{i}") for i, q in
                   enumerate(["Valmora tramway", "Valmora council", "Valmora bridge"])],
}


def test_native_bad_replies_end_with_a_counted_reason(web: LocalWeb) -> None:
    for reason, replies in {**NATIVE_BAD,
                            "malformed_action ": [_call("browse", '{"url": "x"}')],
                            "malformed_action  ": [_call("search", '{"q": "x"}')]}.items():
        with replay({}, replies) as srv:
            reply = native_agent(web, srv.url, steps=3).answer("When did the tramway open?")
        assert reply.answer == "" and reply.error, (reason, reply.steps)
        assert reply.error.startswith(reason.strip() + ":"), (reason, reply.error)


def test_auto_mode_picks_native_tools_only_where_the_model_class_has_them() -> None:
    # An OpenAI-compatible server may not implement tools: text unless tools=native; a
    # model class without bind_tools (langchain's fake chat model): text.
    assert not has_native_tools(OpenAICompatChat(base_url="http://127.0.0.1:1/v1"))
    assert not has_native_tools(scripted_model(["x"]))

    class WithTools(type(scripted_model(["x"]))):  # type: ignore[misc]
        def bind_tools(self, tools, **kwargs):  # type: ignore[no-untyped-def]
            return self.bind(tools=tools)

    assert has_native_tools(WithTools(messages=iter([])))
    with pytest.raises(AgentError, match="tools="):
        make_agent("react:http://127.0.0.1:1/v1@tools=magic")


def test_a_20_mb_reply_is_stored_once_cut_with_a_marker(web: LocalWeb, store: Store) -> None:
    """A model answering with 20 MB on one line: the stored prediction keeps
    MAX_ANSWER_CHARS of it with a marker, and its trace does not store it again."""
    huge = "Final: " + "Valmora " * 2_500_000  # 20,000,000 characters after "Final: "
    items = [EvalItem(id=k, question=FIXTURE["question"], golds=[FIXTURE["answer"]],
                      source="static", dataset="react-huge") for k in ("huge", "ok")]
    # concurrency 1: the scripted replies are taken in item order
    _, preds = evaluate(store, agent(web, [huge, *FIXTURE["replies"]]), items,
                        target="static:react-huge", scorers=["em"], concurrency=1)
    rows = {r["item"]: r for r in store.read(
        "MATCH (p:Prediction) WHERE p.id IN $ids RETURN p.item_id AS item, p.answer AS answer, "
        "p.steps AS steps", {"ids": [p.id for p in preds]})}
    answer, steps = rows["huge"]["answer"], rows["huge"]["steps"]
    assert answer.startswith("Valmora Valmora") and answer.endswith(
        "…[answer cut: 19,999,999 characters]")
    assert len(answer) < MAX_ANSWER_CHARS + 40
    assert sum(map(len, steps)) < 1_000 and "Valmora" not in "".join(steps)
    assert "final: an answer cut at 2,000 characters" in steps[-1]
    # Positive control: a short answer is stored whole, and named in its step.
    assert rows["ok"]["answer"] == FIXTURE["answer"]
    assert rows["ok"]["steps"][-1] == f"final: {FIXTURE['answer']!r}"
