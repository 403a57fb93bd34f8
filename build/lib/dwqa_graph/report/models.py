"""What a report shows: the pydantic models ``gather`` fills and ``render_report`` draws
(also written out as report.json)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


def _check_json_safe(value: Any, where: str = "value") -> Any:
    """Reject NaN / ±inf anywhere in a nested dict/list (JSON holds neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} must be a finite number, got {value!r}")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_json_safe(v, f"{where}[{k!r}]")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check_json_safe(v, f"{where}[{i}]")
    return value


class _Model(BaseModel):
    # No NaN / inf in float fields: report.json must be valid JSON and round-trip.
    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")


class ScorePoint(_Model):
    """One agent's aggregate score on one round: Agg(D_t, M), with its confidence interval."""

    agent: str
    t: int
    scorer: str  # "em" | "f1" | "judge"
    score: float
    ci_low: float
    ci_high: float
    n: int
    snapshot: bool  # the round is frozen


class MacroScore(_Model):
    """Eq. 8: the mean of Agg over a window of rounds."""

    agent: str
    scorer: str
    rounds: list[int]
    score: float
    ci_low: float
    ci_high: float


class StaticScore(_Model):
    """An agent on a static benchmark."""

    agent: str
    dataset: str
    scorer: str
    score: float
    ci_low: float
    ci_high: float
    n: int


class LeakSummary(_Model):
    """One Leak&Test run: the leaked agent against the clean one, statically and on fresh rounds.

    ``static``: dataset, a_clean, a_leak, gap, t, df, p_value, n, reject (or None: no static
    benchmark). ``dynamic``: rounds, clean, leaked, gaps (per round), gap (their mean), t, df,
    p_value, reject, note. ``t``, ``df``, ``p_value`` (and a gap) may be None.
    """

    id: str
    agent: str
    leaked_agent: str
    scorer: str
    epsilon: float
    static: dict[str, Any] | None
    dynamic: dict[str, Any]

    @field_validator("static", "dynamic")
    @classmethod
    def _finite(cls, v: Any) -> Any:
        return _check_json_safe(v)


class ContaminationCount(_Model):
    dataset: str
    kind: str  # "runtime" | "pretraining" | "paraphrase"
    flagged: int
    total: int
    by_reason: dict[str, int] = {}


class ReportData(_Model):
    generated_at: str
    scores: list[ScorePoint] = []
    macro: list[MacroScore] = []
    static: list[StaticScore] = []
    leaktests: list[LeakSummary] = []
    collisions: dict[str, Any] | None = None  # exactly what rounds.collisions() returns
    contamination: list[ContaminationCount] = []

    @field_validator("collisions")
    @classmethod
    def _finite(cls, v: Any) -> Any:
        return _check_json_safe(v)


class ReportFiles(BaseModel):
    """What :func:`render_report` wrote."""

    index_html: Path
    report_json: Path
    plots: dict[str, Path]  # section -> PNG, only for the plots drawn
    skipped: list[str]  # sections whose plot was not drawn for lack of data

    @property
    def pngs(self) -> list[Path]:
        return list(self.plots.values())


# -- small helpers ---------------------------------------------------------------------
