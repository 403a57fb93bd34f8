"""Pretraining leakage: has a model seen a benchmark's questions before it was evaluated?

Two detectors over a question set (``EvalItem``s: a static benchmark, or a fresh round as the
reference that no model can have seen):

**Guided completion** (black box; Golchin & Surdeanu, "Time Travel in LLMs: Tracing Data
Contamination in Large Language Models", ICLR 2024). The model gets the first part of each
question — cut at a word boundary after ``⌊fraction · words⌋`` words (at least one word on
each side) — and a prompt naming the dataset (``prompts/guided_completion.md``), and is asked
to finish the question exactly as it appears there. The completion is compared with the true
remainder by ROUGE-L F1 over lowercase word tokens (``\\w+``; LCS-based, implemented here) and
by exact match after SQuAD normalisation. A completion with ROUGE-L ≥ ``threshold`` (0.75) or
an exact match marks the item *suspected*. The reply is cleaned before scoring: a leading
``Second piece:`` label, surrounding quotes and a repeated first piece are removed, and only
the first non-empty line is kept (the remainder of a question is one line).

**Min-K% Prob** (grey box; Shi et al., "Detecting Pretraining Data from Large Language
Models", ICLR 2024). The log-prob of every token of the question text, conditioned on the
tokens before it, from an OpenAI-compatible ``/v1/completions`` endpoint with ``echo``; the
score is the mean of the lowest ``k`` (20 %) of them. Higher (less negative) = the text
surprised the model less = more likely seen in training. The absolute value depends on the
model and on the text's length and style, so the number means something only *relative to a
reference set* (a fresh round): the report gives both means, their difference and the AUC
P(score of a benchmark item > score of a reference item).

llama.cpp echo log-probs — what the real server (llama-cpp-python 0.3.36, SmolLM2-135M) does,
measured with ``scripts/llm-server``:

* ``/v1/completions`` with ``echo: true, logprobs: 1, max_tokens: 1`` returns ``tokens``,
  ``token_logprobs``, ``top_logprobs`` and ``text_offset`` for the prompt tokens, plus the
  generated token(s). ``max_tokens: 0`` is *not* "no generation" there: ≤ 0 means "until the
  context is full", so we always ask for 1 token and drop what was generated.
* llama-cpp-python pairs the logits row ``i`` (the distribution of token ``i+1``) with
  ``all_tokens[i]``, where ``all_tokens`` is the prompt *without a leading BOS*. It assumes
  the tokenizer added a BOS; SmolLM2's GGUF adds none, so without one every value is the
  log-prob of token ``i`` under the distribution of token ``i+1`` — garbage (on "The capital
  of France is Paris." ``" Paris"`` gets −8.45; the top-1 of each row is the *next* token).
  The last generated token is then also missing (the lists are one entry short).
* With the BOS token's text in front (``<|im_start|>`` for SmolLM2; it is parsed as the special
  token and stripped), the alignment is right (``" Paris"``: −0.27, and the top-1 of a row is
  the token itself whenever the model guessed it). ``token_logprobs[0]`` is still forced to
  ``null`` (the first text token loses its real value) and the last entry is the generated
  token, which is not part of the text. Other strings (``<s>``, ``<|endoftext|>``) are either
  tokenised as text or not stripped, and the shift remains.
* Multi-byte characters split over several tokens come back as empty strings (decoded with
  ``errors="ignore"``), so token strings do not always spell the text.

Hence: the BOS prefix is found by calibration (``prefix=None``): a counting sentence is scored
with each candidate prefix (none first — servers that add their own BOS, e.g. vLLM, need
none) and the first whose log-probs are *aligned* is used. Alignment is measured from the
top-1 of each row: aligned rows predict their own token (``top1[i] == tokens[i]``), shifted
rows the next one (``top1[i] == tokens[i+1]``); on the calibration text the real server gives
17 vs 0 with the prefix and 0 vs 13 without. The same counts are summed over every scored
item and reported. Entries are matched to the text by spelling (:func:`align_echo`): leading
tokens that are not text (a BOS) are skipped, entries after the end of the text (generated)
dropped, empty pieces kept, and the first token (no log-prob) is not scored.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import re
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from dwqa_graph.errors import UsageError
from dwqa_graph.llm import (
    LLM,
    LLMFailure,
    LLMStats,
    Prompt,
    load_prompt,
    make_llm,
)
from dwqa_graph.models import EvalItem
from dwqa_graph.openai_compat import OpenAICompatChat
from dwqa_graph.text import normalize_answer

DEFAULT_FRACTION = 0.5
DEFAULT_THRESHOLD = 0.75
DEFAULT_K = 0.2
#: Candidate BOS strings tried by the Min-K% calibration, in order ("" = none).
BOS_CANDIDATES = ("", "<|im_start|>", "<s>", "<|begin_of_text|>", "<bos>", "<|endoftext|>")
#: Very predictable text: an aligned model ranks most of its tokens first.
CALIBRATION_TEXT = "One, two, three, four, five, six, seven, eight, nine, ten."
#: A -inf log-prob (probability 0 in float arithmetic) is clamped to this, JSON has no inf.
LOGPROB_FLOOR = -100.0

_WORD = re.compile(r"\w+")


# -- guided completion: text pieces -------------------------------------------------------------
def word_tokens(text: str) -> list[str]:
    """Lowercase word tokens (``\\w+``), as ROUGE-L compares them; punctuation is dropped."""
    return _WORD.findall(text.lower())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, O(|a|·|b|))."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


class RougeL(NamedTuple):
    precision: float
    recall: float
    f1: float


def rouge_l(candidate: str, reference: str) -> RougeL:
    """ROUGE-L on lowercase word tokens: LCS / |candidate|, LCS / |reference|, their F1.

    Two empty token lists score 1.0, one empty list 0.0."""
    cand, ref = word_tokens(candidate), word_tokens(reference)
    if not cand or not ref:
        v = float(not cand and not ref)
        return RougeL(v, v, v)
    lcs = lcs_length(cand, ref)
    if lcs == 0:
        return RougeL(0.0, 0.0, 0.0)
    p, r = lcs / len(cand), lcs / len(ref)
    return RougeL(p, r, 2 * p * r / (p + r))


def split_question(text: str, fraction: float = DEFAULT_FRACTION) -> tuple[str, str] | None:
    """(first piece, remainder) at a word boundary after ``⌊fraction · words⌋`` words, at least
    one word on each side; None for a one-word text. The text's own spacing is kept."""
    if not 0 < fraction < 1:
        raise UsageError("fraction must be between 0 and 1")
    words = list(re.finditer(r"\S+", text))
    if len(words) < 2:
        return None
    cut = min(len(words) - 1, max(1, int(len(words) * fraction + 1e-9)))
    return text[:words[cut - 1].end()], text[words[cut].start():]


_LABEL = re.compile(r"^\s*(?:\*\*)?(?:second piece|first piece|completion|answer|continuation)"
                    r"\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*", re.IGNORECASE)
_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»"}


def clean_completion(reply: str, prefix: str) -> str:
    """The model's completion as a string to score: first non-empty line, without a leading
    label, quotes, an ellipsis, or a repetition of the first piece."""
    text = _LABEL.sub("", reply.strip())
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = _LABEL.sub("", line).strip()
    if len(line) >= 2 and _QUOTES.get(line[0]) == line[-1]:
        line = line[1:-1].strip()
    # The model often writes the whole question: drop the first piece when it comes first.
    want = word_tokens(prefix)
    got = list(_WORD.finditer(line))
    if want and len(got) >= len(want) and [m.group().lower() for m in got[:len(want)]] == want:
        line = line[got[len(want) - 1].end():]
    return line.lstrip(" .…-–—\"'“‘").strip()


# -- guided completion: reports -----------------------------------------------------------------
class GuidedItem(BaseModel):
    id: str
    dataset: str
    prefix: str = Field(description="The first piece shown to the model.")
    remainder: str = Field(description="The true rest of the question.")
    completion: str | None = Field(None, description="Cleaned completion; None if no reply.")
    rouge_l: float | None = Field(None, description="ROUGE-L F1 with the remainder.")
    rouge_l_recall: float | None = None
    exact_match: bool | None = None
    suspected: bool = False
    error: str | None = Field(None, description="too_short, or the LLM failure reason.")


class GuidedSummary(BaseModel):
    items: int
    scored: int
    mean_rouge_l: float | None = None
    median_rouge_l: float | None = None
    exact_match_rate: float | None = None
    suspected: int = 0
    suspected_rate: float | None = None
    empty_completions: int = 0
    failures: dict[str, int] = Field(default_factory=dict)


class GuidedReport(GuidedSummary):
    """``guided_completion``; ``reference`` is the same test on a set no model has seen."""

    method: Literal["guided_completion"] = "guided_completion"
    dataset_name: str
    model: str
    model_identity: dict[str, Any] = Field(default_factory=dict)
    prompt: dict[str, str] = Field(default_factory=dict)
    fraction: float
    threshold: float
    results: list[GuidedItem] = Field(default_factory=list)
    reference: GuidedSummary | None = None
    reference_results: list[GuidedItem] = Field(default_factory=list)
    difference: dict[str, float | None] | None = Field(
        None, description="Benchmark minus reference: mean_rouge_l, exact_match_rate, "
                          "suspected_rate.")
    llm: LLMStats = Field(default_factory=LLMStats)
    seconds: float = 0.0


def _mean(xs: Sequence[float]) -> float | None:
    return statistics.fmean(xs) if xs else None


def _median(xs: Sequence[float]) -> float | None:
    return float(statistics.median(xs)) if xs else None


def _sub(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _guided_summary(results: Sequence[GuidedItem]) -> GuidedSummary:
    scored = [r for r in results if r.rouge_l is not None]
    f1s = [r.rouge_l for r in scored if r.rouge_l is not None]
    suspected = sum(r.suspected for r in scored)
    return GuidedSummary(
        items=len(results), scored=len(scored), mean_rouge_l=_mean(f1s),
        median_rouge_l=_median(f1s),
        exact_match_rate=_mean([float(bool(r.exact_match)) for r in scored]),
        suspected=suspected, suspected_rate=suspected / len(scored) if scored else None,
        empty_completions=sum(1 for r in scored if not r.completion),
        failures=dict(sorted(Counter(r.error for r in results if r.error).items())))


async def _guided_one(llm: LLM, template: Prompt, item: EvalItem, dataset_name: str,
                      fraction: float, threshold: float) -> GuidedItem:
    split = split_question(item.question.strip(), fraction)
    if split is None:
        return GuidedItem(id=item.id, dataset=item.dataset, prefix=item.question,
                          remainder="", error="too_short")
    prefix, remainder = split
    base = GuidedItem(id=item.id, dataset=item.dataset, prefix=prefix, remainder=remainder)
    try:
        prompt = template.render(dataset=dataset_name, prefix=prefix)
        reply = await llm.acall([HumanMessage(prompt)])
    except LLMFailure as exc:
        return base.model_copy(update={"error": exc.reason})
    completion = clean_completion(reply, prefix)
    score = rouge_l(completion, remainder)
    exact = normalize_answer(completion) == normalize_answer(remainder)
    return base.model_copy(update={
        "completion": completion, "rouge_l": score.f1, "rouge_l_recall": score.recall,
        "exact_match": exact, "suspected": exact or score.f1 >= threshold})


def guided_completion(items: Sequence[EvalItem], llm: LLM, *, dataset_name: str,
                      reference_items: Sequence[EvalItem] | None = None,
                      fraction: float = DEFAULT_FRACTION,
                      threshold: float = DEFAULT_THRESHOLD) -> GuidedReport:
    """Guided completion of every question (and of the reference set's, if given, with the
    same prompt naming ``dataset_name``: the chance level of the same model on unseen text).

    LLM failures (timeouts, errors) are counted per reason on the items; nothing raises."""
    if not 0 < threshold <= 1:
        raise UsageError("threshold must be in (0, 1]")
    split_question("a b", fraction)  # validates fraction before any call
    template = load_prompt("guided_completion")
    started = time.perf_counter()

    async def run() -> tuple[list[GuidedItem], list[GuidedItem]]:
        jobs = [_guided_one(llm, template, it, dataset_name, fraction, threshold)
                for it in [*items, *(reference_items or [])]]
        done = await asyncio.gather(*jobs)
        return list(done[:len(items)]), list(done[len(items):])

    llm._semaphore = None  # a new event loop below: the runner's semaphore binds to it
    results, ref_results = asyncio.run(run())
    summary = _guided_summary(results)
    report = GuidedReport(
        **summary.model_dump(), dataset_name=dataset_name, model=llm.id,
        model_identity=llm.identity,
        prompt={"name": template.name, "version": template.version, "hash": template.hash},
        fraction=fraction, threshold=threshold, results=results, llm=llm.stats.model_copy())
    if reference_items is not None:
        ref = _guided_summary(ref_results)
        report.reference, report.reference_results = ref, ref_results
        report.difference = {
            "mean_rouge_l": _sub(summary.mean_rouge_l, ref.mean_rouge_l),
            "exact_match_rate": _sub(summary.exact_match_rate, ref.exact_match_rate),
            "suspected_rate": _sub(summary.suspected_rate, ref.suspected_rate)}
    report.seconds = round(time.perf_counter() - started, 3)
    return report


# -- Min-K% Prob: the math ------------------------------------------------------------------------
def min_k_score(logprobs: Sequence[float], k: float = DEFAULT_K) -> float:
    """Mean of the lowest ``max(1, ⌊k·n⌋)`` of ``n`` token log-probs (Shi et al. take
    ``int(n·k)`` tokens; at least one here so short texts still get a score)."""
    if not 0 < k <= 1:
        raise UsageError("k must be in (0, 1]")
    if not logprobs:
        raise ValueError("no log-probs to score")
    n = max(1, int(len(logprobs) * k + 1e-9))
    return math.fsum(sorted(logprobs)[:n]) / n


def auc_greater(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """P(x > y) + ½·P(x = y) for x from ``xs``, y from ``ys`` (Mann–Whitney U / (n·m))."""
    if not xs or not ys:
        return None
    ys_sorted = sorted(ys)
    total = 0.0
    for x in xs:
        lo, hi = bisect.bisect_left(ys_sorted, x), bisect.bisect_right(ys_sorted, x)
        total += lo + 0.5 * (hi - lo)
    return total / (len(xs) * len(ys))


def align_echo(text: str, tokens: Sequence[str],
               logprobs: Sequence[float | None]) -> list[tuple[str, float | None]]:
    """The (token, log-prob) entries of an echo response that spell ``text``.

    Leading entries that are not text (a BOS such as ``<s>``) are skipped, entries after the
    end of the text (the generated token) dropped, empty pieces (bytes of a multi-byte
    character) kept; after empty pieces the next token may resume a few characters further on.
    ValueError if the tokens do not spell the text."""
    if len(tokens) != len(logprobs):
        raise ValueError("tokens and token_logprobs differ in length")
    out: list[tuple[str, float | None]] = []
    lead: list[tuple[str, float | None]] = []  # empty pieces before any text: BOS or bytes?
    pos, pending = 0, 0
    for tok, lp in zip(tokens, logprobs, strict=True):
        if pos >= len(text):
            break
        if tok == "":
            (out if out else lead).append((tok, lp))
            pending += 1
            continue
        if text.startswith(tok, pos):
            pos += len(tok)
            lead = []  # the text starts here: empty pieces before it were not text
        elif pos == 0 and not out and tok.lstrip() and text.startswith(tok.lstrip(), 0):
            pos = len(tok.lstrip())  # SentencePiece renders the first word with a space
            lead = []
        elif pending and (at := text.find(tok, pos, pos + 4 * pending + len(tok))) >= 0:
            pos = at + len(tok)  # the empty pieces stood for the characters skipped
        elif pending and len(text) - pos <= 4 * pending:
            pos = len(text)  # the empty pieces ended the text; this token was generated
            out.extend(lead)
            break
        elif pos == 0 and not out:
            lead, pending = [], 0
            continue  # a BOS or other special token before the text
        else:
            raise ValueError(f"token {tok!r} does not match the text at offset {pos}")
        out.extend(lead)
        lead, pending = [], 0
        out.append((tok, lp))
    else:
        out.extend(lead)  # ran out of tokens inside the text: pieces before were text
    if pos < len(text) and not pending:
        raise ValueError(f"the tokens spell only {pos} of {len(text)} characters")
    return out


def alignment_hits(tokens: Sequence[str],
                   top_logprobs: Sequence[dict[str, float] | None]) -> tuple[int, int]:
    """(rows whose top-1 is their own token, rows whose top-1 is the next token).

    An aligned response has many of the first and almost none of the second; a response
    shifted by one position (llama-cpp-python without a BOS) the other way round."""
    top1 = [max(t, key=lambda s: t[s]) if t else None for t in top_logprobs]
    aligned = sum(1 for i, t in enumerate(top1) if t is not None and t == tokens[i])
    shifted = sum(1 for i, t in enumerate(top1[:-1]) if t is not None and t == tokens[i + 1])
    return aligned, shifted


def alignment_verdict(aligned: int, shifted: int) -> Literal["aligned", "shifted",
                                                             "inconclusive"]:
    if aligned >= max(3, 2 * shifted):
        return "aligned"
    if shifted >= max(3, 2 * aligned):
        return "shifted"
    return "inconclusive"


# -- Min-K% Prob: reports -----------------------------------------------------------------------
class MinKItem(BaseModel):
    id: str
    text: str
    n_tokens: int = Field(0, description="Tokens scored (the first text token has no log-prob).")
    min_k: float | None = Field(None, description="Mean of the lowest k% token log-probs.")
    mean_logprob: float | None = Field(None, description="Mean over all scored tokens.")
    clamped: int = Field(0, description=f"-inf log-probs clamped to {LOGPROB_FLOOR}.")
    aligned_top1: int = 0
    shifted_top1: int = 0
    error: str | None = None


class MinKSummary(BaseModel):
    items: int
    scored: int
    mean: float | None = None
    median: float | None = None
    failures: dict[str, int] = Field(default_factory=dict)


class Alignment(BaseModel):
    """Top-1 agreement counts summed over the scored items (see :func:`alignment_hits`)."""

    aligned_top1: int = 0
    shifted_top1: int = 0
    verdict: Literal["aligned", "shifted", "inconclusive", "unchecked"] = "unchecked"


class MinKReport(MinKSummary):
    """``min_k_prob``: ``available`` is False (with ``reason``) when no score could be had."""

    method: Literal["min_k_prob"] = "min_k_prob"
    available: bool
    reason: str | None = None
    base_url: str | None = None
    model: str | None = None
    k: float = DEFAULT_K
    prefix: str | None = Field(None, description="BOS text put before every scored text.")
    calibration: list[dict[str, Any]] = Field(
        default_factory=list, description="Each candidate prefix tried: prefix, aligned_top1, "
                                          "shifted_top1, verdict (or error).")
    alignment: Alignment = Field(default_factory=Alignment)
    results: list[MinKItem] = Field(default_factory=list)
    reference: MinKSummary | None = None
    reference_results: list[MinKItem] = Field(default_factory=list)
    difference: float | None = Field(None, description="mean − reference mean (> 0: the "
                                                       "benchmark is more familiar).")
    auc: float | None = Field(None, description="P(benchmark item score > reference item "
                                                "score); 0.5 = no difference.")
    seconds: float = 0.0

    @classmethod
    def unavailable(cls, reason: str, *, items: int = 0, k: float = DEFAULT_K,
                    base_url: str | None = None, model: str | None = None) -> MinKReport:
        return cls(available=False, reason=reason, items=items, scored=0, k=k,
                   base_url=base_url, model=model)


class _Fail(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


class _Echo:
    """``POST {base_url}/completions`` with echo + log-probs, retried on transient errors."""

    def __init__(self, client: httpx.AsyncClient, base_url: str, model: str, retries: int,
                 concurrency: int) -> None:
        self.client, self.url, self.model, self.retries = (client, f"{base_url}/completions",
                                                           model, retries)
        self.semaphore = asyncio.Semaphore(max(1, concurrency))

    async def logprobs(self, prompt: str) -> tuple[list[str], list[float | None],
                                                   list[dict[str, float] | None]]:
        payload = {"model": self.model, "prompt": prompt, "echo": True, "logprobs": 1,
                   "max_tokens": 1, "temperature": 0.0}
        last = _Fail("error")
        for attempt in range(self.retries + 1):
            try:
                async with self.semaphore:
                    resp = await self.client.post(self.url, json=payload)
                if resp.status_code < 500:
                    break
                last = _Fail(f"http_{resp.status_code}", resp.text[:200])
            except httpx.TimeoutException as exc:
                last = _Fail("timeout", str(exc)[:200])
            except httpx.TransportError as exc:
                last = _Fail("connect_error", f"{type(exc).__name__}: {exc}"[:200])
            if attempt < self.retries:
                await asyncio.sleep(0.5 * 2 ** attempt)
        else:
            raise last
        if resp.status_code != 200:
            raise _Fail(f"http_{resp.status_code}", resp.text[:200])
        try:
            lp = resp.json()["choices"][0]["logprobs"]
            tokens = [str(t) for t in lp["tokens"]]
            values = [None if v is None else float(v) for v in lp["token_logprobs"]]
            tops = lp.get("top_logprobs") or [None] * len(tokens)
            tops = [t if isinstance(t, dict) and all(isinstance(v, int | float)
                                                     for v in t.values()) else None
                    for t in tops]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _Fail("no_logprobs", f"{type(exc).__name__}: {exc}"[:200]) from exc
        if not (len(tokens) == len(values) == len(tops)):
            raise _Fail("no_logprobs", "tokens, token_logprobs, top_logprobs differ in length")
        return tokens, values, tops


async def _score_text(echo: _Echo, prefix: str, item_id: str, text: str,
                      k: float) -> MinKItem:
    item = MinKItem(id=item_id, text=text)
    try:
        tokens, values, tops = await echo.logprobs(prefix + text)
        entries = align_echo(text, tokens, values)
    except _Fail as exc:
        return item.model_copy(update={"error": exc.reason})
    except ValueError:
        return item.model_copy(update={"error": "alignment_error"})
    item.aligned_top1, item.shifted_top1 = alignment_hits(tokens, tops)
    scored: list[float] = []
    for i, (_tok, lp) in enumerate(entries):
        if lp is None:
            if i == 0:
                continue  # the first token has no context: no log-prob by construction
            return item.model_copy(update={"error": "missing_logprob"})
        if math.isnan(lp):
            return item.model_copy(update={"error": "non_finite_logprob"})
        if math.isinf(lp):
            lp = LOGPROB_FLOOR
            item.clamped += 1
        scored.append(lp)
    if not scored:
        return item.model_copy(update={"error": "too_few_tokens"})
    item.n_tokens = len(scored)
    item.min_k = min_k_score(scored, k)
    item.mean_logprob = math.fsum(scored) / len(scored)
    return item


async def _calibrate(echo: _Echo, candidates: Sequence[str]
                     ) -> tuple[str | None, list[dict[str, Any]], str | None]:
    """(chosen prefix, what each try gave, reason when nothing could be chosen)."""
    tries: list[dict[str, Any]] = []
    inconclusive: str | None = None
    for cand in candidates:
        try:
            tokens, values, tops = await echo.logprobs(cand + CALIBRATION_TEXT)
            align_echo(CALIBRATION_TEXT, tokens, values)
        except _Fail as exc:
            tries.append({"prefix": cand, "error": exc.reason})
            if not tries[:-1]:  # the very first request failed: the endpoint is unusable
                return None, tries, f"the completions endpoint failed: {exc}"
            continue
        except ValueError as exc:
            tries.append({"prefix": cand, "error": f"alignment_error: {exc}"[:200]})
            continue
        aligned, shifted = alignment_hits(tokens, tops)
        verdict = alignment_verdict(aligned, shifted)
        tries.append({"prefix": cand, "aligned_top1": aligned, "shifted_top1": shifted,
                      "verdict": verdict})
        if verdict == "aligned":
            return cand, tries, None
        if verdict == "inconclusive" and inconclusive is None:
            inconclusive = cand
    if inconclusive is not None:
        return inconclusive, tries, None
    return None, tries, ("the echoed log-probs are misaligned (shifted by one token) with "
                         f"every prefix tried ({', '.join(repr(c) for c in candidates)}); "
                         "pass the model's BOS text as prefix")


def _min_k_summary(results: Sequence[MinKItem]) -> MinKSummary:
    scores = [r.min_k for r in results if r.min_k is not None]
    return MinKSummary(items=len(results), scored=len(scores), mean=_mean(scores),
                       median=_median(scores),
                       failures=dict(sorted(Counter(r.error for r in results
                                                    if r.error).items())))


def min_k_prob(items: Sequence[EvalItem], base_url: str, model: str = "default", *,
               k: float = DEFAULT_K, reference_items: Sequence[EvalItem] | None = None,
               prefix: str | None = None, concurrency: int = 2, timeout: float = 120.0,
               retries: int = 2,
               transport: httpx.AsyncBaseTransport | None = None) -> MinKReport:
    """Min-K% Prob of every question text (and of the reference set's) from
    ``{base_url}/completions``. ``prefix=None`` finds the BOS text by calibration (see the
    module docstring); pass ``""`` or the BOS string to skip it. Per-item failures are
    counted; an endpoint that cannot give aligned log-probs makes the report unavailable.
    ``transport`` is for tests (an ``httpx.MockTransport``)."""
    if not 0 < k <= 1:
        raise UsageError("k must be in (0, 1]")
    base_url = base_url.rstrip("/")
    started = time.perf_counter()

    async def run() -> MinKReport:
        async with httpx.AsyncClient(timeout=timeout, trust_env=False,
                                     transport=transport) as client:
            echo = _Echo(client, base_url, model, retries, concurrency)
            tries: list[dict[str, Any]] = []
            chosen = prefix
            if chosen is None:
                chosen, tries, reason = await _calibrate(echo, BOS_CANDIDATES)
                if chosen is None:
                    report = MinKReport.unavailable(reason or "calibration failed",
                                                    items=len(items), k=k, base_url=base_url,
                                                    model=model)
                    report.calibration = tries
                    return report
            texts = [(it.id, it.question.strip()) for it in [*items, *(reference_items or [])]]
            done = await asyncio.gather(*(_score_text(echo, chosen, i, t, k) for i, t in texts))
        results, ref_results = list(done[:len(items)]), list(done[len(items):])
        summary = _min_k_summary(results)
        ok = [r for r in done if r.min_k is not None]
        aligned, shifted = sum(r.aligned_top1 for r in ok), sum(r.shifted_top1 for r in ok)
        report = MinKReport(
            **summary.model_dump(), available=True, base_url=base_url, model=model, k=k,
            prefix=chosen, calibration=tries, results=results,
            alignment=Alignment(aligned_top1=aligned, shifted_top1=shifted,
                                verdict=alignment_verdict(aligned, shifted) if ok
                                else "unchecked"))
        if reference_items is not None:
            ref = _min_k_summary(ref_results)
            report.reference, report.reference_results = ref, ref_results
            report.difference = _sub(summary.mean, ref.mean)
            report.auc = auc_greater([r.min_k for r in results if r.min_k is not None],
                                     [r.min_k for r in ref_results if r.min_k is not None])
        return report

    report = asyncio.run(run())
    report.seconds = round(time.perf_counter() - started, 3)
    return report


# -- both ---------------------------------------------------------------------------------------
def pretraining_report(items: Sequence[EvalItem], llm_spec: str | BaseChatModel, *,
                       dataset_name: str,
                       reference_items: Sequence[EvalItem] | None = None,
                       cache_path: Path | None = None, k: float = DEFAULT_K,
                       fraction: float = DEFAULT_FRACTION,
                       threshold: float = DEFAULT_THRESHOLD, max_tokens: int = 64,
                       concurrency: int = 4, timeout: float = 120.0) -> dict[str, Any]:
    """Guided completion with ``llm_spec`` (any ``make_llm`` spec, or a chat model), and
    Min-K% Prob when it is an OpenAI-compatible URL (``http://HOST:PORT/v1[#model]``);
    one JSON-able dict.

    Raises ``LLMError`` for a spec ``make_llm`` cannot build (nothing can run then)."""
    started = time.perf_counter()
    # Free text is wanted: never JSON mode, whatever the spec's ?json flag says.
    chat = (make_llm(llm_spec, max_tokens=max_tokens, json_mode=False)
            if isinstance(llm_spec, str) else llm_spec)
    llm = LLM(chat, cache_path=cache_path, concurrency=concurrency, timeout=timeout)
    try:
        guided = guided_completion(items, llm, dataset_name=dataset_name,
                                   reference_items=reference_items, fraction=fraction,
                                   threshold=threshold)
    finally:
        llm.close()
    if isinstance(chat, OpenAICompatChat):
        min_k = min_k_prob(items, chat.base_url, chat.model, k=k,
                           reference_items=reference_items, timeout=timeout)
    else:
        min_k = MinKReport.unavailable(
            f"Min-K% Prob needs the log-probs of the prompt's own tokens, which only an "
            f"OpenAI-compatible /v1/completions endpoint with echo gives (--llm "
            f"http://HOST:PORT/v1[#model]); {llm.id or 'this model'!r} is a chat API",
            items=len(items), k=k)
    return {
        "dataset_name": dataset_name,
        "llm": guided.model,
        "items": len(items),
        "reference_items": None if reference_items is None else len(reference_items),
        "guided_completion": guided.model_dump(mode="json"),
        "min_k_prob": min_k.model_dump(mode="json"),
        "seconds": round(time.perf_counter() - started, 3),
    }
