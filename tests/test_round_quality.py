"""Issue 11: the closed-book check, and the rubric checks' numbers in round export and the
HTML report, on real rounds in a real Neo4j."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.llm import LLM
from dwqa_graph.report.data import gather
from dwqa_graph.report.render import render_report
from dwqa_graph.rounds.entities import link_entities
from dwqa_graph.rounds.generate import LLMGenerator, QACandidate, RuleGenerator
from dwqa_graph.rounds.round import export_rows, load_graphs, new_round, show_round
from dwqa_graph.rounds.sampling import Sample, SampleConfig, graph_seed, sample
from dwqa_graph.rounds.verify import answers_correctly, closed_book, closed_book_prompt

from .conftest import DATA, HOTPOT, scripted_model

QUESTION = ("How many years after Leonardo DiCaprio's film debut did his pay reach $20 "
            "million per movie?")


def llm_of(tmp_path: Path, *replies: str, retries: int = 2) -> LLM:
    """The shared scripted model behind the LLM layer, with its own empty reply cache."""
    return LLM(scripted_model(replies), cache_path=tmp_path / f"c{next(_caches)}.sqlite",
               retries=retries)


_caches = itertools.count()


# -- answer matching -------------------------------------------------------------------------
@pytest.mark.parametrize(("reply", "answer", "correct"), [
    ("9 years", "9 years", True),
    ("Answer: 9", "9 years", True),  # the number alone is the answer
    ("**Nine years**", "9 years", False),  # spelled out: not the same normalised words
    ("It took 9 years.", "9 years", True),
    ("9 years (1991 to 2000)", "9 years (1991 to 2000)", True),
    ("9", "9 years (1991 to 2000)", True),  # the parenthetical working is not the answer
    ("I don't know", "9 years", False),
    ("I don't know.\n9 years", "9 years", False),  # only the first line is the answer
    ("19", "9 years", False),
    ("Titanic", "Inception", False),
    ("The Revenant", "The Revenant", True),
    ("Revenant", "The Revenant", True),
    ("Leonardo", "Leonardo DiCaprio", True),  # half the words: the model knows the name
    ("", "9 years", False),
])
def test_answers_correctly(reply: str, answer: str, correct: bool) -> None:
    assert answers_correctly(reply, answer) is correct


def _candidate(question: str = QUESTION, answer: str = "9 years") -> QACandidate:
    return QACandidate(question=question, answer=answer, pattern="temporal", hops=2,
                       used_claims=[], generator="llm:test")


def test_closed_book_probe_outcomes(tmp_path: Path) -> None:
    qa = _candidate()
    assert asyncio.run(closed_book(llm_of(tmp_path, "9 years"), qa)) == "fail"
    assert asyncio.run(closed_book(llm_of(tmp_path, "I don't know"), qa)) == "pass"
    assert asyncio.run(closed_book(llm_of(tmp_path, "12 years"), qa)) == "pass"
    # out of replies: the scripted model raises, the LLM layer gives up -> no verdict
    assert asyncio.run(closed_book(llm_of(tmp_path, retries=0), qa)) == "error"


def test_closed_book_prompt_has_no_evidence(tmp_path: Path) -> None:
    prompt = closed_book_prompt()
    assert (prompt.name, prompt.version) == ("closed_book_check", "1")
    text = prompt.render(question=QUESTION)
    assert QUESTION in text and "I don't know" in text
    assert set(re.findall(r"\{\{(\w+)\}\}", prompt.template)) == {"question"}


# -- the check in a round (dicaprio: one seed graph, one candidate) --------------------------
def _good_reply(store: Store, tmp_path: Path) -> tuple[dict[str, Any], SampleConfig]:
    """The LLM generator's valid reply for the DiCaprio graph (as tests/test_rounds.py)."""
    ingest(store, [DATA / "dicaprio.json"])
    extract_claims(store, extractor="rule")
    link_entities(store)
    [graph] = load_graphs(store, t=1)
    # reuse="allow": every round here redraws the same candidate on purpose (the default,
    # fresh, would avoid the claims the previous round used).
    cfg = SampleConfig(attempts=1, patterns=("temporal",), reuse="allow")
    s = sample(graph, cfg, graph_seed(3, graph.query_id), 0)
    assert s is not None
    _, index = LLMGenerator(llm_of(tmp_path)).buckets(s)
    label = {next(c.text for b in s.buckets for c in b.claims if c.id == cid)[:40]: lab
             for lab, (_, cid) in index.items()}
    debut = next(v for k, v in label.items() if "film debut" in k)
    pay = next(v for k, v in label.items() if "earned $2.5 million" in k)
    return {"used_claims": [{"doc_id": debut.split("_")[0], "claim_id": debut, "claim": "x"},
                            {"doc_id": pay.split("_")[0], "claim_id": pay, "claim": "y"}],
            "question": QUESTION, "answer": "9 years"}, cfg


def test_closed_book_rejects_what_the_model_knows(store: Store, tmp_path: Path) -> None:
    good, cfg = _good_reply(store, tmp_path)
    gen = json.dumps([good])
    # A model that does not know the answer without evidence: the item passes, recorded.
    llm = llm_of(tmp_path, gen, "I don't know")
    ok = new_round(store, seed=3, generator=LLMGenerator(llm), cfg=cfg)
    assert (ok.items, ok.rejected_by_reason) == (1, {}), ok
    assert ok.llm is not None and ok.llm.calls == 2  # the item, then the closed-book probe
    assert ok.check_rejections["closed_book"] == 0 and ok.check_pass_rates["closed_book"] == 1
    assert ok.closed_book == llm.id
    [row] = export_rows(store, ok.round)
    assert row["closed_book"] == "pass" and "closed_book" in row["checks"]
    info = show_round(store, ok.round)
    assert info["theta"]["closed_book"]["prompt"] == closed_book_prompt().hash
    assert info["quality"]["closed_book"] == llm.id
    # A model that knows it: rejected, the reason counted, NO_ITEM says why.
    knows = new_round(store, seed=3, generator=LLMGenerator(llm_of(tmp_path, gen, "9 years")),
                      cfg=cfg)
    assert knows.items == 0 and knows.rejected_by_reason == {"closed_book": 1}
    assert knows.check_rejections["closed_book"] == 1
    assert knows.check_pass_rates["closed_book"] == 0.0
    assert knows.no_item_reasons == {"closed_book": 1}
    # every other check passed the same candidate: only the probe differs
    assert {c: n for c, n in knows.check_rejections.items() if c != "closed_book"} == {
        c: n for c, n in ok.check_rejections.items() if c != "closed_book"}
    assert export_rows(store, knows.round) == []
    # No reply at all: not verified, so not stored (counted apart from a known answer).
    silent = new_round(store, seed=3, generator=LLMGenerator(llm_of(tmp_path, gen,
                                                                     retries=0)), cfg=cfg)
    assert silent.rejected_by_reason == {"closed_book_failed": 1}
    assert "closed_book" not in silent.check_rejections


def test_no_model_records_closed_book_not_run(store: Store) -> None:
    ingest(store, [DATA / "dicaprio.json"])
    extract_claims(store, extractor="rule")
    rep = new_round(store, seed=3, generator=RuleGenerator(),
                    cfg=SampleConfig(patterns=("temporal",)))
    assert rep.items == 1 and rep.closed_book is None
    assert "closed_book" not in rep.check_rejections
    [row] = export_rows(store, rep.round)
    assert row["closed_book"] == "not_run" and "closed_book" not in row["checks"]
    assert {"self_contained", "not_verbatim", "solvable"} <= set(row["checks"])
    info = show_round(store, rep.round)
    assert "closed_book" not in info["theta"]  # θ of a round without a model: unchanged
    assert info["quality"]["closed_book"] is None


# -- the report's quality section ------------------------------------------------------------
class Quoting:
    """The rule generator's items rewritten as the old cloze quizzes over quoted evidence:
    every one must fail self_contained."""

    name = "rule-quoting"

    def __init__(self) -> None:
        self.inner = RuleGenerator()

    def theta(self) -> dict[str, Any]:
        return {**self.inner.theta(), "quoting": True}

    async def agenerate(self, s: Sample) -> QACandidate:
        qa = await self.inner.agenerate(s)
        used = {u.claim_id for u in qa.used_claims}
        spans = [c.text for b in s.buckets for c in b.claims if c.id in used]
        question = "What single name fills every blank: " + "; ".join(
            f'({n}) "{t}"' for n, t in enumerate(spans, 1)) + "?"
        return qa.model_copy(update={"question": question})


def _section(html: str) -> str:
    m = re.search(r'<section id="quality">(.*?)</section>', html, re.S)
    assert m, "no quality section"
    return m.group(1)


def _cell(q: Any, check: str) -> str:
    return f"{q.check_rejections[check]} rejected · {100 * q.check_pass_rates[check]:.1f}% pass"


def test_report_shows_the_rounds_quality(store: Store, tmp_path: Path) -> None:
    ingest(store, [HOTPOT])
    extract_claims(store, extractor="rule")
    rep = new_round(store, seed=5, generator=RuleGenerator())
    assert rep.graphs > 10 and rep.items > 0 and rep.no_item > 0
    data = gather(store)
    [q] = data.quality
    assert (q.t, q.graphs, q.items, q.no_item, q.attempts) == (
        rep.round, rep.graphs, rep.items, rep.no_item, rep.attempts)
    assert q.coverage == rep.coverage and q.recorded and q.closed_book is None
    assert q.check_rejections == rep.check_rejections and q.patterns == rep.patterns
    assert q.check_pass_rates == rep.check_pass_rates
    assert q.no_item_reasons == rep.no_item_reasons
    assert q.rejected_by_reason == rep.rejected_by_reason
    html = _section(render_report(data, tmp_path / "a").index_html.read_text())
    assert '<a href="#quality">' in render_report(data, tmp_path / "a").index_html.read_text()
    for check in rep.check_rejections:
        assert f"<td>{check}</td>" in html and _cell(q, check) in html
    rejected, no_item = html.split("NO_ITEM seed graphs by reason")
    for reason, n in rep.no_item_reasons.items():
        assert f"<tr><td>{reason}</td><td>{n}</td></tr>" in no_item
    for reason, n in rep.rejected_by_reason.items():
        assert f"<tr><td>{reason}</td><td>{n}</td></tr>" in rejected
    assert f"<td>{rep.graphs}</td><td>{rep.items}</td><td>{rep.no_item}</td>" in html
    assert f"{100 * rep.coverage:.1f}%" in html and "not run" in html
    # report.json carries the same numbers
    saved = json.loads((tmp_path / "a" / "report.json").read_text())
    assert saved["quality"][0]["check_rejections"] == rep.check_rejections

    # Positive control: the same round's candidates as quoted cloze quizzes -> every one
    # fails self_contained, and the section says so.
    bad = new_round(store, seed=5, generator=Quoting(), previous=0)  # the same draws
    assert bad.items == 0 and bad.attempts > 0
    assert bad.check_pass_rates["self_contained"] == 0.0  # every candidate checked failed
    assert rep.check_rejections["self_contained"] < bad.check_rejections["self_contained"]
    data2 = gather(store)
    assert [x.t for x in data2.quality] == [rep.round, bad.round]
    q2 = data2.quality[1]
    assert q2.items == 0 and q2.coverage == 0.0
    html2 = _section(render_report(data2, tmp_path / "b").index_html.read_text())
    assert html2 != html
    assert _cell(q2, "self_contained") in html2 and "0.0% pass" in html2
    assert _cell(q, "self_contained") in html2  # the first round's column is still there
    assert f"<th>round {bad.round}</th>" in html2



# -- the pipelined round: same items however the graphs are batched and interleaved ----------
def _items(store: Store, t: int) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "round"} for r in export_rows(store, t)]


def test_batching_does_not_change_the_round(store: Store,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from dwqa_graph.rounds import round as round_mod

    ingest(store, [HOTPOT])
    extract_claims(store, extractor="rule")
    default = new_round(store, seed=7, generator=RuleGenerator())
    # one seed graph per evidence batch: every graph's chain starts at a different time
    monkeypatch.setattr(round_mod, "FIRST_BATCHES", (1, 2))
    monkeypatch.setattr(round_mod, "EVIDENCE_BATCH", 3)
    assert [len(b) for b in round_mod._id_batches(store, None, None)][:4] == [1, 2, 3, 3]
    small = new_round(store, seed=7, generator=RuleGenerator(), previous=0)
    assert default.items > 0 and _items(store, default.round) == _items(store, small.round)
    for k in ("rejected_by_reason", "check_rejections", "check_pass_rates", "no_item_reasons",
              "attempts", "patterns", "theta_hash"):
        assert getattr(default, k) == getattr(small, k), k
    # Batches bounded in claims (rows), not only graphs: the same round again.
    monkeypatch.setattr(round_mod, "FIRST_BATCHES", (100, 100))
    monkeypatch.setattr(round_mod, "EVIDENCE_BATCH", 100)
    weights = {r["id"]: r["claims"] for r in store.query("rounds/graph_ids", dataset=None,
                                                            ids=None)}
    monkeypatch.setattr(round_mod, "EVIDENCE_CLAIMS", 30)
    batches = round_mod._id_batches(store, None, None)
    assert len(batches) > 3 and sum(map(len, batches)) == len(weights)
    assert all(sum(weights[q] for q in b) <= 30 or len(b) == 1 for b in batches)
    bounded = new_round(store, seed=7, generator=RuleGenerator(), previous=0)
    assert _items(store, default.round) == _items(store, bounded.round)
    # positive control: another round seed gives other items
    other = new_round(store, seed=8, generator=RuleGenerator(), previous=0)
    assert _items(store, other.round) != _items(store, default.round)


def test_gate_limits_and_orders_model_calls() -> None:
    from dwqa_graph.rounds.round import _Gate

    async def main() -> tuple[list[str], int, int | None]:
        gate, order, busy, peak = _Gate(2), [], [0], [0]

        async def call(priority: int, name: str) -> None:
            async with gate.slot(priority):
                busy[0] += 1
                peak[0] = max(peak[0], busy[0])
                order.append(name)
                await asyncio.sleep(0.01)
                busy[0] -= 1

        running = [asyncio.create_task(call(0, f"first{i}")) for i in range(2)]
        await asyncio.sleep(0)  # both hold a slot now; the rest wait
        waiting = [asyncio.create_task(call(p, n)) for p, n in
                   ((0, "draw-a"), (-2, "redraw"), (0, "draw-b"), (-1, "check"))]
        doomed = asyncio.create_task(call(-5, "cancelled"))
        await asyncio.sleep(0)
        doomed.cancel()  # a cancelled waiter gives up its place, not a slot
        await asyncio.gather(*running, *waiting)
        return order, peak[0], gate.free

    order, peak, free = asyncio.run(main())
    assert order == ["first0", "first1", "redraw", "check", "draw-a", "draw-b"]
    assert peak == 2 and free == 2
