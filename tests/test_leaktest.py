"""Leak&Test end to end, offline: the memorising leaked agent over the baseline web agent.

The paper's two claims, reproduced with real parts (Neo4j, fetched pages, fact-path rounds):
a static benchmark leaked whole gives a large, significant gain; on fresh rounds a
verbatim-recall model gains only on the questions a round repeats from the leaked one.
"""

from __future__ import annotations

import json
import math
import re
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.cli.main import main
from dwqa_graph.errors import InputError
from dwqa_graph.evaluation.agents import make_agent
from dwqa_graph.evaluation.datasets import import_static
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.leakage.leaktest import leaktest, list_leaktests
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from tests.paths import EXAMPLES

from .conftest import HOTPOT, PATH_PAGES, build_facts


def test_static_leak_is_significant_and_fresh_rounds_are_not(films: Store,
                                                             env: dict[str, str],
                                                             tmp_path: Path) -> None:
    store = films
    import_static(store, HOTPOT, "hotpot")
    leak_file = tmp_path / "leak.jsonl"
    result = CliRunner().invoke(main, [
        "leaktest", "--agent", "baseline", "--leaked-agent", "memorize:baseline",
        "--rounds", "5", "--epsilon", "0.02", "--static", "hotpot",
        "--export-leak", str(leak_file), "--json"], env=env)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    static, dynamic = out["static"], out["dynamic"]
    for part in (static, dynamic):
        assert {"gap", "t", "df", "p_value"} <= part.keys()
    # Claim (i): leaking the static set inflates the score, significantly.
    assert static["n"] == 27 and static["a_leak"] == 1.0
    assert static["gap"] > 0.3 and static["p_value"] < 0.05 and static["reject"] is True
    assert static["df"] == 26
    # Claim (ii) holds only as far as the rounds are fresh. A seed graph has few paths, so
    # rounds may repeat some questions word for word, and a verbatim-recall model gains
    # exactly there: its gap on round t can never
    # exceed the share of round t's questions repeated from the leaked round t-1 (and is 0
    # where nothing repeats). That is what the collision bound is for: small K, repeats.
    assert len(dynamic["gaps"]) == 4 and len(dynamic["rounds"]) == 4 and dynamic["df"] == 3
    questions = {r["t"]: set(r["qs"]) for r in store.read(
        "MATCH (r:Round)-[:CONTAINS]->(i:QAItem) RETURN r.t AS t, collect(i.question) AS qs")}
    for t, gap in zip(dynamic["rounds"], dynamic["gaps"], strict=True):
        repeated = len(questions[t] & questions[t - 1]) / len(questions[t])
        assert 0.0 <= gap <= repeated + 1e-9, (t, gap, repeated)
    assert (dynamic["reject"] is True) == (dynamic["p_value"] < 0.05)
    # The leaked rounds are exported as chat fine-tuning lines, one per leaked item.
    lines = [json.loads(x) for x in leak_file.read_text().splitlines()]
    assert lines and all([m["role"] for m in x["messages"]] == ["system", "user", "assistant"]
                         for x in lines)
    leaked_items = store.read(
        "MATCH (r:Round)-[:CONTAINS]->(i) WHERE r.t IN $ts RETURN count(i) AS n",
        {"ts": dynamic["leaked_rounds"]})[0]["n"]
    assert len(lines) == leaked_items
    # Stored: the result and every run behind it.
    [stored] = list_leaktests(store)
    assert stored.model_dump(mode="json") == out
    runs = store.read("MATCH (e:EvalRun) WHERE e.id IN $ids RETURN count(e) AS n",
                      {"ids": list(out["runs"].values())})[0]["n"]
    assert runs == len(out["runs"]) == 2 + 5 + 4
    # The report reads all of it back from the graph (no contamination check was run here).
    result = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "report"), "--json"],
                                env=env)
    assert result.exit_code == 0, result.output
    files = json.loads(result.stdout)
    assert files["skipped"] == ["contamination"]
    assert set(files["plots"]) == {"scores", "leaktests", "collisions"}
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [lt["id"] for lt in data["leaktests"]] == [out["id"]]
    assert {(m["agent"], m["scorer"]) for m in data["macro"]} == {
        ("baseline", "em"), ("memorize:baseline", "em")}
    assert {s["dataset"] for s in data["static"]} == {"hotpot"}


def test_leaked_agent_that_cannot_learn_is_used_as_given(films: Store) -> None:
    """Without an in-process leak (a model fine-tuned elsewhere), M_leak is M itself here:
    every gap is exactly 0 -> the defined zero-variance result, not NaN."""
    store = films
    a, b = make_agent("baseline", store=store), make_agent("baseline", store=store)
    report = leaktest(store, a, b, rounds=3, generator=PathGenerator(), seed=11)
    assert report.leaked_in_process is False
    assert report.dynamic["gaps"] == [0.0, 0.0]
    assert report.dynamic["t"] is None and report.dynamic["p_value"] == 1.0
    assert report.dynamic["reject"] is False and report.static is None


def test_too_few_rounds_is_a_clear_error(store: Store) -> None:
    a = make_agent("baseline", store=store)
    with pytest.raises(ValueError, match="--rounds T >= 2"):
        leaktest(store, a, a, rounds=1, generator=PathGenerator())


class OracleLeakedAgent:
    """Positive control: a leaked model whose leak *does* carry over to fresh rounds. Once it
    has been leaked anything it answers every question right except its 1st, 4th, 9th,
    16th ... (the perfect squares): gaps well above 0.3 that differ from round to round,
    whatever the draws (an earlier 60%-by-question-hash oracle failed by chance when a
    round's few questions hashed badly). Leak&Test must detect it: a defined t statistic,
    equal to scipy's, and a rejection."""

    spec = "python:tests:oracle-leaked"

    def __init__(self, store: Store) -> None:
        self.store, self.leaked, self.calls = store, 0, 0
        self._lock = threading.Lock()  # evaluate() asks from several threads

    def leak(self, pairs) -> int:  # type: ignore[no-untyped-def]
        self.leaked = len(list(pairs))
        return self.leaked

    def forget(self) -> None:
        self.leaked = 0

    def answer(self, question: str):  # type: ignore[no-untyped-def]
        from dwqa_graph.evaluation.agents import AgentAnswer
        rows = self.store.read("MATCH (i:QAItem {question: $q}) RETURN i.answer AS a LIMIT 1",
                               {"q": question})
        if not self.leaked:
            return AgentAnswer(answer="")
        with self._lock:
            self.calls += 1
            n = self.calls
        knows = math.isqrt(n) ** 2 != n
        return AgentAnswer(answer=rows[0]["a"] if knows and rows else "")

    def close(self) -> None:
        pass


def test_leak_that_carries_over_is_detected(films: Store) -> None:
    from scipy import stats
    store = films
    clean = make_agent("python:tests.test_leaktest:never_right", store=store)
    # reuse="allow": full rounds (a fresh round skips graphs whose every path uses a fact
    # of the round before).
    report = leaktest(store, clean, OracleLeakedAgent(store), rounds=5,
                      generator=PathGenerator(), seed=31, epsilon=0.02,
                      cfg=SampleConfig(reuse="allow"))
    d = report.dynamic
    assert report.leaked_in_process is True
    assert all(g > 0.3 for g in d["gaps"]) and len(set(d["gaps"])) > 1  # non-degenerate
    ref = stats.ttest_1samp(d["gaps"], 0.02, alternative="greater")
    assert d["t"] == pytest.approx(ref.statistic) and d["p_value"] == pytest.approx(ref.pvalue)
    assert d["df"] == 3 and d["reject"] is True and d["p_value"] < 0.05


def never_right(question: str) -> str:
    return ""


# -- leaked agents that learn, and the leak-transfer curve -----------------------------------
def brute_force_reuse(store: Store, rounds: list[int]) -> list[dict[str, int]]:
    """Fact reuse counted the slow, obvious way from every (round, item, fact) triple: a
    fact is reused when its sentence (version, start) is one an item of the round before
    used."""
    rows = store.read("MATCH (r:Round)-[:CONTAINS]->(i:QAItem)-[:USES]->(f:Fact)"
                      "-[:READ_FROM]->(v:DocumentVersion) "
                      "RETURN r.t AS t, i.id AS item, v.id + ':' + toString(f.start) AS fact")
    uses: dict[int, dict[str, set[str]]] = {}
    for r in rows:
        uses.setdefault(r["t"], {}).setdefault(r["item"], set()).add(r["fact"])
    out = []
    for prev, nxt in zip(rounds, rounds[1:], strict=False):
        seen: set[str] = set()
        for claims in uses.get(prev, {}).values():
            seen |= claims
        items = uses.get(nxt, {})
        out.append({"prev": prev, "next": nxt, "items": len(items),
                    "any_reused": sum(1 for c in items.values() if c & seen),
                    "all_reused": sum(1 for c in items.values() if c <= seen)})
    return out


def test_leak_curve_reuse_matches_brute_force(films_pinned: Store, env: dict[str, str],
                                              tmp_path: Path) -> None:
    from dwqa_graph.evaluation.evaluate import round_items
    from dwqa_graph.leakage.curve import fact_reuse, list_leakcurves
    from dwqa_graph.leakage.leaktest import leaked_items
    from dwqa_graph.rounds.round import export_rows

    store = films_pinned
    for bad, message in ((["--reuse-settings", "all,2"], "use fresh (or all)"),
                         (["--reuse-settings", "fresh,reuse:1.5"], "0 < P <= 1"),
                         (["--reuse", "fresh,reuse"], "takes one setting"),
                         (["--reuse-settings", "all", "--static", "x"], "drop --static")):
        result = CliRunner().invoke(main, ["leaktest", "--agent", "baseline", "--leaked-agent",
                                           "knowledge:baseline", "--rounds", "3", *bad],
                                    env=env)
        assert result.exit_code != 0 and message in result.output
    result = CliRunner().invoke(main, [
        "leaktest", "--agent", "baseline", "--leaked-agent", "knowledge:baseline",
        "--rounds", "3", "--reuse-settings", "fresh,disjoint,reuse", "--json"],
        env=env)
    assert result.exit_code == 0, result.output
    curve = json.loads(result.stdout)
    assert [p["setting"] for p in curve["points"]] == ["fresh", "disjoint", "reuse"]
    assert [p["reuse_mode"] for p in curve["points"]] == ["fresh", "disjoint", "prefer"]
    for p in curve["points"]:
        assert len(p["rounds"]) == 3 and len(p["gaps"]) == 2 and p["df"] in (1, None)
        expected = brute_force_reuse(store, p["rounds"])
        assert p["reuse_pairs"] == expected
        assert fact_reuse(store, p["rounds"]) == expected
        items = sum(e["items"] for e in expected)
        assert p["items"] == items > 0
        assert p["reuse"] == sum(e["any_reused"] for e in expected) / items
        assert p["reuse_all"] == sum(e["all_reused"] for e in expected) / items
        assert p["ci_low"] is None or p["ci_low"] <= p["gap"] <= p["ci_high"]
    fresh, disjoint, heavy = curve["points"]
    # The knob, counted by brute force above: a disjoint round uses no fact of the round
    # before it; a fresh round no item made of such facts alone (it may share one); a
    # heavy-reuse round only such facts (every graph of round t that gives an item again
    # does so from round t's facts).
    assert disjoint["reuse"] == 0.0 and disjoint["reuse_all"] == 0.0
    assert fresh["reuse_all"] == 0.0
    assert heavy["reuse"] >= 0.9 and heavy["reuse_all"] >= 0.8
    # What a leaked model that learned the facts gains follows: nothing on fresh or
    # disjoint rounds, clearly more where the facts come back.
    # (On a free port the films' document ids, and so their rounds, change from run to run:
    # 15-20 items a setting, where one item moves a gap by ~0.06. On the pinned port the
    # rounds are the same in every run; the bounds below still leave room to fail: a leak
    # that carried over into fresh rounds would raise the clean gaps to the heavy one's.)
    for clean in (fresh, disjoint):
        assert clean["gap"] <= 0.15 and clean["reject"] is False
        assert heavy["gap"] > clean["gap"] + 0.1
    assert [c.model_dump(mode="json") for c in list_leakcurves(store)] == [curve]
    # A leak carries each round item's facts, the same ones its provenance lists.
    t = heavy["rounds"][0]
    leaked = {x.id: x for x in leaked_items(store, round_items(store, t))}
    rows = export_rows(store, t)
    assert rows and set(leaked) == {r["id"] for r in rows}
    for r in rows:
        assert [f.fact_id for f in leaked[r["id"]].facts] == [
            p["fact_id"] for p in r["provenance"]]
        assert [f.text for f in leaked[r["id"]].facts] == [
            p["evidence"] for p in r["provenance"]]
    # The report draws the curve in its own section, from the stored LeakCurve.
    result = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "r"), "--json"],
                                env=env)
    assert result.exit_code == 0, result.output
    assert "leakcurve" in json.loads(result.stdout)["plots"]
    assert (tmp_path / "r" / "leakcurve.png").stat().st_size > 0
    assert json.loads((tmp_path / "r" / "leakcurves.json").read_text()) == [curve]
    page = (tmp_path / "r" / "index.html").read_text()
    assert page.count('<section id="leakcurve">') == 1 and page.endswith("</body></html>\n")
    assert f"{heavy['reuse']:.3f}" in page and f"{fresh['reuse']:.3f}" in page


def test_mean_interval() -> None:
    from scipy import stats

    from dwqa_graph.leakage.stats import mean_interval
    xs = [0.1, 0.3, 0.2, 0.5]
    lo, hi = mean_interval(xs)
    ref = stats.t.interval(0.95, 3, loc=sum(xs) / 4, scale=stats.sem(xs))
    assert (lo, hi) == pytest.approx(ref)
    assert mean_interval([0.2, 0.2]) == (0.2, 0.2) and mean_interval([0.1]) == (None, None)


def test_fresh_rounds_running_out_is_said_before_any_evaluation(
        store: Store, nlp: CoreNLP, tmp_path: Path) -> None:
    """A small pool gives only so many disjoint rounds: Leak&Test says how many, and what to
    do, before it has evaluated anything (it used to fail after scoring the first rounds).
    The pool: a film and its director, whose every path uses the film's credit.
    Positive control: the same pool with repeats allowed runs to the end."""
    build_facts(store, nlp, tmp_path,
                {t: PATH_PAGES[t] for t in ("Titanic (1997 film)", "James Cameron")})
    a = make_agent("baseline", store=store)
    with pytest.raises(InputError) as err:
        leaktest(store, a, make_agent("memorize:baseline", store=store), rounds=12,
                 generator=PathGenerator(), cfg=SampleConfig(reuse="disjoint"))
    assert re.search(r"support \d+ rounds? of Leak&Test, not the 12 asked.*Nothing was "
                     r"evaluated.*--reuse avoid", str(err.value)), str(err.value)
    assert store.read("MATCH (r:EvalRun) RETURN count(r) AS n")[0]["n"] == 0
    out = leaktest(store, a, make_agent("memorize:baseline", store=store), rounds=3,
                   generator=PathGenerator(), cfg=SampleConfig(reuse="avoid"))
    assert len(out.dynamic["gaps"]) == 2


def test_fact_path_rounds_hold_the_protocols_claims(store: Store, nlp: CoreNLP,
                                                    env: dict[str, str]) -> None:
    """The demo's Leak&Test on the example's film pages, through the CLI's defaults (the
    fact-path generator, fresh rounds): a leaked model gains nothing on fresh rounds, and
    the positive control (round t+1 asks round t's facts again) shows a significant gain."""
    # on the port the log cites: document ids, and so every round's draws, depend on the
    # URLs (on a random port the rounds -- and how many items each holds -- varied by run)
    with serve(EXAMPLES / "web", port=8765):
        ingest(store, [EXAMPLES / "logs" / "film_runs.jsonl"], dataset="films")
        fetch(store, FetchOptions(allow_private=True))
    extract_claims(store, extractor="rule")
    extract_facts(store, nlp=nlp)

    def run(leaked: str, reuse: str) -> dict:
        result = CliRunner().invoke(main, [
            "leaktest", "--agent", "baseline", "--leaked-agent", leaked, "--rounds", "5",
            "--dataset", "films", "--reuse", reuse, "--json"], env=env)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["dynamic"]

    for leaked in ("memorize:baseline", "knowledge:baseline"):
        fresh = run(leaked, "fresh")
        assert len(fresh["gaps"]) == 4 and fresh["reject"] is False, fresh
    control = run("knowledge:baseline", "reuse")
    assert control["reject"] is True and control["p_value"] < 0.05, control
    assert min(control["gaps"]) > 0
    # every round came from the fact-path generator and none was empty
    rounds = store.read("MATCH (r:Round) RETURN r.generator AS g, "
                        "COUNT { (r)-[:CONTAINS]->() } AS items")
    assert len(rounds) == 15 and all(r["g"] == "paths" and r["items"] >= 5 for r in rounds)
