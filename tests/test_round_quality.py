"""A round's quality numbers (rejections by reason, NO_ITEM reasons, coverage, attempts) in
`round show`, the round's stored quality and the HTML report, on real rounds in a real Neo4j."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dwqa_graph.graph.store import Store
from dwqa_graph.report.data import gather
from dwqa_graph.report.render import render_report
from dwqa_graph.rounds import path_generate
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.render import Rendered
from dwqa_graph.rounds.round import new_round, show_round


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
