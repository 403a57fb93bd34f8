"""Evaluation: scoring runs, intervals, macro score, judges, stored runs and traces."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from dwqa_graph.errors import NotFoundError, RunFailedError
from dwqa_graph.evaluation.agents import AgentAnswer, RetrievedDoc
from dwqa_graph.evaluation.datasets import import_static, static_items
from dwqa_graph.evaluation.evaluate import (
    LLMJudge,
    RuleJudge,
    bootstrap_ci,
    evaluate,
    judge_all,
    list_runs,
    load_run,
    macro,
    macro_score,
    round_is_frozen,
    round_items,
)
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.llm import LLM
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import freeze_round, new_round
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.web.fetch import pending_documents

from .conftest import HOTPOT, PATH_PAGES, build_facts, scripted_model


class DictAgent:
    """A real Agent-protocol object: answers from a table, fails on request."""

    def __init__(self, answers: dict[str, str], spec: str = "python:tests:dict",
                 fail_on: str | None = None) -> None:
        self.answers, self.spec, self.fail_on = answers, spec, fail_on
        self.threads: set[int] = set()

    def answer(self, question: str) -> AgentAnswer:
        self.threads.add(threading.get_ident())
        time.sleep(0.01)  # a real agent waits on the network: threads overlap
        if question == self.fail_on:
            raise RuntimeError("adapter bug")
        return AgentAnswer(answer=self.answers.get(question, "I don't know"),
                           retrieved=[RetrievedDoc(url="http://example.org/trace-page",
                                                   title="Trace", text=f"page about {question}",
                                                   rank=1)],
                           steps=["looked it up"])

    def close(self) -> None:
        pass


def test_bootstrap_interval_is_deterministic_and_sensible() -> None:
    xs = [1.0] * 7 + [0.0] * 13
    lo, hi = bootstrap_ci(xs)
    assert (lo, hi) == bootstrap_ci(xs)  # fixed seed
    assert 0.0 <= lo < np.mean(xs) < hi <= 1.0
    assert 0.1 < lo < 0.2 and 0.5 < hi < 0.65  # binomial 7/20: normal approx [0.14, 0.56]
    assert bootstrap_ci([1.0, 1.0, 1.0]) == (1.0, 1.0)
    assert bootstrap_ci([0.25]) == (0.25, 0.25)
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_macro_weights_rounds_equally_not_items() -> None:
    m = macro_score([[1.0] * 10, [0.0] * 2])
    assert m.score == pytest.approx(0.5)  # pooled items would give 10/12
    assert m.ci_low == m.ci_high == 0.5  # no spread inside either round
    m2 = macro_score([[1, 0, 1, 0], [1, 1, 1, 0], [0, 0, 0, 1]])
    assert m2.score == pytest.approx((0.5 + 0.75 + 0.25) / 3)
    assert m2.ci_low < m2.score < m2.ci_high
    with pytest.raises(ValueError):
        macro_score([[1.0], []])


@pytest.mark.parametrize(("answer", "golds", "label"), [
    ("1911", ["1911"], "CORRECT"),
    ("It opened in 1911.", ["1911"], "CORRECT"),
    ("The Valmora tram", ["Valmora tram"], "CORRECT"),
    ("19110", ["1911"], "INCORRECT"),
    ("1912", ["1911"], "INCORRECT"),
    ("", ["1911"], "NOT_ATTEMPTED"),
    ("I don't know.", ["1911"], "NOT_ATTEMPTED"),
    ("nine years", ["9 years", "nine years"], "CORRECT"),
])
def test_rule_judge(answer: str, golds: list[str], label: str) -> None:
    import asyncio
    assert asyncio.run(RuleJudge().grade("q?", golds, answer)).label == label


def _fake_llm(replies: list[str], tmp_cache) -> LLM:
    model = scripted_model(replies)
    return LLM(model, cache_path=tmp_cache, use_cache=False, retries=0)


def test_llm_judge_parses_strictly_and_counts_fallbacks(tmp_path) -> None:
    from dwqa_graph.evaluation.evaluate import Prediction
    replies = ["CORRECT", "The answer is INCORRECT.", "CORRECT or INCORRECT?", "not_attempted",
               "I cannot grade this."]
    llm = _fake_llm(replies, tmp_path / "c.sqlite")
    preds = [Prediction(id=str(i), run_id="r", item_id=str(i), question="q", golds=["a"],
                        answer="a", scores={"em": 1.0, "f1": 1.0}, latency_s=0.0) for i in range(5)]
    graded = judge_all(LLMJudge(llm), preds)
    # asyncio.gather keeps order, and the fake model answers in call order.
    assert [(p.judge, p.judge_fallback) for p in graded] == [
        ("CORRECT", False), ("INCORRECT", False), ("INCORRECT", True),
        ("NOT_ATTEMPTED", False), ("INCORRECT", True)]
    assert llm.stats.failures == {"unparseable_label": 2}


def test_evaluate_static_set_stores_run_predictions_and_traces(store: Store) -> None:
    import_static(store, HOTPOT, "hotpot")
    items = static_items(store, "hotpot")
    answers = {i.question: i.golds[0] for i in items[::2]}  # right on every other item
    agent = DictAgent(answers, fail_on=items[1].question)
    report, preds = evaluate(store, agent, items, target="hotpot", scorers=["em", "f1", "judge"],
                             concurrency=3)
    right = len(answers)
    assert report.n == 27 and report.errors == 1
    assert report.scores["em"].score == pytest.approx(right / 27)
    assert report.scores["judge"].score == pytest.approx(right / 27)
    assert report.scores["em"].ci_low < right / 27 < report.scores["em"].ci_high
    assert report.judge == "rule" and report.dataset == "hotpot" and report.round is None
    assert set(report.by_pattern) == {"bridge", "comparison"}
    assert sum(s["em"].n for s in report.by_pattern.values()) == 27
    assert set(report.by_hops) == {"2"}
    failed = next(p for p in preds if p.item_id == items[1].id)
    assert failed.error == "RuntimeError: adapter bug" and failed.answer == ""
    assert failed.scores["em"] == 0
    assert len(agent.threads) > 1  # questions really ran concurrently
    # Stored: run -> predictions -> static items, traces -> documents.
    rows = store.read(
        "MATCH (a:Agent)-[:RAN]->(e:EvalRun {id: $id})-[:ON]->(s:StaticSet) "
        "MATCH (e)-[:PREDICTED]->(p)-[:ANSWERS]->(i:StaticItem)<-[:CONTAINS]-(s) "
        "MATCH (p)-[r:RETRIEVED]->(d:Document) "
        "RETURN a.spec AS spec, s.name AS set, count(DISTINCT p) AS preds, count(r) AS traces, "
        "count(DISTINCT d) AS docs", {"id": report.run_id})
    # The failed item has no trace; every other prediction has one, all to the same page.
    assert rows == [{"spec": "python:tests:dict", "set": "hotpot", "preds": 26, "traces": 26,
                     "docs": 1}]
    again, back = load_run(store, report.run_id)
    assert again == report
    assert sorted(back, key=lambda p: p.id) == sorted(preds, key=lambda p: p.id)
    assert list_runs(store)[0]["id"] == report.run_id
    # A page known only from an agent's trace is not a seed source: fetch leaves it alone.
    assert pending_documents(store) == []


def test_rounds_snapshot_and_macro(store: Store, nlp: CoreNLP, tmp_path: Path) -> None:
    build_facts(store, nlp, tmp_path, PATH_PAGES)
    for seed in (1, 2, 3):  # 'allow': every round has the graph's item, whatever the draws
        new_round(store, seed=seed, generator=PathGenerator(), cfg=SampleConfig(reuse="allow"))
    freeze_round(store, 1)
    answers = {i.question: i.golds[0] for t in (1, 2) for i in round_items(store, t)}
    agent = DictAgent(answers, spec="python:tests:rounds")
    for t in (1, 2, 3):
        rep, _ = evaluate(store, agent, round_items(store, t), target=f"round:{t}", round_t=t,
                          snapshot=round_is_frozen(store, t))
        assert rep.snapshot is (t == 1) and rep.round == t
    out = macro(store, "python:tests:rounds", [1, 2, 3])
    per_round = out["scores"]["em"]["per_round"]
    expected = {"1": 1.0, "2": 1.0, "3": per_round["3"]}
    assert per_round == expected
    assert out["scores"]["em"]["score"] == pytest.approx(sum(expected.values()) / 3)
    with pytest.raises(NotFoundError, match="no evaluation on round 4"):
        macro(store, "python:tests:rounds", [1, 4])
    with pytest.raises(NotFoundError, match="round 9 has no items"):
        round_items(store, 9)


class _BrokenAgent:
    """Fails on the questions it is told to (every one by default), like a Perplexica
    that answers HTTP 500."""

    spec = "python:tests:broken"

    def __init__(self, fail: set[str] | None = None) -> None:
        self.fail = fail

    def answer(self, question: str) -> AgentAnswer:
        if self.fail is None or question in self.fail:
            return AgentAnswer(answer="", error="HTTP 500 from Perplexica: chat model missing")
        return AgentAnswer(answer="I don't know")

    def close(self) -> None:
        pass


def test_an_all_errors_run_is_failed_not_a_zero_score(store: Store) -> None:
    import_static(store, HOTPOT, "hotpot")
    items = static_items(store, "hotpot")
    with pytest.raises(RunFailedError, match="failed on all 27 items") as info:
        evaluate(store, _BrokenAgent(), items, target="hotpot")
    assert "HTTP 500 from Perplexica" in str(info.value)
    [run] = list_runs(store)
    assert (run["status"], run["errors"], run["n"]) == ("failed", 27, 27)
    report, preds = load_run(store, run["id"])
    assert report.status == "failed" and report.scores == {} and len(preds) == 27
    assert report.failure == "the agent failed on all 27 items"
    # Above the threshold fails; at or below it scores (positive control on both sides).
    three = {i.question for i in items[:3]}  # 3/27 = 11.1 %
    with pytest.raises(RunFailedError, match=r"3 of 27 items \(11.1%\), more than"):
        evaluate(store, _BrokenAgent(three), items, target="hotpot")
    ok, _ = evaluate(store, _BrokenAgent(three), items, target="hotpot", max_errors=0.2)
    assert ok.status == "ok" and ok.errors == 3 and ok.scores["em"].score == 0.0
    assert [r["status"] for r in list_runs(store)].count("failed") == 2
    # The report shows only scored runs as scores, and failed ones as failed.
    from dwqa_graph.report.data import gather

    data = gather(store)
    assert [(s.scorer, s.run_id) for s in data.static if s.scorer == "em"] == [
        ("em", ok.run_id)]
    assert sorted(r.status for r in data.runs) == ["failed", "failed", "ok"]
