"""The report: ``gather`` reads the graph into ``ReportData`` (report/models.py), and
``render_report`` draws it as HTML + PNG + JSON (report/render.py, matplotlib)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dwqa_graph.graph.store import Store
    from dwqa_graph.report.models import ReportFiles


def write_report(store: Store, out: Path, *, collision_trials: int = 0) -> ReportFiles:
    """Gather everything the graph holds about rounds, runs and leakage checks and write
    ``index.html``, ``report.json`` and the plots into the folder ``out``."""
    from dwqa_graph.report.data import gather
    from dwqa_graph.report.leakcurve import add_leakcurves
    from dwqa_graph.report.render import render_report  # matplotlib: only when reporting

    files = render_report(gather(store, collision_trials=collision_trials), Path(out))
    return add_leakcurves(store, files)  # its own section: the leak-transfer curve
