"""FreshEval: FreshQA's own grading, in its two modes (Vu et al., 2023, "FreshLLMs", §2.3).

- **relaxed**: only the primary answer is graded. Credit it when it is confident and
  definitive (or the correct answer is obviously inferred from it), the primary or final
  answer standing alone is accurate, and nothing else in the response contradicts it or
  reshapes it. Hallucinated or outdated side information and ill-formed text are accepted.
- **strict**: as relaxed, and additionally no hallucinated or outdated information and no
  ill-formed answer anywhere in the response.

Both modes: a false-premise question is credited only when the response points the false
premise out; entity names must be complete or commonly recognised ("Jeff" is not "Jeff
Bezos"); approximate numbers ("over 20") are not accepted unless a gold answer says so.

Two implementations, as for the answer judge:

- :func:`fresheval_rule` (offline, deterministic) checks what can be checked from the text
  and the gold answers: refusals and hedges, an explicit final answer, gold coverage, the
  false-premise rebuttal, numbers that contradict a yes/no answer to a threshold question
  and, in strict mode, enumerations or repetition (ill-formed) and a knowledge-cutoff
  disclaimer on a fact that changes. It cannot know that a side claim is hallucinated
  (strict mode's "Djokovic at the 2021 Australian Open"): that takes world knowledge.
- :class:`LLMFreshEval` asks a model with FreshEval's instructions and demonstrations
  (``prompts/fresheval_<mode>.md``) and reads its ``evaluation: correct|incorrect`` line.

Labels map onto the judge's: credited -> CORRECT, not credited -> INCORRECT (FreshEval has
no NOT_ATTEMPTED: a refusal is simply not credited).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from langchain_core.messages import HumanMessage

from dwqa_graph.evaluation.scoring import JudgeLabel
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.text import normalize_answer

Mode = Literal["relaxed", "strict"]
MODES: tuple[str, ...] = ("relaxed", "strict")

# A response that declines or hedges gives no "confident and definitive answer".
_REFUSALS = re.compile(
    r"\b(?:i'?m sorry|i am sorry|i (?:do not|don'?t) know|i have no information|"
    r"no information to suggest|i'?m not sure|i am not sure|unable to (?:answer|determine|"
    r"provide)|cannot (?:answer|determine|provide)|can'?t (?:answer|determine|provide)|"
    r"it is (?:unclear|not clear)|if you have any more information)\b", re.IGNORECASE)
# "The final answer is X." / "Final answer: X" name the primary answer explicitly.
_FINAL = re.compile(r"\b(?:the\s+)?final\s+answer\s*(?:is|:)\s*(.+?)(?:[.\n]|$)",
                    re.IGNORECASE)
# Rebuttals of a false premise.
_NEGATIONS = frozenset({"never", "not", "no", "none", "neither", "nor", "cannot", "nt",
                        "didnt", "doesnt", "hasnt", "havent", "isnt", "wasnt", "werent",
                        "arent", "wont"})
_PREMISE = re.compile(r"\b(?:false|invalid|incorrect|mistaken|wrong)\s+premise|"
                      r"not\s+(?:a\s+)?valid\s+premise|premise\s+is\s+(?:false|incorrect)",
                      re.IGNORECASE)
_STOP = frozenset("a an the of in on at to for by with from and or as is are was were be been "
                  "has have had do does did its it this that these those his her their he she "
                  "they there than then which who whom what when where why how".split())
# A knowledge-cutoff disclaimer: the answer is given as of an earlier date, unconfirmed.
_CUTOFF = re.compile(r"\b(?:knowledge\s+cut-?off|as of my (?:last|latest) (?:update|"
                     r"training)|may not be up[- ]to[- ]date|may have changed)\b",
                     re.IGNORECASE)
# Enumerated candidates ("1. Mandarin 2. Spanish 3. English"): no explicit statement.
_ENUMERATION = re.compile(r"(?:^|\s)1[.)]\s+\S.*?\s2[.)]\s+\S", re.DOTALL)
_THRESHOLD = re.compile(
    r"\b(above|over|more than|greater than|higher than|exceed(?:s|ed|ing)?|at least|"
    r"below|under|less than|lower than|at most)\s+(\$)?\s*(\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE)
_NUMBER = re.compile(r"(\$)?\s*(\d[\d,]*(?:\.\d+)?)")
_UPWARD = ("above", "over", "more than", "greater than", "higher than", "exceed", "at least")
#: FreshQA fact types whose answer does not change: a cutoff disclaimer is harmless there.
TIMELESS = frozenset({"never-changing", "never_changing", "neverchanging"})


@dataclass(frozen=True)
class FreshVerdict:
    credited: bool
    reason: str


def _tokens(text: str) -> list[str]:
    # Apostrophes go before SQuAD normalisation, so "isn't" is one token "isnt".
    return normalize_answer(text.replace("'", "").replace("’", "")).split()


def _content(tokens: Sequence[str]) -> list[str]:
    return ["NEG" if t in _NEGATIONS else t for t in tokens if t not in _STOP]


def _initialisms(words: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Acronyms a response may use for runs of gold words: "united kingdom" -> "uk"."""
    out = {}
    for n in (2, 3, 4):
        for i in range(len(words) - n + 1):
            out["".join(w[0] for w in words[i:i + n])] = tuple(range(i, i + n))
    return out


def _covers(response: str, gold: str) -> bool:
    """The gold's words in the response: as one run for a short answer ("Jeff Bezos"),
    every content word (negations as one NEG token, acronyms allowed) for a sentence
    ("The United Kingdom has never adopted the Euro.")."""
    gold_toks = _tokens(gold)
    if not gold_toks:
        return False
    resp_toks = _tokens(response)
    if len(gold_toks) <= 3:
        n = len(gold_toks)
        return any(resp_toks[i:i + n] == gold_toks for i in range(len(resp_toks) - n + 1))
    words = _content(gold_toks)
    have = set(_content(resp_toks))
    covered = {i for i, w in enumerate(words) if w in have}
    for acronym, idx in _initialisms(words).items():
        if acronym in have:
            covered.update(idx)
    return len(covered) == len(words)


def _primary(response: str) -> str:
    """The primary answer: an explicit "final answer", else the whole response."""
    found = list(_FINAL.finditer(response))  # the last one: a response may revise itself
    return found[-1].group(1).strip() if found else response


def _yes_no(text: str) -> str | None:
    toks = _tokens(text)
    return toks[0] if toks and toks[0] in ("yes", "no") else None


def _contradicts_threshold(question: str, response: str, claim: str) -> bool:
    """A yes/no answer to "is X above N?" whose own numbers say otherwise ("Yes ... $207")."""
    m = _THRESHOLD.search(question)
    if not m:
        return False
    upward = m.group(1).lower().startswith(_UPWARD)
    dollars, limit = bool(m.group(2)), float(m.group(3).replace(",", ""))
    says_above = (claim == "yes") == upward  # what the answer asserts about the value
    for d, num in _NUMBER.findall(response):
        if dollars and not d:
            continue
        value = float(num.replace(",", ""))
        if value == limit:
            continue
        if (value > limit) != says_above:
            return True
    return False


def _ill_formed(response: str) -> str | None:
    if _ENUMERATION.search(response):
        return "an enumeration, no explicit statement"
    toks = [t for t in _tokens(response) if t not in _STOP]
    if len(toks) >= 10:
        word, count = Counter(toks).most_common(1)[0]
        if count >= 4 and count / len(toks) >= 0.15:
            return f"repetitive ({word!r} {count} times)"
    return None


def fresheval_rule(mode: Mode, question: str, golds: Sequence[str], response: str, *,
                   false_premise: bool | None = None,
                   fact_type: str | None = None) -> FreshVerdict:
    """FreshEval's verdict on one response under ``mode``, by rule (see the module doc)."""
    if mode not in MODES:
        raise ValueError(f"FreshEval mode must be relaxed or strict, got {mode!r}")
    if not normalize_answer(response):
        return FreshVerdict(False, "no answer")
    if _REFUSALS.search(response):
        return FreshVerdict(False, "no confident and definitive answer")
    if false_premise:
        rebutted = bool(_PREMISE.search(response)) or "NEG" in _content(_tokens(response))
        if not rebutted:
            return FreshVerdict(False, "false premise not pointed out")
    primary = _primary(response)
    yes_no_golds = {g for g in (_yes_no(x) for x in golds if len(_tokens(x)) == 1) if g}
    if yes_no_golds:
        claim = _yes_no(primary)
        if claim not in yes_no_golds:
            return FreshVerdict(False, "primary answer does not match")
        if _contradicts_threshold(question, response, claim or ""):
            return FreshVerdict(False, "additional information contradicts the answer")
    elif not any(_covers(primary, g) for g in golds):
        return FreshVerdict(False, "primary answer does not match")
    if mode == "strict":
        bad = _ill_formed(response)
        if bad:
            return FreshVerdict(False, f"ill-formed: {bad}")
        if _CUTOFF.search(response) and (fact_type or "").strip().lower() not in TIMELESS:
            return FreshVerdict(False, "outdated: relies on a knowledge cutoff, unconfirmed")
    return FreshVerdict(True, "credited")


class RuleFreshEval:
    """The offline FreshEval judge (``--judge-mode relaxed|strict`` without ``--judge-llm``)."""

    uses_item_flags = True

    def __init__(self, mode: Mode) -> None:
        self.mode: Mode = mode
        self.id = f"fresheval-{mode}:rule"

    async def grade(self, question: str, golds: Sequence[str], answer: str, *,
                    false_premise: bool | None = None,
                    fact_type: str | None = None) -> JudgeLabel:
        v = fresheval_rule(self.mode, question, golds, answer, false_premise=false_premise,
                           fact_type=fact_type)
        return JudgeLabel(label="CORRECT" if v.credited else "INCORRECT", fallback=False)


_EVALUATION = re.compile(r"evaluation:\s*(correct|incorrect)\b", re.IGNORECASE)


def parse_fresheval(reply: str) -> bool | None:
    """FreshEval's reading of a grader reply: the last ``evaluation: correct|incorrect``
    line, else "the response is (not) credited", else None (unusable)."""
    found = _EVALUATION.findall(reply)
    if found:
        return found[-1].lower() == "correct"
    if re.search(r"response is not credited", reply, re.IGNORECASE):
        return False
    if re.search(r"response is credited", reply, re.IGNORECASE):
        return True
    return None


class LLMFreshEval:
    """FreshEval with a model: FreshEval's instructions and worked examples, then the item;
    an unusable reply is a fallback INCORRECT, never CORRECT."""

    uses_item_flags = True

    def __init__(self, mode: Mode, llm: LLM) -> None:
        self.mode: Mode = mode
        self.llm = llm
        self.prompt = load_prompt(f"fresheval_{mode}")
        self.id = f"fresheval-{mode}:llm:{llm.id}"

    async def grade(self, question: str, golds: Sequence[str], answer: str, *,
                    false_premise: bool | None = None,
                    fact_type: str | None = None) -> JudgeLabel:
        text = self.prompt.render(question=question, correct_answers=" | ".join(golds),
                                  response=answer or "(no answer)")
        try:
            reply = await self.llm.acall([HumanMessage(text)])
        except LLMFailure:
            return JudgeLabel(label="INCORRECT", fallback=True)
        credited = parse_fresheval(reply)
        if credited is None:
            self.llm.fail("unparseable_label")
            return JudgeLabel(label="INCORRECT", fallback=True)
        return JudgeLabel(label="CORRECT" if credited else "INCORRECT", fallback=False)
