"""The LLM facts extractor (``dwqa facts --extractor llm --llm SPEC``).

The model gets a version's claims, numbered, with the relation vocabulary, through the
versioned prompt ``prompts/facts.md``, and replies with facts as JSON. Its words are
checked, never trusted: the evidence must be a verbatim part of the numbered claim's span
(its offsets are then exact); the subject must be written in that span (or be the page
title's subject), an object entity in the evidence, a date's year and a quantity's digits in
the evidence; the relation and its types must fit the schema (``models.SCHEMA``). Anything
else is a counted rejection. Entities get the same keys as the offline extractor's, so both
resolve to the same nodes.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError, field_validator

from dwqa_graph.errors import UsageError
from dwqa_graph.facts.extractor import FactExtractor, Reading, Unread
from dwqa_graph.facts.models import RELATIONS, EntityType, Fact, allows
from dwqa_graph.facts.resolve import entity_ref, page_subject
from dwqa_graph.language.values import date_value
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.models import stable_id
from dwqa_graph.registry import FACT_EXTRACTORS

#: Characters of claims per call (small local models have 2k-token contexts).
CHUNK_CHARS = 3000


class _Reply(BaseModel):
    sentence: int
    subject: str
    subject_type: EntityType
    relation: str
    verb: str | None = None
    object: str | None = None
    object_type: EntityType | None = None
    date: str | None = None
    value: float | None = None
    unit: str | None = None
    evidence: str

    @field_validator("subject", "evidence")
    @classmethod
    def _nonempty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("empty")
        return v


def parse_reply(data: Any) -> list[dict[str, Any]]:
    """The reply's fact objects (each validated later, one by one)."""
    if isinstance(data, dict) and isinstance(data.get("facts"), list):
        return [f for f in data["facts"] if isinstance(f, dict)]
    if isinstance(data, list):
        return [f for f in data if isinstance(f, dict)]
    raise ValueError('expected {"facts": [...]}')


def _chunks(claims: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    out: list[list[dict[str, Any]]] = [[]]
    size = 0
    for c in claims:
        if size + len(c["span"]) > CHUNK_CHARS and out[-1]:
            out.append([])
            size = 0
        out[-1].append(c)
        size += len(c["span"])
    return [c for c in out if c]


def check(raw: dict[str, Any], claims: list[dict[str, Any]], version_id: str,
          title: str | None, extractor: str) -> Fact | str:
    """One model fact, verified against its claim's span; a reason string if rejected."""
    try:
        r = _Reply.model_validate(raw)
    except ValidationError:
        return "malformed"
    if not 1 <= r.sentence <= len(claims):
        return "unknown_sentence"
    claim = claims[r.sentence - 1]
    span: str = claim["span"]
    if r.relation not in RELATIONS:
        return "unknown_relation"
    if r.object and r.object_type is None:
        return "unknown_type"
    if not allows(r.relation, r.subject_type, r.object_type if r.object else None):
        return "types_not_in_schema"
    at = span.find(r.evidence)
    if at < 0:
        return "evidence_not_verbatim"
    evidence = r.evidence
    subject = r.subject.strip()
    if subject.lower() not in span.lower() and subject != page_subject(title):
        return "subject_not_in_span"
    if r.object and r.object.strip().lower() not in evidence.lower():
        return "object_not_in_evidence"
    date = date_value(r.date) if r.date else None
    if r.date and (date is None or str(date.year) not in evidence):
        return "date_not_in_evidence"
    if r.value is not None and not any(ch.isdigit() for ch in evidence):
        return "value_not_in_evidence"
    kind = "entity" if r.object else "date" if date else "quantity" if r.value is not None \
        else None
    if kind is None:
        return "no_object"
    subj = entity_ref(subject, r.subject_type)
    obj = entity_ref(r.object.strip(), r.object_type) if r.object and r.object_type else None
    key = obj.id if obj else date.iso if date else f"{r.value}:{r.unit}"
    verb = (r.verb or r.relation).strip().lower()[:40]
    start = claim["start"] + at
    return Fact(id=stable_id("fact", claim["id"], r.relation, verb, subj.id, key, extractor),
                relation=r.relation, verb=verb, subject=subj,  # type: ignore[arg-type]  # checked above
                object_kind=kind, object=obj, date=date.iso if date else None,
                year=date.year if date else None, precision=date.precision if date else None,
                value=r.value, unit=r.unit, claim_id=claim["id"], version_id=version_id,
                start=start, end=start + len(evidence), evidence=evidence, extractor=extractor)


async def read_version_llm(llm: LLM, version: dict[str, Any], extractor: str,
                           rejected: Counter[str]) -> list[Fact] | None:
    """Facts of one version (None when every call failed: the version stays pending)."""
    prompt = load_prompt("facts")
    relations = "\n".join(f"  - {k}: {v}" for k, v in RELATIONS.items())
    out: dict[str, Fact] = {}
    failed = 0
    chunks = _chunks(version["claims"])
    for chunk in chunks:
        numbered = "\n".join(f"[{i}] {c['span']}" for i, c in enumerate(chunk, 1))
        try:
            reply = await llm.astructured(prompt.render(
                title=version.get("title") or "(none)", claims=numbered,
                relations=relations), parse_reply)
        except LLMFailure:
            failed += 1
            continue
        for raw in reply[:200]:  # a runaway reply is cut, not stored
            fact = check(raw, chunk, version["id"], version.get("title"), extractor)
            if isinstance(fact, str):
                rejected[fact] += 1
            else:
                out.setdefault(fact.id, fact)
    return None if chunks and failed == len(chunks) else list(out.values())


class LLMExtractor(FactExtractor):
    """Facts a chat model reads from a version's claims, each checked by ``check``."""

    family = "llm"
    claims_only = True
    page_size = 20

    def __init__(self, llm: LLM) -> None:
        super().__init__()
        self.llm = llm
        self._key = f"llm:{llm.id}/facts-{load_prompt('facts').version}"
        # One loop for the extractor's life: a provider's async client is bound to the loop
        # it first ran on, so a loop per page would break it on the second page.
        self._loop = asyncio.new_event_loop()

    @property
    def key(self) -> str:
        return self._key

    def read(self, versions: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any],
                                                                        Reading | Unread]]:
        batch: list[dict[str, Any]] = []
        for v in versions:
            batch.append(v)
            if len(batch) == self.page_size:
                yield from self._read_batch(batch)
                batch = []
        if batch:
            yield from self._read_batch(batch)

    def _read_batch(self, versions: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any],
                                                                            Reading | Unread]]:
        async def read_all() -> list[list[Fact] | None]:
            return list(await asyncio.gather(
                *(read_version_llm(self.llm, v, self.key, self.rejected) for v in versions)))

        results = self._loop.run_until_complete(read_all())
        for v, found in zip(versions, results, strict=True):
            yield v, Reading(found) if found is not None else Unread(
                "every call to the model failed")

    def close(self) -> None:
        self._loop.close()


@FACT_EXTRACTORS.register("llm", summary="a chat model (--llm SPEC) reads the claims through "
                          "the versioned facts prompt; every fact is checked against its span")
def llm_extractor(*, nlp: Any = None, llm: LLM | None = None) -> LLMExtractor:
    if llm is None:
        raise UsageError("the llm facts extractor needs --llm SPEC")
    return LLMExtractor(llm)
