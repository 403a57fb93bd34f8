"""The temporal form: two dated facts of one subject, the first earlier (two of its events:
"signed for Real Madrid", "signed for Juventus"; a birth and an event, asked as an age), or a
maker's birth and their work's date. Paths: ``cypher/paths/temporal.cypher``."""

from __future__ import annotations

import random
import re
from typing import Any

from lemminflect import getInflection

from dwqa_graph.language.lexicon import (
    NAME_PARTICLES,
    REPEATED_ACTIVITY_VERBS as _RECURRING,
    legal_form_pattern,
)
from dwqa_graph.rounds.checks import copied_run
from dwqa_graph.rounds.forms.base import (
    FormBase,
    Path,
    PathFact,
    PathGraph,
    Rendered,
    Unworded,
    pick,
    type_ok,
    whole_years,
    years,
)
from dwqa_graph.rounds.forms.credits import role_problem

#: One subject: (first, second) relation pairs, the first earlier. The second may be an
#: entity fact with its stated year ("won the award in 2016"), or an event worded by its
#: phrase ("signed for Juventus"; an event without one names nothing a reader can find).
PAIRS = (("born", "died"), ("born", "won"), ("born", "married"), ("born", "member_of"),
         ("founded", "opened"), ("released", "won"), ("born", "event"), ("founded", "event"),
         ("event", "event"))
#: Linked: a maker's birth and the date of the work or organisation.
MAKERS = ("directed_by", "written_by", "created_by", "founded_by")
WORKS = ("released", "founded")


def _known_to_the_month(f: PathFact) -> bool:
    return bool(f.date) and f.precision in ("month", "day")


#: One subject: (first, second) -> (subject type, phrasings over {S} (subject) and {O} (the
#: second fact's object) counting years, and the age phrasings used where the dates decide
#: the whole years between them (``whole_years``). From two years, "how old" or "how many
#: years after being born" has two answers; the year phrasings say how years are counted.
_TEMPORAL: dict[tuple[str, str], tuple[str | None, dict[str, str], dict[str, str]]] = {
    # {s2}: the subject again, by its pronoun where known, else by surname; {p}: the pronoun
    # only (a frame with {p} is used only where it is known); {unit}: "years", or "months"
    # where only months give one answer (``_unit``). After a birth only ages: "What age did
    # X turn in the year ...": the age a person reaches in a calendar year is that year
    # minus the birth year, so the year difference is its one answer (unlike "how old was X
    # when ...", asked only where the dates decide it); a last resort (``_render``). "How
    # many years after X was born ..." is an age with two answers, and its "calendar years"
    # read as a fill-in frame to every reviewer.
    ("born", "won"): ("PERSON", {"a7": "What age did {S} turn in the year {p} won {O}?",
                                 "a9": "In the year {p} won {O}, how old did {S} turn?"},
                      {"o1": "How old was {S} when {p} won {O}?",
                       "o2": "At what age did {S} win {O}?"}),
    ("born", "married"): ("PERSON", {
        "a7": "What age did {S} turn in the year {p} married {O}?",
        "a9": "In the year {p} married {O}, how old did {S} turn?"},
        {"o1": "How old was {S} when {p} married {O}?",
         "o2": "At what age did {S} marry {O}?"}),
    ("born", "member_of"): ("PERSON", {
        "a7": "What age did {S} turn in the year {p} joined {O}?",
        "a9": "In the year {p} joined {O}, how old did {S} turn?"},
        {"o1": "How old was {S} when {p} joined {O}?", "o2": "At what age did {S} join {O}?"}),
    ("founded", "opened"): (None, {
        "t2": "How many {unit} after {S} was founded did it open?"}, {}),
    ("released", "won"): (None, {
        "t2": "How many {unit} after {S} was released did it win {O}?"}, {}),
    # events, by their phrases ({P1}, {P2}: "signed for Juventus"); {D2}: the second event
    # as a question's clause about {s2} ("did he sign for Juventus", "was Kalam elected as
    # ..."). The frames without {D2} (a fact with no verb to put in the base form) read as
    # fill-in frames to reviewers (all of them, against 1 in 7 of "How many calendar years
    # after ... did ...?"): only a fallback, and only counting years.
    # {G1}: the first event as a gerund ("signing The Duffer Brothers", "being elected to
    # the Senate"), so the subject is named once, in the clause {DS2} ("did Netflix appoint
    # ...") -- reviewers marked "after {S} was born did {s} ..." and "{S} {P1}. How many ...
    # later" template-like, and a subject next to its phrase copies the sentence's words.
    # {W2}: the second event after "when" ("making his 100th appearance", "elected to ...").
    # {G2}: the second event as a gerund, {DS1}: the first as a clause naming the subject
    # ("How many years before signing for Juventus did Cristiano Ronaldo sign for ...?").
    ("born", "event"): ("PERSON", {
        "a7": "What age did {S} turn in the year {p} {P2}?",
        "a8": "How old did {S} turn in the year {p} {P2}?",
        "a9": "In the year {p} {P2}, how old did {S} turn?"},
        # {W2} (a gerund, "when entering ...") only where no pronoun and no clause fit
        {"o1": "How old was {S} when {p} {P2}?", "o2": "At what age {DS2}?",
         "o3": "How old was {S} when {W2}?"}),
    ("founded", "event"): (None, {
        "t1": "How many years passed between the year {S} was founded and the year {s2} "
              "{P2}?",
        "t4": "How many {unit} after {S} was founded {D2}?",
        "t6": "How many {unit} had passed since the founding of {S} when {s2} {P2}?",
        "t7": "In the year {S} {P2}, how many years had passed since its founding?"},
        {"o1": "How old was {S} when {s2} {P2}?"}),
    ("event", "event"): (None, {
        "e1": "How many years passed between the year {S} {P1} and the year {s2} {P2}?",
        "e4": "How many {unit} after {S} {P1} {D2}?",
        "e6": "How many {unit} after {G1} {DS2}?",
        "e7": "How many {unit} before {G2} {DS1}?"}, {}),
}


#: Where neither years nor months give one answer (a date known to the day against one known
#: by its year, or whole years against the year difference beyond ``MAX_MONTHS``): the first
#: event anchored by its year, so the difference of the years is the one count ("How many
#: years after the year Amazon was founded did it acquire Junglee?": 1998 - 1994). Blind
#: reviewers marked these template-like (12 times in 12), so they are a last resort
#: (``render(last_resort=True)``): a round uses them only for a graph no other wording of any
#: of its paths gives an item.
_YEAR_ANCHORED: dict[tuple[str, str], dict[str, str]] = {
    ("founded", "opened"): {"y1": "How many years after the year {S} was founded did it open?"},
    ("released", "won"): {
        "y1": "How many years after the year {S} was released did it win {O}?"},
    ("founded", "event"): {"y1": "How many years after the year {S} was founded {D2}?"},
    ("born", "event"): {"y1": "How many years after the year {S} was born {D2}?"},
    ("event", "event"): {"y1": "How many years after the year {S} {P1} {D2}?"},
}


_YEAR_ANCHORED_KEYS = {k for frames in _YEAR_ANCHORED.values() for k in frames}


def _as_itself(f: PathFact) -> bool:
    """An event whose subject would play itself: "He made his first screen appearance as
    Aidan" on the character Aidan Foster's page, where "he" is the actor the page named
    before (reviewers rejected "Aidan Foster made his first screen appearance as Aidan"
    every time). The fact's subject is wrong; the facts stage reads the pronoun."""
    names = {w.lower() for w in re.findall(r"[A-Z][\w'-]+", f.subject)}
    # a role by name, not "was recognised as the Parson Jack Russell Terrier" (a thing's
    # other name)
    return any(w.lower() in names for w in re.findall(r"\bas ([A-Z][\w'-]+)", f.phrase or ""))


#: Words by which a phrase names one occasion of them: "made his debut", "first met",
#: "his 100th appearance", "its final performance".
_ONE_OCCASION = re.compile(
    r"\b(?:first|debut|last|final|maiden|inaugural|\d+(?:st|nd|rd|th))\b", re.IGNORECASE)


#: Of them, the verbs that name a work or a role by what follows them: "appeared in Adam
#: McKay's film", "appeared as Vivian Daniels", "played Mika Cavanaugh in ..." are one
#: occasion; "appeared at the White House Correspondents' Dinner", "played at the Tal
#: Memorial", "played for New South Wales" are not.
_IN_A_ROLE = frozenset({"appear", "play", "perform"})


def recurring(f: PathFact) -> bool:
    """Whether ``f`` is an event of a kind its subject repeats, worded without the one
    occasion it was (``_RECURRING``): as a question's anchor it has more than one date. A
    phrase names the occasion by an ordinal or "first", "debut", "final" ..., by a quoted
    title (a work), or, for an appearance, by the work or role it was in."""
    verb = (f.verb or "").split(" ")[0].lower()
    if f.relation != "event" or verb not in _RECURRING:
        return False
    phrase = _phrase(f)
    if _ONE_OCCASION.search(phrase) or re.search(r"[\"“]", phrase):
        return False
    words = phrase.split()
    if words and words[0].lower() in ("was", "were"):
        words = words[1:]
    after = words[1] if len(words) > 1 else ""
    in_a_role = after in ("in", "as") or (verb == "play" and after[:1].isupper())
    return not (verb in _IN_A_ROLE and in_a_role)


def _phrase(f: PathFact) -> str:
    """An event's phrase as a question quotes it: without a dash the sentence ran on with
    ("performed on Louisiana Hayride—")."""
    return (f.phrase or "").strip(" -–—")


def gerund_clause(f: PathFact, when: bool = False) -> str | None:
    """An event as a gerund clause with no subject: "signed for Juventus" -> "signing for
    Juventus", "was elected to the Senate" -> "being elected to the Senate" (after
    ``when``: "elected to the Senate"). The inflection is the library's (lemminflect)."""
    first, _, rest = _phrase(f).partition(" ")
    if not rest:
        return None
    if first.lower() in ("was", "were"):
        return rest if when else f"being {rest}"
    if not f.verb:
        return None
    forms = getInflection(f.verb.split()[0], tag="VBG")
    return f"{forms[0]} {rest}" if forms else None


def event_clause(f: PathFact, subject: str) -> str | None:
    """An event as a question's clause about ``subject``: "signed for Juventus" -> "did
    Ronaldo sign for Juventus" (the verb is the phrase's first word; the fact's lemma is its
    base form), "was elected to the Senate" -> "was Van Buren elected to the Senate". None
    when the verb's base form is unknown."""
    first, _, rest = _phrase(f).partition(" ")
    if not rest:
        return None
    if first.lower() in ("was", "were"):
        return f"{first.lower()} {subject} {rest}"
    if not f.verb:
        return None
    return f"did {subject} {f.verb.split()[0]} {rest}"


#: Name suffixes a surname is not ("Martin Luther King Jr.", "Pope Benedict XVI"; a company
#: the tagger took for a person, "Tesla, Inc.", is named whole).
_LEGAL_FORM = legal_form_pattern()
_SUFFIX = re.compile(rf"(?i)^(jr\.?|sr\.?|[ivxlc]+|co|{_LEGAL_FORM})$")
#: A company's legal form closing its name.
_COMPANY = re.compile(rf"(?i)[\s,]({_LEGAL_FORM})$")


def pronoun(f: PathFact) -> str | None:
    """The pronoun a question refers to the fact's subject by, once named: "it" for anything
    but a person, "he" or "she" as the person's own page says; None (named again) where the
    page does not say -- a person has no default. A company the tagger took for a person
    ("Tesla, Inc.", whose page says "he" of Musk) is "it"."""
    if f.subject_type != "PERSON" or _COMPANY.search(f.subject):
        return "it"
    return f.subject_pronoun if f.subject_pronoun in ("he", "she") else None


def short_name(name: str, entity_type: str) -> str:
    """A person named again in one question: by surname ("Ronaldo", "Van Buren"); a regnal
    or family suffix keeps the whole name, and anything but a person is named whole."""
    words = name.split()
    if entity_type != "PERSON" or len(words) < 2 or _SUFFIX.match(words[-1]):
        return name
    i = len(words) - 1
    while i > 1 and words[i - 1].lower() in NAME_PARTICLES:
        i -= 1
    return " ".join(words[i:])


#: A maker's birth and their work's date: maker relation -> work's relation -> phrasings
#: over {W} (the work) and {P} (the maker, named only in the phrasings that say so).
_MAKER: dict[tuple[str, str], dict[str, str]] = {
    ("directed_by", "released"): {
        "m1": "How many years separate the birth year of the director of {W} and the year "
              "{W} was released?",
        "m2": "{W} came out how many years after its director's birth year?"},
    # "came out": a written work may be a book (published) or a film (released)
    ("written_by", "released"): {
        "m1": "How many years separate the birth year of the writer of {W} and the year {W} "
              "came out?",
        "m2": "{W} came out how many years after its writer's birth year?"},
    ("created_by", "released"): {
        "m1": "How many years separate the birth year of the creator of {W} and the year "
              "{W} was released?"},
    ("founded_by", "founded"): {
        "m1": "How many years separate the birth year of {P} and the year {P} founded {W}?",
        "m2": "{W} was founded how many years after the birth year of its founder {P}?"},
}


#: The frames a temporal path is worded with only where no other fits.
_FALLBACK = {"t1", "e1"}


def _render(p: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
    f1, f2 = p.facts[0], p.facts[1]
    y1, y2 = f1.the_year, f2.the_year
    if y1 is None or y2 is None:
        raise Unworded("no_year")
    if len(p.facts) > 2:  # the maker's birth (f1), the work's date (f2), the credit
        credit = p.facts[2]
        frames = _MAKER.get((credit.relation, f2.relation))
        if frames is None or f1.subject_type != "PERSON":
            raise Unworded("no_template")
        if y2 <= y1:
            raise Unworded("order")
        key, frame = pick(rng, frames)
        question = frame.format(W=f2.subject_named, P=f1.subject_named)
        anchors = [f2.subject] + ([f1.subject] if "{P}" in frame else [])
        return Rendered(question=question, answer=years(y2 - y1), answer_type="number",
                        pattern="temporal",
                        phrasing=f"temporal/{credit.relation}+{f2.relation}.{key}",
                        anchors=anchors, detail={"years": [y1, y2], "via": credit.relation})
    if (f1.relation, f2.relation) == ("born", "died"):
        age = whole_years(f1, f2)
        if age is None or age < 0:
            raise Unworded("age_needs_days")  # an age from two years is off by one
        key, frame = pick(rng, {"a1": "How old was {S} at the time of death?",
                                 "a2": "At what age did {S} die?"})
        question = frame.format(S=f1.subject_named)
        return Rendered(question=question, answer=str(age), answer_type="number",
                        pattern="temporal", phrasing=f"temporal/born+died.{key}",
                        anchors=[f1.subject],
                        detail={"dates": [f1.date, f2.date], "age": age})
    entry = _TEMPORAL.get((f1.relation, f2.relation))
    if entry is None:
        raise Unworded("no_template")
    s_type, frames, age_frames = entry
    if not type_ok(s_type, f1.subject_type):
        raise Unworded("entity_types")
    if y2 <= y1:
        raise Unworded("order")
    if "{O}" in "".join(frames.values()) and not f2.object:
        raise Unworded("no_object")
    if any(f.relation == "event" and _as_itself(f) for f in (f1, f2)):
        raise Unworded("as_itself")
    if any(recurring(f) for f in (f1, f2)):
        raise Unworded("recurring_event")
    if any(f.relation == "event" and not f.phrase for f in (f1, f2)):
        raise Unworded("no_phrase")
    pron = pronoun(f1)
    s2 = pron or short_name(f1.subject, f1.subject_type)
    slots = {"S": f1.subject_named, "O": f2.object_named or "", "P1": _phrase(f1),
             "P2": _phrase(f2), "s2": s2, "p": pron or "", "D2": event_clause(f2, s2) or "",
             "DS1": (event_clause(f1, f1.subject_named) or "") if f1.relation == "event"
             else "",
             "DS2": event_clause(f2, f1.subject_named) or "",
             "G1": (gerund_clause(f1) or "") if f1.relation == "event" else "",
             "G2": (gerund_clause(f2) or "") if f2.relation == "event" else "",
             "W2": (gerund_clause(f2, when=True) or "") if f2.relation == "event" else ""}
    evidence = [f.evidence for f in p.facts]

    def filled(frame: str) -> bool:
        return all(slots[x] for x in re.findall(r"\{(\w+)\}", frame))

    def fits(options: dict[str, str]) -> dict[str, str]:
        """The frames whose slots the facts fill and whose wording copies no run the checks
        refuse (a frame quoting "he" and the phrase as its sentence has them may)."""
        return {k: v for k, v in options.items()
                if filled(v) and not copied_run(v.format(**slots), evidence)}

    whole = whole_years(f1, f2)
    ages = fits(age_frames) if whole is not None and whole >= 0 else {}
    if len(ages) > 1:
        ages.pop("o3", None)  # the gerund "when entering ..." only where nothing else fits
    if f1.relation == "born":
        # an age: as a person asks it where the dates decide it, else the age turned in
        # the event's year (its one answer is the year difference)
        if ages:
            key, frame = pick(rng, ages)
            return Rendered(question=frame.format(**slots), answer=str(whole),
                            answer_type="number", pattern="temporal",
                            phrasing=f"temporal/{f1.relation}+{f2.relation}.{key}",
                            anchors=[f1.subject] + ([f2.object] if f2.object else []),
                            detail={"dates": [f1.date, f2.date], "age": whole})
        # the age turned in the event's year ("What age did X turn in the year he ...?",
        # "In the year he ..., how old did X turn?"): its one answer is the year difference,
        # but blind reviewers read its three word orders as one fill-in frame (most of the
        # template-like items of review R49), so it is a last resort like the year-anchored
        # frames: a round words another path of the graph first and caps the share of both
        # (``path_generate.LAST_RESORT_SHARE``). The frames copy "he" and the event's phrase
        # as its sentence has them: where that is a run the checks refuse, none fits.
        if not last_resort:
            raise Unworded("no_age_wording")
        turned = fits(frames)
        # where each copies its sentence, the event's verb in the base form: "How many
        # years after the year Clay Buchholz was born did he make his MLB debut ...?"
        # (with the pronoun only: "was born did Snowden ..." read as mechanical)
        anchored = {} if turned or not pron else fits(
            _YEAR_ANCHORED.get((f1.relation, f2.relation), {}))
        if not turned and not anchored:
            raise Unworded("no_age_wording")
        key, frame = pick(rng, turned or anchored)
        return Rendered(question=frame.format(**slots),
                        answer=str(y2 - y1) if turned else years(y2 - y1),
                        answer_type="number", pattern="temporal",
                        phrasing=f"temporal/{f1.relation}+{f2.relation}.{key}",
                        anchors=[f1.subject] + ([f2.object] if f2.object else []),
                        detail={"years": [y1, y2], "last_resort": True})
    unit, count = _unit(f1, f2, whole)
    slots["unit"] = unit
    if unit == "months":
        # "In the year ..." and the year-by-year fallbacks count years only
        frames = {k: v for k, v in frames.items() if "{unit}" in v}
    elif unit == "":
        # no count of years or months has one answer: the first event's year is the anchor
        frames = _YEAR_ANCHORED.get((f1.relation, f2.relation), {}) if (
            last_resort and not ages) else {}
        count = y2 - y1
    # the "years passed between the year ..." frames only where no other fits (reviewers
    # read them as fill-in frames)
    usable = {k: v for k, v in frames.items() if filled(v)}
    frames = {k: v for k, v in usable.items() if k not in _FALLBACK} or usable
    frames = {**frames, **ages}  # "How old was Netflix when it ...", among the others
    if not frames:
        raise Unworded("interval_ambiguous" if unit == "" else "no_template")
    key, frame = pick(rng, frames)
    question = frame.format(**slots)
    if key in age_frames and whole is not None:  # (an age frame is offered only then)
        answer = years(whole)
    else:
        counted = unit or "years"
        answer = f"{count} {counted[:-1] if count == 1 else counted}"
    return Rendered(question=question, answer=answer, answer_type="number",
                    pattern="temporal", phrasing=f"temporal/{f1.relation}+{f2.relation}.{key}"
                    + (".m" if unit == "months" and key not in age_frames else ""),
                    anchors=[f1.subject] + ([f2.object] if f2.object else []),
                    detail={"years": [y1, y2]} | ({"whole_years": whole}
                                                  if whole is not None else {})
                    | ({"months": count} if unit == "months" else {})
                    | ({"last_resort": True} if key in _YEAR_ANCHORED_KEYS else {}))


#: The longest interval asked in months: beyond it a reader counts years.
MAX_MONTHS = 36


def _unit(f1: PathFact, f2: PathFact, whole: int | None) -> tuple[str, int]:
    """How an interval from ``f1``'s date to ``f2``'s is counted so that it has one answer:
    ("years", the difference of the years) where both dates are known by their years only
    (all a reader can count) or where counting whole years gives the same number;
    ("months", the months between them) where both are known to the month, the years give
    two answers and the months one; ("", 0) where neither does -- a date known to the day
    against one known by its year ("How many years had passed since the founding of
    Amazon [5 July 1994] when it acquired Junglee [1998]?" is 3 or 4): then only a wording
    that anchors the first event by its year (``_YEAR_ANCHORED``) or an age the dates
    decide. ("Calendar years" there read as a fill-in frame to every reviewer.)"""
    y1, y2 = f1.the_year or 0, f2.the_year or 0
    finer = [_known_to_the_month(f) for f in (f1, f2)]
    if not any(finer) or (all(finer) and whole == y2 - y1):
        return "years", y2 - y1
    if not all(finer):
        return "", 0
    (m1, *d1), (m2, *d2) = ([int(x) for x in (f.date or "").split("-")[1:3]] for f in (f1, f2))
    months = (y2 - y1) * 12 + m2 - m1
    # to the day, whole months are the calendar months only from an earlier day of the
    # month; a day against a month only is ambiguous again
    if len(d1) != len(d2) or (d1 and d2[0] < d1[0]) or not 0 < months <= MAX_MONTHS:
        return "", 0
    return "months", months


def _posthumous(g: PathGraph, path: Path) -> bool:
    """A fact of a person's life and one after their death (a posthumous award, a coin in
    their image): "what age did Elvis Presley turn in the year he was awarded ..." asks the
    age of a dead man, and years from an election to a commemorative coin count nothing of
    the life. The death is any fact of the graph that dates it; the death itself may be
    paired with what came after it."""
    if len(path.facts) != 2 or path.facts[0].relation == "died":
        return False
    person, year = path.facts[0].subject_id, path.facts[1].the_year
    return year is not None and any(
        f.relation == "died" and f.subject_id == person and f.year is not None
        and f.year < year for p in g.paths for f in p.facts)


class Temporal(FormBase):
    name = "temporal"

    def params(self) -> dict[str, Any]:
        return {"pairs": [list(p) for p in PAIRS], "makers": list(MAKERS),
                "works": list(WORKS)}

    def render(self, path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
        return _render(path, rng, last_resort)

    def problems(self, g: PathGraph, path: Path, texts: dict[str, str]) -> list[str]:
        """A maker's birth read from a page that does not call them by the credit's role
        (``credits.role_problem``); a birth paired with an event after the death."""
        out = []
        if len(path.facts) > 2:  # the maker's birth, the work's date, the credit
            role = role_problem(path.facts[2], path.facts[0], texts)
            if role:
                out.append(role)
        if _posthumous(g, path):
            out.append("posthumous")
        return out

    def unworded(self) -> list[str]:
        worded = set(_TEMPORAL) | {("born", "died")}
        out = [f"{a}+{b}" for a, b in PAIRS if (a, b) not in worded]
        if not {(m, w) for m in MAKERS for w in WORKS} & set(_MAKER):
            out.append("makers")
        return out


FORM = Temporal()
