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


def legal_form_pattern() -> str:
    """A regex alternation of ``LEGAL_FORMS`` (longest first, dots literal)."""
    return "|".join(re.escape(f) for f in sorted(LEGAL_FORMS, key=len, reverse=True))


@functools.lru_cache(maxsize=65536)
def verb_lemma(word: str) -> str | None:
    """The lemma of ``word`` read as a verb ("began" -> "begin", "built" -> "build"), from
    lemminflect's lexicon; None when the word is no verb form it knows."""
    lemmas = getAllLemmas(word).get("VERB")
    return lemmas[0] if lemmas else None
