"""The English word lists the pipeline reads text with, as data in one place.

Claims, facts, rounds and the evaluation reader all split sentences, name months, strip a
company's legal form or keep a surname's particle; each used to carry its own copy of these
lists, and the copies drifted apart. What a parse or a maintained library gives (tokens, lemmas,
parts of speech, dates, numbers) comes from Stanford CoreNLP (``corenlp.py``) and lemminflect
(``lemma``), not from here: these are the closed-class words those leave to the caller.
"""

from __future__ import annotations

import functools
import re

from lemminflect import getAllLemmas

#: Month names, in calendar order (``MONTHS[m - 1]`` is month m).
MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July",
                           "August", "September", "October", "November", "December")
#: Their abbreviations as running text writes them.
MONTH_ABBREVIATIONS: tuple[str, ...] = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sept",
                                        "Sep", "Oct", "Nov", "Dec")
WEEKDAYS: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                             "Saturday", "Sunday")

#: Words that end with a full stop that ends no sentence ("Dr. Hanna Vestergaard", "Jan. 5",
#: "Mt. Everest"), lower-cased without their final dot.
ABBREVIATIONS: frozenset[str] = frozenset(
    "mr mrs ms dr prof st sr jr inc ltd co corp no nr vs etc e.g i.e al fig approx est "
    "gen col lt sgt rev mt ft u.s u.k dept univ".split()
    + [m.lower() for m in MONTH_ABBREVIATIONS])

#: A company's legal form as it closes the company's name ("Tesla, Inc.", "Volkswagen AG").
LEGAL_FORMS: tuple[str, ...] = ("Inc.", "Inc", "Ltd.", "Ltd", "LLC", "PLC", "plc", "Corp.",
                                "Corp", "Co.", "S.A.", "AG", "GmbH", "N.V.")

#: Particles that belong to a surname ("Van Buren", "de Gaulle", "von Trier").
NAME_PARTICLES: frozenset[str] = frozenset(
    "van von de der den da di du del della la le ten ter bin ibn al el dos das st.".split())

#: Titles before a name that are not part of the name ("Mayor Edda Quist").
TITLES: frozenset[str] = frozenset(
    "dr mr mrs ms prof professor sir dame lord lady mayor president premier councillor "
    "senator governor chancellor judge king queen prince princess captain".split())

# -- verb classes (lemmas) ---------------------------------------------------------------

MODAL_VERBS: frozenset[str] = frozenset({"ca", "can", "could", "may", "might", "must", "shall",
    "should", "will", "would"})

NEGATIONS: frozenset[str] = frozenset({"n't", "never", "no", "not"})

# A verb that is the complement of one of these did not (yet) happen.
IRREALIS_VERBS: frozenset[str] = frozenset({"agree", "aim", "announce", "attempt", "consider",
    "decline", "expect", "fail", "have", "hope", "intend", "need", "plan", "promise", "propose",
    "refuse", "schedule", "seek", "set", "threaten", "try", "vote", "want", "wish"})

# Verbs whose object's number is an amount the subject has: holds, is made of, measures,
# earns or sells ("employs 127,855 people", "raised $1.2 billion", "sold 10 million
# copies"). A list of the verbs that hold, not of those that do not: a number on any other
# verb is no amount the subject has -- a threshold ("scored 10 points or more in 1,000
# consecutive games"), a milestone ("reach 60 and 70 million likes"), a payment ("paying
# Armstrong $7.5 million"), a part ("included 50 people"), a change ("cut 18,000 jobs"), a
# count somebody recorded or announced.
HOLDING_VERBS: frozenset[str] = frozenset({"attract", "average", "boast", "compose", "comprise",
    "constitute", "contain", "cover", "earn", "employ", "enrol", "enroll", "gross", "have", "hold",
    "house", "keep", "make up", "measure", "net", "number", "operate", "own", "raise", "receive",
    "retain", "sell", "serve", "span", "stretch", "total", "weigh"})

# Verbs whose complement is somebody's claim, not the page's ("Although Musk said he earned
# the degrees in 1995, UPenn maintains ... 1997").
SPEECH_VERBS: frozenset[str] = frozenset({"allege", "argue", "assert", "believe", "claim",
    "contend", "deny", "dispute", "doubt", "insist", "maintain", "rumor", "rumour", "say",
    "speculate", "suggest", "suppose", "suspect", "testify", "think"})

# Verbs too light to name an event on their own ("was going for a win", "had relatives").
# (also a reference's own dates: "George Eliot Archived 18 June 2021 at the Wayback
# Machine")
LIGHT_VERBS: frozenset[str] = frozenset({"access", "archive", "be", "begin", "come", "continue",
    "decide", "do", "get", "give", "go", "have", "include", "remain", "retrieve", "say", "seem",
    "start", "take", "tell", "try", "use"})

# Verbs of telling whose event is what was told ("he informed Ernest Jones[, telling him
# that the growth had been removed]": the phrase "informed Ernest Jones" tells a reader
# nothing they can find). Without a complement of their own, or "of"/"about" on their
# object, they name no event.
TELLING_VERBS: frozenset[str] = frozenset({"advise", "alert", "ask", "assure", "brief", "convince",
    "inform", "instruct", "notify", "order", "persuade", "reassure", "remind", "request", "urge",
    "warn"})

#: Verbs whose passive with "it" is impersonal ("it was reported that ...").
REPORTING_VERBS: frozenset[str] = frozenset({"allege", "announce", "believe", "claim", "confirm",
    "disclose", "estimate", "expect", "know", "note", "report", "reveal", "rumor", "rumour", "say",
    "state", "suggest", "think", "understand"})

#: Verbs (lemmas) of what a subject does again and again: a visit, a meeting, a talk, an
#: appearance, a performance, a game. A page dates one occasion ("In August 2016, Biden
#: visited Serbia, where he met ... Vucic"), the phrase keeps the verb and its object
#: ("visited Serbia"), and the question then names an event that happened more than once:
#: reviewers rejected "... did he visit Serbia?" (he was there in 2009 too) and "... did
#: Charles III speak to the BBC about the environment?" (many interviews). Aspect is not in
#: the parse; these are the classes of verbs of repeated activity (Vendler's activities) the
#: facts' events use, with a voyage and an illness caught: "the year she sailed to New York"
#: (Millvina Dean also sailed for it aboard the Titanic), "contracting COVID-19" (Charles
#: III had it in 2020 and 2022), "did he return to the U.S.?" (Presley came back from more
#: than one trip abroad).
REPEATED_ACTIVITY_VERBS: frozenset[str] = frozenset({"address", "appear", "attend", "catch",
    "compete", "contract", "criticise", "criticize", "fly", "host", "interview", "meet",
    "participate", "perform", "play", "praise", "return", "sail", "speak", "talk", "test",
    "testify", "tour", "travel", "visit", "voyage"})

def legal_form_pattern() -> str:
    """A regex alternation of ``LEGAL_FORMS`` (longest first, dots literal)."""
    return "|".join(re.escape(f) for f in sorted(LEGAL_FORMS, key=len, reverse=True))


@functools.lru_cache(maxsize=65536)
def verb_lemma(word: str) -> str | None:
    """The lemma of ``word`` read as a verb ("began" -> "begin", "built" -> "build"), from
    lemminflect's lexicon; None when the word is no verb form it knows."""
    lemmas = getAllLemmas(word).get("VERB")
    return lemmas[0] if lemmas else None


#: Words that name a number without a digit: a sentence with none of them and no digit has
#: no quantity for the facts reader (``facts/extract.py`` ``CUES``).
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion trillion dozen hundreds thousands "
    "millions billions dozens".split())

#: Personal pronouns a page uses for its subject or for what the sentence before was about.
PRONOUNS = frozenset("he him his she her hers it its they them their".split())
