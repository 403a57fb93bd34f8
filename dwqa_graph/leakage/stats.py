"""Leak&Test statistics: is a leaked model's advantage on fresh rounds larger than ε?

Per fresh round t+1 (t = 1..T-1) the gap is
``Δ_{t+1} = Agg(D_{t+1}, M_leak) − Agg(D_{t+1}, M)``: the leaked model's aggregate score minus
the clean model's, on a round neither has seen. If leakage only helps on the leaked data, the
gaps on fresh rounds should be at most ε. We test

    H0: mean gap ≤ ε    vs    H1: mean gap > ε

with a one-sided one-sample t-test over the n = T−1 gaps:
``t = (mean − ε) / (s / √n)``, ``df = n − 1 = T − 2``, ``p = P(T_df ≥ t)`` (Student-t survival
function), reject at α (0.05 by default) when ``p < α``. One-sided because only a *positive*
gap is evidence of leakage; a leaked model doing worse is not.

Degenerate inputs never produce NaN or ±inf (results are stored as JSON, which holds neither):

* fewer than 2 gaps: no sample variance, so ``t``/``p_value``/``df`` are None, no rejection;
* zero variance (all gaps identical): the t statistic is ±inf or 0/0, so ``t`` is None and the
  decision is made from the mean alone: above ε gives ``p_value=0.0`` and rejection, at or below
  ε gives ``p_value=1.0`` and no rejection.

:func:`paired_gain_test` is the same test on per-item differences for a static benchmark.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel
from scipy import stats

from dwqa_graph.errors import UsageError

DEFAULT_ALPHA = 0.05


class GapTest(BaseModel):
    """Result of a one-sided t-test of H0: mean ≤ epsilon; JSON-safe (no NaN, no inf)."""

    n: int  # number of gaps (or paired items)
    mean_gap: float | None  # None only when n == 0
    sd: float | None  # sample standard deviation (ddof=1); None when n < 2
    epsilon: float
    t: float | None  # None when n < 2 or the variance is zero
    df: int | None  # n - 1; None when n < 2
    p_value: float | None  # None when n < 2
    alpha: float
    reject: bool  # True: evidence that the mean exceeds epsilon at level alpha
    note: str = ""  # why t / p_value are missing or were decided without a t statistic


def _check_finite(values: Sequence[float], what: str) -> list[float]:
    xs = [float(v) for v in values]
    if not all(math.isfinite(x) for x in xs):
        raise ValueError(f"{what} must all be finite numbers")
    return xs


def _one_sided_t(values: list[float], epsilon: float, alpha: float) -> GapTest:
    """Shared core: one-sample t-test of mean(values) > epsilon, with degenerate handling."""
    if not math.isfinite(epsilon):
        raise UsageError("epsilon must be finite")
    if not 0.0 < alpha < 1.0:
        raise UsageError("alpha must be in (0, 1)")
    n = len(values)
    base = {"n": n, "epsilon": epsilon, "alpha": alpha}
    if n < 2:
        mean = values[0] if n == 1 else None
        return GapTest(**base, mean_gap=mean, sd=None, t=None, df=None, p_value=None,
                       reject=False, note="need at least 2 gaps")
    df = n - 1
    # Exact equality, not a tolerance: identical inputs can still give a mean that differs from
    # them in the last bit, and a rounding-noise sd would make t astronomically large.
    if max(values) == min(values):
        mean = values[0]
        if mean > epsilon:
            return GapTest(**base, mean_gap=mean, sd=0.0, t=None, df=df, p_value=0.0,
                           reject=True, note="all gaps equal and above epsilon")
        return GapTest(**base, mean_gap=mean, sd=0.0, t=None, df=df, p_value=1.0,
                       reject=False, note="all gaps equal and not above epsilon")
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / df)
    t = (mean - epsilon) / (sd / math.sqrt(n))
    p = float(stats.t.sf(t, df))
    return GapTest(**base, mean_gap=mean, sd=sd, t=t, df=df, p_value=p, reject=p < alpha)


def leak_gaps(agg_leaked: Sequence[float], agg_clean: Sequence[float]) -> list[float]:
    """Per-round gaps Δ_{t+1} = Agg(D_{t+1}, M_leak) − Agg(D_{t+1}, M), rounds aligned by index.

    The two sequences must cover the same fresh rounds (2..T) in the same order; a length
    mismatch means rounds were dropped for one model, which would bias the test.
    """
    leaked = _check_finite(agg_leaked, "agg_leaked")
    clean = _check_finite(agg_clean, "agg_clean")
    if len(leaked) != len(clean):
        raise ValueError(f"agg_leaked has {len(leaked)} rounds, agg_clean has {len(clean)}")
    return [a - b for a, b in zip(leaked, clean, strict=True)]


def gap_test(gaps: Sequence[float], epsilon: float, alpha: float = DEFAULT_ALPHA) -> GapTest:
    """Leak&Test: one-sided one-sample t-test of H0 mean(gaps) ≤ epsilon vs H1 > epsilon.

    ``gaps`` are Δ_2..Δ_T (see :func:`leak_gaps`), so n = T−1 and df = T−2. Matches
    ``scipy.stats.ttest_1samp(gaps, epsilon, alternative="greater")`` where that is defined.
    """
    return _one_sided_t(_check_finite(gaps, "gaps"), float(epsilon), alpha)


def paired_gain_test(
    scores_leaked: Sequence[float], scores_clean: Sequence[float], alpha: float = DEFAULT_ALPHA
) -> GapTest:
    """Static benchmark: paired one-sided t-test that leaked scores exceed clean ones per item.

    Pairing by item removes between-item difficulty from the variance, which a two-sample test
    would keep. Tests H0: mean(leaked − clean) ≤ 0; matches
    ``scipy.stats.ttest_rel(leaked, clean, alternative="greater")`` where that is defined.
    The ``n < 2`` note says "gaps": here a gap is one item's difference.
    """
    leaked = _check_finite(scores_leaked, "scores_leaked")
    clean = _check_finite(scores_clean, "scores_clean")
    if len(leaked) != len(clean):
        raise ValueError(f"{len(leaked)} leaked scores but {len(clean)} clean scores")
    diffs = [a - b for a, b in zip(leaked, clean, strict=True)]
    return _one_sided_t(diffs, 0.0, alpha)


def mean_interval(values: Sequence[float], confidence: float = 0.95
                  ) -> tuple[float | None, float | None]:
    """Two-sided Student-t interval of the mean, ``mean ± t_{(1+c)/2, n-1} · s/√n``: the
    interval that goes with the gap test's t statistic. (None, None) for fewer than 2 values;
    (mean, mean) when they are all equal."""
    xs = _check_finite(values, "values")
    if len(xs) < 2:
        return None, None
    mean = math.fsum(xs) / len(xs)
    if max(xs) == min(xs):
        return mean, mean
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1))
    half = float(stats.t.ppf((1 + confidence) / 2, len(xs) - 1)) * sd / math.sqrt(len(xs))
    return mean - half, mean + half
