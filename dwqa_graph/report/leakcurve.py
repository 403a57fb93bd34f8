"""The report's leak-transfer section: ``leakcurve.png``, ``leakcurves.json`` and a table.

Kept apart from ``render.py`` (its own plot, its own JSON file, its own HTML section added
before ``</body>``), so the main report layout can change without touching it. Drawn only
when the graph holds a curve (``dwqa leaktest --reuse-settings``); otherwise nothing changes.

The plot: per stored curve, the mean dynamic gap (with its 95% t interval) against the
measured fact reuse, the collision bound on a second axis, and ε; a filled marker is a
setting where the gap test rejects H0 (mean gap ≤ ε).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dwqa_graph.graph.store import Store
from dwqa_graph.leakage.curve import LeakCurve, list_leakcurves
from dwqa_graph.report.models import ReportFiles

PLOT = "leakcurve.png"
DATA = "leakcurves.json"
SECTION = "leakcurve"
DPI = 100


def _f(x: float | int | None, spec: str = ".3f") -> str:
    return "n/a" if x is None else format(x, spec)


def plot_curves(curves: list[LeakCurve], path: Path) -> None:
    fig = Figure(figsize=(10.0, 5.0), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    bound_ax = ax.twinx()
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
    for n, c in enumerate(curves):
        color = palette[n % len(palette)]
        pts = sorted((p for p in c.points if p.reuse is not None and p.gap is not None),
                     key=lambda p: p.reuse or 0.0)
        xs = [p.reuse or 0.0 for p in pts]
        ys = [p.gap or 0.0 for p in pts]
        label = html.unescape(f"{c.leaked_agent} vs {c.agent}")[:60].replace("$", r"\$")
        ax.plot(xs, ys, "-", color=color, label=f"#{n + 1} {label}")
        for p, x, y in zip(pts, xs, ys, strict=True):
            if p.ci_low is not None and p.ci_high is not None:
                ax.errorbar([x], [y], yerr=[[y - p.ci_low], [p.ci_high - y]], color=color,
                            capsize=3, fmt="none")
            ax.plot([x], [y], "o", color=color, markerfacecolor=color if p.reject else "white")
            ax.annotate(p.setting, (x, y), textcoords="offset points", xytext=(4, 6),
                        fontsize="small")
        bounds = [(p.reuse or 0.0, p.bound_mean) for p in pts if p.bound_mean is not None]
        if bounds:
            bound_ax.plot([b[0] for b in bounds], [b[1] for b in bounds], ":", color=color,
                          label="collision bound, mean over graphs (dotted, right axis)"
                          if n == 0 else None)
        ax.axhline(c.epsilon, color="grey", linestyle="--", linewidth=0.8,
                   label=f"ε = {c.epsilon}" if n == 0 else None)
    ax.set_xlabel("measured fact reuse: share of round t+1 items using a round-t fact")
    ax.set_ylabel("mean gap on fresh rounds")
    bound_ax.set_ylabel("collision bound t(t−1)J/(2K²)")
    bound_ax.set_ylim(0, 1.05)
    handles, labels = ax.get_legend_handles_labels()
    h2, l2 = bound_ax.get_legend_handles_labels()
    fig.legend(handles + h2, labels + l2, loc="outside lower center", fontsize="small",
               ncols=2)
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})


def section_html(curves: list[LeakCurve]) -> str:
    e = html.escape
    parts = [
        f'<section id="{SECTION}"><h2>Leak-transfer curve</h2>',
        '<p class="explain">Leak&amp;Test at several settings of fact reuse between '
        "consecutive rounds (<code>dwqa leaktest --reuse-settings</code>): <b>fresh</b> "
        "(alias <b>all</b>) is the default sampling, no item of round t+1 is computed from "
        "round t's facts alone; <b>disjoint</b>: round t+1 uses no fact of round t; "
        "<b>avoid</b> repeats only where nothing else is connected; <b>independent</b> "
        "ignores the previous round; <b>reuse</b> draws round t+1 from round t's facts "
        "only; <b>:P</b> applies a rule to a share P of the seed graphs; <b>N</b> lets each "
        "round draw only from the first N documents of every seed graph. <b>reuse</b> "
        "(column) is the share of round t+1 items using at least one fact of round t "
        "(<b>all</b>: only such facts); the bound is t(t−1)J<sub>max</sub>/(2K²) on the "
        "allowed pool for independent uniform draws (the evidence does not change between "
        "the rounds, so J<sub>max</sub> = K). A leaked model that learned facts gains where "
        "the reuse is high; filled markers reject H0: mean gap ≤ ε.</p>",
        f'<p><img src="{PLOT}" alt="leak-transfer curve plot"></p>']
    for n, c in enumerate(curves):
        parts.append(f"<p>#{n + 1} <b>{e(c.leaked_agent)}</b> vs <b>{e(c.agent)}</b>, T = {c.T}, "
                     f"scorer {e(c.scorer)}, ε = {c.epsilon} <span class=\"muted\">"
                     f"({e(c.id)}, {e(c.created_at)})</span></p>")
        head = ("setting", "reuse", "reuse (all)", "K median", "bound (mean)", "mean gap",
                "95% CI", "t", "df", "p")
        rows = "".join(
            "<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in (
                p.setting, _f(p.reuse), _f(p.reuse_all), _f(p.k_median, "d"),
                _f(p.bound_mean), _f(p.gap, "+.3f"),
                f"[{_f(p.ci_low, '+.3f')}, {_f(p.ci_high, '+.3f')}]", _f(p.t, ".2f"),
                _f(p.df, "d"), _f(p.p_value, ".4f"))) + "</tr>"
            for p in c.points)
        parts.append("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
                     + rows + "</table>")
    parts.append("</section>")
    return "".join(parts)


def add_leakcurves(store: Store, files: ReportFiles) -> ReportFiles:
    """Add the section to a written report when the graph holds curves; else unchanged."""
    out = files.index_html.parent
    curves = list_leakcurves(store)
    if not curves:
        (out / PLOT).unlink(missing_ok=True)
        (out / DATA).unlink(missing_ok=True)
        return files
    plot_curves(curves, out / PLOT)
    (out / DATA).write_text(json.dumps([c.model_dump(mode="json") for c in curves],
                                       indent=2) + "\n", encoding="utf-8")
    page = files.index_html.read_text(encoding="utf-8")
    page = page.replace("</nav>", f'<a href="#{SECTION}">Leak-transfer curve</a></nav>', 1)
    end = page.rindex("</body>")
    files.index_html.write_text(page[:end] + section_html(curves) + "\n" + page[end:],
                                encoding="utf-8")
    return files.model_copy(update={"plots": {**files.plots, SECTION: out / PLOT}})
