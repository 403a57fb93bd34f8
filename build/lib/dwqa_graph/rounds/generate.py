"""Stage 4b — generation: Gen(G; r, θ) turns a sample into one QA pair.

One protocol, one output model (``QACandidate``), two implementations:
- ``RuleGenerator`` needs no model and computes the answer from the claims' parsed values
  (years between events, which came first; difference / ratio / larger of two quantities
  with the same unit; the entity three documents share; the effect of a cause). Its
  wording varies with r, so rounds differ.
- ``LLMGenerator`` uses the seed's four pattern prompts; θ records the prompts' hashes and
  the model's identity and decoding settings.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any, Protocol

from pydantic import BaseModel, Field

from dwqa_graph.claims.features import MONTH_PATTERN
from dwqa_graph.errors import UsageError
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.registry import GENERATORS
from dwqa_graph.rounds.sampling import Pattern, Pick, Sample

RULE_GENERATOR_VERSION = "1"


class UsedClaim(BaseModel):
    bucket: str
    document_id: str
    claim_id: str
    claim: str


class QACandidate(BaseModel):
    question: str
    answer: str
    pattern: Pattern
    hops: int
    used_claims: list[UsedClaim]
    generator: str
    detail: dict[str, Any] = Field(default_factory=dict,
                                   description="Values the answer was computed from.")


class GenerationFailed(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class Generator(Protocol):
    name: str

    def theta(self) -> dict[str, Any]:
        """Everything fixed for a round: template/prompts, model, decoding settings."""
        ...

    async def agenerate(self, sample: Sample) -> QACandidate:
        ...


def theta_hash(theta: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(theta, sort_keys=True).encode()).hexdigest()[:16]


def used(picks: list[Pick]) -> list[UsedClaim]:
    return [UsedClaim(bucket=p.bucket, document_id=p.document_id, claim_id=p.claim.id,
                      claim=p.claim.text) for p in picks]


# -- wording helpers ---------------------------------------------------------------------
_DATE_EXPR = re.compile(
    rf"(?:,?\s*\b(?:in|on|from|since|by|during|until|as of|as early as|in early|in late|"
    rf"in mid)\s+)?(?:\b\d{{1,2}}\s+{MONTH_PATTERN}\.?,?\s+\d{{4}}|"
    rf"\b{MONTH_PATTERN}\.?\s+\d{{1,2}},?\s+\d{{4}}|"
    rf"\b{MONTH_PATTERN}\.?\s+\d{{4}}|\b\d{{4}}-\d\d-\d\d|\b(?:1[5-9]|20)\d\d\b)(?:\s+onwards)?",
    re.IGNORECASE)
_CLAUSES = re.compile(r",\s+and\s+|\s+and\s+(?=\w+\s+\w+)|;\s+|,\s+but\s+|,\s+while\s+")


def clean(text: str) -> str:
    text = re.sub(r"\(\s*[^()\w]*\s*\)", "", text)  # "( )" left by a removed date
    text = re.sub(r"\s+([,.;:)])", r"\1", " ".join(text.split()))
    return text.strip(" ,;:").rstrip(".")


def event_phrase(claim: str, year: int) -> str:
    """The part of ``claim`` that happened in ``year``, without its date."""
    parts = [p for p in _CLAUSES.split(claim) if str(year) in p] if claim.count(
        str(year)) and len(re.findall(r"\b(?:1[5-9]|20)\d\d\b", claim)) > 1 else [claim]
    phrase = clean(_DATE_EXPR.sub("", parts[0] if parts else claim))
    return phrase[0].upper() + phrase[1:] if phrase else phrase


def fmt(value: float) -> str:
    if abs(value - round(value)) < 1e-9:
        return f"{round(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def mask(text: str, target: str) -> str:
    return clean(text.replace(target, "___", 1)) if target in text else clean(text)


def quote_list(items: list[str]) -> str:
    return "; ".join(f'({i}) "{s}"' for i, s in enumerate(items, 1))


class RuleGenerator:
    """Deterministic Gen: answers computed from parsed claim values; wording varies with r."""

    name = "rule"

    def theta(self) -> dict[str, Any]:
        return {"generator": "rule", "version": RULE_GENERATOR_VERSION}

    async def agenerate(self, sample: Sample) -> QACandidate:
        return self.generate(sample)

    def generate(self, sample: Sample) -> QACandidate:
        rng = random.Random(f"{sample.r}:{sample.attempt}:wording")
        picks = sample.picks
        make = {"temporal": self._temporal, "comparison": self._comparison,
                "causal": self._causal, "conjunction": self._conjunction}[sample.pattern]
        question, answer, detail = make(picks, rng)
        return QACandidate(question=question, answer=answer, pattern=sample.pattern,
                           hops=len(picks), used_claims=used(picks), generator=self.name,
                           detail=detail)

    def _temporal(self, picks: list[Pick], rng: random.Random) -> tuple[str, str, dict]:
        form = "interval" if rng.random() < 0.6 else "first"
        wording = rng.randrange(2)
        return self.temporal(picks, form, wording)

    def temporal(self, picks: list[Pick], form: str, wording: int = 0,
                 ) -> tuple[str, str, dict]:
        """``interval``: years between the earliest and latest event; ``first``: which
        event came first."""
        events = [event_phrase(p.claim.text, p.year or 0) for p in picks]
        years = [p.year or 0 for p in picks]
        detail = {"years": years, "events": events, "form": form}
        if any(not e for e in events):
            raise GenerationFailed("no_event_phrase", "a claim is only a date")
        if form == "interval":
            q = ["How many years passed between these events: {}?",
                 "How many years apart did these things happen: {}?"][wording]
            return q.format(quote_list(events)), f"{max(years) - min(years)} years", detail
        q = ["Which of these happened first: {}?", "Which came earliest: {}?"][wording]
        return q.format(quote_list(events)), events[years.index(min(years))], detail

    def _comparison(self, picks: list[Pick], rng: random.Random) -> tuple[str, str, dict]:
        unit = picks[0].unit or ""
        values = [p.value or 0.0 for p in picks]
        masked = [mask(p.claim.text, p.raw or "") for p in picks]
        detail = {"values": values, "unit": unit, "raw": [p.raw for p in picks]}
        if any("___" not in m for m in masked):
            raise GenerationFailed("unmaskable_value", "value not found in the claim text")
        suffix = f" {unit}" if unit not in ("%",) else "%"
        kind = rng.choice(["difference", "larger"] + (["ratio"] if all(values) else []))
        if len(picks) > 2:
            kind = "larger"
        if kind == "difference":
            q = f"What is the difference, in {unit}, between the two missing figures: {{}}?"
            ans = fmt(abs(values[0] - values[1])) + suffix
        elif kind == "ratio":
            q = "What is the first missing figure divided by the second, to two decimals: {}?"
            ans = f"{values[0] / values[1]:.2f}"
        else:
            q = "Which missing figure is the largest: {}? Give the figure."
            ans = picks[values.index(max(values))].raw or fmt(max(values))
        detail["operation"] = kind
        return q.format(quote_list(masked)), ans, detail

    def _causal(self, picks: list[Pick], rng: random.Random) -> tuple[str, str, dict]:
        cause_claim = picks[0].claim.text
        split = split_cause(cause_claim)
        if split is None:
            raise GenerationFailed("no_cause_split", "no cause/effect split in the claim")
        cause, effect = split
        context = [clean(p.claim.text) for p in picks[1:]]
        q = rng.choice(["Given that {ctx}, what did {cause} lead to?",
                        "Given that {ctx}, what was the consequence of {cause}?"])
        question = q.format(ctx="; and that ".join(context), cause=cause[0].lower() + cause[1:])
        return question, effect, {"cause": cause, "effect": effect}

    def _conjunction(self, picks: list[Pick], rng: random.Random) -> tuple[str, str, dict]:
        entity = picks[0].entity or ""
        masked = [mask(p.claim.text, entity) for p in picks]
        if any("___" not in m for m in masked):
            raise GenerationFailed("unmaskable_entity", entity)
        q = rng.choice(["Which name completes all of these statements: {}?",
                        "What single name fills every blank: {}?"])
        return q.format(quote_list(masked)), entity, {"entity": entity}


_CAUSE_AFTER = re.compile(r"^(?P<effect>.+?),?\s+(?:because of|because|due to|owing to|as a "
                          r"result of)\s+(?P<cause>.+)$", re.I)
_CAUSE_BEFORE = re.compile(r"^(?P<cause>.+?)\s+(?:led to|leads to|caused|causes|resulted in|"
                           r"results in|triggered|forced|prompted)\s+(?P<effect>.+)$", re.I)
_CAUSE_OPENING = re.compile(r"^(?:because of|because|due to|owing to|as a result of)\s+"
                            r"(?P<cause>.+?),\s+(?P<effect>.+)$", re.I)


def split_cause(text: str) -> tuple[str, str] | None:
    """(cause, effect) from a sentence with an explicit causal cue."""
    t = clean(text)
    for rx in (_CAUSE_OPENING, _CAUSE_BEFORE, _CAUSE_AFTER):
        m = rx.match(t)
        if m and len(m.group("cause").split()) >= 2 and len(m.group("effect").split()) >= 2:
            return clean(m.group("cause")), clean(m.group("effect"))
    return None


class LLMGenerator:
    """The seed's pattern prompts on a chat model (one QA pair per call)."""

    def __init__(self, llm: LLM, *, min_buckets: int = 2, max_claims_per_bucket: int = 12):
        self.llm = llm
        self.name = f"llm:{llm.id}"
        self.min_buckets = min_buckets
        self.max_claims = max_claims_per_bucket
        self.prompts = {p: load_prompt(f"qa_{p}") for p in
                        ("temporal", "comparison", "causal", "conjunction")}

    def theta(self) -> dict[str, Any]:
        return {"generator": "llm", "model": self.llm.identity,
                "prompts": {p: pr.hash for p, pr in sorted(self.prompts.items())}}

    def buckets(self, sample: Sample) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str]]]:
        """The prompt's bucket JSON, and claim label -> (document id, claim id)."""
        out, index = [], {}
        for b in sample.buckets:
            claims = {}
            chosen = {p.claim.id for p in sample.picks if p.bucket == b.label}
            ordered = [c for c in b.claims if c.id in chosen] + [
                c for c in b.claims if c.id not in chosen]
            for j, c in enumerate(ordered[:self.max_claims], 1):
                label = f"{b.label}_claim{j}"
                claims[label] = c.text
                index[label] = (b.document_id, c.id)
            out.append({"doc_id": b.label, "claims": claims})
        return out, index

    async def agenerate(self, sample: Sample) -> QACandidate:
        buckets, index = self.buckets(sample)
        prompt = self.prompts[sample.pattern].render(
            n_pairs=1, buckets=json.dumps(buckets, indent=2, ensure_ascii=False),
            min_buckets=self.min_buckets if sample.pattern != "conjunction" else 3)
        labels = {b.label: b for b in sample.buckets}

        def parse(data: Any) -> QACandidate:
            item = data[0] if isinstance(data, list) and data else data
            if not isinstance(item, dict) or "question" not in item or "answer" not in item:
                raise ValueError('expected [{"used_claims": [...], "question": ..., "answer":'
                                 ' ...}]')
            used_claims = []
            for u in item.get("used_claims") or []:
                cid = str(u.get("claim_id", "")) if isinstance(u, dict) else ""
                doc, claim_id = index.get(cid, ("", cid))
                bucket = cid.split("_")[0]
                used_claims.append(UsedClaim(
                    bucket=bucket, document_id=doc or getattr(labels.get(bucket), "document_id",
                                                              ""),
                    claim_id=claim_id, claim=str(u.get("claim", ""))))
            return QACandidate(question=str(item["question"]).strip(),
                               answer=str(item["answer"]).strip(), pattern=sample.pattern,
                               hops=len(used_claims), used_claims=used_claims,
                               generator=self.name)

        try:
            return await self.llm.astructured(prompt, parse)
        except LLMFailure as exc:
            raise GenerationFailed(f"llm_{exc.reason}", exc.detail) from exc


@GENERATORS.register("rule", summary="deterministic generator, no model (offline)")
def rule_generator(llm: LLM | None = None, min_buckets: int = 2) -> RuleGenerator:
    return RuleGenerator()


@GENERATORS.register("llm", summary="the pattern prompts on a chat model (needs --llm SPEC)")
def llm_generator(llm: LLM | None = None, min_buckets: int = 2) -> LLMGenerator:
    if llm is None:
        raise UsageError("--generator llm needs --llm SPEC")
    return LLMGenerator(llm, min_buckets=min_buckets)


def make_generator(name: str, *, llm: LLM | None = None, min_buckets: int = 2) -> Generator:
    """The generator registered as ``name`` (``rule``, ``llm`` or a plugin's)."""
    gen: Generator = GENERATORS.get(name).factory(llm, min_buckets)
    return gen
