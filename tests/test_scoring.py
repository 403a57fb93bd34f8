"""SQuAD scoring and judge-label parsing.

Every normalisation case is checked twice: against a hand-written expected string, and against
a verbatim copy of the official SQuAD v1.1 ``normalize_answer`` (``_official_normalize``), so a
"clean-up" of ours that drifts from the official behaviour fails here.
"""

from __future__ import annotations

import re
import string
from collections import Counter

import pytest

from dwqa_graph.evaluation.scoring import (
    JudgeLabel,
    exact_match,
    f1,
    hotpot_f1,
    normalize_answer,
    parse_judge_label,
)
from dwqa_graph.registry import SCORERS


def _official_normalize(s: str) -> str:
    """Verbatim logic of normalize_answer in the official evaluate-v1.1.py."""

    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text: str) -> str:
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def _official_f1_v11(prediction: str, ground_truth: str) -> float:
    """Verbatim logic of f1_score in the official evaluate-v1.1.py."""
    prediction_tokens = _official_normalize(prediction).split()
    ground_truth_tokens = _official_normalize(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


NORMALISE_CASES = [
    ("The Beatles", "beatles"),
    ("  A   cat\tand\nAN owl ", "cat and owl"),
    ("the theory of the thing", "theory of thing"),  # "the" inside a word stays
    ("Anthem", "anthem"),  # so does "an"
    ("a-team", "ateam"),  # punctuation goes first, so "a" is no longer a whole word
    ("The!", ""),
    ("Hello, World!", "hello world"),
    ("U.S.A.", "usa"),
    ("don't", "dont"),
    ("1,000", "1000"),
    ("3.5", "35"),  # decimal point is punctuation too
    ("1990-1995", "19901995"),  # ASCII hyphen is in string.punctuation
    ("1990\u20131995", "1990\u20131995"),  # en dash is not: stays, one token
    ("rock \u2014 roll", "rock \u2014 roll"),  # em dash survives as its own token
    ("\u201cquoted\u201d", "\u201cquoted\u201d"),  # curly quotes are not ASCII punctuation
    ("CAFÉ", "café"),
    ("", ""),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALISE_CASES)
def test_normalize_answer_matches_official(raw: str, expected: str) -> None:
    assert normalize_answer(raw) == expected
    assert normalize_answer(raw) == _official_normalize(raw)


def test_unicode_dashes_are_not_in_string_punctuation() -> None:
    # The reason the dash cases above differ: SQuAD only strips ASCII punctuation.
    assert "-" in string.punctuation
    for dash in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212":
        assert dash not in string.punctuation
    assert exact_match("1990-1995", ["19901995"]) == 1.0
    assert exact_match("1990\u20131995", ["1990-1995"]) == 0.0


@pytest.mark.parametrize(
    ("prediction", "golds", "em"),
    [
        ("the Beatles.", ["Beatles"], 1.0),
        ("1,000", ["1000"], 1.0),
        ("1000", ["one thousand"], 0.0),
        ("Paris", ["London", "paris, "], 1.0),  # max over aliases
        ("Barack Obama", ["President Barack Obama"], 0.0),
        ("", ["The"], 1.0),  # both normalise to ""
    ],
)
def test_exact_match(prediction: str, golds: list[str], em: float) -> None:
    assert exact_match(prediction, golds) == em


@pytest.mark.parametrize(
    ("prediction", "golds", "expected"),
    [
        ("Barack Obama", ["President Barack Obama"], 0.8),  # p=1, r=2/3
        ("the cat sat", ["a cat sat down"], 0.8),  # p=1, r=2/3 after articles go
        ("cat cat cat", ["cat"], 0.5),  # Counter overlap: 1 common token, p=1/3, r=1
        ("1,000 people", ["1000 people"], 1.0),
        ("dog", ["cat"], 0.0),
        ("New York City", ["Boston", "new york", "NYC"], 0.8),  # max over aliases
    ],
)
def test_f1(prediction: str, golds: list[str], expected: float) -> None:
    assert f1(prediction, golds) == pytest.approx(expected)
    assert f1(prediction, golds) == pytest.approx(
        max(_official_f1_v11(prediction, g) for g in golds)
    )


@pytest.mark.parametrize(
    ("prediction", "gold", "expected", "v11"),
    [
        ("The.", "", 1.0, 0.0),  # both empty: v2.0 says 1, v1.1 said 0
        ("", "an", 1.0, 0.0),
        ("", "Paris", 0.0, 0.0),
        ("Paris", "the", 0.0, 0.0),
    ],
)
def test_f1_empty_follows_squad_v2(prediction: str, gold: str, expected: float, v11: float) -> None:
    assert f1(prediction, [gold]) == expected
    assert _official_f1_v11(prediction, gold) == v11


def test_golds_must_be_a_nonempty_list() -> None:
    with pytest.raises(ValueError):
        exact_match("x", [])
    with pytest.raises(ValueError):
        f1("x", [])
    with pytest.raises(TypeError):
        f1("x", "x")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "label", "fallback"),
    [
        ("CORRECT", "CORRECT", False),
        ("correct", "CORRECT", False),
        ("The answer is INCORRECT.", "INCORRECT", False),
        ("INCORRECT", "INCORRECT", False),  # contains "CORRECT" but only as part of a word
        ("not attempted", "NOT_ATTEMPTED", False),
        ("NOT_ATTEMPTED", "NOT_ATTEMPTED", False),
        ("Verdict: not-attempted", "NOT_ATTEMPTED", False),
        ("Grade: CORRECT. Final: CORRECT", "CORRECT", False),  # same label twice is fine
        ("CORRECT or INCORRECT?", "INCORRECT", True),
        ("CORRECT, NOT ATTEMPTED", "INCORRECT", True),
        ("", "INCORRECT", True),
        ("correctly", "INCORRECT", True),  # not a whole-word label
        ("incorrectly answered", "INCORRECT", True),
        ("The model did not attempt it", "INCORRECT", True),
        ("CORRECT_ANSWER", "INCORRECT", True),  # "_" joins words
    ],
)
def test_parse_judge_label(text: str, label: str, fallback: bool) -> None:
    assert parse_judge_label(text) == JudgeLabel(label=label, fallback=fallback)


# -- HotpotQA's official answer F1 -------------------------------------------------------------
def _official_hotpot_f1(prediction: str, ground_truth: str) -> float:
    """The logic of f1_score in hotpot_evaluate_v1.py (github.com/hotpotqa/hotpot), first value:
    a special answer on either side that differs scores 0, then v1.1 token F1."""
    pred, gold = _official_normalize(prediction), _official_normalize(ground_truth)
    if pred in ["yes", "no", "noanswer"] and pred != gold:
        return 0
    if gold in ["yes", "no", "noanswer"] and pred != gold:
        return 0
    return _official_f1_v11(prediction, ground_truth)


# (prediction, gold, the official value worked out by hand)
HOTPOT_EDGE_CASES = [
    ("yes", "yes", 1.0),
    ("Yes.", "yes", 1.0),
    ("no", "yes", 0.0),
    ("yes, it is", "yes", 0.0),        # SQuAD F1 would give 0.5
    ("yes", "yes it is", 0.0),         # gold not special, prediction is: 0
    ("no answer", "noanswer", 0.0),    # "no answer" normalises to two tokens, not "noanswer"
    ("noanswer", "noanswer", 1.0),
    ("noanswer", "Paris", 0.0),
    ("no", "no", 1.0),
    ("No, never", "no", 0.0),          # SQuAD F1 0.667
    ("the yes men", "yes", 0.0),       # "yes men" is not special but gold is
    ("Barack Obama", "President Barack Obama", 0.8),
    ("President Barack Obama", "Barack Obama", 0.8),
    ("1,000", "1000", 1.0),
    ("", "", 0.0),                     # v1.1: no common token -> 0 (dwqa's f1 says 1.0)
    ("", "Paris", 0.0),
    ("The", "a", 0.0),                 # both normalise to empty
    ("Paris France", "Paris", 2 / 3),
    ("Arthur's Magazine", "Arthur's Magazine", 1.0),
    ("yes yes", "yes", 0.0),
]


@pytest.mark.parametrize(("prediction", "gold", "expected"), HOTPOT_EDGE_CASES)
def test_hotpot_f1_equals_the_official_script(prediction: str, gold: str,
                                              expected: float) -> None:
    official = _official_hotpot_f1(prediction, gold)
    assert official == pytest.approx(expected)
    assert hotpot_f1(prediction, [gold]) == pytest.approx(official)


def test_hotpot_f1_differs_from_squad_f1_where_it_should() -> None:
    # Positive control: the table above would pass trivially if hotpot_f1 were plain f1
    # on the rows where both agree; these rows tell them apart.
    assert f1("yes, it is", ["yes"]) == pytest.approx(0.5)
    assert hotpot_f1("yes, it is", ["yes"]) == 0.0
    assert f1("", [""]) == 1.0 and hotpot_f1("", [""]) == 0.0
    assert "hotpot_f1" in SCORERS
