"""A round's quality numbers (rejections by reason, NO_ITEM reasons, coverage, attempts) in
`round show`, the round's stored quality and the HTML report, on real rounds in a real Neo4j."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.report.data import gather
from dwqa_graph.report.render import render_report
from dwqa_graph.rounds import path_generate
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.render import Rendered
from dwqa_graph.rounds.round import export_rows, new_round, show_round
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from tests.paths import EXAMPLES


def _section(html: str) -> str:
    m = re.search(r'<section id="quality">(.*?)</section>', html, re.S)
    assert m, "no quality section"
    return m.group(1)


def test_report_shows_the_rounds_quality(films: Store, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    store = films
    rep = new_round(store, seed=5, generator=PathGenerator())
    assert rep.graphs == 10 and rep.items > 0 and rep.attempts >= rep.items
    info = show_round(store, rep.round)
    assert info["quality"]["rejected_by_reason"] == rep.rejected_by_reason
    assert info["quality"]["set"] == rep.set_quality and rep.set_quality["median_k"] > 0
    data = gather(store)
    [q] = data.quality
    assert (q.t, q.graphs, q.items, q.no_item, q.attempts) == (
        rep.round, rep.graphs, rep.items, rep.no_item, rep.attempts)
    assert q.coverage == rep.coverage and q.recorded and q.patterns == rep.patterns
    assert q.no_item_reasons == rep.no_item_reasons
    assert q.rejected_by_reason == rep.rejected_by_reason
    page = render_report(data, tmp_path / "a").index_html.read_text()
    assert '<a href="#quality">' in page
    html = _section(page)
    rejected, no_item = html.split("NO_ITEM seed graphs by reason")
    for reason, n in rep.no_item_reasons.items():
        assert f"<tr><td>{reason}</td><td>{n}</td></tr>" in no_item
    for reason, n in rep.rejected_by_reason.items():
        assert f"<tr><td>{reason}</td><td>{n}</td></tr>" in rejected
    assert f"<td>{rep.graphs}</td><td>{rep.items}</td><td>{rep.no_item}</td>" in html
    assert f"{100 * rep.coverage:.1f}%" in html
    # report.json carries the same numbers
    saved = json.loads((tmp_path / "a" / "report.json").read_text())
    assert saved["quality"][0]["rejected_by_reason"] == rep.rejected_by_reason

    # Positive control: the same draws worded as cloze quizzes over quoted evidence -> every
    # candidate fails self_contained, and the section says so.
    def quoting(path: Any, rng: Any, last_resort: bool = False) -> Rendered:
        r = render(path, rng, last_resort)
        quoted = "; ".join(f'({n}) "{f.evidence}"' for n, f in enumerate(path.facts, 1))
        return r.model_copy(update={"question": f"What single name fills every blank: "
                                                f"{quoted}?"})

    render = path_generate.render
    monkeypatch.setattr(path_generate, "render", quoting)
    bad = new_round(store, seed=5, generator=PathGenerator(), previous=0)  # the same draws
    assert bad.items == 0 and bad.attempts > 0
    quoted = bad.rejected_by_reason["quoted_passage"]
    assert quoted > 0 and "quoted_passage" in bad.no_item_reasons
    data2 = gather(store)
    assert [x.t for x in data2.quality] == [rep.round, bad.round]
    q2 = data2.quality[1]
    assert q2.items == 0 and q2.coverage == 0.0
    html2 = _section(render_report(data2, tmp_path / "b").index_html.read_text())
    assert html2 != html
    assert f"<tr><td>quoted_passage</td><td>{rep.rejected_by_reason.get('quoted_passage', 0)}" \
           f"</td><td>{quoted}</td></tr>" in html2
    assert f"<th>round {bad.round}</th>" in html2


def test_a_round_asks_one_value_once(films_pinned: Store,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Path generator 20: no two items of a round read one answer from one fact ("In what
    year was the director of The Salt Road born?" beside the same through another of his
    films: other words, one question). The example's directors each made several films, so
    rounds drawn without the check ask some director's birth twice (the positive control).
    The temporal side of the rule is ``test_fact_paths``'s."""
    def repeated(seeds: range) -> list[int]:
        """Per round, its items whose answer and answering fact an earlier item has."""
        out = []
        for seed in seeds:
            rep = new_round(films_pinned, seed=seed, generator=PathGenerator(),
                            cfg=SampleConfig(reuse="allow"))
            seen: set[tuple[str, str]] = set()
            n = 0
            for row in export_rows(films_pinned, rep.round):
                if row["pattern"] != "bridge":
                    continue
                key = (row["provenance"][-1]["fact_id"], row["answer"])
                n += key in seen
                seen.add(key)
            out.append(n)
        return out

    seeds = range(7, 13)  # (on the pinned port, seed 10's round meets the case)
    assert repeated(seeds) == [0 for _ in seeds]
    monkeypatch.setattr(path_generate.PathRound, "answers_again",
                        lambda self, keys: False)
    assert any(repeated(seeds))


#: The web's port is pinned: document ids, and so which of two facts stating one thing a
#: path takes, depend on the URLs.
SHARED_PAGES_PORT = 8772


def _shared_pages(store: Store, nlp: CoreNLP, tmp_path: Path) -> None:
    """Seed graphs over the example's pages of Anton Reske and his studio, each of which
    says he founded it in 1949: one graph cites both, two cite his page only."""
    with serve(EXAMPLES / "web", port=SHARED_PAGES_PORT) as web:
        reske, studio = (f"{web.url}/film-{p}.html" for p in ("anton-reske", "nordlicht-studios"))
        runs = (("What did Anton Reske found, and when?", [reske, studio]),
                ("When was Anton Reske born?", [reske]), ("Who was Anton Reske?", [reske]))
        log = tmp_path / "reske.jsonl"
        log.write_text("".join(json.dumps({
            "question": q, "answer": "things", "thinking": "- They say things [1].",
            "sources": [{"id": i, "url": u, "title": u} for i, u in enumerate(pages, 1)]})
            + "\n" for q, pages in runs))
        ingest(store, [log], dataset="reske")
        fetch(store, FetchOptions(allow_private=True))
    extract_claims(store, extractor="rule")
    extract_facts(store, nlp=nlp)


def _repeats(store: Store, seeds: range) -> list[list[str]]:
    """Per round drawn with each seed, the questions it asks more than once."""
    out = []
    for seed in seeds:
        rep = new_round(store, seed=seed, generator=PathGenerator(),
                        cfg=SampleConfig(reuse="allow"))
        asked = [r["question"] for r in export_rows(store, rep.round)]
        out.append(sorted({q for q in asked if asked.count(q) > 1}))
    return out


def test_a_round_asks_each_question_once(store: Store, nlp: CoreNLP, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Two paths of other facts can word one question ("... the year Anton Reske founded
    Nordlicht Studios?" from the founding read on his page and on the studio's), and graphs
    that share the pages may each draw one: the round asks it once. Since path generator 16
    each graph takes such a path's facts from the fewest sentences, so these pages' graphs
    draw the same path, which a round asks once anyway; the wordings are made to collide
    here, so that only the check keeps a question from being asked twice."""
    _shared_pages(store, nlp, tmp_path)
    seeds = range(1, 13)
    assert _repeats(store, seeds) == [[] for _ in seeds]
    real = path_generate.render

    def alike(path: Any, rng: Any, last_resort: bool = False) -> Any:
        got = real(path, rng, last_resort)
        return got.model_copy(update={"question": "What did Anton Reske do, and when?"})

    monkeypatch.setattr(path_generate, "render", alike)
    assert _repeats(store, seeds) == [[] for _ in seeds]
    # the positive control: without the check, the same rounds ask some question twice
    monkeypatch.setattr(path_generate.PathRound, "asks_again", lambda self, rendered: False)
    assert any(_repeats(store, seeds))
