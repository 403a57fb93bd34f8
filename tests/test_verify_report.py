"""The report's view of verified rounds over time, from a real store (the real Neo4j):
synthetic seed graphs written as the ingest and facts stages write them (``bench_round``),
two rounds, each verified on an unchanged web, then after a fifth of the director pages got
a new version with the birth year moved (``bench_verify``), so each round has two runs
whose counts differ."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from benchmarks.bench_round import load
from benchmarks.bench_verify import move_births
from dwqa_graph.graph.store import Store
from dwqa_graph.report.data import gather
from dwqa_graph.report.render import DPI, PLOT_SIZES, VERIFY_PLOT, render_report
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import new_round
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.rounds.verify import verify_round

GRAPHS = 20
#: Every MOVED-th graph's director page changes.
MOVED = 5


def test_the_report_shows_each_rounds_items_at_each_verify_run(store: Store,
                                                               tmp_path: Path) -> None:
    load(store, GRAPHS)
    made = [new_round(store, seed=s, generator=PathGenerator(), cfg=SampleConfig(reuse="allow"))
            for s in (1, 2)]
    first = [verify_round(store, r.round, refetch=False, read_facts=False) for r in made]
    move_births(store, list(range(0, GRAPHS, MOVED)))
    second = [verify_round(store, r.round, refetch=False, read_facts=False) for r in made]
    # the runs differ: an unchanged web, then one where some items changed (the control
    # that the view does not show one run's counts twice)
    assert all(r.counts["holds"] == r.items > 0 for r in first)
    assert all(0 < r.counts["changed"] < r.items for r in second)

    data = gather(store)
    runs = [(v.round, v.items, v.holds, v.changed, v.unsupported, v.unreachable)
            for v in data.verification]
    want = [(m.round, r.items, r.counts["holds"], r.counts["changed"],
             r.counts["unsupported"], r.counts["unreachable"])
            for m, pair in zip(made, zip(first, second, strict=True), strict=True)
            for r in pair]
    assert runs == want
    files = render_report(data, tmp_path / "rep")
    page = files.index_html.read_text(encoding="utf-8")
    for v, n in zip(data.verification, (1, 2, 1, 2), strict=True):
        assert (f"<tr><td>{v.round}</td><td>{n}</td><td>{v.checked_at}</td>"
                f"<td>{v.items}</td><td>{v.holds}</td><td>{v.changed}</td>"
                "<td>0</td><td>0</td></tr>") in page
    assert f'<img src="{VERIFY_PLOT}"' in page
    png = files.plots["verification"]
    assert png == tmp_path / "rep" / VERIFY_PLOT and png.stat().st_size > 10_000
    with Image.open(png) as im:
        w, h = PLOT_SIZES["verification"]
        assert im.size == (round(w * DPI), round(h * DPI))
    # without a verified round: no plot (a stale one is removed), the section says so
    data.verification = []
    files = render_report(data, tmp_path / "rep")
    assert "verification" not in files.plots and not (tmp_path / "rep" / VERIFY_PLOT).exists()
    assert "no round verified" in files.index_html.read_text(encoding="utf-8")
