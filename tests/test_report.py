"""`dwqa report` rendering: data in, HTML + PNG + JSON out. No Neo4j needed."""

from __future__ import annotations

import html
import json
import re
import threading
from pathlib import Path

import pytest
from PIL import Image
from pydantic import ValidationError

from dwqa_graph.report.models import (
    ContaminationCount,
    LeakSummary,
    MacroScore,
    ReportData,
    ScorePoint,
    StaticScore,
)
from dwqa_graph.report.render import DPI, NO_DATA, PLOT_FILES, PLOT_SIZES, render_report
from dwqa_graph.rounds.collisions import collision_bound

from .conftest import full_data

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HOSTILE = '<script>alert("x")</script>'
HOSTILE_DS = "ds&<img src=x onerror=alert(1)>"
MATH = "agent $\\frac{a}{$ 50%_"  # unbalanced mathtext: would crash a label if parsed


def _check_png(path: Path, section: str) -> None:
    raw = path.read_bytes()
    assert raw[:8] == PNG_MAGIC
    assert len(raw) > 10_000  # a real plot, not an empty canvas
    w, h = PLOT_SIZES[section]
    with Image.open(path) as im:
        im.load()
        assert im.format == "PNG"
        if section == "scores":  # one row of panels per two scorers: height varies
            assert im.size[0] == round(w * DPI) and im.size[1] >= 3.2 * DPI
        else:
            assert im.size == (round(w * DPI), round(h * DPI))
        assert "Software" not in im.info  # stripped for byte-stable output
        # Not a blank image: a plot has many distinct colours.
        assert len(im.convert("RGB").getcolors(maxcolors=1 << 16) or range(1 << 16)) > 20


def _visible_text(page: str) -> str:
    """The page without its tags, entities decoded: what a reader sees."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


# -- full data -------------------------------------------------------------------------
def test_full_report_files_pngs_and_numbers(tmp_path: Path) -> None:
    data = full_data()
    files = render_report(data, tmp_path / "rep")
    assert files.skipped == []
    assert set(files.plots) == set(PLOT_FILES)
    assert files.index_html == tmp_path / "rep" / "index.html"
    assert files.report_json.is_file() and files.index_html.is_file()
    for section, path in files.plots.items():
        assert path == tmp_path / "rep" / PLOT_FILES[section]
        _check_png(path, section)
    page = files.index_html.read_text(encoding="utf-8")
    for fname in PLOT_FILES.values():
        assert f'<img src="{fname}"' in page
    assert NO_DATA not in page
    text = _visible_text(page)
    # Scores, macro, static.
    for number in ("0.412", "0.438", "0.401", "0.417", "0.377", "0.457", "0.633", "300"):
        assert number in text
    # Leak&Test: static gap, p-values (3 significant digits), dynamic gap, epsilon, note.
    for number in ("0.238", "0.871", "1.23e-19", "0.481", "0.021", "0.020", "0.012",
                   "0.030", "need at least 2 gaps"):
        assert number in text
    assert "n/a" in text  # lt-2's p-value is None
    # Collisions: bound vs observed vs simulated, K needed, delta.
    assert format(collision_bound(3, 6, 6), ".3g") in text  # 0.5
    assert format(collision_bound(3, 118, 40), ".3g") in text
    for number in ("0.444", "0.0061", "0.25", "438.2", "19.0", "118, 125"):
        assert number in text
    assert re.search(r"δ\s+0\.05\b", text)
    # Contamination: counts and reasons.
    for snippet in ("answer_in_page: 5", "question_in_page: 2", "0.058", "0.220"):
        assert snippet in text
    # Explanations of the terms.
    for term in ("Agg(D", "macro", "Leak&Test", "ε", "p-value", "δ"):
        assert term in text
    # Self-contained: no script, no external resources.
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<style>" in page


def test_report_json_round_trips(tmp_path: Path) -> None:
    data = full_data()
    files = render_report(data, tmp_path)
    raw = files.report_json.read_text(encoding="utf-8")
    assert ReportData.model_validate_json(raw) == data
    assert json.loads(raw)["collisions"]["graphs"]["q-small"]["k_min"] == 6


def test_output_is_deterministic(tmp_path: Path) -> None:
    a = render_report(full_data(), tmp_path / "a")
    b = render_report(full_data(), tmp_path / "b")
    for x, y in [(a.index_html, b.index_html), (a.report_json, b.report_json),
                 *zip(a.pngs, b.pngs, strict=True)]:
        assert x.name == y.name
        assert x.read_bytes() == y.read_bytes(), x.name


def test_parallel_renders_do_not_interfere(tmp_path: Path) -> None:
    # Object API, no pyplot: renders on threads give the same bytes as a render alone.
    ref = render_report(full_data(), tmp_path / "ref")
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            render_report(full_data(), tmp_path / f"t{i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    for i in range(4):
        for p in ref.pngs:
            assert (tmp_path / f"t{i}" / p.name).read_bytes() == p.read_bytes()


# -- empty and partial data ------------------------------------------------------------
def test_empty_data_renders_no_data_sections(tmp_path: Path) -> None:
    data = ReportData(generated_at="2026-01-01T00:00:00Z")
    files = render_report(data, tmp_path / "new" / "dir")
    assert files.skipped == list(PLOT_FILES)
    assert files.plots == {} and files.pngs == []
    assert not list((tmp_path / "new" / "dir").glob("*.png"))
    page = files.index_html.read_text(encoding="utf-8")
    assert page.count(NO_DATA) == len(PLOT_FILES)
    assert "<img" not in page
    assert "2026-01-01T00:00:00Z" in page
    assert ReportData.model_validate_json(files.report_json.read_text()) == data


def test_sections_skip_independently_and_stale_pngs_go(tmp_path: Path) -> None:
    render_report(full_data(), tmp_path)
    assert (tmp_path / PLOT_FILES["leaktests"]).exists()
    # Only contamination left, and collisions with no graphs (which is no data to plot).
    data = full_data().model_copy(update={
        "scores": [], "macro": [], "leaktests": [],
        "collisions": {"rounds": [1, 2], "delta": 0.05, "graphs": {}, "aggregate": {}}})
    files = render_report(data, tmp_path)
    assert files.skipped == ["scores", "leaktests", "collisions"]
    assert set(files.plots) == {"contamination"}
    for section in files.skipped:
        assert not (tmp_path / PLOT_FILES[section]).exists()
    _check_png(files.plots["contamination"], "contamination")
    page = files.index_html.read_text(encoding="utf-8")
    assert page.count(NO_DATA) == 3
    assert '<img src="contamination.png"' in page and '<img src="scores.png"' not in page
    # The static scores still get their table without a plot.
    assert "0.633" in _visible_text(page)


def test_macro_only_and_single_round_macro_still_plot(tmp_path: Path) -> None:
    data = ReportData(generated_at="x", macro=[
        MacroScore(agent="a", scorer="judge", rounds=[4], score=0.7, ci_low=0.6,
                   ci_high=0.8)])
    files = render_report(data, tmp_path)
    assert "scores" in files.plots
    _check_png(files.plots["scores"], "scores")
    assert "0.700" in _visible_text(files.index_html.read_text(encoding="utf-8"))


def test_none_statistics_and_degenerate_values(tmp_path: Path) -> None:
    data = ReportData(
        generated_at="x",
        scores=[ScorePoint(agent="a", t=1, scorer="f1", score=0.3, ci_low=0.35,
                           ci_high=0.2, n=1, snapshot=False)],  # CI not around the score
        leaktests=[LeakSummary(
            id="deg", agent="a", leaked_agent="b", scorer="em", epsilon=0.01,
            static={"dataset": "s", "a_clean": 0.5, "a_leak": 0.4, "gap": None, "t": None,
                    "df": None, "p_value": None, "n": 1, "reject": False},
            dynamic={"rounds": [], "clean": [], "leaked": [], "gaps": [], "gap": None,
                     "t": None, "df": None, "p_value": None, "reject": False,
                     "note": "need at least 2 gaps"})],
        collisions={"rounds": [1, 2], "delta": 0.1,
                    "graphs": {"g": {"k_per_round": [0, 0], "k_min": 0, "j_max": 0,
                                     "observed_repeat_rate": None}},
                    "aggregate": {"graphs": 1, "max_bound": None, "mean_bound": None,
                                  "observed_repeat_rate": None, "graphs_over_delta": 0,
                                  "k_median": 0}},
        contamination=[ContaminationCount(dataset="d", kind="other", flagged=0, total=0)],
    )
    files = render_report(data, tmp_path)
    assert files.skipped == []
    for section, path in files.plots.items():
        _check_png(path, section)
    text = _visible_text(files.index_html.read_text(encoding="utf-8"))
    assert "n/a" in text
    assert "-0.100" in text  # static gap derived from a_leak - a_clean when gap is None
    assert "need at least 2 gaps" in text
    assert ReportData.model_validate_json(files.report_json.read_text()) == data


# -- hostile strings -------------------------------------------------------------------
def test_hostile_strings_are_escaped(tmp_path: Path) -> None:
    data = full_data(agent=HOSTILE, dataset=HOSTILE_DS)
    data.leaktests[0].id = MATH
    data.collisions["graphs"]["<b>q</b>"] = data.collisions["graphs"].pop("q-big")  # type: ignore[index]
    data.contamination[0].by_reason = {"<i>reason</i>": 1}
    data.scores.append(ScorePoint(agent="_hidden ünïcødé 漢字 \U0001f600\n$x$", t=2,
                                  scorer="<judge>", score=0.9, ci_low=0.8, ci_high=1.0,
                                  n=3, snapshot=True))
    data.generated_at = "</title><script>x</script>"
    files = render_report(data, tmp_path)
    page = files.index_html.read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    assert "<img src=x" not in page and "<b>q</b>" not in page and "<i>reason" not in page
    assert "<judge>" not in page
    assert html.escape(HOSTILE) in page
    assert html.escape(HOSTILE_DS) in page
    assert html.escape("<b>q</b>") in page and html.escape("<i>reason</i>: 1") in page
    assert html.escape(MATH) in page
    text = _visible_text(page)
    assert HOSTILE in text and HOSTILE_DS in text and MATH in text
    # Plots survive mathtext, missing glyphs and legend-hiding underscores (no warnings:
    # pytest turns them into errors).
    for section, path in files.plots.items():
        _check_png(path, section)
    assert ReportData.model_validate_json(files.report_json.read_text()) == data


def test_only_known_image_sources(tmp_path: Path) -> None:
    files = render_report(full_data(agent=HOSTILE, dataset=HOSTILE_DS), tmp_path)
    page = files.index_html.read_text(encoding="utf-8")
    assert sorted(re.findall(r'<img src="([^"]*)"', page)) == sorted(PLOT_FILES.values())


# -- models ----------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_models_reject_non_finite_numbers(bad: float) -> None:
    with pytest.raises(ValidationError):
        ScorePoint(agent="a", t=1, scorer="em", score=bad, ci_low=0, ci_high=1, n=1,
                   snapshot=True)
    with pytest.raises(ValidationError, match="finite"):
        LeakSummary(id="x", agent="a", leaked_agent="b", scorer="em", epsilon=0.0,
                    static=None, dynamic={"gaps": [0.1, bad]})
    with pytest.raises(ValidationError, match="finite"):
        ReportData(generated_at="x", collisions={"graphs": {"g": {"bound": bad}}})


def test_models_reject_unknown_fields() -> None:
    with pytest.raises(ValidationError, match="scroe"):
        StaticScore.model_validate({"agent": "a", "dataset": "d", "scorer": "em",
                                    "scroe": 0.5, "score": 0.5, "ci_low": 0, "ci_high": 1,
                                    "n": 1})
