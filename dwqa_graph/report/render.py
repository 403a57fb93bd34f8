"""`dwqa report`: evaluation results in, one self-contained HTML page + PNG plots + JSON out.

:func:`render_report` takes a :class:`ReportData` (built by the caller from stored results)
and writes into one directory::

    index.html          inline CSS, no JavaScript, no external assets; plots by relative <img>
    report.json         the input, ``ReportData.model_dump_json(indent=2)`` (round-trips)
    scores.png          Agg(D_t, M) per round with CI bars; macro scores as dashed lines
    leaktest.png        static vs dynamic leak gain per Leak&Test run, per-round gaps, ε
    collisions.png      pool sizes K; the collision bound per number of rounds vs observed
    contamination.png   flagged / total per dataset, one bar per kind
    verification.png    per round, its items' statuses at each ``round verify`` run (drawn
                        only when a round was verified; in ``plots``, not in ``skipped``)

A plot whose data is empty is not drawn (an old PNG of that name is removed) and its section
says "no data yet"; :attr:`ReportFiles.skipped` names those sections.

Every string in the data may be user input (agent specs, dataset names, query ids): in the
HTML it is always passed through :func:`html.escape`; in plots ``$`` is escaped so mathtext
never parses it, characters the font lacks become ``?`` and long labels are shortened.

Plots use matplotlib's object API (``Figure`` + ``FigureCanvasAgg``), never pyplot, so no
global figure state is touched and rendering is safe from several threads. PNGs are written
without the "Software" metadata, so the same data gives byte-identical files.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from dwqa_graph.report.models import (
    ContaminationCount,
    ReportData,
    ReportFiles,
    RoundQuality,
    VerifyRow,
)
from dwqa_graph.rounds.collisions import collision_bound

__all__ = ["DPI", "PLOT_FILES", "PLOT_SIZES", "VERIFY_PLOT", "render_report"]

#: Section name -> PNG file name, in page order.
PLOT_FILES: dict[str, str] = {
    "scores": "scores.png",
    "leaktests": "leaktest.png",
    "collisions": "collisions.png",
    "contamination": "contamination.png",
}
#: Figure size in inches per section; pixels are these times :data:`DPI`.
PLOT_SIZES: dict[str, tuple[float, float]] = {
    "scores": (10.0, 5.5),
    "leaktests": (10.0, 5.5),
    "collisions": (11.0, 4.5),
    "contamination": (10.0, 5.0),
    "verification": (10.0, 4.0),
}
#: The verification section's plot (not a PLOT_FILES section: it sits in a table section).
VERIFY_PLOT = "verification.png"
MAX_VERIFY_ROUNDS = 8  # newest verified rounds plotted (the table lists every run)
#: The statuses of a verified item, in plot order, with their colours.
VERIFY_STATUSES = (("holds", "#2ca02c"), ("changed", "#ff7f0e"),
                   ("unsupported", "#d62728"), ("unreachable", "#7f7f7f"))
DPI = 100
MAX_LEGEND = 24  # legend entries before "… and N more" (the tables list everything)
MAX_GRAPH_ROWS = 50  # per-graph collision rows in the HTML (report.json keeps all)
MAX_QUALITY_ROUNDS = 8  # newest rounds given a column in the quality tables (JSON: all)
LABEL_CHARS = 40  # plot labels longer than this are shortened with "…"
KNOWN_KINDS = ("runtime", "pretraining", "paraphrase")
NO_DATA = "no data yet"  # a plot section without data
NONE_YET = "nothing yet"  # a table-only section without data


# -- input models ----------------------------------------------------------------------
def _num(x: Any, spec: str = ".3f") -> str:
    """A number for the tables: None -> "—", ints as ints, floats with ``spec``."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return format(x, spec)
    return str(x)


def _p(x: Any) -> str:
    """A p-value: three significant digits; None (degenerate test) -> "n/a"."""
    return "n/a" if _real(x) is None else format(float(x), ".3g")


def _real(x: Any) -> float | None:
    """``x`` as a float when it is a real number (not bool, not None), else None."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return None
    return float(x)


def _mean(xs: Sequence[float]) -> float | None:
    return math.fsum(xs) / len(xs) if xs else None


@lru_cache(maxsize=1)
def _charmap() -> frozenset[int]:
    return frozenset(get_font(findfont(FontProperties())).get_charmap())


def _label(s: str, limit: int = LABEL_CHARS) -> str:
    """A user string made safe for a matplotlib label.

    One line, at most ``limit`` characters, glyphs the default font lacks as ``?`` (no
    "missing glyph" warnings), ``$`` escaped so it is never mathtext, and no leading ``_``
    (matplotlib hides legend labels that start with one).
    """
    s = " ".join(str(s).split())
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    chars = _charmap()
    s = "".join(c if ord(c) in chars else "?" for c in s)
    s = s.replace("$", r"\$")
    return " " + s if s.startswith("_") else s


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], cls: str = "",
           row_classes: Sequence[str] = ()) -> str:
    """An HTML table; every header and cell is escaped here (cells are formatted strings)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    rows = list(rows)
    classes = list(row_classes) + [""] * (len(rows) - len(row_classes))
    body = "".join((f'<tr class="{_e(c)}">' if c else "<tr>")
                   + "".join(f"<td>{_e(x)}</td>" for x in row) + "</tr>"
                   for row, c in zip(rows, classes, strict=True))
    attr = f' class="{_e(cls)}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _new_figure(section: str) -> Figure:
    fig = Figure(figsize=PLOT_SIZES[section], dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path) -> None:
    # No "Software" key: the PNG bytes then depend on the data only.
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})


def _color(i: int) -> str:
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
    return palette[i % len(palette)]


def _legend(fig: Figure, ax: Axes) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    if len(handles) > MAX_LEGEND:
        more = len(handles) - MAX_LEGEND + 1
        handles, labels = handles[: MAX_LEGEND - 1], labels[: MAX_LEGEND - 1]
        handles.append(Line2D([], [], linestyle="none"))
        labels.append(f"… and {more} more (see the table)")
    fig.legend(handles, labels, loc="outside right upper", fontsize="small")


# -- 1. scores per round ---------------------------------------------------------------
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
_SCORER_ORDER = ("em", "f1", "hotpot_f1", "judge")


def _scorers(data: ReportData) -> list[str]:
    present = {p.scorer for p in data.scores} | {m.scorer for m in data.macro}
    return [s for s in _SCORER_ORDER if s in present] + sorted(present - set(_SCORER_ORDER))


def _runs_of_measured(ts: Sequence[int]) -> list[list[int]]:
    """Consecutive rounds, split where a round was not measured: a line joins round t and
    t + 1 only when both were scored, so it never suggests a score for a skipped round."""
    out: list[list[int]] = []
    for t in sorted(ts):
        if out and t == out[-1][-1] + 1:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def _plot_scores(data: ReportData, path: Path) -> None:
    """One panel per scorer (small multiples), agents side by side within a round (dodged),
    so no series hides under another with the same values."""
    scorers = _scorers(data)
    agents = sorted({p.agent for p in data.scores} | {m.agent for m in data.macro})
    color = {a: _color(i) for i, a in enumerate(agents)}
    marker = {a: _MARKERS[i % len(_MARKERS)] for i, a in enumerate(agents)}
    # Agents are spread over ±0.25 of a round: identical scores stay visible side by side.
    dodge = {a: (i - (len(agents) - 1) / 2) * min(0.5 / max(1, len(agents) - 1), 0.12)
             for i, a in enumerate(agents)}
    fig = _new_figure("scores")
    cols = min(2, len(scorers))
    rows = math.ceil(len(scorers) / cols)
    fig.set_size_inches(PLOT_SIZES["scores"][0], 3.2 * rows + 0.8)
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)
    all_ts = sorted({p.t for p in data.scores} | {t for m in data.macro for t in m.rounds})
    for k, scorer in enumerate(scorers):
        ax = axes[k // cols][k % cols]
        for agent in agents:
            pts = {p.t: p for p in data.scores if p.agent == agent and p.scorer == scorer}
            if not pts:
                continue
            dx = dodge[agent]
            for run in _runs_of_measured(list(pts)):
                ax.plot([t + dx for t in run], [pts[t].score for t in run], color=color[agent],
                        linewidth=1.2, alpha=0.8)
            xs = [t + dx for t in sorted(pts)]
            ordered = [pts[t] for t in sorted(pts)]
            # Clipped at 0: matplotlib refuses negative error lengths.
            lo = [max(0.0, p.score - p.ci_low) for p in ordered]
            hi = [max(0.0, p.ci_high - p.score) for p in ordered]
            ax.errorbar(xs, [p.score for p in ordered], yerr=[lo, hi], color=color[agent],
                        marker=marker[agent], linestyle="none", capsize=3, markersize=6)
            hollow = [(x, p.score) for x, p in zip(xs, ordered, strict=True) if not p.snapshot]
            if hollow:  # rounds not frozen yet: hollow markers
                ax.plot([x for x, _ in hollow], [y for _, y in hollow], linestyle="none",
                        marker=marker[agent], markerfacecolor="white", color=color[agent],
                        zorder=4)
        for m in data.macro:
            if m.scorer != scorer or not m.rounds:
                continue
            for run in _runs_of_measured(m.rounds):  # not across rounds left out
                x0, x1 = run[0] - 0.3, run[-1] + 0.3
                ax.hlines(m.score, x0, x1, colors=color[m.agent], linestyles="dashed",
                          linewidth=1)
                ax.fill_between([x0, x1], m.ci_low, m.ci_high, color=color[m.agent],
                                alpha=0.08, linewidth=0)
        ax.set_title(_label(scorer), fontsize="medium")
        ax.set_ylim(-0.05, 1.05)
        ax.set_xticks(all_ts)
        ax.grid(True, alpha=0.3)
        if k % cols == 0:
            ax.set_ylabel("Agg(D_t, M)")
        if k // cols == rows - 1 or k + cols >= len(scorers):
            ax.set_xlabel("round t")
    for k in range(len(scorers), rows * cols):  # an odd number of scorers: hide the spare
        axes[k // cols][k % cols].set_visible(False)
    fig.suptitle("Score per round, one panel per scorer (bars: 95% CI; hollow: round not "
                 "frozen; dashed: macro over the rounds)", fontsize="medium")
    # One legend entry per agent (every panel uses the same colour and marker for it).
    handles = [Line2D([], [], color=color[a], marker=marker[a], label=_label(a))
               for a in agents[:MAX_LEGEND]]
    fig.legend(handles=handles, loc="outside lower center", ncols=min(3, len(handles)),
               fontsize="small")
    _save(fig, path)


# -- 2. Leak&Test ----------------------------------------------------------------------
def _static_gap(s: dict[str, Any] | None) -> float | None:
    if not s:
        return None
    gap = _real(s.get("gap"))
    if gap is None:
        a_leak, a_clean = _real(s.get("a_leak")), _real(s.get("a_clean"))
        if a_leak is not None and a_clean is not None:
            gap = a_leak - a_clean
    return gap


def _dynamic_gaps(d: dict[str, Any]) -> list[float]:
    gaps = d.get("gaps") or []
    return [g for g in (_real(x) for x in gaps) if g is not None]


def _dynamic_gap(d: dict[str, Any]) -> float | None:
    gap = _real(d.get("gap"))
    return gap if gap is not None else _mean(_dynamic_gaps(d))


def _bar_note(ax: Axes, x: float, height: float | None, text: str) -> None:
    y = height or 0.0
    ax.annotate(_label(text), (x, y), xytext=(0, 4 if y >= 0 else -4),
                textcoords="offset points", ha="center", va="bottom" if y >= 0 else "top",
                fontsize="small")


def _plot_leaktests(data: ReportData, path: Path) -> None:
    fig = _new_figure("leaktests")
    ax = fig.add_subplot()
    width = 0.35
    seen: set[str] = set()

    def lab(text: str) -> str:  # one legend entry per kind of mark
        if text in seen:
            return "_nolegend_"
        seen.add(text)
        return text

    for i, lt in enumerate(data.leaktests):

        sg = _static_gap(lt.static)
        if lt.static is not None:
            ax.bar(i - width / 2, sg or 0.0, width, color="#9ecae1", edgecolor="#3182bd",
                   label=lab("static gap (a_leak − a_clean)"))
            _bar_note(ax, i - width / 2, sg,
                      "n/a" if sg is None else f"p={_p(lt.static.get('p_value'))}")
        else:
            _bar_note(ax, i - width / 2, 0.0, "no static")
        dg = _dynamic_gap(lt.dynamic)
        ax.bar(i + width / 2, dg or 0.0, width, color="#fdae6b", edgecolor="#e6550d",
               label=lab("dynamic mean gap"))
        gaps = _dynamic_gaps(lt.dynamic)
        if gaps:
            # Spread the per-round points across the bar, in round order (deterministic).
            step = 0.24 / max(1, len(gaps) - 1)
            xs = [i + width / 2 - 0.12 + k * step for k in range(len(gaps))]
            if len(gaps) == 1:
                xs = [i + width / 2]
            ax.scatter(xs, gaps, s=18, color="#636363", zorder=3,
                       label=lab("per-round gap Δ_t"))
        top = max([dg or 0.0, *gaps])
        _bar_note(ax, i + width / 2, top,
                  "n/a" if dg is None else f"p={_p(lt.dynamic.get('p_value'))}")
        ax.hlines(lt.epsilon, i - 0.45, i + 0.45, colors="#d62728", linestyles="dashed",
                  label=lab("ε"))
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(data.leaktests)))
    # Who was compared says more than the run id (which is in the table below).
    # Two short lines per test (leaked agent, then the clean one) instead of one long
    # label: long specs side by side overlapped their neighbours.
    many = len(data.leaktests) > 3
    ax.set_xticklabels([f"{_label(lt.leaked_agent, 28)}\nvs {_label(lt.agent, 28)}"
                        for lt in data.leaktests], fontsize="small",
                       rotation=25 if many else 0, ha="right" if many else "center")
    ax.set_xlim(-0.6, len(data.leaktests) - 0.4)
    ax.set_ylabel("gap (leaked − clean)")
    ax.set_title("Leak&Test: leak gain, static vs on fresh rounds (dashed: ε)")
    ax.grid(True, axis="y", alpha=0.3)
    _legend(fig, ax)
    _save(fig, path)


# -- 3. collisions ---------------------------------------------------------------------
def _graphs(col: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    if not col or not isinstance(col.get("graphs"), dict):
        return {}
    return {str(q): g for q, g in col["graphs"].items() if isinstance(g, dict)}


def _bound_curve(graphs: dict[str, dict[str, Any]], ts: Sequence[int]
                 ) -> tuple[list[float], list[float]]:
    """Max and mean of eq. 3's bound over the graphs with K > 0, for each number of rounds."""
    kj = []
    for g in graphs.values():
        k, j = _real(g.get("k_min")), _real(g.get("j_max"))
        if k is not None and k > 0 and j is not None and j >= 0:
            kj.append((k, min(j, k)))
    if not kj:
        return [], []
    mx, mean = [], []
    for t in ts:
        bs = [collision_bound(t, k, j) for k, j in kj]
        mx.append(max(bs))
        mean.append(math.fsum(bs) / len(bs))
    return mx, mean


def _plot_collisions(col: dict[str, Any], path: Path) -> None:
    graphs = _graphs(col)
    fig = _new_figure("collisions")
    ax_k, ax_b = fig.subplots(1, 2)
    ks = [k for k in (_real(g.get("k_min")) for g in graphs.values()) if k is not None]
    if ks:
        ax_k.hist(ks, bins=max(1, min(20, len(set(ks)))), color="#6baed6", edgecolor="white")
    ax_k.set_xlabel("pool size K (smallest over the rounds)")
    ax_k.set_ylabel("seed graphs")
    ax_k.set_title(f"Pool sizes K ({len(graphs)} graphs)")
    ax_k.yaxis.set_major_locator(MaxNLocator(integer=True))

    rounds = col.get("rounds") or []
    big_t = len(rounds) if isinstance(rounds, list) else 0
    ts = list(range(2, max(big_t, 10) + 1))
    mx, mean = _bound_curve(graphs, ts)
    if mx:
        ax_b.plot(ts, mx, color="#d62728", label="max bound over graphs")
        ax_b.plot(ts, mean, color="#ff9896", label="mean bound over graphs")
    else:
        ax_b.text(0.5, 0.5, "no graph with K > 0", transform=ax_b.transAxes, ha="center")
    delta = _real(col.get("delta"))
    if delta is not None:
        ax_b.axhline(delta, color="black", linestyle="dashed", linewidth=1, label="δ")
    if big_t >= 2:
        ax_b.axvline(big_t, color="grey", linestyle="dotted", linewidth=1,
                     label=f"rounds so far (T={big_t})")
        observed = _real((col.get("aggregate") or {}).get("observed_repeat_rate"))
        if observed is not None:
            ax_b.plot([big_t], [observed], "o", color="#2ca02c", label="observed repeat rate")
        sims = [s for s in (_real(g.get("simulated")) for g in graphs.values()) if s is not None]
        if sims:
            ax_b.plot([big_t], [math.fsum(sims) / len(sims)], "x", color="#9467bd",
                      markersize=9, label="simulated (mean over graphs)")
    ax_b.set_xlabel("number of rounds t")
    ax_b.set_ylabel("Pr[a graph repeats a QA pair]")
    ax_b.set_title("Collision bound t(t−1)J_max/(2K²) vs observed")
    ax_b.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax_b.grid(True, alpha=0.3)
    # Beside the axes, not on them: inside, it covered the bound curves.
    ax_b.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    _save(fig, path)


# -- 4. contamination ------------------------------------------------------------------
def _kinds(rows: Sequence[ContaminationCount]) -> list[str]:
    present = {r.kind for r in rows}
    return [k for k in KNOWN_KINDS if k in present] + sorted(present - set(KNOWN_KINDS))


def _datasets(rows: Sequence[ContaminationCount]) -> list[str]:
    return list(dict.fromkeys(r.dataset for r in rows))  # first-appearance order


def _plot_contamination(rows: Sequence[ContaminationCount], path: Path) -> None:
    fig = _new_figure("contamination")
    ax = fig.add_subplot()
    datasets, kinds = _datasets(rows), _kinds(rows)
    sums: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        s = sums.setdefault((r.dataset, r.kind), [0, 0])
        s[0] += r.flagged
        s[1] += r.total
    width = 0.8 / len(kinds)
    for ki, kind in enumerate(kinds):
        xs, hs, notes = [], [], []
        for di, ds in enumerate(datasets):
            if (ds, kind) not in sums:
                continue
            flagged, total = sums[(ds, kind)]
            xs.append(di - 0.4 + width * (ki + 0.5))
            hs.append(flagged / total if total else 0.0)
            unit = next((r.unit for r in rows if (r.dataset, r.kind) == (ds, kind)), "")
            notes.append(f"{flagged}/{total} {unit}")
        ax.bar(xs, hs, width, color=_color(ki), label=_label(kind))
        for x, h, note in zip(xs, hs, notes, strict=True):
            _bar_note(ax, x, h, note)
    ax.set_xticks(range(len(datasets)))
    ax.set_xticklabels([_label(d, 24) for d in datasets],
                       rotation=30 if len(datasets) > 4 else 0,
                       ha="right" if len(datasets) > 4 else "center")
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("share flagged (items; paraphrase: pairs)")
    ax.set_title("Contamination: share flagged, per dataset and kind")
    ax.grid(True, axis="y", alpha=0.3)
    _legend(fig, ax)
    _save(fig, path)


# -- HTML ------------------------------------------------------------------------------
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:1150px;padding:0 1rem;color:#222;line-height:1.45}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2.5rem}
nav a{margin-right:1rem}
table{border-collapse:collapse;margin:.8rem 0;font-size:.9rem;max-width:100%}
th,td{border:1px solid #ccc;padding:.25rem .55rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere}th{white-space:nowrap}
table.wide{font-size:.8rem}.failed td{background:#fdecea}.ok{color:#1b5e20}
.bad{color:#b71c1c;font-weight:600}dl.prov{display:grid;grid-template-columns:max-content 1fr;
gap:.2rem 1rem}dl.prov dt{font-weight:600}dl.prov dd{margin:0}
.example{border:1px solid #ddd;border-radius:4px;padding:.5rem .8rem;margin:.6rem 0}
.example ol{margin:.2rem 0}
th{background:#f3f3f3}td{font-variant-numeric:tabular-nums}
img{max-width:100%;height:auto;border:1px solid #eee}
.nodata{background:#fff8e1;border:1px solid #f0d48a;padding:.6rem .8rem;display:inline-block}
.explain{color:#444;max-width:60rem}.muted{color:#777}
code{background:#f5f5f5;padding:0 .2rem}
"""

_EXPLAIN = {
    "scores": (
        "<b>Agg(D<sub>t</sub>, M)</b> is agent M's aggregate score on round t's items "
        "D<sub>t</sub>: the mean per-item score under the scorer (<code>em</code>: SQuAD "
        "exact match, <code>f1</code>: SQuAD token F1, <code>judge</code>: share judged "
        "correct, <code>hotpot_f1</code>: HotpotQA's official answer F1). One panel per "
        "scorer; agents sit side by side within a round so equal scores stay visible, and "
        "points appear only at rounds where that agent was scored (lines join consecutive "
        "scored rounds only). Error bars are the 95% bootstrap interval; a hollow marker is a "
        "round not frozen yet. A <b>macro</b> score (Eq. 8) is the mean of Agg over a window "
        "of rounds, drawn as a dashed line with its CI shaded. Agent errors count as wrong "
        "answers and are listed beside every score; runs with too many errors are failed "
        "and never plotted (see Runs). Static-benchmark scores are listed for comparison."),
    "leaktests": (
        "<b>Leak&amp;Test</b> compares a clean agent M with a leaked copy M<sub>leak</sub> "
        "that has seen test data. The <b>static gap</b> is a<sub>leak</sub> − "
        "a<sub>clean</sub> on the leaked static benchmark (paired one-sided t-test of gap "
        "&gt; 0). On fresh rounds the per-round gap is Δ<sub>t</sub> = Agg(D<sub>t</sub>, "
        "M<sub>leak</sub>) − Agg(D<sub>t</sub>, M); the <b>dynamic gap</b> is their mean, "
        "tested one-sided against <b>ε</b>, the largest gap still tolerated (H0: mean gap ≤ ε "
        "vs H1: mean gap &gt; ε). <b>p</b> is the one-sided p-value: the chance of a gap at "
        "least this large if H0 held; H0 is rejected (leakage shows on fresh data) when p is "
        "below α. A large static gap with a dynamic gap under ε means the leak inflates the "
        "static score only. p is n/a when there are too few rounds for a test."),
    "collisions": (
        "Each round draws one QA pair per seed graph from a pool of <b>K</b> candidates; "
        "<b>J<sub>max</sub></b> is the largest overlap between two rounds' pools. The union "
        "bound Pr[some pair repeats within t rounds] ≤ t(t−1)J<sub>max</sub>/(2K²) is drawn "
        "per number of rounds (beyond the rounds so far it is a projection), against "
        "<b>δ</b>, the tolerated repeat probability, the repeat rate actually observed in the "
        "drawn items, and a Monte-Carlo simulation when one was run. K needed is the pool "
        "size that keeps the bound within δ, tight and in the paper's printed form."),
    "contamination": (
        "Items flagged as possibly contaminated, per dataset and kind: <b>runtime</b> (the "
        "agent's retrieval at answer time surfaced the item or its answer), "
        "<b>pretraining</b> (signs the item was in a model's training data), "
        "<b>paraphrase</b> (two items paraphrase each other: counted in <b>pairs</b> of "
        "items, out of the pairs checked). Bars show flagged / checked, labelled with their "
        "unit; the table breaks the flags down by reason."),
}

_TITLES = {
    "scores": "Scores per round",
    "leaktests": "Leak&Test: static vs dynamic leak gain",
    "collisions": "Collision statistics",
    "contamination": "Contamination",
}


def _figure_html(section: str, drawn: bool) -> str:
    if drawn:
        return (f'<p><img src="{_e(PLOT_FILES[section])}" '
                f'alt="{_e(_TITLES[section])} plot"></p>')
    return f'<p class="nodata">{_e(NO_DATA)}: nothing to plot for this section.</p>'


def _ci(lo: float, hi: float) -> str:
    return f"[{_num(lo)}, {_num(hi)}]"


def _scores_tables(data: ReportData) -> str:
    parts = []
    if data.scores:
        rows = [(p.agent, p.scorer, p.t, _num(p.score), _ci(p.ci_low, p.ci_high), p.n,
                 f"{p.errors} of {p.n}", "yes" if p.snapshot else "no",
                 f"{p.run_id}" + (f" (newest scored of {p.n_runs})" if p.n_runs > 1 else ""))
                for p in sorted(data.scores, key=lambda p: (p.agent, p.scorer, p.t))]
        parts.append("<h3>Per round</h3>" + _table(
            ["agent", "scorer", "round t", "Agg", "95% CI", "items", "agent errors",
             "frozen", "run shown"], rows))
    if data.macro:
        mrows = [(m.agent, m.scorer, ", ".join(map(str, m.rounds)) or "—", _num(m.score),
                 _ci(m.ci_low, m.ci_high)) for m in data.macro]
        parts.append("<h3>Macro (Eq. 8)</h3>" + _table(
            ["agent", "scorer", "rounds", "macro score", "95% CI"], mrows))
    if data.static:
        srows = [(s.agent, s.dataset + (f" [{s.split}]" if s.split else ""), s.scorer,
                  _num(s.score), _ci(s.ci_low, s.ci_high), s.n, f"{s.errors} of {s.n}",
                  s.run_id + (f" (newest scored of {s.n_runs})" if s.n_runs > 1 else ""))
                 for s in data.static]
        parts.append("<h3>Static benchmarks</h3>" + _table(
            ["agent", "dataset", "scorer", "score", "95% CI", "items", "agent errors",
             "run shown"], srows))
    return "".join(parts)


def _runs_html(data: ReportData) -> str:
    if not data.runs:
        return f'<p class="nodata">{_e(NONE_YET)}: no evaluation run stored.</p>'
    failed = [r for r in data.runs if r.status == "failed"]
    rows = [(r.id, r.created_at.replace("T", " ")[:19], r.agent,
             r.target + (f" [{r.split}]" if r.split else ""),
             r.n, r.errors, "FAILED" if r.status == "failed" else "ok",
             "yes" if r.shown else "no", r.failure or "") for r in data.runs]
    intro = (f"<p>{len(data.runs)} runs stored, {len(failed)} failed. For each agent and "
             "round (or static dataset and split) the report shows the <b>newest run that "
             "has a score</b>; older runs and failed runs are listed here only. A run "
             "<b>failed</b> when the agent errored on every item or on more than "
             "<code>--max-errors</code> of them: it has no score.</p>")
    return intro + _table(
        ["run", "created", "agent", "target", "items", "agent errors", "status", "shown",
         "why it failed"], rows, cls="wide",
        row_classes=["failed" if r.status == "failed" else "" for r in data.runs])


def _breakdown_html(data: ReportData) -> str:
    if not data.breakdowns:
        return f'<p class="nodata">{_e(NONE_YET)}: no scored run.</p>'
    parts = []
    for by, title in (("pattern", "Per pattern (round pattern, HotpotQA type, FreshQA fact "
                                  "type)"), ("hops", "Per number of hops"),
                      ("sources", "Per number of sources (documents an item needs)"),
                      ("constraints", "Per number of constraints (facts describing an "
                                      "entity in place of its name)")):
        rows = [b for b in data.breakdowns if b.by == by]
        if not rows:
            continue
        scorers = list(dict.fromkeys(b.scorer for b in rows))
        keyed: dict[tuple[str, str, str], dict[str, Any]] = {}
        for b in rows:
            cell = keyed.setdefault((b.agent, b.target, b.group), {"n": b.n})
            cell[b.scorer] = b.score
        body = [(a, t, g, v["n"], *(_num(v.get(sc)) for sc in scorers))
                for (a, t, g), v in sorted(keyed.items())]
        parts.append(f"<h3>{_e(title)}</h3>" + _table(
            ["agent", "target", by, "items", *scorers], body))
    return "".join(parts)


def _examples_html(data: ReportData) -> str:
    if not data.examples:
        return f'<p class="nodata">{_e(NONE_YET)}: no round with items.</p>'
    out = []
    for x in data.examples:
        evidence = "".join(f"<li>{_e(c)}</li>" for c in x.evidence)
        urls = ", ".join(f"<code>{_e(u)}</code>" for u in x.urls)
        out.append(
            f'<div class="example"><p><b>Q:</b> {_e(x.question)}<br><b>A:</b> '
            f"{_e(x.answer)}</p><p class=\"muted\">round {x.round} · pattern "
            f"{_e(x.pattern or '—')} · {_e(x.hops if x.hops is not None else '—')} hops · "
            f"seed {_e(x.seed if x.seed is not None else '—')} · θ "
            f"<code>{_e(x.theta_hash or '—')}</code><br>from the seed question "
            f"“{_e(x.seed_question)}”; evidence used:</p><ol>{evidence}</ol>"
            f"<p class=\"muted\">read from {urls or '—'}</p></div>")
    return "".join(out)


def _provenance_html(data: ReportData) -> str:
    prov = data.provenance
    items = [("generated at", data.generated_at),
             ("dwqa-graph version", prov.package_version if prov else "unknown")]
    html_ = "<dl class=\"prov\">" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>"
                                             for k, v in items) + "</dl>"
    if prov and prov.rounds:
        html_ += _table(["round t", "seed", "θ hash", "generator", "frozen", "items"], [
            (r.get("t"), _num(r.get("seed")), r.get("theta_hash") or "—",
             r.get("generator") or "—", _num(r.get("frozen")), _num(r.get("items")))
            for r in prov.rounds])
    return html_


def _leak_tables(data: ReportData) -> str:
    if not data.leaktests:
        return ""
    summary, per_round = [], []
    for lt in data.leaktests:
        s, d = lt.static or {}, lt.dynamic
        summary.append((
            lt.id, lt.agent, lt.leaked_agent, lt.scorer, _num(lt.epsilon),
            str(s.get("dataset", "—")) if lt.static is not None else "—",
            _num(_real(s.get("a_clean"))), _num(_real(s.get("a_leak"))),
            _num(_static_gap(lt.static)), _num(_real(s.get("t"))), _num(s.get("df")),
            _p(s.get("p_value")) if lt.static is not None else "—",
            _num(s.get("reject")),
            _num(_dynamic_gap(d)), _num(_real(d.get("t"))), _num(d.get("df")),
            _p(d.get("p_value")), _num(d.get("reject")), str(d.get("note") or "")))
        rounds, clean, leaked = (d.get(k) or [] for k in ("rounds", "clean", "leaked"))
        gaps = d.get("gaps") or []
        for j in range(max(len(rounds), len(clean), len(leaked), len(gaps))):
            def at(xs: list[Any], j: int = j) -> Any:
                return xs[j] if j < len(xs) else None
            per_round.append((lt.id, _num(at(rounds)), _num(_real(at(clean))),
                              _num(_real(at(leaked))), _num(_real(at(gaps)))))
    # One wide row split in three tables that fit the page: who, static, dynamic.
    out = "<h3>Tests</h3>" + _table(
        ["id", "agent (clean)", "leaked agent", "scorer", "ε"], [r[:5] for r in summary])
    out += "<h3>Static benchmark</h3>" + _table(
        ["id", "dataset", "a_clean", "a_leak", "gap", "t", "df", "p", "reject"],
        [(r[0], *r[5:13]) for r in summary])
    out += "<h3>Fresh rounds</h3>" + _table(
        ["id", "mean gap", "t", "df", "p", "reject", "note"],
        [(r[0], *r[13:19]) for r in summary])
    if per_round:
        out += "<h3>Per fresh round</h3>" + _table(
            ["id", "round", "Agg clean", "Agg leaked", "gap Δ"], per_round)
    return out


def _collision_tables(col: dict[str, Any] | None) -> str:
    graphs = _graphs(col)
    if not col or not graphs:
        return ""
    agg = col.get("aggregate") or {}
    sims = [s for s in (_real(g.get("simulated")) for g in graphs.values()) if s is not None]
    rounds = col.get("rounds") or []
    out = "<h3>All graphs</h3>" + _table(["quantity", "value"], [
        ("rounds", ", ".join(map(str, rounds)) if isinstance(rounds, list) else str(rounds)),
        ("δ", _num(_real(col.get("delta")), ".3g")),
        ("seed graphs", _num(agg.get("graphs", len(graphs)))),
        ("median K", _num(agg.get("k_median"))),
        ("max bound", _num(_real(agg.get("max_bound")), ".3g")),
        ("mean bound", _num(_real(agg.get("mean_bound")), ".3g")),
        ("observed repeat rate", _num(_real(agg.get("observed_repeat_rate")), ".3g")),
        ("simulated (mean over graphs)", _num(_mean(sims), ".3g")),
        ("graphs with bound > δ", _num(agg.get("graphs_over_delta"))),
    ])

    def order(item: tuple[str, dict[str, Any]]) -> tuple[float, str]:
        return (-(_real(item[1].get("bound")) or 0.0), item[0])

    ranked = sorted(graphs.items(), key=order)
    rows = [(q, ", ".join(map(str, g.get("k_per_round") or [])), _num(g.get("k_min")),
             _num(g.get("j_max")), _num(_real(g.get("bound")), ".3g"),
             _num(_real(g.get("observed_repeat_rate")), ".3g"),
             _num(_real(g.get("simulated")), ".3g"),
             _num(_real(g.get("k_needed_tight")), ".1f"),
             _num(_real(g.get("k_needed_paper")), ".1f"))
            for q, g in ranked[:MAX_GRAPH_ROWS]]
    title = "Per graph (largest bound first"
    title += (f"; {MAX_GRAPH_ROWS} of {len(graphs)}, all in report.json)"
              if len(graphs) > MAX_GRAPH_ROWS else ")")
    out += f"<h3>{_e(title)}</h3>" + _table(
        ["seed graph", "K per round", "K", "J_max", "bound", "observed", "simulated",
         "K needed (tight)", "K needed (paper)"], rows)
    return out


def _contamination_tables(rows: Sequence[ContaminationCount]) -> str:
    if not rows:
        return ""
    body = [(r.dataset, r.kind, f"{r.flagged} {r.unit}", f"{r.total} {r.unit}",
             _num(r.flagged / r.total) if r.total else "—",
             "; ".join(f"{k}: {v}" for k, v in sorted(r.by_reason.items())) or "—")
            for r in rows]
    return _table(["dataset", "kind", "flagged", "checked", "share", "by reason"], body)


_QUALITY_EXPLAIN = (
    "Every candidate a round draws is checked before it is stored: the rubric's text checks "
    "(<code>rounds/checks.py</code>: <b>self_contained</b>, no quotes, blanks, numbered "
    "statements or references to the sources; <b>not_verbatim</b>, no run of 8+ words copied "
    "from the evidence) and what a fact path can get wrong beyond them "
    "(<code>path_generate.path_problems</code>: the answer in the question, one sentence "
    "that answers it alone, the seed question asked again, a credit's person read from "
    "another person's page). <b>Rejected</b> counts the candidates a reason rejected; rounds "
    "that recorded per-check counts also show them with their pass rates. A seed graph whose "
    "every attempt failed gets no item (<b>NO_ITEM</b>), listed with the reasons of its "
    "attempts; <b>coverage</b> is items / seed graphs.")


def _rate(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _by_round(rounds: Sequence[RoundQuality], field: str, first: str) -> str:
    """A table with one row per key of the dict ``field`` and one column per round."""
    keys = sorted({k for q in rounds for k in getattr(q, field)})
    if not keys:
        return '<p class="muted">none</p>'
    rows = [(k, *(_num(getattr(q, field).get(k, 0)) if q.recorded else "—" for q in rounds))
            for k in keys]
    return _table([first, *(f"round {q.t}" for q in rounds)], rows)


def _quality_html(data: ReportData) -> str:
    if not data.quality:
        return f'<p class="nodata">{_e(NONE_YET)}: no round written.</p>'
    rounds = data.quality[-MAX_QUALITY_ROUNDS:]
    note = (f" (the newest {len(rounds)} of {len(data.quality)}; all in report.json)"
            if len(rounds) < len(data.quality) else "")
    summary = [(q.t, q.generator or "—", q.graphs, q.items, q.no_item, _rate(q.coverage),
                q.attempts if q.recorded else "not recorded",
                ", ".join(f"{k} {v}" for k, v in sorted(q.patterns.items())) or "—",
                (f"ran ({q.closed_book})" if q.closed_book else "not run")
                if q.recorded else "—") for q in data.quality]
    out = f'<p class="explain">{_QUALITY_EXPLAIN}</p>' + _table(
        ["round t", "generator", "seed graphs", "items", "NO_ITEM", "coverage",
         "candidates tried", "patterns", "closed-book check"], summary)
    checks = sorted({c for q in rounds for c in q.check_rejections},
                    key=lambda c: (_CHECK_ORDER.index(c) if c in _CHECK_ORDER else 99, c))
    if checks:
        rows = [(c, *(f"{q.check_rejections[c]} rejected · {_rate(q.check_pass_rates.get(c))} "
                      "pass" if c in q.check_rejections else "not run" for q in rounds))
                for c in checks]
        out += f"<h3>Rubric checks per round{_e(note)}</h3>" + _table(
            ["check", *(f"round {q.t}" for q in rounds)], rows)
    else:
        out += '<p class="muted">No round recorded rubric-check counts.</p>'
    out += (f"<h3>Rejected candidates by reason{_e(note)}</h3>"
            + _by_round(rounds, "rejected_by_reason", "reason"))
    out += (f"<h3>NO_ITEM seed graphs by reason{_e(note)}</h3>"
            + _by_round(rounds, "no_item_reasons", "reason"))
    return out


def _verify_runs(data: ReportData) -> list[tuple[int, int, VerifyRow]]:
    """(round, its run's number from 1, the run), rounds in order, each oldest run first."""
    seen: dict[int, int] = {}
    out = []
    for v in sorted(data.verification, key=lambda v: (v.round, v.checked_at)):
        seen[v.round] = seen.get(v.round, 0) + 1
        out.append((v.round, seen[v.round], v))
    return out


def _verification_html(data: ReportData, drawn: bool) -> str:
    if not data.verification:
        return (f'<p class="nodata">{_e(NONE_YET)}: no round verified '
                "(<code>dwqa round verify T</code>).</p>")
    rows = [(t, n, v.checked_at, v.items, v.holds, v.changed, v.unsupported, v.unreachable)
            for t, n, v in _verify_runs(data)]
    img = (f'<p><img src="{_e(VERIFY_PLOT)}" alt="Items over time plot"></p>' if drawn
           else "")
    return ('<p class="explain">Each run of <code>dwqa round verify</code> re-fetched the '
            "pages of a round's items and re-checked each against them: its answer holds, "
            "changed (evaluation then scores against the new one), lost support (a fact's "
            "sentence is gone; left out of evaluation) or its page could not be fetched. "
            "One row per run, each round's runs in time order: how its items fared as the "
            "web moved on.</p>" + img
            + _table(["round t", "run", "checked at", "items", "hold", "changed",
                      "unsupported", "unreachable"], rows))


def _plot_verification(data: ReportData, path: Path) -> None:
    """Per round (the newest ``MAX_VERIFY_ROUNDS``), one stacked bar per verify run: the
    share of its items that hold, changed, lost support or were unreachable."""
    runs = _verify_runs(data)
    shown = sorted({t for t, _, _ in runs})[-MAX_VERIFY_ROUNDS:]
    runs = [r for r in runs if r[0] in shown]
    fig = _new_figure("verification")
    ax = fig.add_subplot()
    xs, labels = [], []
    x = 0.0
    for i, (t, n, _) in enumerate(runs):
        if i and runs[i - 1][0] != t:
            x += 0.6  # a gap between rounds
        xs.append(x)
        labels.append(f"t{t} #{n}")
        x += 1.0
    bottom = [0.0] * len(runs)
    for status, color in VERIFY_STATUSES:
        share = [getattr(v, status) / v.items if v.items else 0.0 for _, _, v in runs]
        ax.bar(xs, share, bottom=bottom, color=color, width=0.8, label=status)
        bottom = [b + s for b, s in zip(bottom, share, strict=True)]
    ax.set_xticks(xs, labels, rotation=45 if len(runs) > 12 else 0, fontsize="small")
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of the round's items")
    ax.set_xlabel("round t, verify run #n (oldest first)")
    ax.set_title("Items over time: each verify run's statuses per round")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    _save(fig, path)


#: Table order of the checks: as rounds/checks.py runs them.
_CHECK_ORDER = ("self_contained", "not_verbatim", "solvable", "no_shortcut", "coherent",
                "date_roles", "conjunction", "closed_book")


#: Sections without a plot: (id, title, renderer), placed after the plot section named.
_EXTRA: dict[str, list[tuple[str, str]]] = {
    "start": [("runs", "Runs shown and agent errors")],
    "scores": [("breakdowns", "Breakdowns of the shown runs"),
               ("examples", "Example items and their provenance"),
               ("quality", "Item quality per round"),
               ("verification", "Items over time: verified against today's pages")],
    "contamination": [("provenance", "Provenance")],
}


def _html(data: ReportData, drawn: set[str]) -> str:
    tables = {
        "scores": _scores_tables(data),
        "leaktests": _leak_tables(data),
        "collisions": _collision_tables(data.collisions),
        "contamination": _contamination_tables(data.contamination),
    }
    extra_html = {"runs": _runs_html(data), "breakdowns": _breakdown_html(data),
                  "examples": _examples_html(data), "quality": _quality_html(data),
                  "verification": _verification_html(data, "verification" in drawn),
                  "provenance": _provenance_html(data)}

    def extra(after: str) -> list[str]:
        return [f'<section id="{sid}"><h2>{_e(title)}</h2>{extra_html[sid]}</section>'
                for sid, title in _EXTRA.get(after, [])]

    order = [(sid, title) for sid, title in _EXTRA["start"]]
    for s in PLOT_FILES:
        order.append((s, _TITLES[s]))
        order += _EXTRA.get(s, [])
    nav = "".join(f'<a href="#{sid}">{_e(title)}</a>' for sid, title in order)
    sections = extra("start")
    for s in PLOT_FILES:
        sections.append(
            f'<section id="{s}"><h2>{_e(_TITLES[s])}</h2>'
            f'<p class="explain">{_EXPLAIN[s]}</p>{_figure_html(s, s in drawn)}{tables[s]}'
            "</section>")
        sections += extra(s)
    version = data.provenance.package_version if data.provenance else "unknown"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>dwqa report — {_e(data.generated_at)}</title><style>{_CSS}</style></head>"
        f"<body><h1>dwqa report</h1><p class=\"muted\">generated at "
        f"{_e(data.generated_at)} by dwqa-graph {_e(version)}; the numbers are also in "
        f"<a href=\"report.json\">report.json</a></p><nav>{nav}</nav>\n"
        + "\n".join(sections) + "\n</body></html>\n")


# -- entry point -----------------------------------------------------------------------
def render_report(data: ReportData, out: Path) -> ReportFiles:
    """Write index.html, report.json and the plots that have data into the directory ``out``.

    Same data -> same bytes (HTML, JSON and PNGs). A section without data gets no PNG (a stale
    one from an earlier render is removed) and a visible "no data yet" note.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    has = {
        "scores": bool(data.scores) or any(m.rounds for m in data.macro),
        "leaktests": bool(data.leaktests),
        "collisions": bool(_graphs(data.collisions)),
        "contamination": bool(data.contamination),
    }
    plots: dict[str, Path] = {}
    for section, fname in PLOT_FILES.items():
        path = out / fname
        if not has[section]:
            path.unlink(missing_ok=True)
            continue
        if section == "scores":
            _plot_scores(data, path)
        elif section == "leaktests":
            _plot_leaktests(data, path)
        elif section == "collisions":
            assert data.collisions is not None
            _plot_collisions(data.collisions, path)
        else:
            _plot_contamination(data.contamination, path)
        plots[section] = path
    verify_png = out / VERIFY_PLOT
    if data.verification:
        _plot_verification(data, verify_png)
        plots["verification"] = verify_png
    else:
        verify_png.unlink(missing_ok=True)
    index = out / "index.html"
    index.write_text(_html(data, set(plots)), encoding="utf-8")
    report = out / "report.json"
    report.write_text(data.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return ReportFiles(index_html=index, report_json=report, plots=plots,
                       skipped=[s for s in PLOT_FILES if s not in plots])
