"""Transcript -> typed steps (the seed's "JSON formatter").

``StepParser`` is the interface callers use; ``RuleStepParser`` is the deterministic
implementation of the seed's rules. An LLM implementation (the seed's formatter prompt)
returns the same ``ParsedTranscript``, so ingestion does not change when it is plugged in.

Rules (experiment note, "Constructing Graphs"):
- split the transcript into bullets / blank-line paragraphs;
- a bullet with several citations [n] becomes one step per citation, the text duplicated
  with only that citation kept;
- type each step: conclude (last step, or opens with overall / in summary / therefore /
  thus / hence), retrieve (issues a search or visits a URL), comparison (compared, versus,
  higher than ...), hypothesis (maybe, might, could, assume ...), evidence (exactly one
  citation and no reasoning words), reason (anything else).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from dwqa_graph.models import Cite, ParsedTranscript, Stance, Step, StepType

if TYPE_CHECKING:
    from dwqa_graph.llm import LLM

CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_BULLET = re.compile(r"^\s*(?:[-*•‣▪–]|\d{1,3}[.)])\s+")
_CONCLUDE_OPENING = re.compile(
    r"^\W*(overall|in summary|to summari[sz]e|in conclusion|in short|therefore|thus|hence|"
    r"consequently|so,)\b",
    re.IGNORECASE,
)
_RETRIEVE = re.compile(
    r"\b(search(?:ed|ing)?\s+(?:for|the web|online)|let me search|look(?:ed|ing)? up|"
    r"visit(?:ed|ing)?|brows(?:e|ed|ing)|fetch(?:ed|ing)?|open(?:ed|ing)? the (?:page|link|url))\b"
    r"|https?://",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\b(compared|comparison|versus|vs\.?|(?:higher|lower|more|less|greater|fewer|larger|"
    r"smaller|bigger|longer|shorter|earlier|later|older|newer) than|exceed(?:s|ed)?|whereas)\b",
    re.IGNORECASE,
)
# "may" is left out on purpose: it is also a month ("in May 2023").
_HYPOTHESIS = re.compile(
    r"\b(maybe|might|could|possibly|perhaps|assum(?:e|es|ed|ing)|presumably|likely|"
    r"speculat\w*|potentially|suppose)\b",
    re.IGNORECASE,
)
_REASONING = re.compile(
    r"\b(because|since|implies|imply|therefore|thus|hence|suggests?|indicates?|means|so that|"
    r"which shows)\b",
    re.IGNORECASE,
)


class StepParser(Protocol):
    """Turns an agent transcript into typed steps. Implementations: rule, llm."""

    name: str

    def parse(self, transcript: str, *, question: str = "", answer: str = "") -> ParsedTranscript:
        ...


def cited_ids(text: str) -> list[int]:
    """Distinct citation numbers in order of first appearance."""
    seen: dict[int, None] = {}
    for m in CITATION.finditer(text):
        for part in m.group(1).split(","):
            seen.setdefault(int(part), None)
    return list(seen)


def keep_only_citation(text: str, keep: int) -> str:
    """Drop every citation marker except ``[keep]`` (the seed's duplication rule)."""

    def repl(m: re.Match[str]) -> str:
        ids = [int(p) for p in m.group(1).split(",")]
        return f"[{keep}]" if keep in ids else ""

    return re.sub(r"\s+([.,;:])", r"\1", CITATION.sub(repl, text)).strip()


def split_bullets(transcript: str) -> list[str]:
    """Bullets and blank-line paragraphs, whitespace-collapsed, empties dropped."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in transcript.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
            current = []
        elif _BULLET.match(line):
            if current:
                blocks.append(current)
            current = [_BULLET.sub("", line, count=1)]
        else:
            current.append(line)
    if current:
        blocks.append(current)
    return [t for t in (" ".join(" ".join(b).split()) for b in blocks) if t]


def classify(text: str, n_cites: int, *, is_last: bool) -> StepType:
    """The seed's STEP-TYPE rules, in a fixed priority order."""
    plain = CITATION.sub("", text)
    if _CONCLUDE_OPENING.search(plain):
        return "conclude"
    if _RETRIEVE.search(plain):
        return "retrieve"
    if is_last:
        return "conclude"
    if _COMPARISON.search(plain):
        return "comparison"
    if _HYPOTHESIS.search(plain):
        return "hypothesis"
    if n_cites == 1 and not _REASONING.search(plain):
        return "evidence"
    return "reason"


def _stance(step_type: StepType) -> Stance:
    # A deterministic parser cannot tell whether a source contradicts the final answer;
    # conjectures and searches are neutral, every other cited step is taken as support.
    return "neutral" if step_type in ("hypothesis", "retrieve") else "supports"


class RuleStepParser:
    """Deterministic step parser: no model, same input -> same steps."""

    name = "rule"

    def parse(self, transcript: str, *, question: str = "", answer: str = "") -> ParsedTranscript:
        bullets = split_bullets(transcript)
        thoughts: list[Step] = []
        for i, bullet in enumerate(bullets):
            ids = cited_ids(bullet)
            # Typed after the duplication rule, so every cited step carries exactly one [n].
            step_type = classify(bullet, min(len(ids), 1), is_last=i == len(bullets) - 1)
            cites_or_none: list[int | None] = list(ids) or [None]
            for cite in cites_or_none:
                text = keep_only_citation(bullet, cite) if cite is not None else bullet
                cites = [Cite(id=cite, stance=_stance(step_type))] if cite is not None else []
                thoughts.append(
                    Step(position=len(thoughts), text=text, step_type=step_type, cites=cites)
                )
        answer_cites = [Cite(id=n) for n in cited_ids(answer)]
        return ParsedTranscript(thoughts=thoughts, answer_cites=answer_cites, parser=self.name)


class LLMStepParser:
    """The seed's JSON-formatter prompt on a chat model; same output as ``RuleStepParser``.

    A reply that cannot be used after the repair turn falls back to the rule parser for
    that transcript (and is counted in ``llm.stats.failures``), so ingestion never loses a
    record to a bad model reply.
    """

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.name = f"llm:{llm.id}"

    def _parse_reply(self, data: object) -> ParsedTranscript:
        if not isinstance(data, dict) or not isinstance(data.get("thoughts"), list):
            raise ValueError('expected {"thoughts": [...], "answer": {...}}')
        thoughts = []
        for i, t in enumerate(data["thoughts"]):
            cites = [Cite(id=int(c["id"]), stance=c.get("stance", "supports"))
                     for c in t.get("cites") or [] if isinstance(c, dict) and "id" in c]
            thoughts.append(Step(position=i, text=str(t["text"]),
                                 step_type=t.get("step_type", t.get("type", "reason")),
                                 cites=cites))
        raw_answer = data.get("answer")
        answer: dict[str, Any] = raw_answer if isinstance(raw_answer, dict) else {}
        answer_cites = [Cite(id=int(c["id"]), stance=c.get("stance", "supports"))
                        for c in answer.get("cites") or [] if isinstance(c, dict) and "id" in c]
        return ParsedTranscript(thoughts=thoughts, answer_cites=answer_cites, parser=self.name)

    def parse(self, transcript: str, *, question: str = "", answer: str = "") -> ParsedTranscript:
        from dwqa_graph.llm import LLMFailure, load_prompt

        if not transcript.strip():
            return ParsedTranscript(thoughts=[], answer_cites=[], parser=self.name)
        prompt = load_prompt("transcript_formatter").render(
            question=question, answer=answer, transcript=transcript)
        try:
            return self.llm.structured(prompt, self._parse_reply)
        except LLMFailure:
            return RuleStepParser().parse(transcript, question=question, answer=answer)
