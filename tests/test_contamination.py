"""Run-time leakage: a planted answer key is found, a clean run flags nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dwqa_graph.evaluation.agents import AgentAnswer, RetrievedDoc, make_agent
from dwqa_graph.evaluation.datasets import import_static, static_items
from dwqa_graph.evaluation.evaluate import evaluate
from dwqa_graph.evaluation.scoring import contains_gold
from dwqa_graph.graph.store import Store
from dwqa_graph.leakage.runtime import (
    DEFAULT_DATASET_HOSTS,
    host_matches,
    latest_checks,
    question_score,
    runtime_check,
)
from dwqa_graph.web.localweb import serve
from tests.paths import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
QUESTION = "Which investor led Solvane Energy's Series B financing round?"


def test_matching_rules() -> None:
    page = ("Quiz dump, item 17: which investor led Solvane Energy’s Series-B financing "
            "round? Answer: Halvard Capital. Item 18: ...")
    assert question_score(QUESTION, page) >= 90  # curly apostrophe and hyphen: still a copy
    assert contains_gold(page, ["Halvard Capital"])
    assert not contains_gold("Halvardsen Capital", ["Halvard"])  # whole tokens only
    assert question_score("Who won?", "Who won? Nobody knows who won the cup.") == 100.0
    assert question_score("Who won the cup?", "who would win a cup") == 0.0  # short: exact only
    assert host_matches("https://huggingface.co/datasets/hotpot_qa", DEFAULT_DATASET_HOSTS)
    assert not host_matches("https://huggingface.co/models/x", DEFAULT_DATASET_HOSTS)
    assert host_matches("https://www.kaggle.com/c/x", DEFAULT_DATASET_HOSTS) == "kaggle.com"
    assert not host_matches("https://notkaggle.com/x", DEFAULT_DATASET_HOSTS)


@pytest.fixture
def static_set(store: Store, tmp_path: Path) -> Store:
    data = json.loads((EXAMPLES / "static" / "example_static.json").read_text())
    path = tmp_path / "static.json"
    path.write_text(json.dumps(data))
    import_static(store, path, "example-static")
    return store


def _web(tmp_path: Path, planted: bool) -> Path:
    root = tmp_path / ("planted" if planted else "clean")
    shutil.copytree(EXAMPLES / "web", root)
    if planted:
        (root / "benchmark-answers-dump.html").write_text(
            "<html><head><title>Solvane Energy Series B financing round quiz answers</title>"
            "</head><body><article><h1>Benchmark answer key</h1>"
            f"<p>Question 9: {QUESTION} Answer: Halvard Capital. This list of questions and "
            "answers about the Solvane Energy Series B financing round was copied from a "
            "public QA benchmark file for practice.</p></article></body></html>")
    return root


@pytest.mark.parametrize("planted", [True, False])
def test_planted_leak_found_and_clean_run_flags_nothing(static_set: Store, tmp_path: Path,
                                                        planted: bool) -> None:
    store = static_set
    items = [i for i in static_items(store, "example-static") if i.question == QUESTION]
    with serve(_web(tmp_path, planted)) as web:
        agent = make_agent(f"baseline:{web.url}", store=store)
        report, preds = evaluate(store, agent, items, target="example-static")
        agent.close()
    urls = [d.url for d in preds[0].retrieved]
    check = runtime_check(store, report.run_id)
    assert check.predictions == 1
    if planted:
        assert any(u.endswith("/benchmark-answers-dump.html") for u in urls)  # it was read
        assert check.flagged == 1 and check.by_reason == {"question_and_answer": 1}
        [flag] = check.flagged_items[0]["flags"]  # type: ignore[misc]
        assert flag["url"].endswith("/benchmark-answers-dump.html")
        stored = store.read("MATCH (p:Prediction {run_id: $id}) RETURN p.runtime_leak AS r",
                            {"id": report.run_id})
        assert stored == [{"r": ["question_and_answer"]}]
    else:
        assert check.flagged == 0 and check.by_reason == {}
    [count] = latest_checks(store)
    assert (count["kind"], count["flagged"], count["total"]) == (
        "runtime", 1 if planted else 0, 1)


class HostAgent:
    spec = "python:tests:host"

    def answer(self, question: str) -> AgentAnswer:
        return AgentAnswer(answer="x", retrieved=[RetrievedDoc(
            url="https://huggingface.co/datasets/some/benchmark/viewer", text="rows", rank=1)])

    def close(self) -> None:
        pass


def test_dataset_host_is_flagged_per_dataset(static_set: Store) -> None:
    store = static_set
    items = static_items(store, "example-static")
    report, _ = evaluate(store, HostAgent(), items, target="example-static")
    check = runtime_check(store, report.run_id)
    assert check.flagged == len(items) and check.by_reason == {"dataset_host": len(items)}
    assert check.em_flagged == 0.0 and check.em_clean is None
    # Configurable: without that host nothing is flagged.
    again = runtime_check(store, report.run_id, hosts=["kaggle.com"])
    assert again.flagged == 0
