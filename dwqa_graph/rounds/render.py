"""Stage 4b (fact paths) — wording a path as a question, by relation templates.

Every template is a whole question over typed slots (a person, a work, a place, a year), so
there are no clause fragments: the subject and object of each fact are resolved entities,
the dates are the facts' own. Several phrasings per form and relation, chosen with r_i,t.
The answer is computed from the facts, never read from the wording.

``render(path, rng)`` returns the question, the answer, its type and what it was computed
from, or raises ``Unworded`` when no template fits the path's types (a path whose entities
are of the wrong kind for its relation is a reading error, not a question).
"""

from __future__ import annotations

import random
import re
from typing import Any, Literal

from lemminflect import getInflection
from pydantic import BaseModel, Field

from dwqa_graph.facts.models import whole_years as facts_whole_years
from dwqa_graph.facts.resolve import title_qualifier
from dwqa_graph.rounds.checks import copied_run
from dwqa_graph.rounds.paths import Path, PathFact

AnswerType = Literal["entity", "date", "number", "choice"]

#: Share of comparisons asked as "which first, A or B?" (two options: a coin flip scores
#: 50%, QUALITY.md caps a set's two-option items at 20%); the rest ask the difference.
CHOICE_SHARE = 0.15
#: Part of θ: bump when a phrasing changes (2: a writer's work "came out", not "was published";
#: 3: an entity is named with its page title's qualifier, "The Golden Calf (1930 film)";
#: 4: "how many calendar years after ... did ..." phrasings with the event's verb in the base form;
#: 5: a surname keeps its particle, "Van Buren"; an event's phrase loses a trailing dash;
#: 6: years between two facts asked "How many calendar years after ... did ...?" wherever the
#: event has a verb, the frames blind reviewers marked template-like only as a fallback; a
#: company's legal form is no surname; 7: a title's qualifier as a reader writes it, "the
#: 1930 film The Golden Calf"; 8: the first of two events as a gerund, the subject named
#: once ("How many calendar years after signing X did Netflix ...?"), an age "when making
#: ...", no "X did Y. How many ... later" frame; 9: "calendar" only where a date is known
#: to the month or day, "had passed since"; no "after being born"; 10: a comparison's link
#: after the pair it links, not after the second subject -- "… differ from that of Hannah
#: Hoes, who married each other?" read as hers); 11: the subject named once, then by its
#: pronoun ("did he sign", "did it launch": reviewers marked "after Edward Snowden was born
#: did Snowden ..." mechanical), an age "turned in the year ...", an interval asked
#: "how many years before ..."); 12: a birth asked as the age turned in the event's year
#: wherever the person's pronoun is known; 13: "calendar" only where the two ways of counting
#: years give different answers (review S marked "How many calendar years ..." template-like
#: 36 times in 36); an age "How old was X when he ...?" / "At what age did X ...?" wherever
#: the dates decide it (a birth to the day, an event in another month or to the day); "How
#: old did X turn in the year ..."; no "How many years after its founding did X ...?" (a
#: question opening on "its" is refused as a dangling reference once "calendar" goes); 14:
#: "calendar" also where one date is known to the month or day and the other only by its
#: year (review X: "How many years had passed since the founding of Amazon [5 July 1994]
#: when it acquired Junglee [1998]?" is 3 or 4 to a reader who counts whole years); 15: no
#: "calendar" (review Y marked it template-like 12 times in 12): after a birth only ages,
#: "how many months" where both dates are known to the month and the years give two
#: answers, else "How many years after the year X ..."; 16: the age turned also asked with
#: the event first, "In the year he signed for Juventus, how old did Cristiano Ronaldo
#: turn?" (review R33 marked "What age did X turn in the year ..." template-like where a set
#: repeats it); 17: no event a subject does again and again (a visit, a meeting, an
#: interview, an appearance) unless its phrase names the one occasion (``recurring``); 18:
#: nor a voyage, a return or an illness ("sailed to New York", "returned to the U.S.",
#: "contracted COVID-19": reviews R40, R41).
TEMPLATES_VERSION = "18"


class Unworded(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Rendered(BaseModel):
    question: str
    answer: str
    answer_type: AnswerType
    pattern: str = Field(description="bridge / intersection / comparison / temporal.")
    phrasing: str = Field(description="Template key: the set's phrasing variety.")
    two_option: bool = False
    options: list[str] = Field(default_factory=list)
    anchors: list[str] = Field(description="Entity names the question states.")
    detail: dict[str, Any] = Field(default_factory=dict)


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def spoken_date(f: PathFact) -> str:
    """The fact's date at its precision: 1954, August 1954, August 16, 1954."""
    if f.date is None:
        return str(f.the_year)
    parts = f.date.split("-")
    if f.precision == "day" and len(parts) == 3:
        return f"{_MONTHS[int(parts[1]) - 1]} {int(parts[2])}, {parts[0]}"
    if f.precision == "month" and len(parts) >= 2:
        return f"{_MONTHS[int(parts[1]) - 1]} {parts[0]}"
    return parts[0]


def whole_years(f1: PathFact, f2: PathFact) -> int | None:
    """The whole years from ``f1``'s date to ``f2``'s where the dates decide them."""
    return facts_whole_years((f1.date, f1.precision), (f2.date, f2.precision))


def _known_to_the_month(f: PathFact) -> bool:
    return bool(f.date) and f.precision in ("month", "day")


def _years(n: int) -> str:
    return f"{n} year" + ("" if n == 1 else "s")


def _pick(rng: random.Random, options: dict[str, str]) -> tuple[str, str]:
    key = rng.choice(sorted(options))
    return key, options[key]


# -- bridge --------------------------------------------------------------------------------
#: The first hop as a noun phrase naming B through A: relation -> (A's type, B's type,
#: phrasings).
_BRIDGE_NP: dict[str, tuple[str | None, str, dict[str, str]]] = {
    "directed_by": (None, "PERSON", {"d1": "the director of {A}",
                                     "d2": "the person who directed {A}"}),
    # "author" reads wrong for a film, "writer" is right for a film and a book
    "written_by": (None, "PERSON", {"w1": "the writer of {A}",
                                    "w3": "the person who wrote {A}"}),
    "created_by": (None, "PERSON", {"k1": "the creator of {A}",
                                    "k2": "the person who created {A}"}),
    "hosted_by": (None, "PERSON", {"h1": "the host of {A}"}),
    "born_in": ("PERSON", "PLACE", {"b1": "the birthplace of {A}",
                                    "b2": "the place where {A} was born"}),
    "died_in": ("PERSON", "PLACE", {"x1": "the place where {A} died"}),
}
#: The second hop as a question about the noun phrase: relation -> (B's type, answer,
#: phrasings). ``{Q}`` is the noun phrase.
_BRIDGE_Q: dict[str, tuple[str | None, str, dict[str, str]]] = {
    "born": ("PERSON", "year", {"y1": "In what year was {Q} born?",
                                "y2": "What year was {Q} born in?",
                                "y3": "When was {Q} born?"}),
    "died": ("PERSON", "year", {"y1": "In what year did {Q} die?",
                                "y3": "When did {Q} die?"}),
    "founded": (None, "year", {"y1": "In what year was {Q} founded?",
                               "y3": "When was {Q} established?"}),
    "opened": (None, "year", {"y1": "In what year did {Q} open?"}),
    "released": (None, "year", {"y1": "In what year was {Q} released?",
                                "y3": "When did {Q} come out?"}),
    "born_in": ("PERSON", "entity", {"e1": "Where was {Q} born?",
                                     "e2": "In which place was {Q} born?"}),
    "died_in": ("PERSON", "entity", {"e1": "Where did {Q} die?"}),
    "directed_by": (None, "entity", {"e1": "Who directed {Q}?"}),
    "written_by": (None, "entity", {"e1": "Who wrote {Q}?"}),
}


def _type_ok(want: str | None, got: str | None) -> bool:
    return want is None or got == want


def _bridge(p: Path, rng: random.Random) -> Rendered:
    f1, f2 = p.facts[0], p.facts[1]
    a_type, b_type, nps = _BRIDGE_NP[f1.relation]
    q_type, kind, qs = _BRIDGE_Q[f2.relation]
    if not (_type_ok(a_type, f1.subject_type) and _type_ok(b_type, f1.object_type)
            and _type_ok(q_type, f2.subject_type)):
        raise Unworded("entity_types")
    k1, np = _pick(rng, nps)
    k2, frame = _pick(rng, qs)
    np = np.format(A=f1.subject_named)
    question = frame.format(Q=np)
    question = question[0].upper() + question[1:]
    if kind == "year":
        # "When ...?" asks for the date as precisely as the evidence gives it
        answer = spoken_date(f2) if k2 == "y3" else str(f2.the_year)
        atype: AnswerType = "date"
    else:
        if not f2.object:
            raise Unworded("no_object")
        answer, atype = f2.object, "entity"
    return Rendered(question=question, answer=answer, answer_type=atype, pattern="bridge",
                    phrasing=f"bridge/{f1.relation}.{k1}/{f2.relation}.{k2}",
                    anchors=[f1.subject],
                    detail={"bridge": f1.object, "first": f1.relation,
                            "second": f2.relation})


# -- intersection ----------------------------------------------------------------------------
#: (clue relation, dated relation) -> (X's type, phrasings over {O} and {Y}).
_INTERSECTION: dict[tuple[str, str], tuple[str | None, dict[str, str]]] = {
    ("directed_by", "released"): (None, {
        "i1": "What did {O} direct that was released in {Y}?",
        "i2": "Which work directed by {O} came out in {Y}?"}),
    ("written_by", "released"): (None, {
        "i1": "What did {O} write that was published in {Y}?",
        "i2": "Which work by {O} came out in {Y}?"}),
    ("founded_by", "founded"): (None, {
        "i1": "What did {O} found in {Y}?",
        "i2": "Which organisation founded by {O} was established in {Y}?"}),
}


def _intersection(p: Path, rng: random.Random) -> Rendered:
    f1, f2 = p.facts[0], p.facts[1]
    entry = _INTERSECTION.get((f1.relation, f2.relation))
    if entry is None:
        raise Unworded("no_template")
    x_type, qs = entry
    if not _type_ok(x_type, f1.subject_type) or f1.object is None:
        raise Unworded("entity_types")
    key, frame = _pick(rng, qs)
    question = frame.format(O=f1.object_named, Y=f2.the_year)
    return Rendered(question=question, answer=f1.subject, answer_type="entity",
                    pattern="intersection",
                    phrasing=f"intersection/{f1.relation}+{f2.relation}.{key}",
                    anchors=[f1.object],
                    detail={"clue": f1.relation, "object": f1.object,
                            "dated": f2.relation, "year": f2.the_year,
                            "others": p.others})


# -- comparison ------------------------------------------------------------------------------
#: The link both subjects share, as an apposition: relation -> phrasing over {L}.
_LINK = {"directed_by": "both directed by {L}", "written_by": "both written by {L}",
         "member_of": "both members of {L}", "founded_by": "both founded by {L}",
         "created_by": "both created by {L}", "hosted_by": "both hosted by {L}"}
#: Dated relation -> (subject type, difference phrasings, which-first phrasing). {A} {B}:
#: the subjects, {link}: the apposition. Every difference is between *years*, and says so:
#: "how many years apart were they born" has two answers for births in December and January.
_COMPARE: dict[str, tuple[str | None, dict[str, str], str]] = {
    "born": ("PERSON", {
        "c1": "How many years apart are the birth years of {A} and {B}, {link}?",
        "c2": "{A} and {B} were {link_bare}. How many years separate their birth years?",
        "c3": "By how many years do the birth years of {A} and {B}, {link}, differ?"},
             "Who was born first: {A} or {B}, {link}?"),
    "died": ("PERSON", {
        "c1": "How many years apart are the years in which {A} and {B}, {link}, died?",
        "c3": "By how many years do the years of death of {A} and {B}, {link}, differ?"},
             "Who died first: {A} or {B}, {link}?"),
    "released": (None, {
        "c1": "How many years apart are the release years of {A} and {B}, {link}?",
        "c2": "{A} and {B} were {link_bare}. How many years separate their release years?"},
                 "Which came out first: {A} or {B}, {link}?"),
    "founded": (None, {
        "c1": "How many years apart are the founding years of {A} and {B}, {link}?",
        "c2": "{A} and {B} were {link_bare}. How many years separate their founding "
              "years?"},
                "Which was founded first: {A} or {B}, {link}?"),
}
_DIRECT = {"married": ("spouses", "who married each other")}


def _comparison(p: Path, rng: random.Random) -> Rendered:
    fa, fb, links = p.facts[0], p.facts[1], p.facts[2:]
    entry = _COMPARE.get(fa.relation)
    if entry is None or not links:
        raise Unworded("no_template")
    s_type, diffs, first = entry
    if not (_type_ok(s_type, fa.subject_type) and _type_ok(s_type, fb.subject_type)):
        raise Unworded("entity_types")
    if fa.subject_type != fb.subject_type:
        raise Unworded("entity_types")
    link = links[0]
    if link.relation in _DIRECT:
        bare, appos = _DIRECT[link.relation]
        link_text, link_bare = appos, bare
    else:
        if link.object is None:
            raise Unworded("no_object")
        link_text = _LINK[link.relation].format(L=link.object_named)
        link_bare = link_text
    ya, yb = fa.the_year, fb.the_year
    if ya is None or yb is None or ya == yb:
        raise Unworded("same_year")
    names = [fa.subject, fb.subject]
    named = [fa.subject_named, fb.subject_named]
    if rng.random() < CHOICE_SHARE:
        question = first.format(A=named[0], B=named[1], link=link_text)
        answer = names[0] if ya < yb else names[1]
        return Rendered(question=question, answer=answer, answer_type="choice",
                        pattern="comparison", phrasing=f"comparison/{fa.relation}.first",
                        two_option=True, options=names, anchors=names,
                        detail={"years": [ya, yb], "link": link.relation})
    key, frame = _pick(rng, diffs)
    question = frame.format(A=named[0], B=named[1], link=link_text, link_bare=link_bare)
    return Rendered(question=question, answer=_years(abs(ya - yb)), answer_type="number",
                    pattern="comparison", phrasing=f"comparison/{fa.relation}.{key}",
                    anchors=names, detail={"years": [ya, yb], "link": link.relation})


# -- temporal --------------------------------------------------------------------------------
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
    # when ...", asked only where the dates decide it). "How many years after X was born
    # ..." is an age with two answers, and its "calendar years" read as a fill-in frame to
    # every reviewer (templates 15).
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
#: reviewers marked these template-like (review Z: 12 times in 12), so they are a last resort
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
    before (reviews X to Z3 rejected "Aidan Foster made his first screen appearance as
    Aidan" every time). The fact's subject is wrong; the facts stage reads the pronoun."""
    names = {w.lower() for w in re.findall(r"[A-Z][\w'-]+", f.subject)}
    # a role by name, not "was recognised as the Parson Jack Russell Terrier" (a thing's
    # other name)
    return any(w.lower() in names for w in re.findall(r"\bas ([A-Z][\w'-]+)", f.phrase or ""))


#: Verbs (lemmas) of what a subject does again and again: a visit, a meeting, a talk, an
#: appearance, a performance, a game. A page dates one occasion ("In August 2016, Biden
#: visited Serbia, where he met ... Vucic"), the phrase keeps the verb and its object
#: ("visited Serbia"), and the question then names an event that happened more than once:
#: review R37 rejected "... did he visit Serbia?" (he was there in 2009 too) and "... did
#: Charles III speak to the BBC about the environment?" (many interviews), 4 of its 7
#: FreshQA rejections. Aspect is not in the parse; these are the classes of verbs of
#: repeated activity (Vendler's activities) the facts' events use, with a voyage and an
#: illness caught: review R40 rejected "the year she sailed to New York" (Millvina Dean
#: also sailed for it aboard the Titanic) and "contracting COVID-19" (Charles III had it
#: in 2020 and 2022), R41 "did he return to the U.S.?" (Presley came back from more than
#: one trip abroad).
_RECURRING = frozenset({"visit", "meet", "speak", "talk", "travel", "tour", "appear",
                        "perform", "attend", "play", "participate", "compete", "testify",
                        "address", "interview", "criticize", "criticise", "praise", "host",
                        "sail", "fly", "voyage", "return", "contract", "catch", "test"})
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
_LEGAL_FORM = r"inc\.?|ltd\.?|llc|plc|corp\.?|co\."
_SUFFIX = re.compile(rf"(?i)^(jr\.?|sr\.?|[ivxlc]+|co|{_LEGAL_FORM})$")
#: A company's legal form closing its name.
_COMPANY = re.compile(rf"(?i)[\s,]({_LEGAL_FORM})$")
#: Particles that belong to a surname ("Van Buren", "de Gaulle", "von Trier").
_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "du", "del", "della", "la", "le",
              "ten", "ter", "bin", "ibn", "al", "el", "dos", "das", "st."}


def pronoun(f: PathFact) -> str | None:
    """The pronoun a question refers to the fact's subject by, once named: "it" for anything
    but a person, "he" or "she" as the person's own page says; None (named again) where the
    page does not say -- a person has no default. A company the tagger took for a person
    ("Tesla, Inc.", whose page says "he" of Musk) is "it" (review Z3)."""
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
    while i > 1 and words[i - 1].lower() in _PARTICLES:
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


def _temporal(p: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
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
        key, frame = _pick(rng, frames)
        question = frame.format(W=f2.subject_named, P=f1.subject_named)
        anchors = [f2.subject] + ([f1.subject] if "{P}" in frame else [])
        return Rendered(question=question, answer=_years(y2 - y1), answer_type="number",
                        pattern="temporal",
                        phrasing=f"temporal/{credit.relation}+{f2.relation}.{key}",
                        anchors=anchors, detail={"years": [y1, y2], "via": credit.relation})
    if (f1.relation, f2.relation) == ("born", "died"):
        age = whole_years(f1, f2)
        if age is None or age < 0:
            raise Unworded("age_needs_days")  # an age from two years is off by one
        key, frame = _pick(rng, {"a1": "How old was {S} at the time of death?",
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
    if not _type_ok(s_type, f1.subject_type):
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
            key, frame = _pick(rng, ages)
            return Rendered(question=frame.format(**slots), answer=str(whole),
                            answer_type="number", pattern="temporal",
                            phrasing=f"temporal/{f1.relation}+{f2.relation}.{key}",
                            anchors=[f1.subject] + ([f2.object] if f2.object else []),
                            detail={"dates": [f1.date, f2.date], "age": whole})
        # the age frames copy "he" and the event's phrase as its sentence has them: where
        # that is a run the checks refuse, there is no wording
        turned = fits(frames)
        # where each copies its sentence, the event's verb in the base form: "How many
        # years after the year Clay Buchholz was born did he make his MLB debut ...?"
        # (with the pronoun only: "was born did Snowden ..." read as mechanical, review R)
        anchored = {} if turned or not pron or not last_resort else fits(
            _YEAR_ANCHORED.get((f1.relation, f2.relation), {}))
        if not turned and not anchored:
            raise Unworded("no_age_wording")
        key, frame = _pick(rng, turned or anchored)
        return Rendered(question=frame.format(**slots),
                        answer=str(y2 - y1) if turned else _years(y2 - y1),
                        answer_type="number", pattern="temporal",
                        phrasing=f"temporal/{f1.relation}+{f2.relation}.{key}",
                        anchors=[f1.subject] + ([f2.object] if f2.object else []),
                        detail={"years": [y1, y2]} | ({} if turned else {"last_resort": True}))
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
    key, frame = _pick(rng, frames)
    question = frame.format(**slots)
    if key in age_frames and whole is not None:  # (an age frame is offered only then)
        answer = _years(whole)
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
    Amazon [5 July 1994] when it acquired Junglee [1998]?" is 3 or 4, review X): then only
    a wording that anchors the first event by its year (``_YEAR_ANCHORED``) or an age the
    dates decide. Templates 14 said "calendar years" there, which every reviewer of review
    Y marked a fill-in frame."""
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


_RENDER = {"bridge": _bridge, "intersection": _intersection, "comparison": _comparison,
           "temporal": _temporal}


def _titles_not_revealing(path: Path) -> Path:
    """The path with the page titles whose qualifier states one of its years dropped: "the
    director of Titanic (1997 film)" would give away the release year a question computes
    with (and an entity left with no title is not asked about, ``render``)."""
    years = {str(y) for f in path.facts if (y := f.the_year) is not None}

    def keep(titles: list[str]) -> list[str]:
        return [t for t in titles
                if not any(y in q[1] for q in [title_qualifier(t)] if q for y in years)]

    return path.model_copy(update={"facts": [
        f.model_copy(update={"subject_titles": keep(f.subject_titles),
                             "object_titles": keep(f.object_titles)}) for f in path.facts]})


def render(path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
    """The question a path asks, worded with ``rng``'s choices. Entities are named with
    their page title's qualifier ("the 1930 film The Golden Calf", "Metrocenter Mall
    (Jackson, Mississippi)") unless it states a year the question is about. With
    ``last_resort`` an interval may also be worded by the frames reviewers read as fill-in
    frames (``_YEAR_ANCHORED``)."""
    shown = _titles_not_revealing(path)
    got = (_temporal(shown, rng, last_resort) if path.form == "temporal"
           else _RENDER[path.form](shown, rng))
    # An entity the question names whose title's qualifier states a year the question asks
    # about: without the qualifier the bare title names several things ("The Golden Calf
    # (1930 film)": review S), with it the year is given away.
    bare = {n for f, g in zip(path.facts, shown.facts, strict=True)
            for n, before, after in ((f.subject, f.subject_titles, g.subject_titles),
                                     (f.object, f.object_titles, g.object_titles))
            if n and before and not after}
    if bare & set(got.anchors):
        raise Unworded("title_gives_year")
    # a qualified name may open the question ("the 1930 film The Golden Calf came out ...")
    return got.model_copy(update={"question": got.question[:1].upper() + got.question[1:]})


def covered() -> dict[str, set[Any]]:
    """What the templates word, per form (a test compares it with ``rounds/paths.py``)."""
    return {"bridge_first": set(_BRIDGE_NP), "bridge_second": set(_BRIDGE_Q),
            "intersection": set(_INTERSECTION), "comparison": set(_COMPARE),
            "links": set(_LINK) | set(_DIRECT), "temporal": set(_TEMPORAL) | {("born", "died")},
            "makers": set(_MAKER)}
