"""Answer scoring for QA rounds: SQuAD exact match / token F1, and judge-label parsing.

Normalisation is *exactly* the official SQuAD evaluation's ``normalize_answer`` (identical in
the v1.1 and v2.0 scripts): lowercase, drop every character in ``string.punctuation``, drop the
whole words ``a``/``an``/``the``, collapse whitespace. Scores are only comparable with published
numbers if this is byte-for-byte the same, so quirks are kept on purpose:

* only ASCII punctuation is removed: en/em dashes, curly quotes, ``…`` and the like survive, so
  ``"1990–1995"`` (en dash) stays one token while ``"1990-1995"`` becomes ``"19901995"``;
* thousands separators vanish (``"1,000"`` == ``"1000"``), as do decimal points
  (``"3.5"`` == ``"35"``);
* punctuation is removed *before* articles, so ``"a-team"`` becomes ``"ateam"``, not ``"team"``.

The one deliberate departure is F1 on empty token lists (see :func:`f1`): v1.1 returns 0 there
as a side effect of "no common token"; v2.0 says 1.0 when both sides are empty. We follow v2.0.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from dwqa_graph.registry import SCORERS
from dwqa_graph.text import normalize_answer

Label = Literal["CORRECT", "INCORRECT", "NOT_ATTEMPTED"]

def _check_golds(golds: Sequence[str]) -> None:
    # A bare string would be iterated character by character and score nonsense silently.
    if isinstance(golds, str):
        raise TypeError("golds must be a list of answer strings, not a str")
    if not golds:
        raise ValueError("golds must contain at least one gold answer")


@SCORERS.register("em", summary="SQuAD exact match (official normalisation), max over golds")
def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 if the normalised prediction equals any normalised gold alias, else 0.0.

    Max over aliases, as in the official ``metric_max_over_ground_truths``: an item with
    several acceptable surface forms must not penalise a prediction that matches one of them.
    """
    _check_golds(golds)
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in golds))


def _f1_single(prediction: str, gold: str) -> float:
    pred_toks = normalize_answer(prediction).split()
    gold_toks = normalize_answer(gold).split()
    if not pred_toks or not gold_toks:
        # SQuAD v2.0 rule: an empty answer is right only against an empty answer. (v1.1 gives
        # 0.0 even when both are empty, because it returns 0 whenever nothing overlaps.)
        return float(pred_toks == gold_toks)
    common = Counter(pred_toks) & Counter(gold_toks)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = num_same / len(pred_toks)
    recall = num_same / len(gold_toks)
    return 2 * precision * recall / (precision + recall)


@SCORERS.register("f1", summary="SQuAD token F1, max over gold aliases")
def f1(prediction: str, golds: Sequence[str]) -> float:
    """Token-level F1 (multiset overlap via ``Counter``), max over gold aliases.

    Partial credit matters for long answers ("President Barack Obama" vs "Barack Obama"),
    which exact match scores as plain wrong. Empty normalised token lists follow SQuAD v2.0:
    1.0 if both prediction and gold are empty (e.g. ``"The."`` vs ``""``), otherwise 0.0.
    """
    _check_golds(golds)
    return max(_f1_single(prediction, g) for g in golds)


#: hotpot_evaluate_v1.py's special answers: a normalised prediction or gold among these
#: scores F1 0 unless both are equal (no partial credit for "yes" against "no, it is not").
HOTPOT_SPECIAL = frozenset({"yes", "no", "noanswer"})


def _hotpot_f1_single(prediction: str, gold: str) -> float:
    """``f1_score`` of HotpotQA's official ``hotpot_evaluate_v1.py`` (its first value), rule
    for rule: the yes/no/noanswer check on the normalised strings comes first, then SQuAD v1.1
    token F1, where no common token (also: both empty) is 0."""
    pred, ref = normalize_answer(prediction), normalize_answer(gold)
    if (pred in HOTPOT_SPECIAL or ref in HOTPOT_SPECIAL) and pred != ref:
        return 0.0
    pred_toks, ref_toks = pred.split(), ref.split()
    num_same = sum((Counter(pred_toks) & Counter(ref_toks)).values())
    if num_same == 0:
        return 0.0
    precision, recall = num_same / len(pred_toks), num_same / len(ref_toks)
    return 2 * precision * recall / (precision + recall)


@SCORERS.register("hotpot_f1",
                  summary="HotpotQA's official answer F1 (yes/no/noanswer must match exactly)")
def hotpot_f1(prediction: str, golds: Sequence[str]) -> float:
    """HotpotQA answer F1 as ``hotpot_evaluate_v1.py`` computes it. HotpotQA has one gold per
    item; with several aliases the max is taken, as for ``f1``. It differs from ``f1`` in two
    places only: "yes"/"no"/"noanswer" get no partial credit, and empty-vs-empty is 0 (v1.1)."""
    _check_golds(golds)
    return max(_hotpot_f1_single(prediction, g) for g in golds)


def contains_gold(text: str, golds: Sequence[str]) -> bool:
    """A gold alias appears in ``text`` as a whole run of normalised tokens ("1911" in "It
    opened in 1911." but not in "19110"): used by the rule judge and the run-time leak check."""
    padded = f" {normalize_answer(text)} "
    return any((g := normalize_answer(gold)) and f" {g} " in padded for gold in golds)


class JudgeLabel(BaseModel):
    """A parsed judge verdict; ``fallback`` says the text did not contain exactly one label.

    Kept separate from the label so reports can count how often the judge was unparseable
    instead of those cases silently inflating "INCORRECT".
    """

    label: Label
    fallback: bool


# Whole words only: \b on both sides means "INCORRECT" never yields "CORRECT" and "correctly"
# yields nothing. "_" is a word character, so "NOT_ATTEMPTED" is one word and "CORRECT_X" none.
_LABEL_RE = re.compile(r"\b(?:(INCORRECT)|(CORRECT)|(NOT[\s_-]+ATTEMPTED))\b", re.IGNORECASE)
_FALLBACK: Label = "INCORRECT"


def parse_judge_label(text: str) -> JudgeLabel:
    """Find the single grading label in a judge model's reply.

    Strict on purpose: if no label or more than one *distinct* label appears ("CORRECT or
    INCORRECT?"), we cannot tell what the judge meant, and the conservative reading is
    "INCORRECT" (never credit an answer on an ambiguous verdict) with ``fallback=True``.
    Repeating the same label is fine. ``NOT_ATTEMPTED`` also matches "NOT ATTEMPTED" and
    "not-attempted". Negations are not understood ("not correct" reads as CORRECT), so the judge
    prompt must ask for the bare label.
    """
    found: set[Label] = set()
    for m in _LABEL_RE.finditer(text):
        if m.group(1):
            found.add("INCORRECT")
        elif m.group(2):
            found.add("CORRECT")
        else:
            found.add("NOT_ATTEMPTED")
    if len(found) == 1:
        return JudgeLabel(label=found.pop(), fallback=False)
    return JudgeLabel(label=_FALLBACK, fallback=True)
