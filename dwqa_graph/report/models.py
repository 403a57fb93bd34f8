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
    run_id: str = ""  # the run shown: the newest scored run of (agent, round)
    errors: int = 0  # agent errors in that run (scored 0)
    n_runs: int = 1  # runs of (agent, round) stored, failed ones included


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
    split: str | None = None
    run_id: str = ""
    errors: int = 0
    n_runs: int = 1


class RunRow(_Model):
    """One stored evaluation run, scored or failed, and whether the report shows it."""

    id: str
    agent: str
    target: str
    split: str | None = None
    created_at: str
    n: int
    errors: int
    status: str  # "ok" | "failed"
    failure: str | None = None
    shown: bool  # its scores are the ones plotted / tabled (newest scored run per target)


class Breakdown(_Model):
    """A shown run's score on one group of items: a pattern (or HotpotQA type / FreshQA fact
    type), a hop count, or a round item's sources or constraints."""

    agent: str
    target: str
    by: str  # "pattern" | "hops" | "sources" | "constraints"
    group: str
    scorer: str
    score: float
    n: int


class ExampleItem(_Model):
    """A round item as generated, with where it came from."""

    round: int
    seed: int | None
    theta_hash: str | None
    pattern: str | None
    hops: int | None
    question: str
    answer: str
    seed_question: str
    evidence: list[str]  # the sentences of the facts the item uses, in order
    urls: list[str]  # the pages those sentences were read from


class RoundQuality(_Model):
    """One round's item quality, as ``new_round`` stored it on the Round (``Round.quality``):
    what the rubric checks (rounds/checks.py) did to every candidate the round tried.

    ``recorded`` is False for a round written before the checks existed: only its counts."""

    t: int
    generator: str | None = None
    recorded: bool = True
    graphs: int
    items: int
    no_item: int
    coverage: float  # items / graphs
    attempts: int = 0  # candidates tried (every attempt of every seed graph)
    patterns: dict[str, int] = {}
    check_rejections: dict[str, int] = {}  # check -> candidates it rejected
    check_pass_rates: dict[str, float] = {}  # check -> share of the candidates it checked
    rejected_by_reason: dict[str, int] = {}  # every rejection reason, structural ones too
    no_item_reasons: dict[str, int] = {}  # reason -> seed graphs left without an item by it
    #: The model asked each candidate without evidence (None: the probe did not run).
    closed_book: str | None = None


class VerifyRow(_Model):
    """One ``round verify`` run of a round: how many of its items held, changed, lost
    support or could not be checked (``rounds/verify.py``)."""

    round: int
    run_id: str
    checked_at: str
    items: int
    holds: int
    changed: int
    unsupported: int
    unreachable: int


class Provenance(_Model):
    """How the data shown was made."""

    package_version: str
    rounds: list[dict[str, Any]] = []  # t, seed, theta_hash, generator, frozen, items


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
    #: What flagged / total count: items, or for the paraphrase check item pairs.
    unit: str = "items"


class ReportData(_Model):
    generated_at: str
    provenance: Provenance | None = None
    runs: list[RunRow] = []
    breakdowns: list[Breakdown] = []
    examples: list[ExampleItem] = []
    scores: list[ScorePoint] = []
    macro: list[MacroScore] = []
    static: list[StaticScore] = []
    leaktests: list[LeakSummary] = []
    collisions: dict[str, Any] | None = None  # exactly what rounds.collisions() returns
    contamination: list[ContaminationCount] = []
    quality: list[RoundQuality] = []  # per round, oldest first
    verification: list[VerifyRow] = []  # per round, oldest run first

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
