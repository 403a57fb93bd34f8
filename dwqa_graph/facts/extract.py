"""Typed facts read from parsed sentences (the offline extractor).

The library parses; this module only maps its analysis onto the relation vocabulary
(``models.SCHEMA``). For each verb of a sentence:
- its **subject** is the entity of its ``nsubj``/``nsubj:pass`` dependent (or, for a
  participle modifying a noun — "a film directed by X", "Lively (born 1987)" — of that noun,
  or of the noun's copular subject); a subject that is not a resolved named entity (a
  common noun, an unresolved surname, a pronoun other than the page subject's "He"/"It" —
  ``resolve.py``) gives no fact;
- its **date** is the one DATE mention attached to the verb itself by ``obl:in``, ``obl:on``
  or ``obl:tmod`` (so "the 2026 World Cup" inside a sentence about 2017 dates nothing), and
  only a calendar date (year, month or day) counts, not a season ("1999-00"); two dates on
  one verb give none;
- its **objects** are entity mentions in ``obj``, ``obl:agent`` / ``obl:by`` and
  ``obl:in`` positions, and numbers that modify its object noun (``nummod``).
A verb that is negated, modal or hypothetical ("will open", "plans to open", "if it wins"),
and any sentence with "respectively", gives no fact: precision over recall. A fact read by a
guess (a pronoun the paragraph gives no name for, a date that may be another clause's or
another country's release) is written ``uncertain``: stored, never chained.

An event the page tells twice is no event a question can name: after all of a version's
passages are read, ``repeated_events`` drops an event whose verb and named object another
sentence about its subject repeats in another year ("In 2016, he signed with the Cavaliers"
beside "in 2014 ... re-signed with the Cavaliers").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from dwqa_graph.facts.models import EntityRef, Fact, Relation, allows
from dwqa_graph.facts.resolve import TYPES, WORK_NOUNS, PageResolver, Span, entity_ref
from dwqa_graph.language.corenlp import Cues
from dwqa_graph.language.doc import Mention, Sentence
from dwqa_graph.language.lexicon import (
    HOLDING_VERBS as _HELD,
    IRREALIS_VERBS as _IRREALIS,
    LIGHT_VERBS as _LIGHT,
    MODAL_VERBS as _MODAL,
    NEGATIONS as _NEGATION,
    NUMBER_WORDS,
    PRONOUNS,
    SPEECH_VERBS as _SAYING,
    TELLING_VERBS as _TELLING,
)
from dwqa_graph.language.values import DateValue, date_value, quantity_value
from dwqa_graph.models import stable_id

#: Bump when the rules change: facts of an older version are replaced on the next run.
#: What each version changed, and why, is in CHANGELOG.md.
RULES_VERSION = "50"

_BIRTH, _DEATH = {"bear"}, {"die"}
_FOUND = {"found", "establish", "form", "incorporate", "co-found", "cofound"}
_RELEASE = {"release", "publish", "premiere"}
_BY = {"direct": "directed_by", "write": "written_by", "produce": "produced_by",
       "create": "created_by", "design": "created_by", "develop": "created_by",
       "invent": "created_by", "host": "hosted_by"}
_OPEN = {"open", "inaugurate"}

_LOCATE = {"locate", "situate", "headquarter", "base"}
_JOIN = {"join"}
_WIN = {"win"}
_MARRY = {"marry", "wed"}
#: The sentences worth parsing: every rule here reads a date or a number (a digit, or a
#: number word), or one of the verbs above; and what the resolver reads pronouns by
#: (``resolve.py``): a paragraph's first sentence, and the sentence before one with a
#: pronoun. The worker tokenizes the rest and parses none of them
#: (``language.corenlp.Cues``; the page subject's name is added per page,
#: ``extractors/corenlp.subject_cues``).
CUES = Cues(lemmas=frozenset(_BIRTH | _DEATH | _FOUND | _RELEASE | set(_BY) | _OPEN | _LOCATE
                             | _JOIN | _WIN | _MARRY), words=NUMBER_WORDS, openers=True,
            leaners=PRONOUNS)
_CONDITION = {"if", "unless", "whether", "although", "though"}
# Nouns a number measures that are times, not quantities ("in 20 years", "3 days").
_TIME_NOUNS = {"year", "month", "week", "day", "hour", "minute", "second", "time", "decade",
               "century", "season", "episode", "edition"}
#: Named-entity tags of places (a lifespan's brackets may name where).
_PLACE_NER = {"LOCATION", "CITY", "STATE_OR_PROVINCE", "COUNTRY"}
_DATE_RELS = ("obl:in", "obl:on", "obl:tmod", "nmod:tmod")
# A "by" phrase's agent ("produced by Apple Inc.").
_BY_RELS = ("obl:agent", "obl:by", "nmod:agent", "nmod:by")
# What may stand between a noun and the participle that modifies it ("a film, first
# released", "a film written and directed by").
_BETWEEN = {",", "RB", "CC", "VBN", "``", "''", "-LRB-", "-RRB-", "JJ"}


@dataclass
class Passage:
    """A stretch of a version's text sent to the library in one request."""

    version_id: str
    start: int  # offset of the passage in the version text
    text: str


@dataclass(frozen=True)
class VerbTrace:
    """A verb of a dated sentence as ``repeated_events`` compares it: its ``fold``ed lemma,
    its object's or complement's lemma ("became the first player": "player"; a light verb
    says what happened by it), and the entities that hang on it (ids, and their words)."""

    lemma: str
    obj: str | None
    entities: dict[str, str]


@dataclass(frozen=True)
class SentenceTrace:
    """A sentence once its passage is read: the verbs and years of a dated one, and the
    verbs it tells as a habit (``_habitual``, dated or not) with the entities it names."""

    verbs: tuple[VerbTrace, ...]
    years: frozenset[int]
    #: (``fold``ed lemma, object lemma) of each verb told as a habit
    habits: frozenset[tuple[str, str | None]] = frozenset()
    named: frozenset[str] = frozenset()


def read_facts(passage: Passage, sentences: list[Sentence], page: PageResolver,
               extractor: str, trace: dict[int, SentenceTrace] | None = None) -> list[Fact]:
    """Facts of the parsed sentences of one passage (sentence offsets are the passage's);
    each fact's evidence is its whole sentence. ``claim_id`` is left for the stage to set.
    ``trace`` collects each dated sentence's ``SentenceTrace`` by its offset in the version,
    for ``repeated_events``."""
    out: dict[str, Fact] = {}
    page.new_passage()
    for sent in sentences:
        spans = page.spans(sent, passage.text)  # every sentence: pronouns read the one before
        if trace is not None:
            _trace(sent, spans, passage, trace, page.subject_span())
        if any(t.lemma.lower() == "respectively" for t in sent.tokens):
            continue
        for f in _sentence_facts(sent, spans, page, passage.text):
            if not _typed(f):
                continue
            fact = _fact(f, passage.version_id, passage.start + sent.start,
                         passage.text[sent.start:sent.end], extractor)
            out.setdefault(fact.id, fact)
    return list(out.values())


def fold(lemma: str) -> str:
    """A verb's lemma with a written-out repetition taken off: "re-sign" is "sign"."""
    return lemma.removeprefix("re-")


def _trace(sent: Sentence, spans: list[Span], passage: Passage,
           trace: dict[int, SentenceTrace], subject: Span | None = None) -> None:
    years = frozenset(d.year for m in sent.mentions
                      if m.ner == "DATE" and (d := _written_date(m)) is not None)
    habits = frozenset((fold(sent.token(v).lemma.lower()), _object_lemma(sent, v))
                       for v in _habitual(sent))
    named: frozenset[str] = frozenset()
    if habits:  # who the habit may be of
        named = frozenset(_ref(s).id for s in spans)
        # a pronoun subject the resolver left (a name before it could be what it stands for:
        # "..., devised by NBA agent Mark Termini, ..., he began opting out ... after each
        # season") may still be the page's subject; for a habit, which only drops events,
        # the doubt counts against them
        if subject is not None and any(
                t.pos == "PRP" and any(r in ("nsubj", "nsubj:pass") for r, _ in sent.heads(t.i))
                for t in sent.tokens):
            named |= {_ref(subject).id}
    if not years:  # a sentence without a year repeats no event in another year
        if habits:
            trace[passage.start + sent.start] = SentenceTrace((), years, habits, named)
        return
    on: dict[int, dict[str, str]] = {}
    for s in spans:
        for v in _governing_verbs(sent, s):
            on.setdefault(v, {})[_ref(s).id] = sent.text_of(passage.text, s.first, s.last)
    trace[passage.start + sent.start] = SentenceTrace(
        verbs=tuple(VerbTrace(fold(sent.token(v).lemma.lower()), _object_lemma(sent, v), ents)
                for v, ents in sorted(on.items())),
        years=years, habits=habits, named=named)


def _object_lemma(sent: Sentence, v: int) -> str | None:
    return next((sent.token(o).lemma.lower() for o in sent.deps(v, "obj", "xcomp")), None)


#: Adverbs that tell a verb as a habit ("re-signed annually"), and the determiners of a
#: modifier that do ("after each season").
_HABIT_ADVERBS = {"repeatedly", "annually", "regularly", "routinely", "habitually", "yearly"}
_HABIT_DETERMINERS = {"each", "every"}


def _habitual(sent: Sentence) -> set[int]:
    """The verbs the sentence tells as a habit: a modifier of the verb's own clause
    determined by "each" or "every", or a habit adverb ("he began opting out, or re-signing,
    on new contracts after each season"), and the verbs coordinated with one (the modifier
    after a coordination is both's). Such an event happened more than once, in years the
    sentence need not give."""
    out: set[int] = set()
    # most sentences hold no such word: no verb's clause is walked for them
    if not any(t.lemma.lower() in _HABIT_ADVERBS | _HABIT_DETERMINERS for t in sent.tokens):
        return out
    for v in range(1, len(sent.tokens) + 1):
        if not sent.token(v).pos.startswith("VB"):
            continue
        # its modifiers ("after each season", "every year"), not its subject or object
        # ("each player signed", "thanked each other")
        todo = [c for r, c in sent.children.get(v, ())
                if r.split(":")[0] in ("obl", "advmod", "nmod")
                and not sent.token(c).pos.startswith("VB")]
        seen = {v, *todo}
        while todo:
            for _, c in sent.children.get(todo.pop(), ()):
                if c not in seen and not sent.token(c).pos.startswith("VB"):
                    seen.add(c)
                    todo.append(c)
        if any((sent.token(i).lemma.lower() in _HABIT_DETERMINERS
                and any(r == "det" for r, _ in sent.heads(i)))
               or (sent.token(i).lemma.lower() in _HABIT_ADVERBS
                   and any(r == "advmod" for r, _ in sent.heads(i))) for i in seen - {v}):
            out.add(v)
    return out | {c for v in out for r, c in sent.children.get(v, ()) if r.startswith("conj")
                  and sent.token(c).pos.startswith("VB")} | {
        h for v in out for r, h in sent.heads(v) if r.startswith("conj")
        and h > 0 and sent.token(h).pos.startswith("VB")}


def _governing_verbs(sent: Sentence, s: Span) -> set[int]:
    """The verbs a mention hangs on: the first verb up each of its heads' paths (with the
    enhanced graph's copied subjects, "James opted out and re-signed" hangs James on both)."""
    out: set[int] = set()
    todo = list(range(s.first, s.last + 1))
    seen = set(todo)
    while todo:
        for _, h in sent.heads(todo.pop()):
            if h == 0 or h in seen:
                continue
            seen.add(h)
            if sent.token(h).pos.startswith("VB"):
                out.add(h)
            else:
                todo.append(h)
    return out


def repeated_events(facts: list[Fact], trace: dict[int, SentenceTrace]) -> list[Fact]:
    """``facts`` without the events their page tells again in another year, and without
    the cores (``short_phrase``) it does: a verb of another dated sentence, in none of the
    event's years, with the event's lemma (``fold``ed: "re-signed" repeats "signed") and
    object or complement noun, on which hang the event's subject and every entity the
    phrase names. "signed with the Cavaliers" (2016) is then one of two signings, and a
    question naming it has two answers; "signed for Real Madrid in a record transfer from
    Manchester United" (2009) beside a 2021 signing for Real Madrid keeps its phrase, which
    says which, but not its core "signed for Real Madrid". An event without an object is
    told again by the verb with any object: "re-signed with the Lakers" (2020) is one of
    "signed a contract extension with the Lakers" (2022) too (review R46). A sentence
    telling the same event again with its year keeps it; a sentence without a year is no
    evidence either way, unless it tells the verb as a habit of the subject, dated or not
    (``_habitual``): "he began opting out, or re-signing, on new contracts after each
    season" leaves no opt-out and no signing of his one event (review R48)."""
    # the page's verbs by (lemma, object) and by lemma, each with its sentence, years and
    # entities: an event looks up its own instead of scanning every verb
    Told = list[tuple[int, frozenset[int], set[str]]]
    by_object: dict[tuple[str, str], Told] = {}
    by_lemma: dict[str, Told] = {}
    habits: dict[str, list[tuple[int, str | None, frozenset[str]]]] = {}
    for start, t in trace.items():
        for lemma, obj in t.habits:
            habits.setdefault(lemma, []).append((start, obj, t.named))
        for v in t.verbs:
            told = (start, t.years, set(v.entities))
            by_lemma.setdefault(v.lemma, []).append(told)
            if v.obj is not None:
                by_object.setdefault((v.lemma, v.obj), []).append(told)

    def told_again(f: Fact, phrase: str) -> bool:
        own = trace.get(f.start)
        if own is None:
            return False
        lemma = fold(f.verb.split()[0])
        for mine in own.verbs:
            if mine.lemma != lemma or f.subject.id not in mine.entities:
                continue
            # a habit of the subject's, with the same object or either without one
            if any(start != f.start and f.subject.id in named
                   and (obj is None or mine.obj is None or obj == mine.obj)
                   for start, obj, named in habits.get(lemma, ())):
                return True
            named = {i for i, words in mine.entities.items()
                     if i != f.subject.id and words in phrase}
            if not named:
                continue
            if any(start != f.start and f.year not in years and f.subject.id in ids
                   and named <= ids
                   for start, years, ids in (by_object[(lemma, mine.obj)] if mine.obj
                                             else by_lemma[lemma])):
                return True
        return False

    out = []
    for f in facts:
        if f.relation == "event" and f.phrase is not None:
            if told_again(f, f.phrase):
                continue
            if f.short_phrase is not None and told_again(f, f.short_phrase):
                f = f.model_copy(update={"short_phrase": None})
        out.append(f)
    return out


def _typed(r: _Read) -> bool:
    return allows(r.relation, r.subject.type, r.obj.type if r.obj else None)


@dataclass
class _Read:
    relation: Relation
    verb: str
    subject: Span
    obj: Span | None = None
    date: DateValue | None = None
    when: DateValue | None = None
    value: float | None = None
    unit: str | None = None
    approximate: bool = False
    phrase: str | None = None
    short_phrase: str | None = None
    #: Its date may be another event's (``_unsure_date``).
    unsure_date: bool = False
    #: A credit the sentence shares with an agent the reader has no entity for
    #: (``_unnamed_co_agent``): "the writer of X" would name one of two.
    shared: bool = False


def _ref(s: Span) -> EntityRef:
    return entity_ref(s.name, s.type, s.generic)


def _fact(r: _Read, version_id: str, start: int, evidence: str, extractor: str) -> Fact:
    subject = _ref(r.subject)
    obj = _ref(r.obj) if r.obj else None
    kind = "entity" if obj else "date" if r.date else "quantity"
    key = (obj.id if obj else r.date.iso if r.date else f"{r.value}:{r.unit}")
    return Fact(
        id=stable_id("fact", version_id, start, r.relation, r.verb, subject.id, key, extractor),
        relation=r.relation, verb=r.verb, subject=subject, object_kind=kind, object=obj,
        date=r.date.iso if r.date else None, year=r.date.year if r.date else None,
        precision=r.date.precision if r.date else None, value=r.value, unit=r.unit,
        approximate=r.approximate, when=r.when.iso if r.when else None, phrase=r.phrase,
        short_phrase=r.short_phrase,
        uncertain=r.unsure_date or r.subject.unsure or bool(r.obj and r.obj.unsure),
        shared=r.shared,
        version_id=version_id, start=start, end=start + len(evidence), evidence=evidence,
        extractor=extractor)


def _span_at(spans: list[Span], i: int) -> Span | None:
    for s in spans:
        if s.covers(i):
            return s
    return None


def _irrealis(sent: Sentence, v: int) -> bool:
    """Negated, modal, conditional, planned ("was to verify") or a complement of 'plan',
    'expect' ...: not a fact."""
    # "be to" + verb: what was arranged or due, not what happened ("The Commission was to
    # verify compliance in October 2023"). Not an infinitive of another verb: "went on to
    # win" did happen.
    if any(sent.token(m).word.lower() == "to" for m in sent.deps(v, "mark")) and any(
            sent.token(a).lemma.lower() == "be" for a in sent.deps(v, "aux")):
        return True
    for rel, d in sent.children.get(v, ()):
        lemma = sent.token(d).lemma.lower()
        if rel in ("aux", "aux:pass") and lemma in _MODAL:
            return True
        if rel in ("advmod", "neg", "det") and lemma in _NEGATION:
            return True
        if rel == "mark" and lemma in _CONDITION:
            return True
    for rel, g in sent.heads(v):
        if g and rel.startswith("xcomp") and sent.token(g).lemma.lower() in _IRREALIS:
            return True
        # what somebody said or claimed happened
        if g and rel.startswith("ccomp") and sent.token(g).lemma.lower() in _SAYING:
            return True
        if g and rel.startswith(("ccomp", "advcl")) and _irrealis(sent, g):
            return True
    # ... also where the parser hangs the saying on what was said ("Although Musk said he
    # earned ...": "said" an adverbial clause of "earned", with no complement of its own)
    if any(rel.startswith("advcl") and sent.token(d).lemma.lower() in _SAYING
           and not sent.deps(d, "ccomp", "obj", "xcomp")
           for rel, d in sent.children.get(v, ())):
        return True
    for obj in sent.deps(v, "obj"):
        if any(sent.token(d).lemma.lower() == "no" for d in sent.deps(obj, "det")):
            return True
    return False


def _subjects(sent: Sentence, v: int, spans: list[Span]) -> list[Span]:
    """The named entities that are the verb's subject (see the module docstring)."""
    heads = sent.deps(v, "nsubj", "nsubj:pass")
    if _unsure_subjects(sent, v, heads, spans):
        return []
    # the subject of "to become" in "A surpassed B to become ..." is A or B as the parser
    # guesses: a controlled subject counts only where the governing verb has no object
    heads += [h for h in sent.deps(v, "nsubj:xsubj")
              if not any(rel.startswith("xcomp") and sent.deps(g, "obj")
                         for rel, g in sent.heads(v) if g)]
    if not heads:
        # A participle modifying a noun: "the film directed by X", "Lively (born 1987)" --
        # not a noun inside a "by" phrase: "an application produced by Apple Inc., first
        # released on ..." is the application's release, attached by the parser to Apple.
        heads = [g for rel, g in sent.heads(v) if g and rel in ("acl", "dep", "appos")
                 and not any(r in _BY_RELS for r, _ in sent.heads(g))]
    out = []
    for h in heads:
        s = _span_at(spans, h)
        if s is None and sent.deps(h, "cop") and _next_to(sent, h, v):
            # "Titanic is a film directed by X": the participle's noun is the predicate of a
            # copula; its subject is the entity.
            s = next((x for n in sent.deps(h, "nsubj") if (x := _span_at(spans, n))), None)
        if s is not None and not s.generic and s not in out:
            out.append(s)
    return out


def _next_to(sent: Sentence, noun: int, v: int) -> bool:
    """The participle follows its noun closely: "a concert tour by Depeche Mode in support of
    the album "Delta Machine", released 22 March 2013" is the album's release, whatever the
    parser attached it to."""
    if v > noun and all(sent.token(k).pos in _BETWEEN for k in range(noun + 1, v)):
        return True
    # the second of two ("a film produced by A and directed by B")
    return any(rel.startswith("conj") and u != v and _next_to(sent, noun, u)
               for rel, u in sent.heads(v) if u and u < v)


def _unsure_subjects(sent: Sentence, v: int, heads: list[int], spans: list[Span]) -> bool:
    """The parse does not say whose the verb is:
    - several subjects that are not one coordination of named entities ("At a celebration
      honouring Alan Greenspan, ..., Rajan delivered": both are the verb's nsubj; "Harry
      Potter and the Philosopher's Stone was published": one conjunct is no entity);
    - a relative clause on a noun inside another noun's phrase ("the Greek name for the Red
      Sea, which was adopted ...": the name or the sea)."""
    named = [_span_at(spans, h) for h in heads]
    # one entity may be several heads ("Tesla, Inc.")
    if len(heads) > 1 and not (named[0] is not None and all(n == named[0] for n in named)):
        linked = {h for h in heads for r, d in sent.children.get(h, ())
                  if r.startswith("conj") and d in heads}
        linked |= {d for h in linked for r, d in sent.children.get(h, ())
                   if r.startswith("conj")}
        if set(heads) - linked or None in named:
            return True
    for h in heads:
        if ("acl:relcl", h) in sent.heads(v) and any(
                r.startswith("nmod") or r in _BY_RELS for r, _ in sent.heads(h)):
            return True  # also "the album led by Trigger Alpert, which was recorded ..."
    return False


def _date(sent: Sentence, v: int) -> DateValue | None:
    """The one calendar date attached to the verb itself, else None. A date written after a
    verb coordinated with it is that verb's, whatever the parser says ("she was accepted by
    Merton and began her studies there in September 1993": the parser hangs the date on
    "accepted")."""
    found: dict[tuple[int, int], DateValue | None] = {}
    conjuncts = [c for c in sent.deps(v, "conj:") if c > v and sent.token(c).pos.startswith("VB")]
    for d in sent.deps(v, *_DATE_RELS):
        if any(c < d for c in conjuncts):
            continue
        m = sent.mention_at(d)
        if m is not None and m.ner == "DATE":
            found[(m.first, m.last)] = _written_date(m)
    values = set(found.values())
    if len(values) != 1:
        return None
    return values.pop()


def _unsure_date(sent: Sentence, v: int) -> bool:
    """The date is written before the clause of its verb, which is not the sentence's main
    verb ("In 1997, after the film that made her famous was released, she ..."): whether the
    date is the clause's or the main verb's, the parser only guesses."""
    if any(g == 0 for _, g in sent.heads(v)):
        return False
    dates = [d for d in sent.deps(v, *_DATE_RELS)
             if (m := sent.mention_at(d)) is not None and m.ner == "DATE"]
    clause = {v} | {d for _, d in sent.children.get(v, ()) if d not in dates}
    return any(d < min(clause) for d in dates)


#: Two years joined by a dash, not an ISO date: a season or a span ("1999-00", "1905–06").
_TWO_YEARS = re.compile(r"\b\d{4}\s*[-–]\s*(?:\d{2}|\d{4})\b(?!\s*[-–]\s*\d)")


def _written_date(m: Mention) -> DateValue | None:
    """The mention's date, unless the tagger computed it from another ("In 2017, more than
    15 years later" is normalised to 2032): a year written in the mention must be
    the date's year. A season or a span of two years is no date: SUTime reads "1999-00" as
    1999 and "1905-06" as June 1905, and a year gap counted from it has two answers."""
    if _TWO_YEARS.search(m.text):
        return None
    value = date_value(m.norm)
    written = {int(w) for w in re.findall(r"\b(\d{4})\b", m.text)}
    return None if value is None or (written and value.year not in written) else value


def _entities(sent: Sentence, v: int, spans: list[Span], *rels: str) -> list[Span]:
    out = []
    for d in sent.deps(v, *rels):
        s = _span_at(spans, d)
        if s is not None and s not in out and not _past_another_verb(sent, v, s, spans):
            out.append(s)
        # "Martin Eberhard and Marc Tarpenning": enhanced++ already copies the relation to
        # each conjunct, so nothing more to follow here.
    return out


def _unnamed_co_agent(sent: Sentence, v: int, spans: list[Span]) -> bool:
    """An agent of ``v`` that is no entity, coordinated with one that is: "It was written by
    Ostrem and the playwright Jon Sedlak" (the parser makes "playwright" the conjunct and
    hangs the name off it), "by Ostrem and others". The credit is Ostrem's, but not his
    alone: asked as "the writer of X" it names one of two, and the graph's uniqueness check
    cannot count a writer it has no entity for."""
    agents = set(sent.deps(v, "obl:agent", "obl:by"))
    for d in agents:
        if _span_at(spans, d) is not None or _verb_before(sent, v, d, spans):
            continue
        linked = {h for r, h in sent.heads(d) if r.startswith("conj")} | {
            c for r, c in sent.children.get(d, ()) if r.startswith("conj")}
        if linked & agents:
            return True
    return False


def _past_another_verb(sent: Sentence, v: int, s: Span, spans: list[Span]) -> bool:
    """Another verb stands between ``v`` and the entity: it is that verb's. "directed by
    Robert Iscove and starring Freddie Prinze Jr., Rachael Leigh Cook": the parser joins the
    actors to the director and enhanced++ copies "by" to each of them, so four actors were
    directors. Verbs sharing the entity with ``v`` are no other verbs ("written, executive
    produced, and directed by X"): its conjuncts, with only conjunctions, commas, adverbs
    and their own modifiers between them and ``v``."""
    return _verb_before(sent, v, s.first, spans)


def _verb_before(sent: Sentence, v: int, first: int, spans: list[Span]) -> bool:
    """``_past_another_verb`` for the token ``first``."""
    conjuncts = {u for r, u in sent.children.get(v, ()) if r.startswith("conj")}
    shared = conjuncts | {d for u in conjuncts for r, d in sent.children.get(u, ())
                          if d < first and not r.startswith(("obl", "obj"))}
    for i in range(v + 1, first):
        if not sent.token(i).pos.startswith("VB") or _span_at(spans, i) is not None:
            continue
        if i not in shared or not all(
                sent.token(k).pos in ("CC", ",", "RB") or k in shared for k in range(v + 1, i)):
            return True
    return False


def _sentence_facts(sent: Sentence, spans: list[Span], page: PageResolver, text: str,
                    ) -> Iterator[_Read]:
    yield from _population(sent, spans, page)
    if not spans:
        return
    yield from _lifespan(sent, spans)
    yield from _work_year(sent, spans)
    short_names = _one_word_persons(sent, spans, page)
    for tok in sent.tokens:
        # A word the tagger calls a verb inside a name ("The Hip Hop Experience") is none.
        if not tok.pos.startswith("VB") or _span_at(spans, tok.i):
            continue
        v, lemma = tok.i, tok.lemma.lower()
        # A phrasal verb's particle is part of its name ("set up", "pull out").
        lemma = " ".join([lemma] + [sent.token(p).lemma.lower()
                                    for p in sent.deps(v, "compound:prt")])
        subjects = _subjects(sent, v, spans)
        if not subjects or _irrealis(sent, v):
            continue
        # A bare participle is passive ("an album ... and released on ..."; enhanced++
        # copies the conjunct's subject to it as nsubj).
        passive = bool(sent.deps(v, "aux:pass", "nsubj:pass")) or (
            tok.pos == "VBN" and not sent.deps(v, "aux", "obj"))
        date = _date(sent, v)
        agents = _entities(sent, v, spans, "obl:agent", "obl:by")
        objects = _entities(sent, v, spans, "obj")
        places = [s for s in _entities(sent, v, spans, "obl:in") if s.type == "PLACE"]
        unsure = date is not None and _unsure_date(sent, v)
        shared = bool(agents) and _unnamed_co_agent(sent, v, spans)
        for subj in subjects:
            for r in _verb_facts(sent, v, lemma, passive, subj, date, agents, objects,
                                 places, spans, text, short_names):
                r.unsure_date = r.unsure_date or (unsure and (r.date or r.when) is not None)
                r.shared = shared and r.obj in agents
                yield r


def _verb_facts(sent: Sentence, v: int, lemma: str, passive: bool, subj: Span,
                date: DateValue | None, agents: list[Span], objects: list[Span],
                places: list[Span], spans: list[Span], text: str,
                short_names: frozenset[int] = frozenset()) -> Iterator[_Read]:
    if lemma in _BIRTH and passive:
        if date:
            yield _Read("born", lemma, subj, date=date)
        for p in places:
            yield _Read("born_in", lemma, subj, obj=p)
        return
    if lemma in _BIRTH:
        # "X (born 4 July 1993) is ..." parsed without its passive: a birth, never an
        # "event" of the subject (the lead's lifespan reading gives the birth when it can)
        return
    if lemma in _DEATH:
        if date:
            yield _Read("died", lemma, subj, date=date)
        for p in places:
            yield _Read("died_in", lemma, subj, obj=p)
        return
    if lemma in _FOUND:
        if lemma in ("incorporate", "form") and sent.deps(v, "obl:as"):
            # a new status, not a founding ("Alaska was officially incorporated as an
            # organized territory in 1912")
            return
        if passive:
            if date:
                yield _Read("founded", lemma, subj, date=date)
            for a in agents:
                if a.type in ("PERSON", "ORG") and a != subj:
                    yield _Read("founded_by", lemma, subj, obj=a, when=date)
        elif subj.type in ("PERSON", "ORG"):
            for o in objects:
                if o.type == "ORG" and o != subj:
                    yield _Read("founded_by", lemma, o, obj=subj, when=date)
                    # the day someone founded it is the organisation's founding ("Musk
                    # founded SpaceX in May 2002"), as "SpaceX was founded in May 2002" says
                    if date:
                        yield _Read("founded", lemma, o, date=date)
        return
    # "was released", and the intransitive "premiered" ("It premiered at Cannes on ...").
    # Active, only without an object of any kind: "X opened its first production line" is
    # the line's opening, not X's (the object need not be a named entity to take it).
    intransitive = not sent.deps(v, "obj")
    if lemma in _RELEASE and (passive or (lemma == "premiere" and intransitive)):
        if date and not _released_on_something(sent, v):
            # a release in one country may be a later one of a work released before
            # elsewhere ("The game was released by Spike Chunsoft in Japan on 25 August
            # 2022"): kept, but its date may not be the work's
            yield _Read("released", lemma, subj, date=date, unsure_date=bool(places))
        return
    if lemma in _BY:
        rel = _BY[lemma]
        if passive:
            for a in agents:
                if a.type == "PERSON" and a != subj:
                    yield _Read(rel, lemma, subj, obj=a, when=date)  # type: ignore[arg-type]
        elif subj.type == "PERSON":
            for o in objects:
                if o.type in ("MISC",) and o != subj:
                    yield _Read(rel, lemma, o, obj=subj, when=date)  # type: ignore[arg-type]
        return
    if lemma in _OPEN and (passive or intransitive):
        if date:
            yield _Read("opened", lemma, subj, date=date)
        return
    if lemma in _LOCATE and passive:
        for p in places:
            if p != subj:
                yield _Read("located_in", lemma, subj, obj=p)
        return
    if lemma in _JOIN:
        if any(sent.token(i).pos == "JJS" or sent.token(i).ner == "ORDINAL"
               or sent.token(i).lemma.lower() == "only"
               for d in sent.deps(v, "obl:as") for i in _subtree(sent, d)):
            return  # a comparison ("joined Adele as the only female artist with ..."), not
            # a membership ("joined Tesla Motors as chairman" is one)
        for o in objects:
            if o.type in ("ORG", "MISC") and o != subj and not _partial_name(sent, o):
                yield _Read("member_of", lemma, subj, obj=o, when=date)
        return
    if lemma in _WIN and not passive:
        for o in objects:
            if o.type == "MISC" and o != subj and not _partial_name(sent, o):
                yield _Read("won", lemma, subj, obj=o, when=date)
        return
    if lemma in _MARRY:
        for o in objects:
            if o.type == "PERSON" and o != subj:
                yield _Read("married", lemma, subj, obj=o, when=date)
        return
    if lemma in ("be", "have") and not date:
        yield from _quantities(sent, v, lemma, subj, None)
        return
    if date and _plain_event(sent, v, lemma):
        phrase, short = event_phrases(sent, v, text, short_names)
        # An event no phrase names is not written: its verb alone ("Microsoft announced",
        # "Scholes was fined") says nothing a reader can check, and no question words it.
        if phrase is not None:
            yield _Read("event", lemma, subj, date=date, phrase=phrase, short_phrase=short)
    yield from _quantities(sent, v, lemma, subj, date)


def _released_on_something(sent: Sentence, v: int) -> bool:
    """A release on, for or to something that is not a date is a medium's or platform's
    ("released on DVD", "for iOS in 2014", "to the App Store on 6 September 2018"): a later
    edition, not the work's release."""
    for d in sent.deps(v, "obl:on", "obl:for", "obl:to", "obl:onto", "obl:via"):
        m = sent.mention_at(d)
        if m is None or m.ner not in _TIME_NER:
            return True
    return False


# A contest or award named by its kind alone ("won the Tour", "the Award") is a short
# form of a name the sentence does not give.
_KIND_WORDS = {"award", "prize", "tour", "cup", "trophy", "medal", "championship",
               "championships", "title", "race", "open", "games", "league", "series",
               "tournament", "contest", "election", "grand prix", "classic",
               # a body named by its kind ("joined the Committee")
               "committee", "council", "board", "society", "party", "club", "team",
               "group", "association", "union", "assembly", "commission", "company"}


def _partial_name(sent: Sentence, s: Span) -> bool:
    """The mention is the end of a longer name the tagger cut ("an ITFA Best Supporting
    Actor Award" tagged as "Award"), or a kind word standing for a name ("the Tour").
    Wider than ``resolve.fragment`` (proper nouns joined as name parts, for every mention):
    any modifier before it, which for an award's or a group's name is part of the name."""
    kind = s.name.lower()
    if kind in _KIND_WORDS or (kind.endswith("s") and kind[:-1] in _KIND_WORDS):
        return True  # also its plural ("won the most Tours")
    return any(d < s.first and sent.token(d).ner not in _TIME_NER
               for i in range(s.first, s.last + 1)
               for d in sent.deps(i, "compound", "amod", "flat"))


def _plain_event(sent: Sentence, v: int, lemma: str) -> bool:
    """A simple past or passive verb that names an event: not a light verb, not a
    progressive ("was going"), not a past perfect ("had used ..., in October 2012": the
    date usually belongs to the main clause)."""
    if lemma.split()[0] in _LIGHT or sent.token(v).pos == "VBG":
        return False
    if lemma.split()[0] in _TELLING and not _told_what(sent, v):
        return False
    if _object_gap(sent, v):
        return False
    return not any(sent.token(a).word.lower() == "had" for a in sent.deps(v, "aux"))


def _told_what(sent: Sentence, v: int) -> bool:
    """A verb of telling says what was told: a clause, or "of"/"about" on it or on its
    object ("informed Ernest Jones of the diagnosis")."""
    if sent.deps(v, "ccomp", "xcomp", "obl:of", "obl:about", "obl:on"):
        return True
    return any(sent.deps(o, "nmod:of", "nmod:about", "nmod:on") for o in sent.deps(v, "obj"))


def _object_gap(sent: Sentence, v: int) -> bool:
    """A relative clause without its pronoun whose object is the noun before it: "Freud as
    president, a position he relinquished in 1910 in favor of Adler" -- what he
    relinquished is the position, and the phrase "relinquished in favor of Adler" lost it
    (the parser gives such clauses as parataxis or dep as often as acl:relcl). Read off
    the words: a common noun with no preposition of its own,
    the verb's subject, then the verb, which has no object after it -- or the parser's
    object is that noun ("a post he held in 1950": "post" the object of "held", before its
    subject). "After the war he moved" keeps its event: "war" has its preposition."""
    if sent.deps(v, "ccomp", "xcomp"):
        return False
    objects = sent.deps(v, "obj", "iobj")
    for n in sent.deps(v, "nsubj"):
        words = _subtree(sent, n)
        first, last = min(words), max(words)
        if last >= v or any(sent.token(k).pos != "RB" for k in range(last + 1, v)):
            continue
        if any(o < first for o in objects):
            return True
        noun = first - 1
        if not objects and noun >= 1 and sent.token(noun).pos in ("NN", "NNS") \
                and not sent.deps(noun, "case"):
            return True
    return False


# An event's predicate keeps the verb's auxiliaries, particle, objects, complements and
# prepositional phrases (not the subject, the date, adverbs or clauses, which the question
# does not restate): ``event_phrases``.
# Inside those, a clause or an aside is not followed ("signed for Juventus, where he ...").
_PHRASE_STOP = ("acl:relcl", "advcl", "parataxis", "dep", "appos", "nsubj", "nsubj:pass",
                "nsubj:xsubj", "ref", "csubj", "discourse", "list")
_TIME_NER = {"DATE", "TIME", "DURATION", "SET", "NUMBER"}
_PLACE_NER = {"CITY", "STATE_OR_PROVINCE", "COUNTRY", "LOCATION"}
_DEICTIC = {"this", "that", "these", "those", "such", "same", "former", "latter", "other",
            "similar", "another"}
PHRASE_MAX_TOKENS = 14
#: The prepositional phrases an event's core may leave out once it names something: where
#: and in what circumstance it happened ("[during the First Anglo-Sikh War]", "[in a
#: friendly against Kazakhstan]", "[aboard a military plane]"). Not a reason, an agent, a
#: partner, a source or a subject matter ("criticised the BBC [for its programme Titanic
#: Tales]", "returned to the United States [from Germany]", "a partnership [with Telltale
#: Games]"), nor a role ("surpassed Walmart [as the world's largest retailer]"): without
#: those it is another event, or every such event of the subject.
_CIRCUMSTANCE = {f"obl:{p}" for p in ("during", "in", "at", "on", "aboard", "after", "before",
                                      "following", "amid", "despite", "alongside",
                                      "throughout", "near")}


def event_phrases(sent: Sentence, v: int, text: str, short_names: frozenset[int] = frozenset(),
                  ) -> tuple[str | None, str | None]:
    """The event's predicate as the sentence words it, without subject, date and clauses:
    "signed for Real Madrid", "was elected as the 11th President of India". None unless it
    names the event by itself: a simple past or passive, a proper name in it (the
    "criticized the acquisition" of one page is no event a reader can find), no pronoun
    but a possessive ("made his debut for Portugal"), no deictic word, at most
    ``PHRASE_MAX_TOKENS``, and no token of ``short_names`` (``_one_word_persons``: "left CAA
    for Paul", Rich Paul, named sentences before; out of its page the phrase names nobody).
    A dependent holding a time or a number is left out with its words ("in 2009"; "at the
    age of 18" would state the answer).

    Also its core, or None where it is the phrase: the verb with its objects and
    complements, and its prepositional phrases but those of place and circumstance
    (``_CIRCUMSTANCE``) after it names something -- "fought at the Battle of Sobraon [during
    the First Anglo-Sikh War]", "made his debut for Portugal [in a friendly against
    Kazakhstan]". A question quoting a long phrase copies a run of its page, which the
    checks refuse (``rounds/checks.py``): the path generator words such an event by its core
    (whether the core still names one event of the subject is the path query's,
    ``cypher/paths/short_phrases.cypher``)."""
    tok = sent.token(v)
    auxes = [sent.token(a).word.lower() for a in sent.deps(v, "aux", "aux:pass")]
    if not (tok.pos == "VBD" and not auxes) and not (
            tok.pos == "VBN" and auxes and all(a in ("was", "were") for a in auxes)):
        return None, None
    if sent.deps(v, "nsubj:pass") and not auxes:
        # a passive's conjunct sharing its "was" ("He was appointed ... and awarded the
        # Order of the Medjidie in 1858", tagged VBD): its words alone read as active -- "did
        # he award the Order"
        return None, None
    if sent.deps(v, "ccomp"):
        return None, None  # "suggested to Fliess [that ...]": what was said is the event
    # a noun the parser hung on the verb as its conjunct is a second object it misread
    # ('posted a Twitter poll [and "peace plan" to resolve the Russian invasion of Ukraine]'):
    # the phrase without it is every poll he posted
    if any(r.startswith("conj") and sent.token(d).pos.startswith("NN")
           for r, d in sent.children.get(v, ())):
        return None, None
    # a gerund clause of or for the verb is what the event was about ('accused the U.S.
    # government [of "using citizenship as a weapon"]', "was arrested [for driving ...]"):
    # the phrase without it is every such event
    if any(r in ("advcl:of", "advcl:for") and sent.token(d).pos == "VBG"
           for r, d in sent.children.get(v, ())):
        return None, None
    # two objects with a comma between are an apposition the parser misread ('signed "The
    # Giving Pledge", a promise to ...'): one of them is no object
    # (enhanced++ copies the object to each item of a list: "toured Cyprus, India, and Iran")
    objs = [o for o in sent.deps(v, "obj")
            if not any(r.startswith("conj") and h in sent.deps(v, "obj") for r, h in sent.heads(o))]
    if len(objs) > 1 and any(sent.token(k).word == ","
                             for k in range(min(objs), max(objs))):
        return None, None
    # so is an object after a comma: an aside the parser hung on the verb ("partnered with
    # Arnold Schwarzenegger in 2018 to found Ladder[, a company that ...]": "company" read
    # as what he partnered; review R46)
    if any(sent.token(k - 1).word == "," for o in objs if (k := min(_subtree(sent, o))) > 1):
        return None, None
    keep = {v}
    for d in sent.deps(v, "aux", "aux:pass", "compound:prt", "obj", "iobj", "xcomp"):
        sub = _subtree(sent, d)
        if v in sub or any(sent.token(i).ner in _TIME_NER for i in sub):
            return None, None
        keep |= sub
    core = set(keep)
    # prepositional phrases after the verb, in sentence order, while the phrase stays short;
    # a long aside ("with the support of both the ruling ...") is left out whole, and so is
    # one before the subject ("Out of contract, he signed for ..."); one holding a time or a
    # number is left out ("at the age of 18"), unless it names the occasion
    # (``_names_occasion``): then there is no phrase
    obls = {d: r for r, d in sent.children.get(v, ()) if r.startswith("obl:") and d > v}
    # the modifiers holding a date: two of them date the verb twice, each with its own
    # circumstance ("introduced ParisWorld on Roblox in 2021 and on The Sandbox in 2022"),
    # and the circumstance the core leaves out says which event it is (review R50)
    dated = 0
    for d in sorted(obls):
        sub = _subtree(sent, d)
        dated += any(sent.token(i).ner == "DATE" for i in sub)
        if v in sub:
            continue
        if any(sent.token(i).ner in _TIME_NER for i in sub):
            if _names_occasion(sent, sub):
                return None, None
            continue
        if len(keep | sub) > PHRASE_MAX_TOKENS:
            continue
        keep |= sub
        # a list's later items go with its first ("in Italy, Portugal, and Spain": the
        # parse hangs each on the verb too)
        if (obls[d] not in _CIRCUMSTANCE or not _names_something(sent, core - {v})
                or any(r.startswith("conj") and h in core for r, h in sent.heads(d))):
            core |= sub
    core = _without_trailing_asides(sent, v, core)
    if keep & short_names:
        return None, None
    full = _phrase_text(sent, v, text, keep)
    if full is None or core == keep or _cut_inside_a_title(sent, core, keep) or dated > 1:
        return full, None
    short = _phrase_text(sent, v, text, core)
    # the core is the phrase's beginning: one left out in its middle joins what the sentence
    # keeps apart ("surpassed Walmart [as the world's largest retailer ...] Amazon Prime");
    # what it leaves out may follow a comma ("... of Salford City[, following ...]")
    return full, short if short and full.startswith(short) and full[len(short):][:1] in (
        " ", ",") else None


def _cut_inside_a_title(sent: Sentence, core: set[int], keep: set[int]) -> bool:
    """Whether the core ends where a title the tagger did not read as a name goes on: a
    capitalised word, then the left-out phrase's preposition and a capitalised word the
    tagger takes for no name ("sang at BBC's Children[ in Need concert]": "Need" a verb;
    review R47b). The core would name a thing nobody can find; a place after a name is no
    title ("played at Wembley[ in London]": a name)."""
    end = max(core)
    after = end + 2
    if end + 1 not in keep - core or after > len(sent.tokens) or after not in keep:
        return False
    last, prep, word = sent.token(end), sent.token(end + 1), sent.token(after)
    return (last.word[:1].isupper() and prep.pos == "IN" and word.word[:1].isupper()
            and word.pos not in ("NNP", "NNPS") and word.ner == "O")


def _one_word_persons(sent: Sentence, spans: list[Span], page: PageResolver) -> frozenset[int]:
    """The tokens that name a person by one word of a fuller name the page gives -- a surname
    or a first name: "Paul" on a page naming Rich Paul (and maybe Chris Paul too, when the
    resolver cannot tell which) -- other than the page's subject. A phrase quoting the one
    word names nobody a reader can find. A one-word name with no fuller form on the page (a
    mononym, or a place the tagger took for a person) is none of them."""
    return frozenset(m.first for m in sent.mentions
                     if m.ner == "PERSON" and m.first == m.last
                     and sent.token(m.first).word in page.person_name_words
                     and not any(s.is_subject and s.covers(m.first) for s in spans))


def _names_occasion(sent: Sentence, sub: set[int]) -> bool:
    """A prepositional phrase left out for the time or number in it that names something:
    the occasion, which says which event it is ("featured with Dortmund [in the 2013
    Champions League Final]", "praised Morocco [for the bid for the 2026 FIFA World Cup]").
    The phrase without it is every such event of the subject."""
    return any(sent.token(i).pos in ("NNP", "NNPS") and sent.token(i).ner not in _TIME_NER
               for i in sub)


def _without_trailing_asides(sent: Sentence, v: int, core: set[int]) -> set[int]:
    """``core`` without a modifier that ends it set off by a comma, at any depth, once the
    rest names something: an aside by its punctuation ("filmed a cooking segment for Vogue's
    website[, demonstrating how to make a brie pastry]", "announced a deal to buy Mojang[,
    along with the ownership of ...]"). Without it, an event worded with many words after
    its verb can only be asked by a question copying a run of its page. A list's next item
    is no aside ("launched in Italy[, Portugal, and Spain]"), nor a name after a common noun
    (``_phrase_text`` refuses "in the romantic comedy[, The Town]"). The cut is only at the
    end, so the core stays the phrase's beginning. A thing's purpose is no aside: "reached
    an agreement with Apple Inc.[ to sell selected products ...]" without it does not say
    which agreement."""
    for c in range(v + 1, max(core)):
        if sent.token(c).word != ",":
            continue
        before = {i for i in core if i < c}
        after = {i for i in core if i > c}
        starts = [d for d in after
                  if not any(r.startswith("conj") for r, _ in sent.heads(d))
                  and any(h in before and r.split(":")[0] in ("acl", "nmod", "obl")
                          and r != "nmod:poss" for r, h in sent.heads(d))]
        covered = set().union(*(_subtree(sent, d) for d in starts)) if starts else set()
        if (covered and after <= covered and min(covered) == c + 1
                and _names_something(sent, before - {v})):
            return before
    return core


def _names_something(sent: Sentence, idx: set[int]) -> bool:
    return any(sent.token(i).pos in ("NNP", "NNPS") for i in idx)


def _whose_elsewhere(sent: Sentence, v: int, keep: set[int]) -> bool:
    """The phrase's only names are a kind's (``_names_a_kind``) while the sentence names
    another entity outside the phrase and its subject: the event is most likely that
    entity's, and the phrase does not say so. "Musk led the Series A round of investment in
    February 2004; [...] joined Tesla's board": the round was Tesla's, and a reader told
    "the Series A round" cannot tell which company's (a blind review rejected it). With no
    other entity the kind is the subject's own ("Facebook closed its Series B funding
    round", "Amazon purchased the Whole Foods Market supermarket chain": an untagged name
    is still a name there)."""
    if any(sent.token(i).pos in ("NNP", "NNPS") and not _names_a_kind(sent, i)
           for i in keep - {v}):
        return False
    subject = set().union(*(_subtree(sent, d) for d in sent.deps(v, "nsubj", "nsubj:pass")))
    return any(sent.token(i).ner in TYPES for i in range(1, len(sent.tokens) + 1)
               if i not in keep and i not in subject)


def _names_a_kind(sent: Sentence, i: int) -> bool:
    """A capitalised word that may name a kind of thing, not a thing: no named-entity tag,
    and a compound of a common noun ("the [Series A] round", "the [Basic] plan"). A name the
    library tags is a thing ("the [Champions League] final"), and so is a possessive
    ("[Tesla]'s Series A round": no compound)."""
    seen = {i}
    while sent.token(i).ner == "O":
        up = [h for r, h in sent.heads(i) if r == "compound" and h not in seen]
        if not up:
            return False
        i = up[0]
        seen.add(i)
        if sent.token(i).pos in ("NN", "NNS"):
            return True
    return False


def _phrase_text(sent: Sentence, v: int, text: str, keep: set[int]) -> str | None:
    """The words of ``keep`` (the verb ``v`` and whole dependents of it) as the sentence
    has them, or None where they do not name an event by themselves (``event_phrases``)."""
    # punctuation inside a kept name stays ("America: A Tribute to Heroes")
    keep = keep | {i for i in range(min(keep) + 1, max(keep))
                    if i not in keep and i - 1 in keep and i + 1 in keep
                    and not sent.token(i).word[:1].isalnum()}
    quoted = _whole_quotes(sent, keep)
    if quoted is None:
        return None
    keep = quoted
    idx = sorted(keep)
    # a gap is a whole dependent of the verb left out (the date, an adverb, an aside); a
    # word missing inside a kept part ("released [her] debut album") is a parse error
    dropped = set().union(*(_subtree(sent, d) for _, d in sent.children.get(v, ())))
    if any(i not in keep and i not in dropped for i in range(idx[0], idx[-1] + 1)):
        return None
    # nor is a clause: the words after it are the parser's misreading ("surpassed Walmart as
    # the world's largest retailer[, driven in large part by its paid subscription plan,]
    # Amazon Prime": the plan's name taken for a second object)
    clauses = set().union(*(_subtree(sent, d) for r, d in sent.children.get(v, ())
                            if r.split(":")[0] in ("conj", "advcl", "parataxis")))
    if any(i not in keep and i in clauses for i in range(idx[0], idx[-1] + 1)):
        return None
    # a common noun whose name was an aside ("in the romantic comedy[, The Town]"): the
    # phrase would name a thing nobody can find ("SolarCity[, a solar-energy company]" is fine)
    if any(d not in keep and (sent.token(d).pos.startswith("NNP") or _quoted_title(sent, d))
           for i in idx if i != v and sent.token(i).pos in ("NN", "NNS")
           for d in sent.deps(i, "appos", "dep")):
        return None  # also a quoted one ("released the song[, "Just Look Up",] with ...")
    # a duration left out inside the phrase is what the event is about ("spent [four
    # weeks] at Claus's station", "was sentenced [to five years] in prison"): the phrase
    # without it says something else
    if any(d > v and d < idx[-1] and d not in keep
           and any(sent.token(i).ner == "DURATION" for i in _subtree(sent, d))
           for _, d in sent.children.get(v, ())):
        return None
    # so is a rank ("finished [fourth] in the London Chess Classic": the phrase without it
    # is every edition the person played)
    if any(d > v and d < idx[-1] and d not in keep and sent.token(d).ner == "ORDINAL"
           for _, d in sent.children.get(v, ())):
        return None
    toks = [sent.token(i) for i in idx]
    if any(t.pos == "PRP" or t.word.lower() in _DEICTIC for t in toks):
        return None
    # a verb of saying names what was said, which a phrase without its clause has lost
    # ("claimed Mexico's involvement as cohost [could have been at risk]", "published a
    # book alleging Armstrong [had used ...]")
    if any(t.pos.startswith("VB") and t.lemma.lower() in _SAYING for t in toks):
        return None
    # a name that runs on past the phrase: a title's subtitle after a colon ("co-authored
    # Farm Aid[: A Song for America]", the parser hangs it on the verb) or a capitalised
    # word the parser did not join to the name ("its television programme Doctor [Who]");
    # the cut name is another thing's name
    after = sent.token(idx[-1] + 1) if idx[-1] < len(sent.tokens) else None
    if after is not None and (after.word == ":" or (
            (toks[-1].word[:1].isupper() or toks[-1].pos.startswith("NNP")
             or toks[-1].pos in ("NN", "NNS")) and after.word[:1].isupper())):
        # also a word tagged a name's ("Hill House School in west [London]"), and a name
        # after a common noun ("appeared in Adam McKay's film [Don't Look Up]": the parser
        # read the title as a clause)
        return None
    # "in favour" with nothing it is in favour of: what of was the sentence before's
    # ("Freud set out his case in favour in 1926 ...": no reader can tell in favour of what)
    if any(t.word.lower() in ("favour", "favor") and not sent.deps(i, "nmod:of")
           for i, t in zip(idx, toks, strict=True)):
        return None
    # cut before what it needs: a last word that is a preposition ("with a net worth of
    # [$2 billion]"), or a kept word whose dependent the parser could not attach ("a
    # partnership with Telltale Games to port [its games]")
    if toks[-1].pos in ("IN", "TO") or any(
            d not in keep for i in idx if i != v for d in sent.deps(i, "dep")):
        return None
    if not _names_something(sent, keep - {v}) or _whose_elsewhere(sent, v, keep):
        return None
    # the words in sentence order, as written; a gap (a dropped date or adverb) is a space
    runs: list[list[int]] = []
    for i in idx:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    out = " ".join(sent.text_of(text, r[0], r[-1]) for r in runs).strip(" ,;:-")
    return out if len(out.split()) >= 2 and "\n" not in out else None


_OPEN_QUOTES = ("``", '"', "“")
_CLOSE_QUOTES = ("''", '"', "”")


def _whole_quotes(sent: Sentence, keep: set[int]) -> set[int] | None:
    """``keep`` with the whole of each quotation it holds a word of, marks included (the
    parser hangs the closing mark on the verb, and the phrase read 'signed "The Giving
    Pledge'), or None where a quotation is cut open: a quoted title is all in the phrase or
    not in it. A straight quote opens or closes as it comes."""
    inside, opened = False, 0
    for i in range(1, len(sent.tokens) + 1):
        w = sent.token(i).word
        is_open = w in _OPEN_QUOTES and not (w == '"' and inside)
        is_close = w in _CLOSE_QUOTES and not is_open
        if not (is_open or is_close):
            continue
        if is_open:
            inside, opened = True, i
            continue
        if not inside:
            continue  # a closing mark of a quotation the sentence did not open
        inside = False
        # a quotation from ``opened`` to ``i``: the phrase holds all of its words or none
        words = set(range(opened + 1, i))
        if not words & keep:
            if min(keep) < opened and i < max(keep):
                return None  # a title left out inside the phrase ("released the song
                # ["Just Look Up"], in collaboration with ...": the parser hung it apart)
            continue
        if min(keep) > opened or any(k not in keep and sent.token(k).word[:1].isalnum()
                                     for k in words):
            return None  # a title cut open, or a phrase starting inside it
        keep = keep | words | {opened, i}
    if inside and min(keep) < opened < max(keep):
        return None  # a quotation opened inside the phrase and never closed
    # (one opened before it is a stray mark of the text: '"In 1943, Elizabeth undertook ...')
    return keep


def _quoted_title(sent: Sentence, d: int) -> bool:
    """Token ``d`` opens, or is right after, a quotation mark: a quoted title."""
    return any(sent.token(k).word in _OPEN_QUOTES for k in (d, d - 1) if k >= 1)


def _subtree(sent: Sentence, d: int) -> set[int]:
    """``d`` and what hangs from it, not following clauses and asides (``_PHRASE_STOP``);
    enhanced++ edges make a graph, so visited nodes are skipped. A place's state or country
    in apposition is no aside but part of its name: "opened an office in Cambridge[,
    Massachusetts]" without it is the other Cambridge (review R44c)."""
    seen = {d}
    todo = [d]
    while todo:
        h = todo.pop()
        for r, c in sent.children.get(h, ()):
            if c in seen or r.startswith("conj"):
                continue
            if r in _PHRASE_STOP and not (r == "appos" and sent.token(h).ner in _PLACE_NER
                                          and sent.token(c).ner in _PLACE_NER):
                continue
            seen.add(c)
            todo.append(c)
    return seen


def _quantities(sent: Sentence, v: int, lemma: str, subj: Span,
                date: DateValue | None) -> Iterator[_Read]:
    """Numbers counting the object noun of a verb of having (``_HELD``: "employs 127,855
    people") or money it names ("raised $1.2 billion"). Not a name ("defeated Bayern
    4–2"), not a score or record ("a 1–6 record")."""
    if lemma not in _HELD:
        return
    for o in sent.deps(v, "obj"):
        tok = sent.token(o)
        m = sent.mention_at(o)
        if m is not None and m.ner in ("MONEY", "PERCENT"):
            q = quantity_value(m.norm)
            if q and q.unit:
                yield _Read("quantity", lemma, subj, value=q.value, unit=q.unit,
                            approximate=q.approximate, when=date)
            continue
        if tok.pos not in ("NN", "NNS") or tok.lemma.lower() in _TIME_NOUNS:
            continue
        for n in sent.deps(o, "nummod"):
            nm = sent.mention_at(n)
            # "several hundred" is normalised to 100: only written-out figures count.
            if nm is None or nm.ner != "NUMBER" or not any(ch.isdigit() for ch in nm.text):
                continue
            # "stage 15", "Game 3": a number after its noun is a label; "34+35" and a number
            # inside quotation marks are part of a title
            if n > o or _score(sent, nm.first, nm.last) or _in_title(sent, nm.first, nm.last):
                continue
            # ... and so is one right after a capitalised noun ("reached Category 5
            # strength", "Windows 10 devices")
            before = sent.token(nm.first - 1) if nm.first > 1 else None
            if before is not None and before.pos in ("NNP", "NNPS") \
                    and before.word[:1].isupper():
                continue
            q = quantity_value(nm.norm)
            if q:
                # an area or a volume ("90,000 square metres") is not a length
                dims = [sent.token(a).word.lower() for a in sent.deps(o, "amod")
                        if sent.token(a).word.lower() in ("square", "cubic")]
                yield _Read("quantity", lemma, subj, value=q.value,
                            unit=" ".join([*dims[:1], tok.lemma.lower()]),
                            approximate=q.approximate, when=date)


def _in_title(sent: Sentence, first: int, last: int) -> bool:
    """A number that is part of a quoted title or a sum in a name ('a "34+35" remix')."""
    n = len(sent.tokens)
    if any(sent.token(k).word == "+" for k in (first - 1, last + 1) if 1 <= k <= n) or any(
            "+" in sent.token(k).word for k in range(first, last + 1)):
        return True
    quotes = sum(sent.token(k).word in ('"', "``", "''", "“", "”") for k in range(1, first))
    return quotes % 2 == 1


def _score(sent: Sentence, first: int, last: int) -> bool:
    """A number that is one side of a score, record or range: "1–6", "4-2"."""
    n = len(sent.tokens)
    after = [sent.token(k) for k in (last + 1, last + 2) if k <= n]
    before = [sent.token(k) for k in (first - 2, first - 1) if k >= 1]
    dashes = ("–", "-", "—", "−")
    return (len(after) == 2 and after[0].word in dashes and after[1].pos == "CD") or (
        len(before) == 2 and before[1].word in dashes and before[0].pos == "CD") or any(
        ch in dashes for k in range(first, last + 1) for ch in sent.token(k).word[1:])


def _lifespan(sent: Sentence, spans: list[Span]) -> Iterator[_Read]:
    """A person's dates in brackets right after the name: "Edward Davis Wood Jr. (October
    10, 1924 – December 10, 1978) was ..." is born and died, and a place before a date is
    where; anything else in the brackets (a third date, "c.", "fl.", "aged 67") makes it no
    fact. Years alone are a lifespan only
    for the page's own subject ("Gerd Müller (1970–1974) is third" on a World Cup page is a
    career), and a sentence that brackets several people's dates is a list, not a lead."""
    bracketed = [s for s in spans if s.type == "PERSON" and s.last + 1 <= len(sent.tokens)
                 and sent.token(s.last + 1).word == "("]
    if len(bracketed) > 1:
        return
    for s in spans:
        if s.type != "PERSON" or s.last + 1 > len(sent.tokens):
            continue
        if sent.token(s.last + 1).word != "(":
            continue
        if s.first > 1 and sent.token(s.first - 1).ner == "ORDINAL":
            continue  # "…, 1st Viscount Astor (1848 – 1919)": a title, whose holder is unsaid
        close = next((j for j in range(s.last + 2, len(sent.tokens) + 1)
                      if sent.token(j).word == ")"), None)
        if close is None:
            continue
        inside = range(s.last + 2, close)
        dates = [m for m in sent.mentions if m.ner == "DATE" and m.first in inside]
        # the places of birth and death may stand before their dates, and the words "born"
        # and "died" before those: "(Florence, 21 April 1889 – Florence, 27 September 1956)",
        # "(born Pyongyang, 30 March 1875; died San Francisco, 24 April 1930)"; and the
        # marks a pronunciation lost in extraction leaves ("Dino Buzzati-Traverso (] ; 14
        # October 1906 – 28 January 1972)")
        rest = [j for j in inside if sent.token(j).ner not in _PLACE_NER | {"DATE"}
                and sent.token(j).word not in ("–", "-", "—", ",", ";", ":", "[", "]")
                and sent.token(j).word.lower() not in ("born", "died", "b.", "d.")]
        if len(dates) != 2 or rest:
            continue
        born, died = date_value(dates[0].norm), date_value(dates[1].norm)
        if born and died and "year" in (born.precision, died.precision) and not s.is_subject:
            continue
        if born and died and born.year < died.year:
            yield _Read("born", "bear", s, date=born)
            yield _Read("died", "die", s, date=died)
            # the place named with each date, before or after it: the separator between
            # the dates splits the brackets in two ("(Florence, 21 April 1889 – Florence,
            # ...)", "(March 19, 1894, San Diego – August 25, 1975, Santa Monica)": the
            # place after the birth date is the place of birth, not of death)
            sep = next((j for j in range(dates[0].last + 1, dates[1].first)
                        if sent.token(j).word in ("–", "-", "—", ";")), None)
            if sep is None:
                continue
            where: list[tuple[Relation, str, int, int]] = [
                ("born_in", "bear", s.last + 2, sep), ("died_in", "die", sep + 1, close)]
            for rel, verb, lo, hi in where:
                place = next((p for p in spans if p.type == "PLACE" and lo <= p.first < hi),
                             None)
                if place is not None:
                    yield _Read(rel, verb, s, obj=place)


def _work_year(sent: Sentence, spans: list[Span]) -> Iterator[_Read]:
    """"Jaws is a 1975 American thriller film": the year modifying the predicate noun of a
    work (``WORK_NOUNS``) whose copular subject is a named entity is the work's release year.
    Only one year-precision date counts, not a range ("a 2010–2017 series"), and not where
    the sentence dates the release itself ("a 1964 Italian film, released in 1965")."""
    if any(t.lemma.lower() in _RELEASE for t in sent.tokens):
        return
    for tok in sent.tokens:
        if tok.lemma.lower() not in WORK_NOUNS or not sent.deps(tok.i, "cop"):
            continue
        subj = next((x for n in sent.deps(tok.i, "nsubj") if (x := _span_at(spans, n))), None)
        if subj is None or subj.generic:
            continue
        years = set()
        mods = sent.deps(tok.i, "nummod", "compound", "amod", "nmod:tmod", "obl:tmod")
        # the parser may hang the year on a compound before the noun ("a 1968 Soviet war
        # film": 1968 modifies "war")
        mods += [d for c in sent.deps(tok.i, "compound") if c < tok.i
                 for d in sent.deps(c, "nummod", "amod")]
        for d in mods:
            m = sent.mention_at(d)
            if m is None or m.ner != "DATE":
                continue
            # "a 2010–2017 series" dates a run, not a release
            after = sent.token(m.last + 1).word if m.last + 1 <= len(sent.tokens) else ""
            years.add(None if after in ("–", "-", "—", "to") else date_value(m.norm))
        if len(years) == 1 and (y := years.pop()) is not None and y.precision == "year":
            yield _Read("released", "be", subj, date=y)


def _population(sent: Sentence, spans: list[Span], page: PageResolver) -> Iterator[_Read]:
    """"The population of X was 449 at the 2010 census" / "X had a population of 449"."""
    for tok in sent.tokens:
        if tok.lemma.lower() != "population":
            continue
        p = tok.i
        owner = next((s for d in sent.deps(p, "nmod:of", "nmod:poss")
                      if (s := _span_at(spans, d))), None)
        numbers: list[int] = []
        for rel, g in sent.heads(p):
            if rel == "nsubj" and sent.deps(g, "cop"):  # "the population was 449"
                numbers.append(g)
            if rel == "obj" and owner is None:  # "X had a population of 449"
                owner = next((s for n in sent.deps(g, "nsubj") if (s := _span_at(spans, n))),
                             None)
        numbers += sent.deps(p, "nmod:of")
        if owner is None and not [s for s in spans if s.type == "PLACE"]:
            # No place named: on a place's page, the page's own population.
            owner = page.subject_span()
            if owner is not None and owner.type not in ("PLACE", "MISC"):
                owner = None
        if owner is None or owner.type not in ("PLACE", "MISC") or not owner.is_subject \
                and owner.type != "PLACE":
            continue
        for n in numbers:
            m = sent.mention_at(n)
            if m is None or m.ner != "NUMBER":
                continue
            q = quantity_value(m.norm)
            if q:
                when = _date(sent, n) or _census_year(sent, n)
                yield _Read("population", "population", owner, value=q.value,
                            unit="inhabitants", approximate=q.approximate, when=when)


def _census_year(sent: Sentence, n: int) -> DateValue | None:
    """'at the 2010 census': the year modifying the obl noun of the number."""
    for d in sent.deps(n, "obl:at", "obl:in", "nmod:at", "nmod:in"):
        for y in sent.deps(d, "nummod", "compound", "amod"):
            m = sent.mention_at(y)
            if m is not None and m.ner == "DATE":
                return date_value(m.norm)
    return None
