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
from dwqa_graph.llm import LLM, LLMFailure, load_prompt
from dwqa_graph.rounds.sampling import Pattern, Pick, Sample

RULE_GENERATOR_VERSION = "2"


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
    checks: list[str] = Field(default_factory=list,
                              description="The rubric checks (rounds/checks.py) it passed.")


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


_COMMON_OPENERS = frozenset("the a an construction work deliveries production service "
                            "operation operations".split())
_PERSON = re.compile(r"\b(?:directed|wrote|starred|sang|played|coached|managed|born|died|"
                     r"actor|actress|singer|director|filmmaker|player|writer|author|musician|"
                     r"politician|footballer|manager|drummer|guitarist|rapper|producer|"
                     r"composer|poet|novelist|journalist|businessman|businesswoman|he|she)\b",
                     re.I)
_CURRENCY_WORDS = {"EUR": "euros", "USD": "US dollars", "GBP": "pounds"}


def _mid(clause: str) -> str:
    """A clause placed mid-sentence: a leading common word loses its capital."""
    first = clause.split(" ", 1)[0]
    return clause[0].lower() + clause[1:] if first.lower() in _COMMON_OPENERS else clause


def _cap(text: str) -> str:
    return text[0].upper() + text[1:] if text else text


def fmt_quantity(value: float, unit: str) -> str:
    if unit in _CURRENCY_WORDS:
        word = _CURRENCY_WORDS[unit]
        for scale, name in ((1e9, "billion"), (1e6, "million")):
            if abs(value) >= scale:
                return f"{fmt(value / scale)} {name} {word}"
        return f"{fmt(value)} {word}"
    if unit == "%":
        return f"{fmt(value)} percentage points"
    return f"{fmt(value)} {unit}".strip()


class RuleGenerator:
    """Deterministic Gen in its own words: events named by subject and action, quantities by
    holder and noun, an entity by descriptions; answers computed from the claims' parsed
    values. A sample whose claims do not fit gives ``GenerationFailed`` (a counted reason)."""

    name = "rule"

    def theta(self) -> dict[str, Any]:
        return {"generator": "rule", "version": RULE_GENERATOR_VERSION}

    async def agenerate(self, sample: Sample) -> QACandidate:
        return self.generate(sample)

    def generate(self, sample: Sample) -> QACandidate:
        rng = random.Random(f"{sample.r}:{sample.attempt}:wording")
        picks = sample.picks
        titles = {b.label: b.title for b in sample.buckets}
        make = {"temporal": self._temporal, "comparison": self._comparison,
                "causal": self._causal, "conjunction": self._conjunction}[sample.pattern]
        question, answer, detail = make(picks, rng, titles)
        return QACandidate(question=question, answer=answer, pattern=sample.pattern,
                           hops=len(picks), used_claims=used(picks), generator=self.name,
                           detail=detail)

    def _temporal(self, picks: list[Pick], rng: random.Random,
                  titles: dict[str, str | None]) -> tuple[str, str, dict]:
        form = "interval" if rng.random() < 0.6 else "first"
        return self.temporal(picks, form, rng.randrange(2), titles)

    def temporal(self, picks: list[Pick], form: str, wording: int = 0,
                 titles: dict[str, str | None] | None = None) -> tuple[str, str, dict]:
        """``interval``: years between the earliest and latest event; ``first``: which
        event came first. Events are clauses in the generator's words."""
        titles = titles or {}
        from dwqa_graph.rounds.wording import event_clause

        events = [event_clause(p.claim.text, p.year or 0, p.entity, _subject_title(
            titles.get(p.bucket))) for p in picks]
        years = [p.year or 0 for p in picks]
        if any(e is None for e in events):
            raise GenerationFailed("no_event_phrase", "a date that is no event's date, or an "
                                   "action the generator cannot name")
        ev = [str(e) for e in events]
        if len({e.lower() for e in ev}) < len(ev):
            raise GenerationFailed("no_event_phrase", "two events read the same")
        detail = {"years": years, "events": ev, "form": form}
        if form == "interval":
            q = ["How many years passed between when {} and when {}?",
                 "How many years apart were these two events: {} and {}?"][wording]
            diff = max(years) - min(years)
            return (q.format(*[_mid(e) for e in ev[:2]]) if len(ev) == 2 else
                    "How many years passed between the earliest and the latest of these: "
                    + ", ".join(_mid(e) for e in ev) + "?",
                    f"{diff} year" + ("s" if diff != 1 else ""), detail)
        q = ["Which happened first: {}?", "Which came earlier: {}?"][wording]
        joined = ", or ".join(_mid(e) for e in ev)
        return q.format(joined), _cap(ev[years.index(min(years))]), detail

    def _comparison(self, picks: list[Pick], rng: random.Random,
                    titles: dict[str, str | None]) -> tuple[str, str, dict]:
        from dwqa_graph.rounds.checks import quantity_kind
        from dwqa_graph.rounds.wording import quantity_name, subject_of

        unit = picks[0].unit or ""
        values = [p.value or 0.0 for p in picks]
        names = []
        for p in picks:
            holder = subject_of(p.claim.text, None, _subject_title(titles.get(p.bucket)))
            names.append(quantity_name(p.claim.text, p.raw or "", holder))
        if any(n is None for n in names) or len(set(names)) < len(names):
            raise GenerationFailed("unnamed_quantity", "no noun names what a figure measures")
        nm = [str(n) for n in names]
        kinds = {quantity_kind(n) for n in nm}
        if len(kinds) != 1 or None in kinds:
            raise GenerationFailed("incomparable_quantities", ", ".join(nm))
        detail = {"values": values, "unit": unit, "units": [p.unit for p in picks],
                  "raw": [p.raw for p in picks], "names": nm}
        big = values.index(max(values))
        kind = "difference" if len(picks) == 2 and rng.random() < 0.5 else "larger"
        detail["operation"] = kind
        if kind == "difference":
            small = 1 - big
            q = f"By how much did {nm[big]} exceed {nm[small]}?"
            return q, fmt_quantity(values[big] - values[small], unit), detail
        q = "Which was larger: " + ", or ".join(nm) + "?"
        return q, _cap(nm[big]), detail

    def _causal(self, picks: list[Pick], rng: random.Random,
                titles: dict[str, str | None]) -> tuple[str, str, dict]:
        from dwqa_graph.rounds.wording import compress

        split = split_cause(picks[0].claim.text)
        if split is None:
            raise GenerationFailed("no_cause_split", "no cause/effect split in the claim")
        cause, effect = split
        effect = _DATE_EXPR.sub("", effect)
        effect_c = compress(clean(effect), picks[0].claim.text)
        if not effect_c or len(effect_c.split()) < 3:
            raise GenerationFailed("no_cause_split", "effect too short to ask about")
        q = rng.choice(["What led to the fact that {e}?", "What was behind the fact that {e}?"])
        q = q.format(e=_mid(effect_c))
        return q, cause, {"cause": cause, "effect": effect_c}

    def _conjunction(self, picks: list[Pick], rng: random.Random,
                     titles: dict[str, str | None]) -> tuple[str, str, dict]:
        from dwqa_graph.rounds.wording import describe

        entity = picks[0].entity or ""
        clues = [describe(p.claim.text, entity) for p in picks]
        if any(c is None for c in clues) or len({c for c in clues}) < len(clues):
            raise GenerationFailed("no_description", f"a clue about {entity} cannot be "
                                   "rewritten as a description")
        cl = [str(c) for c in clues]
        rng.shuffle(cl)
        who = "Who" if any(_PERSON.search(c) for c in cl) else "What"
        q = f"{who} {join_clues(cl)}?"
        return q, entity, {"entity": entity, "clues": cl}


def join_clues(clues: list[str]) -> str:
    """"directed a 2012 horror film and a 2014 thriller, and is an American director":
    clues with the same verb share it."""
    groups: dict[str, list[str]] = {}
    for c in clues:
        verb, _, rest = c.partition(" ")
        groups.setdefault(verb, []).append(rest)
    parts = [f"{verb} " + " and ".join(rests) for verb, rests in groups.items()]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + ", and " + parts[-1] if len(parts) > 2 else \
        f"{parts[0]} and {parts[1]}"


def _subject_title(title: str | None) -> str | None:
    from dwqa_graph.claims.entities import title_entity

    return title_entity(title)


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
