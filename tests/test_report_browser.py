"""The report as a real browser draws it: headless Chromium (Debian's ``chromium``; the test
script installs it) takes a screenshot, and the screenshot must show a page with its plots.

The check is on pixels, not on our own HTML: a page whose images do not load, or an empty
page, fails it (both are tested as negative controls)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from dwqa_graph.report.models import (
    Breakdown,
    ExampleItem,
    Provenance,
    ReportData,
    RoundQuality,
    RunRow,
)
from dwqa_graph.report.render import render_report

from .conftest import full_data

WIDTH, HEIGHT = 1200, 3000


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.fail("chromium is not installed: scripts/test installs it (apt-get install "
                    "chromium); install it to run the report's screenshot test")
    return found


def screenshot(page: Path, out: Path) -> Image.Image:
    subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--screenshot={out}", f"--window-size={WIDTH},{HEIGHT}",
         "--virtual-time-budget=5000", page.resolve().as_uri()],
        check=True, capture_output=True, timeout=120)
    im = Image.open(out)
    im.load()
    return im.convert("RGB")


def colourful_share(im: Image.Image) -> float:
    """Share of clearly coloured pixels (saturated, not grey text or white page, and not the
    blue of links): plot lines, bars and markers. A page whose images are missing has next
    to none."""
    hsv = np.asarray(im.convert("HSV")).astype(int)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    link_blue = (hue > 160) & (hue < 175)  # PIL's hue is 0-255: 240 degrees is 170
    return float(((sat > 90) & (val > 60) & ~link_blue).mean())


def ink_share(im: Image.Image) -> float:
    """Share of non-white pixels: anything drawn at all."""
    grey = im.convert("L").point(lambda v: 255 if v < 245 else 0)
    return grey.histogram()[255] / (im.size[0] * im.size[1])


def rich_data() -> ReportData:
    data = full_data()
    return data.model_copy(update={
        "provenance": Provenance(package_version="0.1.0", rounds=[
            {"t": t, "seed": 100 + t, "theta_hash": f"{t}a9c0ffee12", "generator": "rule",
             "frozen": t < 3, "items": 40} for t in (1, 2, 3)]),
        "runs": [RunRow(id=f"run-{i}", agent="baseline", target=f"round:{i}",
                        created_at="2026-01-02T03:00:00Z", n=40, errors=i, status="ok",
                        shown=True) for i in (1, 2, 3)]
        + [RunRow(id="run-x", agent="perplexica:http://127.0.0.1:3000", target="freshqa",
                  split="test", created_at="2026-01-02T03:01:00Z", n=40, errors=40,
                  status="failed", failure="the agent failed on all 40 items", shown=False)],
        "breakdowns": [Breakdown(agent="baseline", target="round:3", by=by, group=g,
                                 scorer=sc, score=0.4, n=10)
                       for by, groups in (("pattern", ("causal", "temporal")),
                                          ("hops", ("2", "3")))
                       for g in groups for sc in ("em", "f1")],
        "examples": [ExampleItem(round=3, seed=103, theta_hash="3a9c0ffee12",
                                 pattern="temporal", hops=2,
                                 question="Which opened first, the tramway or the levee?",
                                 answer="the levee", seed_question="When did the tram open?",
                                 evidence=["The levee opened in 2019.",
                                           "The tramway opened on 14 September 2023."],
                                 urls=["http://127.0.0.1:8765/levee.html"])],
        "quality": [RoundQuality(t=t, generator="rule", graphs=50, items=40, no_item=10,
                                 coverage=0.8, attempts=70 + t, patterns={"temporal": 40},
                                 check_rejections={"self_contained": t, "not_verbatim": 2},
                                 check_pass_rates={"self_contained": 0.95,
                                                   "not_verbatim": 0.97},
                                 rejected_by_reason={"quoted_passage": t, "copied_run": 2},
                                 no_item_reasons={"no_applicable_pattern": 10})
                    for t in (1, 2, 3)],
    })


@pytest.mark.slow  # starts Chromium
def test_the_report_renders_in_chromium(tmp_path: Path) -> None:
    files = render_report(rich_data(), tmp_path / "rep")
    im = screenshot(files.index_html, tmp_path / "shot.png")
    assert im.size == (WIDTH, HEIGHT)
    assert ink_share(im) > 0.05, ink_share(im)
    good = colourful_share(im)
    assert good > 0.0005, good

    # Negative controls: the same page with its plots missing, and an empty page.
    for png in files.plots.values():
        png.unlink()
    broken = screenshot(files.index_html, tmp_path / "broken.png")
    assert colourful_share(broken) < good / 10
    empty = tmp_path / "empty.html"
    empty.write_text("<!DOCTYPE html><html><body></body></html>")
    blank = screenshot(empty, tmp_path / "blank.png")
    assert ink_share(blank) < 0.001 and colourful_share(blank) == 0.0
