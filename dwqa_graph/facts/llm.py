"""The LLM facts extractor (``dwqa facts --extractor llm --llm SPEC``).

The model gets a version's claims, numbered, with the relation vocabulary, through the
versioned prompt ``prompts/facts.md``, and replies with facts as JSON. Its words are
checked, never trusted: the evidence must be a verbatim part of the numbered claim's span
(its offsets are then exact); the subject must be written in that span (or be the page
title's subject), an object entity in the evidence, a date's year and a quantity's digits in
the evidence; the relation and types must be in the vocabulary. Anything else is a counted
rejection. Entities get the same keys as the offline extractor's, so both resolve to the
same nodes.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

from pydantic import BaseModel, ValidationError, field_validator

from dwqa_graph.facts.models import RELATIONS, EntityType, Fact
from dwqa_graph.facts.resolve import entity_ref, page_subject
from dwqa_graph.graph.store import Store
from dwqa_graph.language.values import date_value
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.models import stable_id

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


def extract_facts_llm(store: Store, llm: LLM) -> Any:
    """The stage with the LLM extractor (same report and writes as the offline one)."""
    from dwqa_graph.facts.stage import FactsReport, facts_plan, pending

    store.ensure_schema()
    prompt = load_prompt("facts")
    key = f"llm:{llm.id}/facts-{prompt.version}"
    report = FactsReport(extractor=key)
    rejected: Counter[str] = Counter()
    relations: Counter[str] = Counter()
    started = time.perf_counter()

    async def run() -> None:
        for page in pending(store, key, page=20, claims_only=True):
            results = await asyncio.gather(*(read_version_llm(llm, v, key, rejected)
                                             for v in page))
            done = [v for v, r in zip(page, results, strict=True) if r is not None]
            facts = {v["id"]: r for v, r in zip(page, results, strict=True) if r is not None}
            report.failed_versions += len(page) - len(done)
            store.write_plan(facts_plan(done, facts, "llm", key))
            for found in facts.values():
                report.facts += len(found)
                report.versions_with_facts += bool(found)
                relations.update(f.relation for f in found)
            report.versions += len(page)
            if not done:
                return  # nothing advanced: stop instead of re-reading the same page

    asyncio.run(run())
    report.by_relation = dict(relations.most_common())
    report.rejected_by_reason = dict(sorted(rejected.items()))
    [n] = store.query("facts/count_entities")
    report.entities = n["n"]
    report.seconds = round(time.perf_counter() - started, 3)
    return report
