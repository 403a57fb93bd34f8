"""The baseline agent's reader: find the best-supported sentence and a short answer in it.

Deterministic and model-free on purpose — it is the reference point every other agent is
compared with, and Leak&Test needs an M whose answers do not drift between runs. Sentences
are ranked by idf-weighted overlap with the question's content words (crude stemming; the
page title and the previous sentence add context at a lower weight), with a bonus when a
sentence holds an answer of the expected type (year, date, number, quantity, entity, subject,
yes/no) near the question's words. The answer is a short span of that type that is not in
the question, because answers are scored by exact match and a whole sentence scores 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

from dwqa_graph.language.lexicon import MONTH_ABBREVIATIONS, MONTHS, TITLES, WEEKDAYS, verb_lemma
from dwqa_graph.language.sentences import split_sentences as sentences_of
from dwqa_graph.text import STOP_WORDS, normalize_answer

AnswerType = Literal["year", "date", "number", "quantity", "entity", "subject", "yesno",
                     "other"]

# Question words carry no topic: matching them would favour sentences that are questions.
_QUESTION_WORDS = frozenset(
    "how many much did does do whom whose has have had been can could would should s".split())
_STOP = STOP_WORDS | _QUESTION_WORDS
WORD = re.compile(r"\w+")
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
# Past tenses that make "What <verb> ...?" ask for the subject ("What caused the fire?").
_PAST = re.compile(r"^(?:\w+ed|" + "|".join(sorted(
    {"began", "built", "led", "made", "brought", "gave", "took", "drove", "kept", "left",
     "forced", "hit", "struck", "broke", "set", "put", "won", "held"})) + ")$")
_BE = frozenset("is are was were be been being".split())
_BY_AGENT = re.compile(r"\s+by\s+((?:(?!\b(?:and|which|that|who|after|before|when)\b)"
                       r"[^,;.()])+)")
_NEGATION = frozenset("not no never none neither nor without cannot".split())
# Titles before a name are not part of the name a gold answer gives ("Mayor Edda Quist").
_CONNECTORS = frozenset("of the de del der den van von du la le y for".split())
# Capitalised because they start a sentence, not because they name something.
_CAPITALISED_FUNCTION_WORDS = frozenset(
    "the a an in on at by for from to of it its this that these those he she they we i you "
    "after before according when while since until during because as but and or if so "
    "there here his her their our my your all some most many no yes one two both each "
    "however also then today yesterday what which who where why how is are was were".split())
_CALENDAR_WORDS = frozenset(w.lower() for w in MONTHS + WEEKDAYS)
_MONTH = rf"(?:{'|'.join(MONTHS + MONTH_ABBREVIATIONS)})\.?"
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
    """A crude suffix stripper over the verb's lemma: "opened"/"opens" meet "open", "stops"
    meets "stop", and irregular verbs meet their base form ("began" -> "begin")."""
    if word.isdigit():
        return word
    word = verb_lemma(word) or word
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def content_terms(text: str) -> list[str]:
    """Stemmed words of ``text`` that carry topic (no stop or question words)."""
    return [_stem(w) for w in WORD.findall(text.lower()) if w not in _STOP]


def split_sentences(text: str) -> list[str]:
    """Sentences of extracted page text (``language.sentences``), a table row's cells read as
    one sentence ("| Deaths | 4 |" as "Deaths; 4"), lines with no word left out."""
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("|"):
            line = "; ".join(c.strip() for c in line.strip("|").split("|") if c.strip())
        if WORD.search(line):
            out += sentences_of(line)
    return out


def answer_type(question: str) -> AnswerType:
    """What kind of short answer the question asks for (by its wording only)."""
    q = " ".join(question.lower().split())
    words = WORD.findall(q)
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
                if not run and (low in _CAPITALISED_FUNCTION_WORDS or low in TITLES
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


def analyse(question: str) -> _Question:
    kind = answer_type(question)
    low = question.lower()
    words = set(WORD.findall(low))
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
    for m in WORD.finditer(sentence):
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
    tokens = list(WORD.finditer(sentence))
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


def yes_no(sentence: str, q: _Question, weights: dict[str, float]) -> str:
    """"yes" when the sentence covers most of the question's weight, mentions every number
    it asks about, and agrees with it on negation; otherwise "no"."""
    own = set(content_terms(sentence))
    total = sum(weights.get(t, 0.0) for t in q.terms) or 1.0
    covered = sum(weights.get(t, 0.0) for t in q.terms & own) / total
    numbers = {w for w in q.words if any(c.isdigit() for c in w)}
    sentence_words = set(WORD.findall(sentence.lower()))
    negated_s = bool(_NEGATION & sentence_words) or "n't" in sentence.lower()
    negated_q = bool(_NEGATION & q.words) or "n't" in q.text.lower()
    yes = covered >= _YESNO_COVERAGE and numbers <= sentence_words and negated_s == negated_q
    return "yes" if yes else "no"


def shortest_clause(sentence: str, q: _Question) -> str:
    clauses = re.split(r"[,;:()]|\s[-–—]\s|\b(?:and|but|because|which|while)\b", sentence)
    kept = []
    for clause in clauses:
        words = [w for w in clause.split() if w.lower().strip(".,!?\"'") not in q.words]
        if any(WORD.search(w) for w in words):
            kept.append(" ".join(words).strip(" .,!?"))
    return min(kept, key=len) if kept else ""


class Scored(NamedTuple):
    score: float
    doc_rank: int
    position: int
    sentence: str
    answer: _Span | None  # the best candidate of the expected type, if any


def rank_sentences(question: _Question, docs: Sequence[tuple[int, str, str]],
                   ) -> tuple[list[Scored], dict[str, float]]:
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
    common = frozenset(w for *_, s in sentences for w in WORD.findall(s) if w.islower())
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
        scored.append(Scored(score, rank, i, sentence, answer))
    scored.sort(key=lambda s: (-s.score, s.doc_rank, s.position))
    return scored, idf
