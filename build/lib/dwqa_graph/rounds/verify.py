"""Stage 4c — the verification filter every candidate passes before it is stored.

Structural checks (always): the used claims exist and belong to the sampled documents,
they come from >= min_buckets distinct documents, the answer is not contained in the
question, the question does not point at "the document(s)", "the source(s)", "the text"
or "according to", and for the rule generator the answer is recomputed from the claims.
Optionally an LLM judge reads the claims' verbatim spans and must call the pair supported.
Each failure is a short reason key, counted per round.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from dwqa_graph.claims.features import find_numbers
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.rounds.generate import QACandidate, clean, fmt
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
    if answer_in_question(qa.question, qa.answer):
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
    if qa.pattern == "temporal":
        years = d.get("years", [])
        if any(str(y) not in t for y, t in zip(years, texts, strict=False)):
            return "answer_mismatch"
        if qa.answer.endswith(" years"):
            ok = qa.answer == f"{max(years) - min(years)} years"
        else:
            ok = qa.answer == d["events"][years.index(min(years))]
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
        op = d.get("operation")
        if op == "difference":
            ok = qa.answer.startswith(fmt(abs(values[0] - values[1])))
        elif op == "ratio":
            ok = qa.answer == f"{values[0] / values[1]:.2f}"
        else:
            ok = qa.answer == d["raw"][values.index(max(values))]
        return None if ok else "answer_mismatch"
    if qa.pattern == "conjunction":
        return None if all(qa.answer in t for t in texts) else "answer_mismatch"
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
