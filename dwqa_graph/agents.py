"""Agents under evaluation: one protocol (question -> answer + trace) and its adapters.

Agent specs (``make_agent``):

- ``baseline``                 built-in web agent over the graph's full-text index (offline)
- ``baseline:URL``             the same agent searching a SearxNG(-compatible) endpoint at URL
                               and fetching the result pages
- ``python:module:function``   a Python callable ``f(question) -> str | AgentAnswer | dict``
- ``perplexica:URL``           Perplexica's ``POST /api/search`` at URL
                               (``?focusMode=...&optimizationMode=...`` override the defaults)
- ``closedbook:LLMSPEC``       an LLM answering without retrieval (LLMSPEC as ``make_llm``)
- ``memorize:SPEC``            SPEC wrapped in a leaked agent that memorises leaked QA pairs

Every agent may be called from several threads at once (evaluation runs a thread pool), and
none raises for one question: a per-question failure is ``AgentAnswer.error``.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import ipaddress
import math
import re
import threading
from collections.abc import Callable, Coroutine, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol, TypeVar, runtime_checkable
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field, ValidationError

from .fetch import FetchFailure, FetchOptions, download, extract_page
from .llm import LLM, LLMError, LLMFailure, load_prompt, make_llm
from .localweb import STOP_WORDS
from .scoring import normalize_answer
from .search import GraphSearch, SearchClient, SearchResult, SearxngClient
from .ssrf import BlockedURL
from .store import Store

T = TypeVar("T")

# What an agent read is kept so run-time leakage can be checked later, but a hostile page can
# be megabytes: the trace keeps the first MAX_TRACE_CHARS characters of each document.
MAX_TRACE_CHARS = 20_000


class RetrievedDoc(BaseModel):
    """One document the agent retrieved, with the text it actually saw."""

    url: str
    title: str = ""
    text: str = Field("", description="What the agent read (excerpt or page text), capped.")
    rank: int = Field(description="1-based position in the agent's retrieval order.")


class AgentAnswer(BaseModel):
    """An agent's reply to one question, with its trace."""

    answer: str
    retrieved: list[RetrievedDoc] = []
    steps: list[str] = Field([], description="Reasoning / action steps, in order.")
    error: str | None = Field(None, description="Why the agent failed; answer is then ''.")


class AgentError(ValueError):
    """A bad agent spec or an agent that cannot be set up; the message says which and how."""


@runtime_checkable
class Agent(Protocol):
    spec: str

    def answer(self, question: str) -> AgentAnswer:
        """Answer one question. Must not raise for a per-question failure: set ``error``."""
        ...

    def close(self) -> None:
        ...


@runtime_checkable
class LeakableAgent(Agent, Protocol):
    """An agent that can be given test items: the offline stand-in for fine-tuning on them."""

    def leak(self, pairs: Iterable[tuple[str, str]]) -> int:
        """Memorise (question, answer) pairs; returns how many distinct questions it holds."""
        ...

    def forget(self) -> None:
        """Drop everything leaked so far (M_leak^t is M leaked on round t only)."""
        ...


SPEC_HELP = ("use baseline, baseline:URL, python:module:function, perplexica:URL, "
             "closedbook:LLMSPEC or memorize:SPEC")


def _failed(error: str, **trace: Any) -> AgentAnswer:
    # Errors end up in reports and graph properties: a runaway message must not bloat them.
    return AgentAnswer(answer="", error=error[:500], **trace)


def _capped(doc: RetrievedDoc) -> RetrievedDoc:
    if len(doc.text) <= MAX_TRACE_CHARS:
        return doc
    return doc.model_copy(update={"text": doc.text[:MAX_TRACE_CHARS]})


_ANSWER_PREFIX = re.compile(r"^\s*(?:\*\*)?(?:final\s+)?answer\s*(?:\*\*)?\s*[:：-]\s*(?:\*\*)?",
                            re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»*_ "


def short_answer(reply: str) -> str:
    """The short answer in a model reply: its first non-empty line, without an ``Answer:``
    prefix, surrounding quotes or markdown emphasis. Models asked for "only the answer" still
    add these, and every one of them costs an exact match."""
    for line in reply.splitlines():
        text = _ANSWER_PREFIX.sub("", line).strip().strip(_QUOTES).strip()
        if text:
            return text
    return ""


class _LoopThread:
    """An event loop on a daemon thread that callers in any thread submit coroutines to.

    An ``LLM`` keeps an asyncio semaphore (bound to the first loop that waits on it) and plain
    counters; ``asyncio.run`` from several evaluation threads at once would share them across
    loops and threads, which asyncio does not allow. Every agent's model calls go through the
    one process-wide ``_LLM_LOOP``, so an LLM shared by agents (one reader given to each
    round's baseline) also stays on one loop, with its concurrency limit, cache and stats."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        with self._lock:
            if self._loop is None:  # started on first use: most agents never call a model
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                                name=self._name)
                self._thread.start()
            loop = self._loop
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    def close(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        # Chat models without native async run in the loop's default executor.
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


_LLM_LOOP = _LoopThread("dwqa-agents-llm")
atexit.register(_LLM_LOOP.close)


# -- the baseline: text analysis ----------------------------------------------------------
AnswerType = Literal["year", "date", "number", "quantity", "entity", "subject", "yesno",
                     "other"]

# Question words carry no topic: matching them would favour sentences that are questions.
_QUESTION_WORDS = frozenset(
    "how many much did does do whom whose has have had been can could would should s".split())
_STOP = STOP_WORDS | _QUESTION_WORDS
_WORD = re.compile(r"\w+")
_YESNO_START = frozenset(
    "is are was were did does do has have had can could will would should".split())
_WH = ("when", "who", "whom", "whose", "which", "what", "where", "why", "how")
# "What was the cost ..." asks for an amount, not a name.
_QUANTITY_NOUNS = frozenset(
    "cost costs budget price length distance height depth area capacity population "
    "temperature percentage percent share speed weight amount size volume rainfall level "
    "fare density power voltage yield rate duration age width altitude elevation".split())
_MONEY_WORDS = frozenset("cost costs price budget pay paid spend spent worth fund grant "
                         "fee fare salary".split())
_MONEY = re.compile(r"[$€£]|\b(?:euros?|dollars?|pounds?)\b", re.IGNORECASE)
# A name ending in one of these is a place, not someone who did something.
_PLACE_WORDS = frozenset("quarter street road avenue square park station bridge river valley "
                         "lake bay hall district town city village county region mountain "
                         "island bend row depot gauge".split())
_HOW_QUANTITY = re.compile(
    r"\bhow (?:long|far|high|tall|big|large|old|deep|heavy|wide|fast|hot|cold|often)\b"
    r"|\bwhat (?:percentage|percent|proportion|share)\b")
_IRREGULAR = {
    "began": "begin", "begun": "begin", "built": "build", "led": "lead", "fell": "fall",
    "fallen": "fall", "rose": "rise", "risen": "rise", "won": "win", "paid": "pay",
    "gave": "give", "given": "give", "took": "take", "taken": "take", "made": "make",
    "found": "find", "held": "hold", "left": "leave", "sold": "sell", "bought": "buy",
    "brought": "bring", "grew": "grow", "grown": "grow", "became": "become", "ran": "run",
    "spent": "spend", "told": "tell", "said": "say", "wrote": "write", "written": "write",
    "chose": "choose", "chosen": "choose", "met": "meet", "kept": "keep", "lost": "lose",
    "went": "go", "gone": "go", "came": "come", "broke": "break", "broken": "break",
    "struck": "strike",
}
# Past tenses that make "What <verb> ...?" ask for the subject ("What caused the fire?").
_PAST = re.compile(r"^(?:\w+ed|" + "|".join(sorted(
    {"began", "built", "led", "made", "brought", "gave", "took", "drove", "kept", "left",
     "forced", "hit", "struck", "broke", "set", "put", "won", "held"})) + ")$")
_BE = frozenset("is are was were be been being".split())
_BY_AGENT = re.compile(r"\s+by\s+((?:(?!\b(?:and|which|that|who|after|before|when)\b)"
                       r"[^,;.()])+)")
_NEGATION = frozenset("not no never none neither nor without cannot".split())
_ABBREVIATIONS = frozenset("dr mr mrs ms prof st no nr vs etc approx jr sr inc ltd co fig "
                           "e.g i.e".split())
# Titles before a name are not part of the name a gold answer gives ("Mayor Edda Quist").
_TITLES = frozenset("dr mr mrs ms prof professor sir dame lord lady mayor president premier "
                    "councillor senator governor chancellor judge king queen prince princess "
                    "captain".split())
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*\s+")
_CONNECTORS = frozenset("of the de del der den van von du la le y for".split())
# Capitalised because they start a sentence, not because they name something.
_CAPITALISED_FUNCTION_WORDS = frozenset(
    "the a an in on at by for from to of it its this that these those he she they we i you "
    "after before according when while since until during because as but and or if so "
    "there here his her their our my your all some most many no yes one two both each "
    "however also then today yesterday what which who where why how is are was were".split())
_MONTH_NAMES = ("january february march april may june july august september october "
                "november december").split()
_CALENDAR_WORDS = frozenset(_MONTH_NAMES + "monday tuesday wednesday thursday friday saturday "
                            "sunday".split())
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|"
          r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?")
_YEAR = re.compile(r"(?<![\w.,])(?:1[0-9]{3}|20[0-9]{2})(?![\w]|[.,]\d)")
# (pattern, specificity): a full date answers "when" better than a month, a month than a year.
_DATES = (
    (re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}\b"), 0),
    (re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,\s*\d{{4}}\b"), 0),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), 0),
    (re.compile(rf"\b{_MONTH}\s+\d{{4}}\b"), 1),
    (_YEAR, 2),
)
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve thirteen "
                 "fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty "
                 "fifty sixty seventy eighty ninety hundred dozen").split()
_NUMBER = re.compile(
    r"(?<![\w.,:/-])(?:[-−](?=\d))?(?:[$€£]\s?)?\d+(?:[.,]\d+)*(?![\w:/]|[.,]\d)(?:\s?%)?"
    rf"|\b(?:{'|'.join(_NUMBER_WORDS)})\b", re.IGNORECASE)
_SCALE = re.compile(r"\s+(?:million|billion|trillion|thousand|hundred)\b", re.IGNORECASE)
_UNITS = sorted((
    "euros euro dollars dollar pounds percent km kilometres kilometers miles metres meters m mm "
    "cm hectares ha tonnes tons kg GWh MWh kWh Wh/kg °C degrees years months weeks days hours "
    "minutes seconds passengers people homes votes stops trams cubic_metres per_cent "
    "square_kilometres").replace("_", " ").split(), key=len, reverse=True)
_UNIT = re.compile(r"\s?(?:" + "|".join(re.escape(u) for u in _UNITS) + r")(?![\w/])")

# The baseline reads at most this much of a page: the answer to a factoid question is not
# past the first 200,000 characters of a relevant page, and splitting megabytes is slow.
MAX_READ_CHARS = 200_000
TOP_K = 5
# A sentence's neighbours (title, previous sentence) often name what "it" is: their matches
# count, but for less than the sentence's own.
CONTEXT_WEIGHT = 0.3
MAX_SUBJECT_WORDS = 8
# A year answers "when" less well than a full date; a one-word name "who" less than a full one.
SPECIFICITY_FACTOR = (1.0, 0.8, 0.6)
# Of the question's mean term weight, what a sentence gains for holding an answer of the
# expected type: enough to break near-ties, not to beat a clearly better match.
TYPE_BONUS = 0.6
PROXIMITY_WEIGHT = 1.0
_YESNO_COVERAGE = 0.5


def _stem(word: str) -> str:
    """A crude suffix stripper: "opened"/"opens" meet "open", "stops" meets "stop", and
    common irregular verbs meet their base form ("began" -> "begin")."""
    if word.isdigit():
        return word
    word = _IRREGULAR.get(word, word)
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def content_terms(text: str) -> list[str]:
    """Stemmed words of ``text`` that carry topic (no stop or question words)."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP]


def split_sentences(text: str) -> list[str]:
    """Sentences of extracted page text: one per line at least (trafilatura puts paragraphs,
    list items and table rows on lines of their own), split at sentence ends that are not
    abbreviations or initials ("Dr. Hanna Vestergaard")."""
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("|"):  # a table row: its cells, so "| Deaths | 4 |" reads as a fact
            line = "; ".join(c.strip() for c in line.strip("|").split("|") if c.strip())
        if not _WORD.search(line):
            continue
        start = 0
        for m in _BOUNDARY.finditer(line):
            words = line[start:m.start()].split()
            last = words[-1].lower().lstrip("(\"'“") if words else ""
            nxt = line[m.end():m.end() + 1]
            if (last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())
                    or not (nxt.isupper() or nxt.isdigit() or nxt in "\"'“‘(")):
                continue
            out.append(line[start:m.end()].strip())
            start = m.end()
        if line[start:].strip():
            out.append(line[start:].strip())
    return out


def answer_type(question: str) -> AnswerType:
    """What kind of short answer the question asks for (by its wording only)."""
    q = " ".join(question.lower().split())
    words = _WORD.findall(q)
    if not words:
        return "other"
    if re.search(r"\b(?:what|which) year\b", q):
        return "year"
    if re.search(r"\bhow many\b", q):
        return "number"
    if re.search(r"\bhow much\b", q) or _HOW_QUANTITY.search(q):
        return "quantity"
    if re.search(r"\b(?:what|which) (?:date|day|month)\b", q):
        return "date"
    if words[0] in _YESNO_START:
        return "yesno"
    wh = next((w for w in words if w in _WH), None)
    if wh == "when":
        return "date"
    if wh in ("what", "which") and _QUANTITY_NOUNS & set(words):
        return "quantity"
    if wh == "what" and (i := words.index("what")) + 1 < len(words) \
            and _PAST.match(words[i + 1]):
        return "subject"
    if wh in ("who", "whom", "whose", "which", "what", "where"):
        return "entity"
    return "other"


class _Span(NamedTuple):
    start: int
    end: int
    text: str
    specificity: int  # lower is more specific


def _date_spans(sentence: str) -> list[_Span]:
    spans: list[_Span] = []
    for pattern, specificity in _DATES:
        for m in pattern.finditer(sentence):
            if not any(m.start() < s.end and s.start < m.end() for s in spans):
                spans.append(_Span(m.start(), m.end(), m.group(), specificity))
    return spans


def _number_spans(sentence: str, with_unit: bool) -> list[_Span]:
    dates = _date_spans(sentence)  # "14 September 2023" holds no count of anything
    spans = []
    for m in _NUMBER.finditer(sentence):
        if any(m.start() < d.end and d.start < m.end() for d in dates):
            continue
        end = m.end()
        if scale := _SCALE.match(sentence, end):
            end = scale.end()
        if with_unit and not m.group().endswith("%") and (unit := _UNIT.match(sentence, end)):
            end = unit.end()
        spans.append(_Span(m.start(), end, sentence[m.start():end], 0))
    return spans


def _entity_spans(sentence: str, common: frozenset[str] = frozenset()) -> list[_Span]:
    """Runs of capitalised words ("Sarnau Valley Water Board", "Ministry of Transport"),
    without function words, titles or calendar words. A sentence's first word is capitalised
    anyway: it starts a name only if it is not in ``common`` (words the pages also write in
    lower case, like "Workers")."""
    tokens = list(re.finditer(r"\w[\w'’-]*", sentence))
    spans: list[_Span] = []
    i = 0
    while i < len(tokens):
        run: list[re.Match[str]] = []
        j = i
        while j < len(tokens):
            word = tokens[j].group()
            low = word.lower()
            if word[0].isupper() and low not in _CALENDAR_WORDS:
                if not run and (low in _CAPITALISED_FUNCTION_WORDS or low in _TITLES
                                or (j == 0 and low in common)):
                    break
                run.append(tokens[j])
                j += 1
            elif (run and low in _CONNECTORS and j + 1 < len(tokens)
                  and tokens[j + 1].group()[0].isupper()):
                run.append(tokens[j])
                j += 1
            else:
                break
            # A gap wider than a space (a comma, a dash) ends the name, except the full stop
            # of an initial ("Henry J. Kaiser").
            if j < len(tokens):
                gap = sentence[tokens[j - 1].end():tokens[j].start()]
                initial = len(tokens[j - 1].group()) == 1 and tokens[j - 1].group().isupper()
                if gap != " " and not (initial and gap == ". "):
                    break
        while run and run[-1].group().lower() in _CONNECTORS:
            run.pop()
        if run:
            text = sentence[run[0].start():run[-1].end()]
            spans.append(_Span(run[0].start(), run[-1].end(), text.removesuffix("'s"), 0))
        i = max(j, i + 1)
    return spans


class _Question(NamedTuple):
    text: str
    kind: AnswerType
    terms: set[str]
    words: set[str]  # lowercase words of the question, for "not in the question"
    normalised: str
    head: str | None  # the counted noun of "how many X"
    money: bool  # asks for a cost or price: only amounts of money answer it
    person: bool  # "who": a place ("Old Mill Quarter") does not answer it
    verb: str | None  # the verb of "What <verb> ...?", whose subject is the answer


def _analyse(question: str) -> _Question:
    kind = answer_type(question)
    low = question.lower()
    words = set(_WORD.findall(low))
    head = None
    if (m := re.search(r"\bhow (?:many|much)\s+(\w+)", low)) and m.group(1) not in _STOP:
        head = _stem(m.group(1))
    money = kind == "quantity" and bool(words & _MONEY_WORDS)
    person = kind == "entity" and bool(words & {"who", "whom", "whose"})
    verb = None
    if kind == "subject" and (m := re.search(r"\bwhat\s+(\w+)", low)):
        verb = _stem(m.group(1))
    return _Question(question, kind, set(content_terms(question)), words,
                     f" {normalize_answer(question)} ", head, money, person, verb)


def _bare(word: str) -> str:
    return re.sub(r"['’]s$", "", word.lower())


def _trim_to_new_words(span: _Span, sentence: str, q: _Question) -> _Span | None:
    """The entity without its words the question already has ("Mayor Ilse Korrin" for
    "Who is the mayor?" -> "Ilse Korrin"); None if nothing new is left."""
    words = list(re.finditer(r"\w[\w'’-]*", span.text))
    while words and (_bare(words[0].group()) in q.words
                     or words[0].group().lower() in _CONNECTORS):
        words.pop(0)
    while words and words[-1].group().lower() in _CONNECTORS:
        words.pop()
    # A name ending in two or more of the question's words is the question's own entity, or
    # a part of it ("Regional Government of Upper Sarnau" for "the premier of Upper
    # Sarnau"); one shared last word is often a family name ("Henry J. Kaiser" for "Kaiser
    # Ventures was founded by whom?").
    tail = 0
    while tail < len(words) and _bare(words[-1 - tail].group()) in q.words:
        tail += 1
    if not words or tail >= 2 or tail == len(words):
        return None
    start, end = span.start + words[0].start(), span.start + words[-1].end()
    return _Span(start, end, sentence[start:end].removesuffix("'s").removesuffix("’s"),
                 span.specificity)


def candidates(sentence: str, q: _Question, common: frozenset[str] = frozenset(),
               ) -> list[_Span]:
    """Short answers of the expected type in ``sentence`` that the question does not hold
    (``common``: see ``_entity_spans``)."""
    spans: list[_Span]
    if q.kind == "year":
        spans = [_Span(m.start(), m.end(), m.group(), 0) for m in _YEAR.finditer(sentence)]
    elif q.kind == "date":
        spans = _date_spans(sentence)
    elif q.kind in ("number", "quantity"):
        spans = _number_spans(sentence, with_unit=q.kind == "quantity")
        if q.money:
            spans = [s for s in spans if _MONEY.search(s.text)]
    elif q.kind == "entity":
        spans = [t for s in _entity_spans(sentence, common)
                 if (t := _trim_to_new_words(s, sentence, q))]
        if q.person:  # people have two names or more; one word is often a place
            spans = [s._replace(specificity=0 if " " in s.text else 1) for s in spans
                     if _bare(s.text.split()[-1]) not in _PLACE_WORDS]
    elif q.kind == "subject":
        spans = _subject_spans(sentence, q)
    else:
        return []
    return [s for s in spans if f" {normalize_answer(s.text)} " not in q.normalised
            and normalize_answer(s.text)]


def _subject_spans(sentence: str, q: _Question) -> list[_Span]:
    """Who or what did the question's verb: the words before it in its clause ("A faulty
    charging module caused the fire" for "What caused the fire?"), or in the passive the
    words after "by" ("The fire was caused by a faulty charger")."""
    spans = []
    for m in _WORD.finditer(sentence):
        if _stem(m.group().lower()) != q.verb:
            continue
        clause_start = max(sentence.rfind(c, 0, m.start()) for c in ",;:(") + 1
        before = sentence[clause_start:m.start()].split()
        if before and before[-1].lower() in _BE:
            agent = _BY_AGENT.match(sentence, m.end())
            if agent and len((by := agent.group(1).rstrip()).split()) <= MAX_SUBJECT_WORDS:
                spans.append(_Span(agent.start(1), agent.start(1) + len(by), by, 0))
            continue
        subject = " ".join(before)
        if 0 < len(before) <= MAX_SUBJECT_WORDS and subject in sentence:
            start = sentence.index(subject, clause_start)
            spans.append(_Span(start, start + len(subject), subject, 0))
    return spans


def _proximity(sentence: str, spans: list[_Span], q: _Question, idf: dict[str, float],
               ) -> tuple[float, _Span]:
    """The candidate with the most question weight close by, and that weight: each question
    word in the sentence counts idf / (1 + words between it and the candidate), and the
    counted noun right after a number counts in full ("22 stops" for "how many stops" beats
    "12.4 km" in "It is 12.4 km long, has 22 stops")."""
    tokens = list(_WORD.finditer(sentence))
    stems = [_stem(t.group().lower()) for t in tokens]
    hits = [(i, stem) for i, stem in enumerate(stems) if stem in q.terms]

    def weight(span: _Span) -> float:
        inside = [i for i, t in enumerate(tokens) if span.start <= t.start() < span.end]
        if not inside:
            return 0.0
        first, last = inside[0], inside[-1]
        best: dict[str, float] = {}
        for i, stem in hits:
            if first <= i <= last:
                continue
            gap = first - i - 1 if i < first else i - last - 1
            best[stem] = max(best.get(stem, 0.0), idf.get(stem, 0.0) / (1 + gap))
        total = sum(best.values())
        after = [t for t in tokens[last + 1:last + 4] if t.group().lower() not in _STOP]
        if q.head and after and _stem(after[0].group().lower()) == q.head:
            total += idf.get(q.head, 0.0)  # "148 mm of rain" for "how much rain"
        return total * SPECIFICITY_FACTOR[span.specificity]

    scored = [(weight(s), s) for s in spans]
    return max(scored, key=lambda ws: (ws[0], -ws[1].specificity, -ws[1].start))


def _yes_no(sentence: str, q: _Question, weights: dict[str, float]) -> str:
    """"yes" when the sentence covers most of the question's weight, mentions every number
    it asks about, and agrees with it on negation; otherwise "no"."""
    own = set(content_terms(sentence))
    total = sum(weights.get(t, 0.0) for t in q.terms) or 1.0
    covered = sum(weights.get(t, 0.0) for t in q.terms & own) / total
    numbers = {w for w in q.words if any(c.isdigit() for c in w)}
    sentence_words = set(_WORD.findall(sentence.lower()))
    negated_s = bool(_NEGATION & sentence_words) or "n't" in sentence.lower()
    negated_q = bool(_NEGATION & q.words) or "n't" in q.text.lower()
    yes = covered >= _YESNO_COVERAGE and numbers <= sentence_words and negated_s == negated_q
    return "yes" if yes else "no"


def _shortest_clause(sentence: str, q: _Question) -> str:
    clauses = re.split(r"[,;:()]|\s[-–—]\s|\b(?:and|but|because|which|while)\b", sentence)
    kept = []
    for clause in clauses:
        words = [w for w in clause.split() if w.lower().strip(".,!?\"'") not in q.words]
        if any(_WORD.search(w) for w in words):
            kept.append(" ".join(words).strip(" .,!?"))
    return min(kept, key=len) if kept else ""


class _Scored(NamedTuple):
    score: float
    doc_rank: int
    position: int
    sentence: str
    answer: _Span | None  # the best candidate of the expected type, if any


def rank_sentences(question: _Question, docs: Sequence[tuple[int, str, str]],
                   ) -> tuple[list[_Scored], dict[str, float]]:
    """Sentences of ``docs`` ([(rank, title, text)]) best first, and the idf weights: a
    question word rare among the retrieved sentences says more than one found in all.

    A sentence scores the idf of the question words it holds (its title's and previous
    sentence's at CONTEXT_WEIGHT); one holding an answer of the expected type gains
    TYPE_BONUS of the mean weight plus PROXIMITY_WEIGHT of the weight near that answer, so an
    answer next to the question's words beats one in a sentence that only repeats its names."""
    sentences = [(rank, title, i, s) for rank, title, text in docs
                 for i, s in enumerate(split_sentences(text[:MAX_READ_CHARS]))]
    terms = [set(content_terms(s)) for *_, s in sentences]
    titles = {title: set(content_terms(title)) for _, title, _ in docs}
    common = frozenset(w for *_, s in sentences for w in _WORD.findall(s) if w.islower())
    n = len(sentences)
    df = {t: sum(1 for ts in terms if t in ts) for t in question.terms}
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    found = [idf[t] for t in question.terms if df[t]]
    bonus = TYPE_BONUS * (sum(found) / len(found)) if found else 0.0
    scored = []
    for k, (rank, title, i, sentence) in enumerate(sentences):
        own = terms[k] & question.terms
        if not own:
            continue
        previous = terms[k - 1] if i > 0 else set()
        context = (titles[title] | previous) & (question.terms - own)
        score = sum(idf[t] for t in own) + CONTEXT_WEIGHT * sum(idf[t] for t in context)
        answer = None
        if spans := candidates(sentence, question, common):
            near, answer = _proximity(sentence, spans, question, idf)
            score += bonus * SPECIFICITY_FACTOR[answer.specificity] + PROXIMITY_WEIGHT * near
        scored.append(_Scored(score, rank, i, sentence, answer))
    scored.sort(key=lambda s: (-s.score, s.doc_rank, s.position))
    return scored, idf


# -- the baseline: where page text comes from ---------------------------------------------
class PageRead(BaseModel):
    """The text the baseline read for one search hit."""

    url: str
    title: str = ""
    text: str = ""
    source: Literal["page", "snippet"] = Field(
        description="'page': the full page text; 'snippet': the search result's excerpt, "
                    "because the page could not be read.")
    detail: str = Field("", description="Why the page could not be read.")


class PageSource(Protocol):
    name: str

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        ...


def _snippet(hit: SearchResult, detail: str) -> PageRead:
    return PageRead(url=hit.url, title=hit.title, text=hit.content, source="snippet",
                    detail=detail)


class GraphPages:
    """Page text from the graph: the newest stored version of each hit's Document."""

    name = "graph"

    def __init__(self, store: Store) -> None:
        self.store = store

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        rows = self.store.query("agents/version_text", urls=[h.url for h in hits])
        by_url = {r["url"]: r for r in rows if r["text"]}
        return [PageRead(url=h.url, title=by_url[h.url]["title"] or h.title,
                         text=by_url[h.url]["text"], source="page")
                if h.url in by_url else _snippet(h, "no stored version")
                for h in hits]


class WebPages:
    """Page text fetched over HTTP with the fetch stage's download (retries, size caps, the
    SSRF guard on every hop) and extraction."""

    name = "web"

    def __init__(self, options: FetchOptions) -> None:
        self.options = options

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        # One loop per call: each evaluation thread fetches its own pages, and an
        # httpx.AsyncClient must not outlive the loop it was made on.
        return asyncio.run(self._read_all(hits))

    async def _read_all(self, hits: list[SearchResult]) -> list[PageRead]:
        opts = self.options
        timeout = httpx.Timeout(opts.timeout, connect=min(opts.timeout, 10.0))
        async with httpx.AsyncClient(follow_redirects=False, timeout=timeout, trust_env=False,
                                     headers={"user-agent": opts.user_agent}) as client:
            return list(await asyncio.gather(*(self._read_one(client, h) for h in hits)))

    async def _read_one(self, client: httpx.AsyncClient, hit: SearchResult) -> PageRead:
        try:
            resp, body, final = await download(client, hit.url, self.options)
            if resp.status_code >= 400:
                return _snippet(hit, f"http_{resp.status_code}")
            ctype = resp.headers.get("content-type", "text/html").split(";")[0].strip()
            # Extraction is CPU work: off the loop, so the other pages keep downloading.
            out = await asyncio.to_thread(extract_page, body, resp.charset_encoding,
                                          ctype or "text/html", final)
        except (FetchFailure, BlockedURL) as exc:
            return _snippet(hit, f"{exc.reason}: {exc.detail}")
        except Exception as exc:  # result URLs are untrusted: one odd page is not fatal
            return _snippet(hit, f"{type(exc).__name__}: {exc}"[:200])
        if out["reason"] != "ok":
            return _snippet(hit, f"{out['reason']}: {out.get('detail', '')}")
        return PageRead(url=hit.url, title=out.get("title") or hit.title, text=out["text"],
                        source="page")


def _is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").rstrip(".").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# -- the baseline agent ---------------------------------------------------------------------
class BaselineAgent:
    """A deterministic web agent with no model: search, read the top pages, pick the sentence
    that best matches the question (idf-weighted word overlap, a bonus for holding an answer
    of the expected type) and answer with a short span of that type from it.

    With ``reader_llm`` the model reads the three best sentences instead, and the rule answer
    is the fallback when it fails."""

    def __init__(self, spec: str, search: SearchClient, pages: PageSource, *,
                 reader_llm: LLM | None = None, top_k: int = TOP_K,
                 close: Callable[[], None] | None = None) -> None:
        self.spec = spec
        self.search = search
        self.pages = pages
        self.reader_llm = reader_llm
        self.top_k = top_k
        self._close = close
        self._reader_prompt = load_prompt("reader") if reader_llm else None

    def close(self) -> None:
        if self._close:  # not the reader LLM: it belongs to the caller, who closes it
            self._close()

    def answer(self, question: str) -> AgentAnswer:
        steps: list[str] = []
        try:
            return self._answer(question, steps)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return _failed(f"{type(exc).__name__}: {exc}", steps=steps)

    def _answer(self, question: str, steps: list[str]) -> AgentAnswer:
        try:
            hits = self.search.search(question, limit=self.top_k)
        except Exception as exc:  # SearchError, a Neo4j outage: both end this question
            return _failed(f"search failed ({self.search.name}): {type(exc).__name__}: {exc}",
                           steps=[f"search {self.search.name}: {question!r}"])
        steps.append(f"search {self.search.name}: {question!r} -> {len(hits)} results")
        reads = self.pages.read(hits) if hits else []
        retrieved = []
        for rank, page in enumerate(reads, start=1):
            how = (f"page text, {len(page.text)} chars" if page.source == "page"
                   else f"search snippet ({page.detail})")
            steps.append(f"read [{rank}] {page.url}: {how}")
            retrieved.append(RetrievedDoc(url=page.url, title=page.title,
                                          text=page.text[:MAX_TRACE_CHARS], rank=rank))
        q = _analyse(question)
        steps.append(f"answer type: {q.kind}")
        ranked, idf = rank_sentences(q, [(r.rank, p.title, p.text)
                                         for r, p in zip(retrieved, reads, strict=True)])
        if not ranked:
            steps.append("no retrieved sentence shares a word with the question")
            return AgentAnswer(answer="", retrieved=retrieved, steps=steps)
        # The best sentence that holds an answer of the expected type, among the top three:
        # a near-tie is often a restatement of the question without the answer.
        best = next((s for s in ranked[:3] if s.answer), ranked[0])
        steps.append(f"best sentence [doc {best.doc_rank}, score {best.score:.2f}]: "
                     f"{best.sentence}")
        if q.kind == "yesno":
            answer, how = _yes_no(best.sentence, q, idf), "yes/no rule"
        elif best.answer:
            answer, how = best.answer.text, f"{q.kind} span"
        else:
            answer, how = _shortest_clause(best.sentence, q), "shortest clause"
        if self.reader_llm is not None:
            answer, how = self._read(question, ranked[:3], answer, how, steps)
        steps.append(f"answer ({how}): {answer!r}")
        return AgentAnswer(answer=answer, retrieved=retrieved, steps=steps)

    def _read(self, question: str, top: list[_Scored], rule_answer: str, rule_how: str,
              steps: list[str]) -> tuple[str, str]:
        assert self.reader_llm is not None and self._reader_prompt is not None
        prompt = self._reader_prompt.render(
            question=question, sentences="\n".join(f"- {s.sentence}" for s in top))
        try:
            reply = _LLM_LOOP.run(self.reader_llm.acall([HumanMessage(prompt)]))
        except LLMFailure as exc:
            steps.append(f"reader {self.reader_llm.id} failed ({exc.reason}); rule answer kept")
            return rule_answer, rule_how
        text = short_answer(reply)
        if not text:
            steps.append(f"reader {self.reader_llm.id} gave no answer; rule answer kept")
            return rule_answer, rule_how
        return text, f"reader {self.reader_llm.id}"


# -- python callables -------------------------------------------------------------------------
class PythonAgent:
    """``f(question)`` returning a str, an AgentAnswer or a dict in AgentAnswer's shape."""

    def __init__(self, spec: str, func: Callable[[str], Any]) -> None:
        self.spec = spec
        self.func = func

    def close(self) -> None:
        pass

    def answer(self, question: str) -> AgentAnswer:
        try:
            out = self.func(question)
        except Exception as exc:
            return _failed(f"{type(exc).__name__}: {exc}")
        if isinstance(out, str):
            return AgentAnswer(answer=out)
        try:
            reply = (out if isinstance(out, AgentAnswer)
                     else AgentAnswer.model_validate(out) if isinstance(out, dict) else None)
        except ValidationError as exc:
            return _failed(f"{self.spec} returned a dict that is not an AgentAnswer: {exc}")
        if reply is None:
            return _failed(f"{self.spec} returned {type(out).__name__}; expected str, "
                           "AgentAnswer or dict")
        return reply.model_copy(update={"retrieved": [_capped(d) for d in reply.retrieved]})


def _load_callable(target: str) -> Callable[[str], Any]:
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise AgentError(f"python agent {target!r}: use python:module:function "
                         "(e.g. python:my_agents.web:answer)")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentError(f"python agent: cannot import module {module_name!r}: {exc}. "
                         "Is it installed or on PYTHONPATH?") from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentError(f"python agent: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AgentError(f"python agent: {module_name}:{attr} is a {type(obj).__name__}, "
                         "not a function")
    return obj  # type: ignore[no-any-return]


# -- Perplexica ---------------------------------------------------------------------------------
class PerplexicaMetadata(BaseModel):
    title: str = ""
    url: str = ""


class PerplexicaSource(BaseModel):
    pageContent: str = ""  # Perplexica's spelling
    metadata: PerplexicaMetadata = PerplexicaMetadata()


class PerplexicaReply(BaseModel):
    """The parts of Perplexica's ``/api/search`` response an evaluation uses."""

    message: str
    sources: list[PerplexicaSource] = []


_CITATION = re.compile(r"\s*\[\d+(?:\s*[,–-]\s*\d+)*\]")
PERPLEXICA_OPTIONS = ("focusMode", "optimizationMode")


class PerplexicaAgent:
    """Perplexica's HTTP API: ``POST {url}/api/search``, answer and sources from the reply."""

    def __init__(self, spec: str, base_url: str, *, focus_mode: str = "webSearch",
                 optimization_mode: str = "speed", timeout: float = 60.0) -> None:
        self.spec = spec
        self.base_url = base_url.rstrip("/")
        self.focus_mode, self.optimization_mode = focus_mode, optimization_mode
        self.timeout = timeout
        self._client = httpx.Client(timeout=timeout, trust_env=False)  # thread-safe

    def close(self) -> None:
        self._client.close()

    def answer(self, question: str) -> AgentAnswer:
        body = {"query": question, "focusMode": self.focus_mode,
                "optimizationMode": self.optimization_mode, "history": []}
        url = f"{self.base_url}/api/search"
        steps = [f"POST {url} focusMode={self.focus_mode} "
                 f"optimizationMode={self.optimization_mode}"]
        try:
            resp = self._client.post(url, json=body)
        except httpx.TimeoutException:
            return _failed(f"timeout: Perplexica at {url} did not answer within "
                           f"{self.timeout:g} s", steps=steps)
        except httpx.HTTPError as exc:
            return _failed(f"connection error: Perplexica at {url}: {type(exc).__name__}: "
                           f"{exc}", steps=steps)
        if resp.status_code >= 400:
            return _failed(f"HTTP {resp.status_code} from Perplexica at {url}: "
                           f"{' '.join(resp.text.split())[:200]}", steps=steps)
        try:
            data = resp.json()
        except ValueError as exc:
            return _failed(f"malformed JSON from Perplexica at {url}: {exc}; body starts "
                           f"{resp.text[:80]!r}", steps=steps)
        try:
            reply = PerplexicaReply.model_validate(data)
        except ValidationError as exc:
            return _failed(f"malformed reply from Perplexica at {url} (expected 'message' and "
                           f"'sources'): {' '.join(str(exc).split())}", steps=steps)
        retrieved = [RetrievedDoc(url=s.metadata.url, title=s.metadata.title,
                                  text=s.pageContent[:MAX_TRACE_CHARS], rank=i)
                     for i, s in enumerate(reply.sources, start=1)]
        steps.append(f"{len(retrieved)} sources")
        answer = " ".join(_CITATION.sub("", reply.message).split())
        return AgentAnswer(answer=re.sub(r"\s+([.,;:!?])", r"\1", answer),
                           retrieved=retrieved, steps=steps)


# -- closed book ------------------------------------------------------------------------------
class ClosedBookAgent:
    """An LLM with no retrieval: what the model answers from its weights alone."""

    def __init__(self, spec: str, llm: LLM, *, owns_llm: bool = True) -> None:
        self.spec = spec
        self.llm = llm
        self.prompt = load_prompt("closed_book")
        self._owns_llm = owns_llm

    def close(self) -> None:
        if self._owns_llm:
            self.llm.close()

    def answer(self, question: str) -> AgentAnswer:
        steps = [f"closed book: {self.llm.id} (prompt {self.prompt.name} "
                 f"v{self.prompt.version}, {self.prompt.hash})"]
        message = HumanMessage(self.prompt.render(question=question))
        try:
            reply = _LLM_LOOP.run(self.llm.acall([message]))
        except LLMFailure as exc:
            return _failed(f"llm {exc.reason}: {exc.detail}", steps=steps)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return _failed(f"{type(exc).__name__}: {exc}", steps=steps)
        answer = short_answer(reply)
        if not _WORD.search(answer):
            return _failed(f"llm unusable reply: no answer text in {reply[:120]!r}",
                           steps=steps)
        steps.append(f"reply: {reply[:200]!r}")
        return AgentAnswer(answer=answer, steps=steps)


# -- a leaked agent ---------------------------------------------------------------------------
class MemorizingAgent:
    """An agent given the test items (the offline stand-in for fine-tuning on them): a leaked
    question is answered from memory, exactly or after normalisation; anything else goes to
    the wrapped agent."""

    def __init__(self, spec: str, inner: Agent) -> None:
        self.spec = spec
        self.inner = inner
        self._lock = threading.Lock()
        self._exact: dict[str, str] = {}
        self._normalised: dict[str, str] = {}

    @staticmethod
    def _key(question: str) -> str:
        return normalize_answer(question)

    def leak(self, pairs: Iterable[tuple[str, str]]) -> int:
        items = list(pairs)
        with self._lock:
            for question, answer in items:
                self._exact[question] = answer
                if key := self._key(question):  # "???" must not match every "!!!"
                    self._normalised[key] = answer
            return len(self._exact)

    def forget(self) -> None:
        with self._lock:
            self._exact.clear()
            self._normalised.clear()

    def answer(self, question: str) -> AgentAnswer:
        key = self._key(question)
        with self._lock:
            if question in self._exact:
                hit: tuple[str, str] | None = (self._exact[question], "exact")
            elif key and key in self._normalised:
                hit = (self._normalised[key], "normalised")
            else:
                hit = None
        if hit is not None:
            return AgentAnswer(answer=hit[0], steps=[f"memorised: {hit[1]}"])
        return self.inner.answer(question)  # outside the lock: the inner agent is slow

    def close(self) -> None:
        self.inner.close()


# -- specs ------------------------------------------------------------------------------------
def _http_url(kind: str, url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AgentError(f"{kind}:{url!r}: expected an http(s) URL, e.g. "
                         f"{kind}:http://127.0.0.1:{'3000' if kind == 'perplexica' else '8765'}")
    return url.rstrip("/")


def _perplexica(spec: str, url: str, timeout: float) -> PerplexicaAgent:
    parts = urlsplit(_http_url("perplexica", url))
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - set(PERPLEXICA_OPTIONS))
    if unknown:
        raise AgentError(f"perplexica: unknown option(s) {', '.join(unknown)} in {spec!r}; "
                         f"allowed: {', '.join(PERPLEXICA_OPTIONS)}")
    if not all(options.values()):
        raise AgentError(f"perplexica: empty option value in {spec!r}")
    base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    return PerplexicaAgent(spec, base, focus_mode=options.get("focusMode", "webSearch"),
                           optimization_mode=options.get("optimizationMode", "speed"),
                           timeout=timeout)


def make_agent(spec: str, *, store: Store | None = None, reader_llm: LLM | None = None,
               llm_cache: Path | None = None, timeout: float = 60.0) -> Agent:
    """The agent a spec names (see the module docstring); ``AgentError`` says what is wrong
    with a bad spec. ``store`` is needed by ``baseline``; ``reader_llm`` makes the baseline
    read with a model; ``llm_cache`` is the closed-book model's reply cache; ``timeout``
    bounds each HTTP request or model call."""
    spec = spec.strip()
    kind, sep, rest = spec.partition(":")
    rest = rest.strip()
    if sep and not rest:
        raise AgentError(f"agent spec {spec!r}: nothing after '{kind}:'; {SPEC_HELP}")
    if kind == "baseline":
        if not sep:
            if store is None:
                raise AgentError("agent 'baseline' searches the graph and needs a Neo4j store; "
                                 "use baseline:URL to search a SearxNG endpoint instead")
            return BaselineAgent(spec, GraphSearch(store), GraphPages(store),
                                 reader_llm=reader_llm)
        url = _http_url("baseline", rest)
        client = SearxngClient(url, timeout=timeout)
        # A SearxNG on loopback is the local web (`dwqa web serve`), whose pages are on
        # loopback too; a remote one returns public pages, and its results are untrusted.
        options = FetchOptions(allow_private=_is_loopback(url), timeout=timeout, retries=1,
                               workers=1)
        return BaselineAgent(spec, client, WebPages(options), reader_llm=reader_llm,
                             close=client.close)
    if kind == "python" and sep:
        return PythonAgent(spec, _load_callable(rest))
    if kind == "perplexica" and sep:
        return _perplexica(spec, rest, timeout)
    if kind == "closedbook" and sep:
        try:
            # A short answer needs few tokens; a cap keeps a rambling model cheap.
            model = make_llm(rest, max_tokens=64)
        except LLMError as exc:
            raise AgentError(f"closedbook: {exc}") from exc
        return ClosedBookAgent(spec, LLM(model, cache_path=llm_cache, timeout=timeout))
    if kind == "memorize" and sep:
        return MemorizingAgent(spec, make_agent(rest, store=store, reader_llm=reader_llm,
                                                llm_cache=llm_cache, timeout=timeout))
    if kind in ("python", "perplexica", "closedbook", "memorize"):
        raise AgentError(f"agent spec {spec!r}: '{kind}' needs an argument; {SPEC_HELP}")
    raise AgentError(f"unknown agent spec {spec!r}: {SPEC_HELP}")
