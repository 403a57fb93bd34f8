"""The decomposing baseline, with no model: ``decompose[:SEARXNG_URL]``.

The one-search baseline (``baseline``) cannot answer a question that needs two documents:
it searches once and answers with a span of one sentence. This agent splits the question by
its subjects instead -- the named entities and proper-name runs the library finds in it --
searches each one separately, reads typed facts from the pages it finds with the same NLP
the facts stage uses (``facts/extract.py`` over Stanford CoreNLP), and computes the answer:

- a bridge ("In what year was the director of Titanic born?"): the credit of the subject
  (directed / written / created / hosted by B), then a search for B and B's date or place;
- an age at death from a birth and a death date to the day;
- a number of years (or of calendar months, where the question counts months) between two
  dated facts of one subject (its birth, founding, release, or events matched to the
  question's words by their phrases: "signed for Juventus");
- a comparison of one dated relation of two subjects (a difference, or which came first);
- a choice between the two options a question ends with ("Which film came out first, A or
  B?", "Who lived longer, A or B?"), through a credit when it asks about a work's director
  ("Which film has the director born earlier, A or B?").

Anything else, or a decomposition that finds nothing, falls back to the one-search baseline.
It stays an honest weak baseline: it reads only search results and the pages they point to,
never the graph's facts or an item's evidence, and its question analysis goes by general
cue words, not by the generator's templates. Every search and page is in the trace.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from dwqa_graph.errors import AgentError, LanguageError
from dwqa_graph.evaluation.agents.base import (
    MAX_TRACE_CHARS,
    AgentAnswer,
    AgentContext,
    RetrievedDoc,
    failed,
    http_url,
)
from dwqa_graph.evaluation.agents.baseline import (
    BaselineAgent,
    GraphPages,
    PageSource,
    web_sources,
)
from dwqa_graph.facts.extractors.corenlp import read_versions
from dwqa_graph.facts.models import Fact, whole_years
from dwqa_graph.facts.resolve import page_subject
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.language.doc import Sentence
from dwqa_graph.registry import AGENTS
from dwqa_graph.web.search import GraphSearch, SearchClient

#: Bounds per question: subjects searched (the question's own, then one bridge hop), pages
#: read per search, characters of each page parsed.
MAX_SEARCHES = 4
PAGES_PER_SEARCH = 2
#: Results looked at per search, to pick the pages read from.
HITS_PER_SEARCH = 6
MAX_PAGE_CHARS = 20_000

# Named-entity tags that name a subject one can search for (not dates, numbers, titles of
# office, nationalities).
_SUBJECT_NER = {"PERSON", "ORGANIZATION", "LOCATION", "CITY", "COUNTRY", "STATE_OR_PROVINCE",
                "MISC", "FACILITY"}
#: Cue lemmas of the question: a credit (the first hop of a bridge) and dated relations.
_CREDITS = {"director": "directed_by", "direct": "directed_by", "writer": "written_by",
            "write": "written_by", "author": "written_by", "creator": "created_by",
            "create": "created_by", "host": "hosted_by"}
_DATED = {"bear": "born", "birth": "born", "die": "died", "death": "died",
          "release": "released", "found": "founded", "founding": "founded",
          "establish": "founded", "form": "founded", "open": "opened", "publish": "released",
          "premiere": "released"}
#: Words of how a question asks, not of what it names.
_QUESTION = {"count", "counting", "calendar", "only", "passed", "pass", "apart", "separate",
             "difference", "later", "earlier", "long", "old", "age", "was", "is", "years",
             "were", "when", "then", "this", "those", "these", "two", "events", "event"}
#: Which way a choice goes: the earlier date (or the older person) or the later one.
_EARLIER = {"first", "earlier", "earliest", "older", "oldest", "sooner"}
_LATER = {"later", "last", "latest", "younger", "youngest", "recently", "newer", "recent"}
_STOP = {"the", "a", "an", "of", "in", "on", "at", "to", "for", "and", "by", "his", "her",
         "its", "their", "was", "were", "be", "year", "how", "many", "what", "when", "which",
         "did", "do", "after", "between", "passed", "long", "it", "that"}


@dataclass
class _Read:
    """What one question's searches found."""

    facts: dict[str, list[Fact]] = field(default_factory=dict)  # per subject searched
    retrieved: list[RetrievedDoc] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    searches: int = 0


def _norm(name: str) -> str:
    """Lower case, no possessive, no disambiguating parenthesis ("Jaws (1975 film)")."""
    name = re.sub(r"\s*\([^)]*\)\s*$", "", name)
    name = re.sub(r"\s*-\s*", "-", name)  # the tokenizer's "Heng - Pheng"
    return " ".join(name.lower().replace("'s", "").split())


def _same(subject: str, name: str) -> bool:
    """A fact's subject names the searched subject: equal, or one's words end the other's
    ("Cameron" / "James Cameron")."""
    a, b = _norm(subject).split(), _norm(name).split()
    if not a or not b:
        return False
    if a == b or a[-len(b):] == b or b[-len(a):] == a:
        return True
    # a fuller name with the searched one's first and last words ("Jasper Joseph Inman
    # Kane" on the page "Joseph Kane")
    short, full = (a, b) if len(a) < len(b) else (b, a)
    return len(short) >= 2 and short[-1] == full[-1] and short[0] in full[:-1]


def _when(f: Fact, full: bool) -> str:
    if full and f.precision == "day" and f.date:
        d = dt.date.fromisoformat(f.date)
        return f"{d.strftime('%B')} {d.day}, {d.year}"
    return str(f.year)


def _years(n: int) -> str:
    return f"{n} year" + ("" if n == 1 else "s")


class DecomposeAgent:
    def __init__(self, spec: str, search: SearchClient, pages: PageSource, *,
                 nlp: CoreNLP | None = None, close: Callable[[], None] | None = None) -> None:
        self.spec = spec
        self.search = search
        self.pages = pages
        self.fallback = BaselineAgent(spec, search, pages)
        self._nlp = nlp
        self._own_nlp = nlp is None
        self._lock = threading.Lock()
        self._close = close

    @property
    def nlp(self) -> CoreNLP:
        with self._lock:  # one worker for every thread, started on first use
            if self._nlp is None:
                self._nlp = CoreNLP().start()
            return self._nlp

    def close(self) -> None:
        if self._own_nlp and self._nlp is not None:
            self._nlp.close()
        if self._close:
            self._close()

    # -- the protocol ------------------------------------------------------------------------
    def answer(self, question: str) -> AgentAnswer:
        read = _Read()
        try:
            got = self._decompose(question, read)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return failed(f"{type(exc).__name__}: {exc}", retrieved=read.retrieved,
                          steps=read.steps)
        if got:
            read.steps.append(f"answer (decomposed): {got!r}")
            return AgentAnswer(answer=got, retrieved=read.retrieved, steps=read.steps)
        read.steps.append("no decomposition answered: the one-search baseline answers")
        base = self.fallback.answer(question)
        retrieved = read.retrieved + [d.model_copy(update={"rank": len(read.retrieved) + d.rank})
                                      for d in base.retrieved]
        return base.model_copy(update={"retrieved": retrieved,
                                       "steps": read.steps + base.steps})

    # -- reading -----------------------------------------------------------------------------
    def _facts_of(self, subject: str, read: _Read, query: str | None = None) -> list[Fact]:
        """Search ``query`` (default: ``subject``), read its top pages, keep the facts about
        ``subject``."""
        query = query or subject
        if query in read.facts:
            return read.facts[query]
        if read.searches >= MAX_SEARCHES:
            read.steps.append(f"search bound reached ({MAX_SEARCHES}): {query!r} not searched")
            return []
        read.searches += 1
        hits = self.search.search(query, limit=HITS_PER_SEARCH)
        read.steps.append(f"search {self.search.name}: {query!r} -> {len(hits)} results")
        # a search for the subject reads the pages named after it first, as a reader picks
        # them from the results (a band's page can outrank its guitarist's own for his
        # name); a search with more words is for another page, by rank
        if query == subject:
            hits = sorted(hits, key=lambda h: not _same(page_subject(h.title) or "", subject))
        hits = hits[:PAGES_PER_SEARCH]
        found: list[Fact] = []
        for page in self.pages.read(hits) if hits else []:
            rank = len(read.retrieved) + 1
            read.retrieved.append(RetrievedDoc(url=page.url, title=page.title,
                                               text=page.text[:MAX_TRACE_CHARS], rank=rank))
            text = page.text[:MAX_PAGE_CHARS]
            if not text.strip():
                continue
            # read as the facts stage reads a version: paragraphs, glued sentences cut apart
            [(_, got)] = read_versions(self.nlp, [{"id": page.url, "title": page.title
                                                      or None, "text": text}], "decompose")
            if isinstance(got, LanguageError):
                raise got
            facts = got.facts
            mine = [f for f in facts if _same(f.subject.name, subject)]
            read.steps.append(f"read [{rank}] {page.url}: {len(facts)} facts, {len(mine)} "
                              f"about {subject!r}")
            found += mine
        read.facts[query] = found
        return found

    # -- the question ------------------------------------------------------------------------
    def _decompose(self, question: str, read: _Read) -> str:
        doc = self.nlp.annotate(question)
        tokens = [t for s in doc.sentences for t in s.tokens]
        lemmas = [t.lemma.lower() for t in tokens]
        subjects = _subjects(doc)
        read.steps.append(f"subjects: {subjects}")
        if not subjects:
            return ""
        words = set(lemmas) | {t.word.lower() for t in tokens}
        if {"come", "out"} <= words:  # "came out": a release
            lemmas, words = lemmas + ["release"], words | {"release"}
        if {"pass", "away"} <= words:  # "passed away": a death
            lemmas, words = lemmas + ["die"], words | {"die"}
        dated = [_DATED[x] for x in lemmas if x in _DATED]
        asks_place = bool({"where", "place", "birthplace"} & words)
        full_date = bool(lemmas) and lemmas[0] == "when"
        credit = _credit(lemmas)
        options = _options(question) or _inline_options(question)
        if options and ("long" in lemmas or (set(lemmas) | words) & (_EARLIER | _LATER)):
            # a credit the options are compared through is asked before them ("Which film's
            # director was born first: A or B?"); one in an aside after them says why the
            # two are compared ("A or B, both written by Mats Fennick?")
            stem = question.find(options[0])
            asked = [t.lemma.lower() for t in tokens if stem < 0 or t.start < stem]
            return self._choose(options, lemmas, words, dated, read, asked)
        spouse = bool({"spouse", "husband", "wife", "marry"} & words)
        # "How many years separate the birth year of the director of W and the year W was
        # released?" counts between two dates (below), it does not ask the director's birth
        counts = "many" in lemmas
        if credit and not counts and (set(dated) & {"born", "died"} or asks_place or spouse):
            return self._bridge(subjects[0], credit, dated, asks_place, full_date, read,
                                spouse=spouse)
        asks_age = "old" in lemmas or "age" in lemmas
        if asks_age and "died" in dated:
            return self._age(subjects[0], read)
        if asks_age and ("day" in lemmas or "when" in lemmas[1:] or "year" not in lemmas):
            # "how old was X when he made ...", "at what age did X make ...", "on the day X
            # became ...": whole years, as the dates decide them ("in the year" is a count
            # of years, below)
            return self._age_at(subjects[0], words, read)
        if asks_age and "turn" in lemmas:
            # "what age did X turn in the year he ...": the event's year minus the birth year
            return self._age_in_year(subjects[0], words, read)
        if "month" in lemmas:
            # "How many months after signing X did Netflix ...": two dates known to the month
            return self._interval(subjects[0], words, read, months=True)
        if "year" in lemmas:
            # "X came out how many years after its director's birth": the credited person's
            # dated facts count as the subject's
            through = next((_CREDITS[x] for x in lemmas if x in _CREDITS), None)
            got = self._interval(subjects[0], words, read, through=through)
            if not got and len(subjects) >= 2 and dated:
                got = self._compare(subjects[:2], dated[0], lemmas, read)
            if not got and len(subjects) >= 2:
                # "the birth year of Anton Reske and the year he founded Nordlicht Studios":
                # one date is the other subject's
                got = self._interval(subjects[0], words, read, also=subjects[1])
            return got
        return ""

    def _credited(self, work: str, credit: str, read: _Read) -> str | None:
        """The one person the work's pages credit (its director ...), else None."""
        objects = {f.object.name for f in self._facts_of(work, read)
                   if f.relation == credit and f.object is not None}
        read.steps.append(f"{credit} of {work!r}: {sorted(objects) or 'not found'}")
        return objects.pop() if len(objects) == 1 else None

    def _bridge(self, a: str, credit: str, dated: list[str], asks_place: bool,
                full_date: bool, read: _Read, spouse: bool = False) -> str:
        b = self._credited(a, credit, read)
        if b is None:
            return ""
        want = ("died_in" if "died" in dated else "born_in") if asks_place else (
            "died" if "died" in dated else "born")
        if spouse:
            want = "married"
        values = {(f.object.name if f.object else _when(f, full_date))
                  for f in self._facts_of(b, read) if f.relation == want}
        read.steps.append(f"{want} of {b!r}: {sorted(values) or 'not found'}")
        return values.pop() if len(values) == 1 else ""

    def _choose(self, options: tuple[str, str], lemmas: list[str], words: set[str],
                dated: list[str], read: _Read, asked: list[str]) -> str:
        """Which of the two options has the earlier or later date of one relation (or the
        longer life), through the options' credit when the question asks one before them
        (``asked``: the lemmas before the options)."""
        credit = next((_CREDITS[x] for x in asked if x in _CREDITS), None)
        longer = "long" in lemmas and ("live" in lemmas or "life" in lemmas)
        relation = dated[0] if dated else (
            "born" if {"old", "young"} & set(lemmas) or (words & {"older", "younger"})
            else "released")  # "which film came out first": its release
        later = bool(words & _LATER) and not bool(words & _EARLIER)
        keys: list[tuple[str, ...]] = []
        for option in options:
            subject = option
            if credit:
                person = self._credited(option, credit, read)
                if person is None:
                    return ""
                subject = person
            facts = self._facts_of(subject, read)
            if longer:
                born = {f.date for f in facts if f.relation == "born" and f.date}
                died = {f.date for f in facts if f.relation == "died" and f.date}
                if len(born) != 1 or len(died) != 1:
                    read.steps.append(f"life of {subject!r}: born {sorted(born)}, "
                                      f"died {sorted(died)}")
                    return ""
                lived = dt.date.fromisoformat(died.pop()) - dt.date.fromisoformat(born.pop())
                keys.append((f"{lived.days:08d}",))
                continue
            date = _one_date([_sortable(f) for f in facts if f.relation == relation
                              and f.year], relation)
            read.steps.append(f"{relation} of {subject!r}: {date or 'not found or several'}")
            if date is None:
                return ""
            keys.append(date)
        first, second = keys
        # compare to the precision both have: the same year at year precision is a tie
        n = min(len(first), len(second))
        if first[:n] == second[:n]:
            read.steps.append("the two are equal at the precision read: no choice")
            return ""
        first_is_less = first[:n] < second[:n]
        pick_first = first_is_less != (later or longer)
        return options[0] if pick_first else options[1]

    def _age(self, s: str, read: _Read) -> str:
        facts = self._facts_of(s, read)
        # as the generator counts an age at death: whole years, where the dates decide them
        born = {(f.date, f.precision) for f in facts
                if f.relation == "born" and f.precision == "day" and f.date}
        died = {(f.date, f.precision) for f in facts
                if f.relation == "died" and f.precision in ("day", "month") and f.date}
        read.steps.append(f"born {sorted(born)}, died {sorted(died)} ({s!r})")
        if len(born) != 1 or len(died) != 1:
            return ""
        age = whole_years(born.pop(), died.pop())
        return str(age) if age is not None and age >= 0 else ""

    def _compare(self, pair: list[str], relation: str, lemmas: list[str], read: _Read) -> str:
        years = []
        for s in pair:
            ys = {f.year for f in self._facts_of(s, read) if f.relation == relation and f.year}
            read.steps.append(f"{relation} of {s!r}: {sorted(ys) or 'not found'}")
            if len(ys) != 1:
                return ""
            years.append(ys.pop())
        if "first" in lemmas or "earlier" in lemmas or "old" in lemmas:
            return pair[0] if years[0] < years[1] else pair[1]
        return _years(abs(years[1] - years[0]))

    def _age_at(self, s: str, question_words: set[str], read: _Read) -> str:
        """Age in whole years at the event the question's words name, where the dates decide
        it (a birth to the day, the event to the day or in another month)."""
        facts = self._facts_of(s, read)
        born = {(f.date, f.precision) for f in facts if f.relation == "born"
                and f.precision == "day" and f.date}
        events = [f for f in self._named(facts, question_words)
                  if f.relation != "born" and f.precision in ("day", "month") and f.date]
        read.steps.append(f"born {sorted(born)}, event "
                          f"{[(e.phrase or e.relation, e.date) for e in events[:1]]} ({s!r})")
        if len(born) != 1 or not events:
            return ""
        age = whole_years(born.pop(), (events[0].date, events[0].precision))
        return str(age) if age is not None and age >= 0 else ""

    def _age_in_year(self, s: str, question_words: set[str], read: _Read) -> str:
        """The age reached in the year of the event the question's words name: one number,
        whatever the days (the year minus the birth year)."""
        facts = self._facts_of(s, read)
        born = {f.year for f in facts if f.relation == "born" and f.year is not None}
        events = [f for f in self._named(facts, question_words) if f.relation != "born"]
        read.steps.append(f"born {sorted(born)}, event "
                          f"{[(e.phrase or e.relation, e.year) for e in events[:1]]} ({s!r})")
        if len(born) != 1 or not events or events[0].year is None:
            return ""
        age = events[0].year - born.pop()
        return str(age) if age >= 0 else ""

    def _named(self, facts: list[Fact], question_words: set[str]) -> list[Fact]:
        """The dated facts the question's words name, best first: an event by the share of
        its phrase's words in the question, a typed relation by its cue word."""
        words = question_words - _STOP
        scored = []
        for f in facts:
            if f.year is None:
                continue
            if f.relation == "event":
                # the verb by its lemma: the question may inflect it ("moving to Austin")
                first, _, rest = (f.phrase or "").partition(" ")
                verb = (f.verb or first).split()[0] if first.lower() not in ("was", "were") \
                    else ""
                content = ({w.lower() for w in rest.split()} | {verb.lower()}) - _STOP - {""}
                score = len(content & words) / len(content) if content else 0.0
            else:
                score = 1.0 if any(_DATED.get(w) == f.relation for w in words) else 0.0
            if score >= 0.6:
                scored.append((score, f))
        scored.sort(key=lambda x: -x[0])
        return [f for _, f in scored]

    def _interval(self, s: str, question_words: set[str], read: _Read,
                  through: str | None = None, also: str | None = None,
                  months: bool = False) -> str:
        """The years (or ``months``) between the two dated facts of ``s`` (and of the person
        credited for it, ``through``, or of a second subject the question names, ``also``)
        the question's words name best."""
        facts = list(self._facts_of(s, read))
        if also:
            facts += self._facts_of(also, read)
        if through:
            people = {f.object.name for f in facts if f.relation == through and f.object}
            if len(people) == 1:
                facts += self._facts_of(people.pop(), read)
        picked = _two(self._named(facts, question_words))
        if len(picked) < 2:
            # the other event may be on a page the subject's own search did not rank: search
            # the subject with the question's words its facts did not account for
            named = " ".join((f.phrase or "").lower() for f in picked)
            rest = [w for w in question_words - _STOP - set(_norm(s).split())
                    if w.isalpha() and w not in _DATED and w not in _QUESTION
                    and w not in named]  # "score", "trick" in "scored a hat-trick"
            if rest:
                query = f"{s} {' '.join(sorted(rest))}"
                facts += self._facts_of(s, read, query=query)
                picked = _two(self._named(facts, question_words))
        read.steps.append("dated facts named: " + "; ".join(
            f"{f.relation} {f.phrase or ''} {f.year}".replace("  ", " ") for f in picked))
        if len(picked) < 2:
            return ""
        if months:
            # calendar months between two dates known to the month at least
            known = [_sortable(f) for f in picked]
            if any(len(k) < 2 for k in known):
                read.steps.append("a date not known to the month: no count of months")
                return ""
            n = abs((int(known[1][0]) - int(known[0][0])) * 12
                    + int(known[1][1]) - int(known[0][1]))
            return f"{n} month" + ("" if n == 1 else "s")
        return _years(abs((picked[0].year or 0) - (picked[1].year or 0)))


def _two(named: list[Fact]) -> list[Fact]:
    """The best two named facts that are not one sentence's or one event's."""
    picked: list[Fact] = []
    for f in named:
        if all(f.start != p.start and f.relation + str(f.phrase) != p.relation + str(p.phrase)
               for p in picked):
            picked.append(f)
        if len(picked) == 2:
            break
    return picked


def _credit(lemmas: list[str]) -> str | None:
    """The credit a bridge goes through: "the director of X", "the person who wrote X"."""
    for i, x in enumerate(lemmas):
        if x in _CREDITS and (lemmas[i + 1:i + 2] == ["of"] or lemmas[i - 1:i] == ["who"]):
            return _CREDITS[x]
    return None


def _sortable(f: Fact) -> tuple[str, ...]:
    """A fact's date as a key compared to the precision it has: (year[, month[, day]])."""
    if f.date and f.precision in ("month", "day"):
        parts = f.date.split("-")
        return tuple(parts[:3] if f.precision == "day" else parts[:2])
    return (f"{f.year:04d}",)


#: Relations whose first date is the one asked (a re-release, a reopening come later).
_FIRST = {"released", "founded", "opened"}


def _one_date(dates: list[tuple[str, ...]], relation: str) -> tuple[str, ...] | None:
    """The one date the pages give for a relation: dates that agree to their common
    precision are one ("2017" and "2017-03-24": the latter); for a release, founding or
    opening the earliest; else None when they disagree (two birth years)."""
    if not dates:
        return None
    distinct = sorted(set(dates), key=lambda d: (d, -len(d)))
    # drop a date that is a less precise prefix of another
    kept = [d for d in distinct if not any(o != d and o[:len(d)] == d for o in distinct)]
    if len(kept) == 1 or relation in _FIRST:
        return kept[0]
    return None


def _options(question: str) -> tuple[str, str] | None:
    """The two options a question ends with: "Which came first, A or B?" -> (A, B); "Who
    died first: A or B, who married each other?" -> (A, B).

    The options follow the first colon or comma; titles may hold commas or a question mark
    of their own ("No, No, Nanette or Who's Minding the Mint?"), so only the last "?" is
    dropped and the split is at the first " or " after it. An aside after the second option
    (", who married each other", ", both directed by ...") is not part of it."""
    q = question.strip()
    q = q[:-1] if q.endswith("?") else q
    for mark in (": ", ", "):
        _, found, tail = q.partition(mark)
        if found and " or " in tail:
            break
    else:
        return None
    a, _, b = tail.partition(" or ")
    b = re.split(r", (?:who|which|whose|both|each)\b", b)[0]
    a, b = a.strip(), b.strip()
    return (a, b) if a and b else None


def _inline_options(question: str) -> tuple[str, str] | None:
    """Two names joined by "or" inside the question, not after a comma: "Was A or B born
    first?", "Who passed away first Robert Graves or Dino Buzzati?", "Which band The
    Innocence Mission or Starflyer 59 was formed first?". Each is the run of capitalised
    words (and numbers, and small words inside a title) next to the "or"; the question's
    first word is never part of one."""
    words = question.strip().rstrip("?").split()
    if words.count("or") != 1:
        return None
    k = words.index("or")

    def name_word(i: int, step: int) -> bool:
        w = words[i]
        if w[:1].isupper() or w[:1].isdigit():
            return i > 0
        # a small word inside a title: capitalised words on both sides
        return (w in _TITLE_SMALL and 0 < i + step < len(words) and 0 < i - step < len(words)
                and words[i + step][:1].isupper() and words[i - step][:1].isupper())

    i = k - 1
    while i >= 0 and name_word(i, -1):
        i -= 1
    j = k + 1
    while j < len(words) and name_word(j, 1):
        j += 1
    a, b = " ".join(words[i + 1:k]), " ".join(words[k + 1:j])
    return (a, b) if a and b else None


#: Words title case leaves in lower case inside a title.
_TITLE_SMALL = {"of", "the", "a", "an", "to", "from", "on", "as", "in", "for", "at", "by",
                "with"}


_APOSTROPHES = {"'s", "'", "’s", "’"}


def _capital(sent: Sentence, i: int) -> bool:
    """A capitalised word that is not the question's first."""
    return i != sent.tokens[0].i and sent.token(i).word[:1].isupper()


def _small_inside_title(sent: Sentence, i: int) -> bool:
    """A small word ("from the" in "Swept from the Sea") followed, past any other small
    words, by a capitalised one."""
    last = sent.tokens[-1].i
    while i <= last and sent.token(i).word in _TITLE_SMALL:
        i += 1
    return i <= last and _capital(sent, i)


def _with_qualifier(sent: Sentence, last: int) -> int:
    """A title's disambiguating brackets belong to it: "The Golden Calf (1930 Film)", "Well
    Well Well (John Lennon Song)" -- searched whole, they find that page and not another
    of the name ("(1930 film)" as Wikipedia writes it too). Returns the index of the closing
    bracket of up to four words, or ``last``."""
    n = len(sent.tokens)
    if last + 1 > n or sent.token(last + 1).word != "(":
        return last
    for j in range(last + 2, min(last + 7, n + 1)):
        w = sent.token(j).word
        if w == ")":
            return j if j > last + 2 else last
        if w in ("(", ",", "?"):
            return last
    return last


def _subjects(doc: object) -> list[str]:
    """The question's searchable subjects in order: entity mentions and runs of proper
    nouns (a title the tagger does not call an entity: "Titanic"); a verb's subject first
    ("after signing for Real Madrid did Cristiano Ronaldo sign ...": Ronaldo's years)."""
    out: list[str] = []
    subjects: set[str] = set()
    for sent in doc.sentences:  # type: ignore[attr-defined]
        spans: list[tuple[int, int]] = [(m.first, m.last) for m in sent.mentions
                                        if m.ner in _SUBJECT_NER]
        run: list[int] = []
        for t in sent.tokens + [None]:
            # a title as title case writes it: proper nouns and capitalised words inside the
            # question ("Lantern Season", "His Last Haul"), joined by a possessive, an
            # apostrophe or a small word before another capitalised one ("The Ferryman's
            # Daughter", "Goin' to Town", "People Not as Bad as They Seem"); never "and" or
            # "or", which join two subjects
            if t is not None and (t.pos in ("NNP", "NNPS") or _capital(sent, t.i) or (
                    run and (t.word in _APOSTROPHES or _small_inside_title(sent, t.i)))):
                run.append(t.i)
                continue
            if run:
                spans.append((run[0], run[-1]))
                run = []
        for first, last in sorted(spans):
            if all(sent.token(i).pos.startswith("PRP") for i in range(first, last + 1)):
                # a pronoun the library counts as a person's mention: "In the year he signed
                # for Juventus, how old did Cristiano Ronaldo turn?"
                continue
            last = _with_qualifier(sent, last)
            text = " ".join(sent.token(i).word for i in range(first, last + 1))
            text = (text.replace(" 's", "'s").replace(" '", "'").replace(" ’", "’")
                    .replace(" ,", ",").replace("( ", "(").replace(" )", ")"))
            if any(text in o for o in out):
                continue
            out = [o for o in out if o not in text] + [text]
            if any(r.startswith("nsubj") for i in range(first, last + 1)
                   for r, _ in sent.heads(i)):
                subjects.add(text)
    return sorted(out, key=lambda o: o not in subjects)


@AGENTS.register("decompose", arg="SEARXNG_URL?",
                 summary="built-in agent, no model: searches each subject of the question "
                         "separately, reads facts from the pages with CoreNLP and computes "
                         "bridges, intervals, ages and comparisons (else answers as baseline)")
def decompose_agent(arg: str | None, ctx: AgentContext) -> DecomposeAgent:
    spec = f"decompose:{arg}" if arg else "decompose"
    if arg is None:
        if ctx.store is None:
            raise AgentError("agent 'decompose' searches the graph and needs a Neo4j store; "
                             "use decompose:URL to search a SearxNG endpoint instead")
        return DecomposeAgent(spec, GraphSearch(ctx.store), GraphPages(ctx.store))
    url = http_url("decompose", arg)
    client, pages = web_sources(url, ctx.timeout)
    return DecomposeAgent(spec, client, pages, close=client.close)
