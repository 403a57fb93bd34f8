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
from dwqa_graph.rounds.causes import question_effect, split_cause
from dwqa_graph.rounds.kinds import PARALLEL_EVENTS
from dwqa_graph.rounds.sampling import Pick, Sample
from dwqa_graph.text import clean

RULE_GENERATOR_VERSION = "5"


class UsedClaim(BaseModel):
    bucket: str
    document_id: str
    claim_id: str
    claim: str


class QACandidate(BaseModel):
    question: str
    answer: str
    pattern: str = Field(description="A claim pattern (sampling.PATTERNS) or a fact-path "
                         "form (paths.FORMS).")
    hops: int
    used_claims: list[UsedClaim]
    used_facts: list[str] = Field(default_factory=list,
                                  description="Fact ids, in path order (fact-path items).")
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
_CURRENCY_WORDS = {"EUR": "euros", "USD": "US dollars", "GBP": "pounds"}


# Wordings of one question (chosen by r): the reviewers called a single template robotic.
# Every interval wording says how years are counted (8 June 2020 to 14 September 2023 is 3);
# "how many calendar years lie between" was dropped: a reviewer read it as the years
# strictly between the two.
_INTERVAL = ("Counting by year only, how many years passed between when {} and when {}?",
             "Counting by year only, how many years apart were these two events: {} and {}?",
             "What is the difference in calendar years between the year {} and the year {}?")
_FIRST = ("Which happened first: {}?", "Which came earlier: {}?",
          "Which of these took place earlier: {}?")


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
    if unit == "count":
        return fmt(value)
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
        return self.temporal(picks, form, rng.randrange(len(_INTERVAL)), titles)

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
        # Meaningful: both events are about the entity that connects them (it is named in
        # each event), not two facts that merely mention the same place.
        from dwqa_graph.rounds.entities import norm

        linked = sorted({norm(p.entity or "") for p in picks} | set.intersection(
            *(set(p.claim.mentions) for p in picks)))
        parallel = _parallel(ev)
        if parallel is None and not any(n and all(n in norm(e) for e in ev) for n in linked):
            raise GenerationFailed("unrelated_events", "the shared entity is not the subject "
                                   "or object of every event")
        if _same_event(ev):
            raise GenerationFailed("same_event", "two accounts of one event (founded / formed)")
        detail = {"years": years, "events": ev, "form": form}
        if parallel is not None and len(ev) == 2:
            # The same kind of event for two connected subjects (two births, two film
            # releases): "Who was born first, A or B?".
            subjects, verb, credit = parallel
            # "the film Deliver Us from Evil" alone is three films (2006, 2014, 2020): a
            # shared credit says which ones (two blind reviews rejected the item without).
            both = f", both {credit}" if credit else ""
            detail["options"] = subjects
            early, late = years.index(min(years)), years.index(max(years))
            if form == "first":
                who = "Who" if verb in ("was born", "died") else "Which"
                q = (f"{who} {verb} first, {_mid(subjects[0])} or {_mid(subjects[1])}{both}?"
                     if verb != "died" else
                     f"Who died first, {_mid(subjects[0])} or {_mid(subjects[1])}?")
                return q, _cap(subjects[early]), detail
            diff = max(years) - min(years)
            ans = f"{diff} year" + ("s" if diff != 1 else "")
            if verb == "was born":
                q = (f"Counting by birth year, how many years apart were {_mid(subjects[0])} "
                     f"and {_mid(subjects[1])} born?")
            elif verb == "died":
                q = (f"Counting by year only, how many years apart did {_mid(subjects[0])} "
                     f"and {_mid(subjects[1])} die?")
            else:
                q = (f"Counting by year only, how many years after {_mid(subjects[early])} "
                     f"was {_mid(subjects[late])} {verb.split()[-1]}{both}?")
            return q, ans, detail
        if form == "first" and _forced_order(ev, years):
            # "Was X founded before it opened its first line?" needs no evidence: an origin
            # comes before anything else about the same subject (an end after it). Ask for
            # the interval instead, which does need both dates.
            form = detail["form"] = "interval"
        if form == "interval":
            # "Counting by year only": 8 June 2020 to 14 September 2023 is 3 years by year,
            # and the reader cannot be left to guess how years are counted.
            q = _INTERVAL[wording % len(_INTERVAL)]
            diff = max(years) - min(years)
            return (q.format(*[_mid(e) for e in ev[:2]]) if len(ev) == 2 else
                    "Counting by year only, how many years passed between the earliest and the "
                    "latest of these: "
                    + ", ".join(_mid(e) for e in ev) + "?",
                    f"{diff} year" + ("s" if diff != 1 else ""), detail)
        q = _FIRST[wording % len(_FIRST)]
        joined = ", or ".join(_mid(e) for e in ev)
        return q.format(joined), _cap(ev[years.index(min(years))]), detail

    def _comparison(self, picks: list[Pick], rng: random.Random,
                    titles: dict[str, str | None]) -> tuple[str, str, dict]:
        from dwqa_graph.rounds.checks import quantity_kind
        from dwqa_graph.rounds.wording import quantity_name, subject_of

        if picks[0].year is not None:
            return self._compared(picks, titles)
        unit = picks[0].unit or ""
        values = [p.value or 0.0 for p in picks]
        names = []
        for p in picks:
            holder = subject_of(p.claim.text, None, _subject_title(titles.get(p.bucket)))
            names.append(quantity_name(p.claim.text, p.raw or "", holder,
                                       _subject_title(titles.get(p.bucket))))
        if any(n is None for n in names):
            raise GenerationFailed("unnamed_quantity", "no noun names what a figure measures")
        if len(set(names)) < len(names):
            # One quantity measured twice ("the average weekday ridership of the tramway"):
            # the claims' own periods tell the two apart, or nothing does.
            when = [_WHEN.search(p.claim.text) for p in picks]
            if not all(when) or len({w.group(0) for w in when if w}) < len(when):
                raise GenerationFailed("unnamed_quantity", "two figures with one name")
            names = [f"{n} {w.group(0)}" for n, w in zip(names, when, strict=True) if w]
        nm = [str(n) for n in names]
        kinds = {quantity_kind(n) for n in nm}
        periods = {tuple(re.findall(r"\b(?:daily|weekday|weekly|monthly|annual)\b", n))
                   for n in nm}
        if len(kinds) != 1 or None in kinds or len(periods) != 1:  # per weekday vs per day
            raise GenerationFailed("incomparable_quantities", ", ".join(nm))
        detail = {"values": values, "unit": unit, "units": [p.unit for p in picks],
                  "raw": [p.raw for p in picks], "names": nm}
        big = values.index(max(values))
        kind = "difference" if len(picks) == 2 and rng.random() < 0.5 else "larger"
        if any(_approximate(p.claim.text, p.raw or "") for p in picks):
            kind = "larger"  # "approximately 700" less "about 30" is no exact 670
        detail["operation"] = kind
        if kind == "difference":
            small = 1 - big
            q = f"By how much did {nm[big]} exceed {nm[small]}?"
            return q, fmt_quantity(values[big] - values[small], unit), detail
        q = "Which was larger: " + ", or ".join(nm) + "?"
        return q, _cap(nm[big]), detail

    def _compared(self, picks: list[Pick], titles: dict[str, str | None]
                  ) -> tuple[str, str, dict]:
        """The same event of two subjects of one kind (rounds/kinds.py): "Which physicist
        was born first, Enrico Fermi or Claudio Pellegrini?" Only which came first: the
        years between two subjects' births would be arithmetic over unrelated facts."""
        kind = picks[0].entity or ""
        events = []
        for p in picks:
            key = next((k for k, y in zip(p.claim.compared, p.claim.compared_years,
                                          strict=False)
                        if y == p.year and k.endswith("|" + kind)), None)
            events.append(key.split("|", 1)[0] if key else None)
        subjects = [p.claim.compared_subject for p in picks]
        if None in events or len(set(events)) != 1 or not all(subjects):
            raise GenerationFailed("incomparable_events", "not one event of one kind")
        verb = str(events[0])
        years = [p.year or 0 for p in picks]
        q = f"Which {kind} {verb} first, {subjects[0]} or {subjects[1]}?"
        return q, subjects[years.index(min(years))], {
            "years": years, "events": [f"{s} {verb}" for s in subjects], "form": "first",
            "options": subjects, "kind": kind}

    def _causal(self, picks: list[Pick], rng: random.Random,
                titles: dict[str, str | None]) -> tuple[str, str, dict]:
        """A causal chain over two documents (rounds/causes.py): the first claim's cause is
        the answer, the second claim's effect is what the question names, and the event
        linking them (the first effect, the second cause) is left for the reader to find:
        "What caused the event that led to water 1.9 metres deep in the streets of Lower
        Ketterby?" -> "years of neglected maintenance" (through the embankment's breach)."""
        from dwqa_graph.rounds.wording import compress

        first, second = (split_cause(p.claim.text) for p in picks)
        if first is None or second is None:
            raise GenerationFailed("no_cause_split", "no cause/effect split in a claim")
        cause, bridged = first
        bridge, effect = second
        asked = compress(question_effect(effect), picks[1].claim.text)
        if not asked or len(asked.split()) < 4:
            raise GenerationFailed("no_bridge", "effect too short to ask about")
        noun_effect = not re.match(r"^\S+(?:\s+\S+){0,5}\s+(?:was|were|is|are|has|had|did|"
                                   r"will|would|could|\w+ed)\b", asked)
        q = (f"What caused the event that led to {_mid(asked)}?" if noun_effect else
             f"What caused the event because of which {_mid(asked)}?")
        return q, cause, {"cause": cause, "bridge": bridge, "bridged": bridged,
                          "effect": asked, "chain": True}

    def _conjunction(self, picks: list[Pick], rng: random.Random,
                     titles: dict[str, str | None]) -> tuple[str, str, dict]:
        """Two lists of names from two documents that share one member (rounds/lists.py):
        "Who starred in both the film True Lies and the film End of Days?" Each list leaves
        several candidates; only together do they name one."""
        from dwqa_graph.rounds.lists import cast_of, members, shared_member

        texts = [p.claim.text for p in picks]
        found = [cast_of(t) for t in texts]
        if any(w is None for w in found):
            raise GenerationFailed("no_description", "the words before a list do not say "
                                   "what its members are")
        common = shared_member(texts)
        if len(common) != 1:
            raise GenerationFailed("not_unique", f"the lists share {len(common)} names")
        works = [w for w in found if w is not None]
        rng.shuffle(works)
        q = f"Who starred in both {works[0]} and {works[1]}?"
        return q, common[0], {"entity": common[0], "works": works,
                              "lists": [[n for _, _, n in members(t)] for t in texts]}


_PARALLEL = re.compile(r"^(?P<s>.+?)(?:,\s+(?P<credit>(?:directed|produced|written|starring|"
                       r"featuring|created|developed|published|recorded|performed)[^,]*),)?\s+"
                       rf"(?P<v>{'|'.join(PARALLEL_EVENTS)})$")


_FOUNDING = re.compile(r"\b(?:co-)?(?:founded|formed|established|created|started|set up)\b")


_ORIGIN = re.compile(r"\b(?:(?:was|were) born|founded|formed|established|began|started|"
                     r"created|incorporated|debuted|launched|approved)\b", re.IGNORECASE)
_END = re.compile(r"\b(?:died|broke up|disbanded|dissolved|closed|ended|demolished|retired)\b",
                  re.IGNORECASE)


_WHEN = re.compile(r"\b(?:in|during|between|from)\s+(?:[\w ]{0,30}?)\b(?:1[5-9]|20)\d\d\b")


_ROUGHLY = re.compile(r"\b(?:about|approximately|around|roughly|nearly|almost|some|over|"
                     r"more than|less than|up to|at least|estimated)\s+$", re.I)


def _approximate(text: str, raw: str) -> bool:
    """Whether the claim gives ``raw`` as an approximation ("about 30 species")."""
    pos = text.find(raw)
    return pos >= 0 and bool(_ROUGHLY.search(text[max(0, pos - 20):pos]))


def _forced_order(events: list[str], years: list[int]) -> bool:
    """Whether "which came first" answers itself: the earliest event is an origin (born,
    founded, construction began) or the latest an end (died, broke up), so logic alone
    orders them (the blind review's most common multi-hop failure)."""
    early, late = years.index(min(years)), years.index(max(years))
    return bool(_ORIGIN.search(events[early]) or _END.search(events[late]))


def _same_event(events: list[str]) -> bool:
    """"Van Conner founded the band Screaming Trees" and "Screaming Trees was formed" are
    one event told twice (with two different years: the sources disagree), not two."""
    if not all(_FOUNDING.search(e) for e in events):
        return False
    names = [set(re.findall(r"\b[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*", e)) for e in events]
    return bool(set.intersection(*names))


def _parallel(events: list[str]) -> tuple[list[str], str, str] | None:
    """(subjects, shared action, shared credit) when every event is the same action ("X
    was born"); the credit ("directed by Scott Derrickson") when every event gives the same
    one, else ""."""
    found = [m for e in events if (m := _PARALLEL.match(e))]
    if len(found) != len(events) or len({m.group("v") for m in found}) != 1:
        return None
    subjects = [m.group("s") for m in found]
    if len({s.lower() for s in subjects}) < len(subjects):
        return None
    credits = {m.group("credit") or "" for m in found}
    return subjects, found[0].group("v"), credits.pop() if len(credits) == 1 else ""


def _subject_title(title: str | None) -> str | None:
    from dwqa_graph.rounds.entities import title_entity

    return title_entity(title)


class LLMGenerator:
    """The seed's pattern prompts on a chat model (one QA pair per call)."""

    #: v2: the seed's prompts plus the item rubric as rules (issue 11); "" = the seed's own.
    PROMPT_VERSION = "_v2"

    def __init__(self, llm: LLM, *, min_buckets: int = 2, max_claims_per_bucket: int = 12,
                 prompt_version: str | None = None):
        self.llm = llm
        self.name = f"llm:{llm.id}"
        self.min_buckets = min_buckets
        self.max_claims = max_claims_per_bucket
        suffix = self.PROMPT_VERSION if prompt_version is None else prompt_version
        self.prompts = {p: load_prompt(f"qa_{p}{suffix}") for p in
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
            if data == []:  # the v2 prompts ask for [] rather than a weak item
                return QACandidate(question="", answer="", pattern=sample.pattern, hops=0,
                                   used_claims=[], generator=self.name,
                                   detail={"declined": True})
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
            qa = await self.llm.astructured(prompt, parse)
        except LLMFailure as exc:
            raise GenerationFailed(f"llm_{exc.reason}", exc.detail) from exc
        if qa.detail.get("declined"):
            raise GenerationFailed("llm_no_item", "the model found no connected item")
        return qa


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
