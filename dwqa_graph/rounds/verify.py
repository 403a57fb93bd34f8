"""Stage 4c — the verification filter every candidate passes before it is stored.

Structural checks (always): the used claims exist and belong to the sampled documents,
they come from >= min_buckets distinct documents, the answer is not contained in the
question, the question does not point at "the document(s)", "the source(s)", "the text"
or "according to", and for the rule generator the answer is recomputed from the claims.
Optionally an LLM judge reads the claims' verbatim spans and must call the pair supported.
When the round has a model, the closed-book check asks it the question with no evidence
(prompts/closed_book_check.md): a candidate it answers correctly on its own tests memory,
not search, and is rejected (``closed_book``).
Each failure is a short reason key, counted per round.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from dwqa_graph.claims.features import find_numbers
from dwqa_graph.evaluation.scoring import contains_gold, normalize_answer
from dwqa_graph.llm import LLM, LLMFailure, Prompt, load_prompt
from dwqa_graph.rounds.generate import QACandidate, clean, fmt_quantity
from dwqa_graph.rounds.sampling import Sample

_META = re.compile(r"\b(the (?:documents?|sources?|texts?|passages?|articles?|buckets?|claims?)|"
                   r"according to|provided (?:text|context))\b", re.I)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w%$€£.]+", " ", text.lower()).split())


def answer_in_question(question: str, answer: str) -> bool:
    a, q = _norm(answer), _norm(question)
    if not a:
        return False
    return re.search(rf"(?<![\w.]){re.escape(a)}(?![\w])", q) is not None


_CHOICE = re.compile(r"^(?:which|what|who)\b[^:?]*\b(?:first|earlier|earliest|later|larger|"
                     r"smaller|more|less|older|younger)\b[^:?]*[:,]", re.I)


def is_choice(question: str, answer: str) -> bool:
    """"Which came first: A, or B?": the answer is one of the options by design."""
    return bool(_CHOICE.match(question)) and " or " in question


def structural_problems(qa: QACandidate, sample: Sample, *, min_buckets: int) -> list[str]:
    problems = []
    if not qa.question.strip() or not qa.answer.strip():
        problems.append("empty")
    claims = {c.id for b in sample.buckets for c in b.claims}
    docs = {b.document_id for b in sample.buckets}
    if not qa.used_claims:
        problems.append("no_used_claims")
    if any(u.claim_id not in claims for u in qa.used_claims):
        problems.append("unknown_claim")
    if any(u.document_id not in docs for u in qa.used_claims):
        problems.append("claim_outside_sample")
    if len({u.document_id for u in qa.used_claims}) < min_buckets:
        problems.append("too_few_documents")
    if answer_in_question(qa.question, qa.answer) and not is_choice(qa.question, qa.answer):
        problems.append("answer_in_question")
    if _META.search(qa.question):
        problems.append("mentions_documents")
    return problems


def recompute_problem(qa: QACandidate, sample: Sample) -> str | None:
    """Recompute a rule-generated answer from the claim texts themselves (not from the
    parsed values the generator used), so a parsing slip cannot produce a wrong answer."""
    if qa.generator != "rule":
        return None
    texts = [p.claim.text for p in sample.picks]
    d = qa.detail
    if qa.pattern == "temporal" or d.get("years"):  # a comparison of two subjects' dates too
        years = d.get("years", [])
        if any(str(y) not in t for y, t in zip(years, texts, strict=False)):
            return "answer_mismatch"
        diff = max(years) - min(years)
        if d.get("form") == "interval":
            ok = qa.answer == f"{diff} year" + ("s" if diff != 1 else "")
        else:
            options = d.get("options") or d["events"]
            ok = qa.answer.lower() == options[years.index(min(years))].lower()
        return None if ok else "answer_mismatch"
    if qa.pattern == "comparison":
        values = []
        for raw, text in zip(d.get("raw", []), texts, strict=False):
            found = find_numbers(raw or "", []) if raw and raw in text else []
            if not found:
                return "answer_mismatch"
            values.append(found[0].value)
        if values != d.get("values"):
            return "answer_mismatch"
        big = values.index(max(values))
        if d.get("operation") == "difference":
            ok = qa.answer == fmt_quantity(values[big] - values[1 - big], d.get("unit") or "")
        else:
            ok = qa.answer.lower() == d["names"][big].lower()
        return None if ok else "answer_mismatch"
    if qa.pattern == "conjunction":
        return None if all(qa.answer.lower() in t.lower() for t in texts) else "answer_mismatch"
    return None if qa.answer in clean(texts[0]) else "answer_mismatch"


class JudgeVerdict(BaseModel):
    supported: bool
    reason: str = ""


async def judge(llm: LLM, qa: QACandidate, spans: dict[str, str]) -> str | None:
    """None when the judge finds the answer supported by the spans, else a reason key."""
    prompt = load_prompt("judge_qa").render(
        question=qa.question, answer=qa.answer,
        evidence="\n".join(f"- {s}" for s in spans.values()))

    def parse(data: Any) -> JudgeVerdict:
        verdict = str(data.get("verdict", "")).strip().lower() if isinstance(data, dict) else ""
        if verdict not in ("supported", "unsupported"):
            raise ValueError('expected {"verdict": "supported" | "unsupported", "reason": ...}')
        return JudgeVerdict(supported=verdict == "supported", reason=str(data.get("reason", "")))

    try:
        verdict = await llm.astructured(prompt, parse)
    except LLMFailure:
        return "judge_failed"
    return None if verdict.supported else "judge_unsupported"


# -- the closed-book check -------------------------------------------------------------------
ClosedBook = Literal["pass", "fail", "error"]
#: On the stored QAItem: "pass", or "not_run" when the round had no model (a "fail" is
#: never stored: the candidate was rejected, counted under ``closed_book``).
NOT_RUN = "not_run"
_IDK = re.compile(r"^\W*(?:i\s+(?:do\s*n[o']?t|cannot|can't)\s+know|unknown|not sure|"
                  r"no idea|n/?a)\b", re.I)
_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*[:：-]\s*", re.I)


def closed_book_prompt() -> Prompt:
    return load_prompt("closed_book_check")


def short_reply(reply: str) -> str:
    """The reply's first non-empty line, without an "Answer:" prefix, quotes or emphasis."""
    for line in reply.splitlines():
        text = _PREFIX.sub("", line).strip().strip("\"'“”‘’*_`").strip()
        if text:
            return text
    return ""


def answers_correctly(reply: str, answer: str) -> bool:
    """The model's closed-book reply gives the item's answer: the answer's normalised words
    appear in the reply (scoring.contains_gold, as the rule judge matches), or the reply is a
    shorter form the answer contains that keeps at least half its words ("5" for "5 years").
    An "I don't know" is never correct. The answer's parenthetical working is ignored."""
    got = short_reply(reply)
    if not got or _IDK.match(got):
        return False
    gold = re.sub(r"\s*\([^()]*\)", "", answer).strip() or answer
    if contains_gold(got, [gold]):
        return True
    n_got, n_gold = len(normalize_answer(got).split()), len(normalize_answer(gold).split())
    return n_got > 0 and contains_gold(gold, [got]) and 2 * n_got >= n_gold


async def closed_book(llm: LLM, qa: QACandidate, prompt: Prompt | None = None) -> ClosedBook:
    """Ask ``llm`` the question alone: "fail" when it answers correctly without evidence,
    "pass" when it does not, "error" when the model gave no reply (after the LLM layer's
    retries)."""
    prompt = prompt or closed_book_prompt()
    try:
        reply = await llm.acall([HumanMessage(prompt.render(question=qa.question))])
    except LLMFailure:
        return "error"
    return "fail" if answers_correctly(reply, qa.answer) else "pass"
