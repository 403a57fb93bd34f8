"""The item rubric (QUALITY.md) as mechanical checks, run on every candidate of every generator.

Each check returns a pass or a short reason key; the verification filter counts the reasons
per round (``NO_ITEM`` reasons when a graph ends without an item) and records the passed
checks on the stored QAItem. What a check can decide from the question, the answer, the
evidence spans and the documents' text alone, it decides here; the LLM judge and the
closed-book probe (when a model is configured) are the only checks that need a model.

- self_contained: no quoted passage, numbered statements, blanks, references to the
  statements/passages/documents, or an opening pronoun/demonstrative with no antecedent.
- not_verbatim: no run of >= 8 consecutive normalised words shared with any evidence span or
  with the text of the documents the spans come from.
- solvable: the baseline reader (evaluation/reader.py), given only the spans, recovers every
  operand the answer is computed from (or the answer itself) and so reproduces the answer;
  a causal chain is followed by a two-hop causal reader, a conjunction of lists by reading
  the one name the spans' lists share (rounds/lists.py).
- no_shortcut: no single span holds every operand (or yields the answer through the same
  reader); every list clue of a conjunction leaves >= 3 candidates.
- coherent: the combined claims share a named subject (an entity mentioned in every span, or
  the documents' title entity) or a span states the causal relation; compared quantities
  are of the same kind (unit and quantity noun: a salary is not a gross); two subjects'
  dates are compared only when each span's lead calls its subject the same kind of thing.
- date_roles: a year an item uses as an event's date is not part of a lifespan range
  ("(1770–1833)"), a work's title year ("The Revenant (2015)") or another parenthetical.
- conjunction: >= 2 list clues (an LLM item without lists: >= 3 spans), and the answer is
  not generic (a nationality, a country, a common noun).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph.evaluation.reader import analyse, rank_sentences, shortest_clause, yes_no
from dwqa_graph.evaluation.scoring import contains_gold, normalize_answer
from dwqa_graph.rounds.causes import chain_read, chain_roles, chained, states_whole_chain
from dwqa_graph.rounds.kinds import kinds as kinds_of
from dwqa_graph.rounds.lists import MIN_MEMBERS, list_sizes, shared_member
from dwqa_graph.text import NAME_PARTICLE

CHECKS = ("self_contained", "not_verbatim", "solvable", "no_shortcut", "coherent",
          "date_roles", "conjunction", "closed_book")
VERBATIM_RUN = 8


class CheckInput(BaseModel):
    """What the checks see: the candidate and its evidence, nothing else."""

    question: str
    answer: str
    pattern: str
    spans: list[str] = Field(description="The verbatim spans of the used claims, in order.")
    documents: list[str] = Field(default_factory=list,
                                 description="Full text of the spans' document versions.")
    subjects: list[list[str]] = Field(
        default_factory=list, description="Per span, the normalised entities it mentions "
        "(the entity layer's MENTIONS, title entity included).")
    span_documents: list[str] = Field(
        default_factory=list, description="Per span, the document it comes from: claims of "
        "one document share its subject, so coherence is checked across documents.")
    detail: dict[str, Any] = Field(default_factory=dict)


class CheckResult(BaseModel):
    check: str
    ok: bool
    reason: str = ""


# -- self-contained ------------------------------------------------------------------------
_QUOTE = re.compile(r"[\"“”«»]([^\"“”«»]{0,400})[\"“”«»]")
_NUMBERED = re.compile(r"(?:^|[\s:;,])\(?\d\)\s|\b(?:statement|claim|passage|fact)\s+\d\b", re.I)
_BLANK = re.compile(r"_{2,}|\[\s*blank\s*\]|\.\.\.\s*\?", re.I)
_META = re.compile(r"\b(?:the|these|those|both|each|all|following)\s+(?:(?:two|three|four|"
                   r"above|given|following|quoted|listed)\s+)?(?:statements?|passages?|"
                   r"documents?|sources?|texts?|excerpts?|claims?|snippets?|buckets?|quotes?|"
                   r"sentences?|articles?)\b|\baccording to\b|\bprovided (?:text|context)\b"
                   r"|\bthese (?:events|things|facts|figures)\b|\bmissing (?:figure|name|word)",
                   re.I)
# A question opening with a pronoun or a demonstrative used as a noun has nothing to refer to.
_OPENING = re.compile(r"^(?:(?:how many years (?:after|before)|how long after|when|why|what|"
                      r"how|which|where)\s+)?(?:(?:did|does|do|was|is|were|has|had)\s+)?"
                      r"(?:he|she|it|they|him|her|them|his|its|their|this|that|these|those)\b"
                      r"(?!\s+of\b)", re.I)


def self_contained(x: CheckInput) -> str | None:
    q = x.question.strip()
    for m in _QUOTE.finditer(q):
        if len(m.group(1).split()) >= 4:
            return "quoted_passage"
    if _NUMBERED.search(q):
        return "numbered_statements"
    if _BLANK.search(q):
        return "blank"
    if _META.search(q):
        return "mentions_documents"
    if _OPENING.match(q):
        return "dangling_reference"
    return None


# -- not verbatim --------------------------------------------------------------------------
def words(text: str) -> list[str]:
    """The words of ``text`` as a reader counts them: lower case, punctuation dropped,
    articles kept (QUALITY.md's "8 consecutive words" counts "the" and "a"; dropping them,
    as SQuAD's answer normalisation does, let 9-word copies through as 7)."""
    # A search engine reads "second-generation" as two words: so does the verbatim check.
    return re.findall(r"[\w']+", re.sub(r"[-–—/]", " ", text.replace("’", "'").lower()))


def shingles(text: str, n: int = VERBATIM_RUN) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def copied_run(question: str, sources: Sequence[str], n: int = VERBATIM_RUN) -> str | None:
    """The first run of ``n`` normalised question words found in any source, or None."""
    qs = shingles(question, n)
    if not qs:
        return None
    for s in sources:
        hit = qs & shingles(s, n)
        if hit:
            return " ".join(sorted(hit)[0])
    return None


def not_verbatim(x: CheckInput) -> str | None:
    return "copied_run" if copied_run(x.question, [*x.spans, *x.documents]) else None


# -- the baseline reader -------------------------------------------------------------------
def read(question: str, spans: Sequence[str]) -> str:
    """The baseline agent's reader over ``spans`` only (no search, no titles)."""
    q = analyse(question)
    ranked, idf = rank_sentences(q, [(i, "", s) for i, s in enumerate(spans, 1)])
    if not ranked:
        return ""
    best = next((s for s in ranked[:3] if s.answer), ranked[0])
    if q.kind == "yesno":
        return yes_no(best.sentence, q, idf)
    return best.answer.text if best.answer else shortest_clause(best.sentence, q)


_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_NUM = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _num(text: str) -> float | None:
    m = _NUM.search(text)
    return float(m.group(0).replace(",", "")) if m else None


def _reads_year(event: str, spans: Sequence[str]) -> int | None:
    got = read(f"In what year was {event}?", spans)
    m = _YEAR.search(got)
    return int(m.group(1)) if m else None


def core(answer: str) -> str:
    """The answer without a parenthetical working ("17 years (1998 to 2015)")."""
    return re.sub(r"\s*\([^()]*\)", "", answer).strip() or answer


def _matches(got: str, answer: str) -> bool:
    a = core(answer)
    return bool(got) and (contains_gold(got, [a]) or (
        contains_gold(a, [got]) and len(words(got)) * 2 >= len(words(a))))


_FIRST = re.compile(r"\b(?:first|earlier|earliest|sooner)\b", re.I)
_LATER = re.compile(r"\b(?:later|latest|last|more recent)\b", re.I)


def _choice_solvable(x: CheckInput) -> bool | None:
    """"Which came first: A or B?" with no recorded operands: the span the answer names
    must hold the earliest (or latest) year among the spans."""
    if not re.match(r"^(?:which|who)\b[^?]*\bor\b", x.question, re.I):
        return None
    first, later = _FIRST.search(x.question), _LATER.search(x.question)
    if not (first or later):
        return None
    years = [[int(y) for y in _YEAR.findall(s)] for s in x.spans]
    if any(not y for y in years):
        return False
    aw = set(words(core(x.answer))) - {"the", "his", "her", "of", "a", "an"}
    overlap = [len(aw & set(words(s))) for s in x.spans]
    chosen = overlap.index(max(overlap))
    if overlap.count(max(overlap)) > 1:
        return False
    target = min(min(y) for y in years) if first else max(max(y) for y in years)
    return target in years[chosen]


def _interval(x: CheckInput) -> set[int] | None:
    """The year differences that give the answer: "9 years" -> {9}; an age ("How old was
    X when ...?" -> "46") -> {46, 47}, as a birthday may not have passed yet."""
    a = core(x.answer)
    m = re.match(r"^\s*(\d{1,3})\s+years?\b", a)
    if m:
        return {int(m.group(1))}
    m = re.match(r"^\s*(\d{1,3})(?:\s+years?\s+old)?\s*$", a)
    if m and re.search(r"\bhow old\b", x.question, re.I):
        return {int(m.group(1)), int(m.group(1)) + 1}
    return None


def solvable(x: CheckInput) -> str | None:
    d = x.detail
    if d.get("events") and d.get("years"):  # rule temporal: the reader finds every date
        got = [_reads_year(e, x.spans) for e in d["events"]]
        if got != list(d["years"]):
            return "not_solvable"
        return None
    if d.get("names") and d.get("values"):  # rule comparison: the reader finds each quantity
        for name, value, raw in zip(d["names"], d["values"], d.get("raw", []), strict=False):
            want = _num(raw or str(value))
            if not any(_num(said := read(q, x.spans)) == want and said
                       for q in (f"How much was {name}?", f"What was {name}?")):
                return "not_solvable"
        return None
    if d.get("chain"):  # rule causal: a two-hop causal reader follows the stated causes
        return None if _matches(chain_read(d.get("effect", ""), x.spans), x.answer) else \
            "not_solvable"
    if d.get("lists"):  # rule conjunction: the lists in the spans share exactly the answer
        common = shared_member(x.spans)
        return None if len(common) == 1 and _matches(common[0], x.answer) else "not_solvable"
    # Everything else (conjunction, LLM items): the reader over all spans gives the
    # answer, or the answer is an interval / a difference of figures the spans state.
    if _matches(read(x.question, x.spans), x.answer):
        return None
    choice = _choice_solvable(x)
    if choice is not None:
        return None if choice else "not_solvable"
    text = " ".join(x.spans)
    m = _interval(x)
    if m is not None:
        years = [int(y) for y in _YEAR.findall(text)]
        if any(abs(a - b) in m for a in years for b in years):
            return None
        return "not_solvable"
    if contains_gold(text, [x.answer]) and x.pattern in ("temporal", "comparison"):
        return None  # "which came first" / "which is larger": the answer is one operand
    return "not_solvable"


# -- single-span shortcut ------------------------------------------------------------------
_NATIONALITY = frozenset("""american british english scottish welsh irish canadian australian
french german italian spanish portuguese dutch belgian swiss austrian swedish norwegian danish
finnish russian polish czech hungarian greek turkish chinese japanese korean indian pakistani
mexican brazilian argentine argentinian chilean egyptian israeli iranian new zealand european
asian african""".split())
_COUNTRIES = frozenset("""united states usa us uk united kingdom england scotland wales ireland
canada australia france germany italy spain portugal netherlands belgium switzerland austria
sweden norway denmark finland russia poland china japan korea india pakistan mexico brazil
argentina chile egypt israel iran europe asia africa america""".split())
_TITLE_WORD = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|the|and|de|in|on|for|&)?\s*"
                         r"[A-Z0-9][\w'’-]*)*")
_MONTHS = frozenset("january february march april may june july august september october "
                    "november december".split())


def named(text: str, skip: Sequence[str] = ()) -> list[str]:
    """Capitalised names in ``text`` that are not sentence-initial function words,
    nationalities, countries, months, or in ``skip``."""
    out = []
    skip_n = {normalize_answer(s) for s in skip}
    for _i, m in enumerate(_TITLE_WORD.finditer(text)):
        name = m.group(0)
        n = normalize_answer(name)
        first = n.split()[0] if n else ""
        if not n or n in skip_n or n in _NATIONALITY or n in _COUNTRIES or n in _MONTHS:
            continue
        if m.start() == 0 and first in {"which", "who", "what", "how", "when", "where", "in",
                                        "the", "a", "an", "did", "was", "is", "whose"}:
            rest = " ".join(n.split()[1:])
            if not rest or rest in skip_n:
                continue
            name = rest
        out.append(name)
    return out


def no_shortcut(x: CheckInput) -> str | None:
    d = x.detail
    if x.pattern == "conjunction":
        if d.get("lists"):  # a list of fewer than three names all but gives the answer
            return None if min(list_sizes(x.spans), default=0) >= MIN_MEMBERS else \
                "clue_sufficient"
        # An LLM conjunction that names a work or an organisation: that name alone
        # identifies the answer.
        return "clue_sufficient" if named(x.question, skip=[x.answer]) else None
    if d.get("chain"):
        # The lexical reader answers "what caused ...?" from any span stating a cause, asked
        # effect or not; a span gives a chain away when it states the effect and the answer.
        if any(states_whole_chain(s, core(x.answer), d.get("effect", "")) for s in x.spans):
            return "single_span"
        return None
    operands = [str(v) for v in d.get("years") or d.get("raw") or []]
    if operands and any(all(o in s for o in operands) for s in x.spans):
        return "single_span"
    if len({normalize_answer(s) for s in x.spans}) < 2:
        return "single_span"
    if not operands:
        for s in x.spans:
            if _matches(read(x.question, [s]), x.answer) and not _arith(x.answer):
                return "single_span"
    return None


def _arith(answer: str) -> bool:
    return bool(re.match(r"^\s*[\d,.]+\s*(?:years?|%|[a-z]+)?\s*$", answer))


# -- coherence -------------------------------------------------------------------------------
QUANTITY_KINDS: dict[str, str] = {}
for _kind, _nouns in {
    "revenue": "gross grossed grosses revenue revenues sales box office turnover earnings",
    "pay": "salary salaries pay paid fee fees wage wages earned earn",
    # A budget, a bid and an investment are not the same amount of anything: comparing a
    # contract's bid with the project's budget is part against whole (blind review).
    "cost": "cost costs price spent spending",
    "budget": "budget budgets",
    "bid": "bid bids tender",
    "investment": "investment investments",
    "funding": "funding fund grant loan",
    "damage": "damage damages",
    "population": "population residents inhabitants people",
    "riders": "passengers ridership riders journeys trips",
    "area": "area hectares square",
    "length": "length long km kilometres kilometers miles track route",
    "capacity": "capacity gwh mw gw mwh kwh",
}.items():
    for _n in _nouns.split():
        QUANTITY_KINDS[_n] = _kind
_CAUSE = re.compile(r"\b(?:because|due to|owing to|as a result|result(?:ed|s)? in|led to|"
                    r"leads? to|caus(?:ed|es|e)|prompted|forced|triggered|after)\b", re.I)


def quantity_kind(text: str) -> str | None:
    for w in words(text):
        if w in QUANTITY_KINDS:
            return QUANTITY_KINDS[w]
    return None


def coherent(x: CheckInput) -> str | None:
    d = x.detail
    if x.pattern == "comparison" and d.get("kind"):
        # Two subjects' dates: comparable when every span's lead calls its subject that kind.
        return None if all(d["kind"] in kinds_of(s) for s in x.spans) else "kind_mismatch"
    if x.pattern == "comparison":
        units = d.get("units") or ([d["unit"]] * len(x.spans) if d.get("unit") else [])
        if units and len(set(units)) > 1:
            return "unit_mismatch"
        names = d.get("names") or []
        # A span's kind noun is a lowercase word: "Grant Heslov" in a cast is no grant.
        kinds = {quantity_kind(n) for n in names} if names else {
            quantity_kind(re.sub(r"\b[A-Z][\w'’-]*", " ", s)) for s in x.spans}
        if len(kinds) > 1 or (d.get("operation") == "ratio" and None in kinds):
            return "kind_mismatch"
        if not names and re.search(r"\bratio\b|divided by|times (?:as|larger|more)",
                                   x.question, re.I) and len(kinds) != 1:
            return "kind_mismatch"
    if x.pattern == "causal" and not any(_CAUSE.search(s) for s in x.spans):
        return "no_causal_relation"
    if d.get("chain"):  # the causal relation is the connection: the spans must chain
        links = [SimpleNamespace(**chain_roles(s)) for s in x.spans]
        ok = len(links) == 2 and (chained(links[0], links[1]) or chained(links[1], links[0]))
        return None if ok else "no_causal_relation"
    if x.pattern == "comparison" and d.get("names") and len(
            {quantity_kind(n) for n in d["names"]} - {None}) == 1:
        return None  # comparable subjects: the same kind of quantity in the same unit
    per_span = [set(s) for s in x.subjects] if x.subjects else [
        {normalize_answer(n) for n in named(s)} for s in x.spans]
    docs = x.span_documents if len(x.span_documents) == len(per_span) else [
        str(i) for i in range(len(per_span))]
    by_doc: dict[str, set[str]] = {}
    for doc, subj in zip(docs, per_span, strict=True):
        by_doc.setdefault(doc, set()).update(subj)
    subjects = list(by_doc.values())
    if len(subjects) >= 2 and not set.intersection(*subjects):
        return "unrelated_claims"
    return None


# -- date roles ------------------------------------------------------------------------------
_LIFESPAN = re.compile(r"\(\s*(?:c\.\s*)?\d{3,4}\s*[–—-]\s*\d{2,4}\s*\)|\b\d{4}\s*[–—-]\s*\d{4}\b")
_PAREN_YEAR = re.compile(r"\(([^()]*)\)")


_APPROXIMATE = re.compile(r"\b(?:in or after|in or before|or later|or earlier|circa|c\.|around|"
                          r"about|approximately|roughly|some time in|sometime in|by)\s+"
                          r"(?:\w+\s+){0,2}$", re.I)


_NAME_WORD = rf"(?:[A-Z][\w.'’-]*|{NAME_PARTICLE})"
_LEAD_LIFE = re.compile(rf"^(?P<x>[A-Z][\w.'’-]*(?:\s+{_NAME_WORD}){{0,6}})\s*"
                        r"\([^()–—]*?\b(?P<a>\d{4})\s*[–—-]\s*[^()]*?\b(?P<b>\d{4})\s*\)")


def life_role(span: str, year: int) -> str | None:
    """"born" / "died" when ``year`` is a bound of the lifespan that follows the sentence's
    opening name ("Henry John Kaiser (May 9, 1882 – August 24, 1967) was ..."): a birth or a
    death, an event with a date, unlike a year inside any other range."""
    m = _LEAD_LIFE.match(span)
    if not m:
        return None
    return "born" if str(year) == m.group("a") else "died" if str(year) == m.group("b") else None


def year_role_problem(span: str, year: int, event: str | None = None) -> str | None:
    """Why ``year`` in ``span`` is no date of the ``event`` the item names (None: it is).
    A lifespan's years date only a birth or a death, and only when the event says which."""
    y = str(year)
    role = life_role(span, year)
    if role:
        said = re.search(r"\b(?:born|birth)\b" if role == "born" else r"\b(?:died|death)\b",
                         event or "", re.I)
        return None if said else "lifespan_year"
    pos = span.find(y)
    if pos >= 0 and _APPROXIMATE.search(span[max(0, pos - 30):pos]):
        return "approximate_year"  # "released in or after October 2005": no event date
    for m in _LIFESPAN.finditer(span):
        if y in m.group(0):
            return "lifespan_year"
    for m in _PAREN_YEAR.finditer(span):
        inner = m.group(1).strip()
        if y in inner and re.fullmatch(r"(?:c\.\s*)?\d{4}(?:\s+film)?", inner):
            return "title_year"  # "The Revenant (2015)", "Love in the Ruins (1995)"
        if y in inner and not re.search(r"\b(?:born|died|founded|established|released|"
                                        r"opened)\b", inner):
            return "parenthetical_year"
    return None


def date_roles(x: CheckInput) -> str | None:
    years = x.detail.get("years")
    if years:
        events = x.detail.get("events") or [x.question] * len(years)
        pairs = list(zip(x.spans, years, events, strict=False))
    else:  # an LLM item: the years it relies on, in the spans that hold them
        said = x.question + " " + x.answer
        used = {int(y) for y in _YEAR.findall(said)}
        pairs = [(s, int(y), said) for s in x.spans for y in _YEAR.findall(s)
                 if int(y) in used]
        diffs = _interval(x)
        if diffs:
            # The answer is a difference of two years: some pair of years in different
            # spans that gives it must both be events' dates.
            cands = [((s1, a), (s2, b)) for i, s1 in enumerate(x.spans)
                     for s2 in x.spans[i + 1:] for a in map(int, _YEAR.findall(s1))
                     for b in map(int, _YEAR.findall(s2)) if abs(a - b) in diffs]
            if cands and all(year_role_problem(*p, said) or year_role_problem(*q, said)
                             for p, q in cands):
                p, q = cands[0]
                return year_role_problem(*p, said) or year_role_problem(*q, said)
    for span, year, event in pairs:
        problem = year_role_problem(span, year, event)
        if problem:
            return problem
    return None


# -- conjunction ---------------------------------------------------------------------------
def generic_answer(answer: str) -> bool:
    a = normalize_answer(answer)
    return (not a or a in _NATIONALITY or a in _COUNTRIES or answer.strip()[:1].islower()
            or a.isdigit() and len(a) != 4)


def conjunction(x: CheckInput) -> str | None:
    if x.pattern != "conjunction":
        return None
    if generic_answer(x.answer):
        return "generic_answer"
    if len(x.spans) < (2 if x.detail.get("lists") else 3):
        return "too_few_clues"
    return None


MECHANICAL = (("self_contained", self_contained), ("not_verbatim", not_verbatim),
              ("solvable", solvable), ("no_shortcut", no_shortcut), ("coherent", coherent),
              ("date_roles", date_roles), ("conjunction", conjunction))


def run_checks(x: CheckInput) -> list[CheckResult]:
    """Every mechanical check (all of them, so each failure is counted, not just the first)."""
    out = []
    for name, fn in MECHANICAL:
        reason = fn(x)
        out.append(CheckResult(check=name, ok=reason is None, reason=reason or ""))
    return out


def failures(results: Sequence[CheckResult]) -> list[str]:
    return [r.reason for r in results if not r.ok]
