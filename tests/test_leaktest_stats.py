"""Leak&Test statistics, checked against scipy's own t-tests and a hand computation.

scipy comparisons only use data with non-zero variance: scipy warns (and pytest here turns
warnings into errors) on degenerate data, which is exactly what our own handling replaces.
"""

from __future__ import annotations

import json
import math
import random

import pytest
from scipy import stats

from dwqa_graph.leakage.stats import GapTest, gap_test, leak_gaps, paired_gain_test


@pytest.mark.parametrize("seed", range(6))
def test_gap_test_matches_scipy_ttest_1samp(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 30)
    gaps = [rng.gauss(0.03, 0.05) for _ in range(n)]
    eps = rng.choice([0.0, 0.01, 0.02, 0.05])
    res = gap_test(gaps, eps)
    ref = stats.ttest_1samp(gaps, eps, alternative="greater")
    assert res.n == n
    assert res.df == n - 1
    assert res.t == pytest.approx(float(ref.statistic), rel=1e-9)
    assert res.p_value == pytest.approx(float(ref.pvalue), rel=1e-9)
    assert res.reject == (float(ref.pvalue) < 0.05)
    assert res.note == ""


def test_gap_test_hand_computed() -> None:
    gaps = [0.05, 0.03, 0.04, 0.06]
    eps = 0.02
    mean = (0.05 + 0.03 + 0.04 + 0.06) / 4  # 0.045
    sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / 3)  # sqrt(0.0005 / 3) ≈ 0.01291
    t = (mean - eps) / (sd / math.sqrt(4))  # ≈ 3.873
    res = gap_test(gaps, eps)
    assert mean == pytest.approx(0.045)
    assert sd == pytest.approx(math.sqrt(0.0005 / 3))
    assert res.mean_gap == pytest.approx(mean)
    assert res.sd == pytest.approx(sd)
    assert res.t == pytest.approx(t)
    assert res.t == pytest.approx(3.872983, rel=1e-6)
    assert res.df == 3
    assert res.p_value == pytest.approx(float(stats.t.sf(t, 3)))
    assert res.p_value is not None and res.p_value < 0.05 and res.reject
    assert res.alpha == 0.05 and res.epsilon == eps


def test_not_rejected_when_gap_within_epsilon() -> None:
    res = gap_test([0.01, -0.02, 0.015, 0.0, 0.005], 0.02)
    assert res.t is not None and res.t < 0
    assert res.p_value is not None and res.p_value > 0.5
    assert not res.reject


@pytest.mark.parametrize(
    ("gaps", "eps", "p", "reject", "note"),
    [
        ([0.1, 0.1, 0.1], 0.02, 0.0, True, "all gaps equal and above epsilon"),
        ([0.01, 0.01, 0.01, 0.01], 0.02, 1.0, False, "all gaps equal and not above epsilon"),
        ([0.02, 0.02], 0.02, 1.0, False, "all gaps equal and not above epsilon"),
    ],
)
def test_zero_variance(gaps: list[float], eps: float, p: float, reject: bool, note: str) -> None:
    res = gap_test(gaps, eps)
    assert (res.t, res.p_value, res.reject, res.note) == (None, p, reject, note)
    assert res.sd == 0.0 and res.mean_gap == gaps[0] and res.df == len(gaps) - 1


@pytest.mark.parametrize("gaps", [[0.07], []])
def test_too_few_gaps(gaps: list[float]) -> None:
    res = gap_test(gaps, 0.02)
    assert res.n == len(gaps)
    assert (res.t, res.p_value, res.df, res.sd) == (None, None, None, None)
    assert res.mean_gap == (gaps[0] if gaps else None)
    assert not res.reject and res.note == "need at least 2 gaps"


def test_results_are_strict_json() -> None:
    # NaN/inf would make this raise: allow_nan=False is what strict JSON consumers need.
    for res in (gap_test([0.1, 0.1], 0.0), gap_test([0.1], 0.0), gap_test([0.1, 0.2], 0.0)):
        json.dumps(res.model_dump(), allow_nan=False)
        assert GapTest.model_validate_json(res.model_dump_json()) == res


def test_bad_input_rejected() -> None:
    with pytest.raises(ValueError):
        gap_test([0.1, float("nan")], 0.0)
    with pytest.raises(ValueError):
        gap_test([0.1, 0.2], float("inf"))
    with pytest.raises(ValueError):
        gap_test([0.1, 0.2], 0.0, alpha=1.5)
    with pytest.raises(ValueError):
        paired_gain_test([0.1, 0.2], [0.1])
    with pytest.raises(ValueError):
        leak_gaps([0.5, 0.6], [0.4])


def test_leak_gaps() -> None:
    assert leak_gaps([0.5, 0.6, 0.7], [0.4, 0.6, 0.5]) == pytest.approx([0.1, 0.0, 0.2])


@pytest.mark.parametrize("seed", range(5))
def test_paired_gain_matches_scipy_ttest_rel(seed: int) -> None:
    rng = random.Random(100 + seed)
    n = rng.randint(3, 40)
    clean = [rng.random() for _ in range(n)]
    leaked = [min(1.0, c + rng.gauss(0.02, 0.1)) for c in clean]
    res = paired_gain_test(leaked, clean)
    ref = stats.ttest_rel(leaked, clean, alternative="greater")
    assert res.n == n and res.df == n - 1 and res.epsilon == 0.0
    assert res.t == pytest.approx(float(ref.statistic), rel=1e-9)
    assert res.p_value == pytest.approx(float(ref.pvalue), rel=1e-9)
    assert res.reject == (float(ref.pvalue) < 0.05)


def test_paired_gain_binary_scores() -> None:
    # Per-item 0/1 correctness, the usual static-benchmark case.
    leaked = [1, 1, 1, 0, 1, 1, 0, 1, 1, 1]
    clean = [1, 0, 0, 0, 1, 0, 0, 1, 0, 1]
    res = paired_gain_test(leaked, clean)
    ref = stats.ttest_rel(leaked, clean, alternative="greater")
    assert res.t == pytest.approx(float(ref.statistic), rel=1e-9)
    assert res.p_value == pytest.approx(float(ref.pvalue), rel=1e-9)
    assert res.reject


def test_paired_gain_degenerate() -> None:
    same = paired_gain_test([0.5, 0.7, 0.9], [0.5, 0.7, 0.9])
    assert (same.p_value, same.reject, same.t) == (1.0, False, None)
    shifted = paired_gain_test([1.0, 1.0], [0.0, 0.0])
    assert (shifted.p_value, shifted.reject, shifted.t) == (0.0, True, None)
    single = paired_gain_test([1.0], [0.0])
    assert single.p_value is None and not single.reject
