"""Comparable subjects: the same event of two subjects of the same kind.

A comparison needs operands of the same kind (QUALITY.md: "quantities of the same kind and
unit"). Dates are such operands when they date the same event of two subjects the sources
call the same kind of thing: "Enrico Fermi (29 September 1901 – 1954) was an Italian
physicist ..." and "Claudio Pellegrini (born ... 1935) is an Italian physicist ..." give
"Which physicist was born first, Enrico Fermi or Claudio Pellegrini?". That is the
comparison question of HotpotQA itself; it needs both spans (each holds one date) and
no shared entity, which is why the HotpotQA seed graphs, whose documents are mostly one
subject each, have few of any other kind.

Both the kind and the subject come from a document's lead sentence about its title subject
("<title> is a/an <noun phrase>"); another sentence's subject may be anyone. One rule, used
at link time (``compared`` on the Claim, counted by ``cypher/rounds/pool_compared.cypher``),
by the generator and by the coherence check, which reads the kind back from the span text.
"""

from __future__ import annotations

import re

from dwqa_graph.rounds.entities import GENERIC, title_entity

# Where a lead's noun phrase ends: a relative clause, a preposition, a participle.
_END = (r"who|that|which|whose|where|from|in|of|based|known|best|for|with|currently|born|on|"
        r"at|by|to|as|since|starring|directed|written|produced|released|published|founded|"
        r"formed|created|owned|located|and\s+(?:the|a|an|is|was|has|he|she|it)")
_LEAD = re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the)\s+(?P<np>[^,.;:()]+?)\s*"
                   rf"(?=[,.;:()]|\b(?:{_END})\b|$)")
# Heads that name a position, not a kind: a college president is no President of the United
# States, a company director no film director.
_POSITIONS = frozenset("""president director chairman chairwoman chair secretary officer official
member founder owner executive head leader chief partner professor editor""".split())
# Heads too vague to compare by ("a 2006 box set" is a kind of album, "a set" says nothing).
_VAGUE = frozenset("""set series one part type kind form name number fashion working thing
work piece collection""".split())
# The entity layer's generic names that are kinds all the same ("a 2003 film").
_NOT_KINDS = GENERIC - {"film", "album", "band", "company", "city", "council"}
#: The events the generator words alike for two subjects ("A was born", "B was born").
PARALLEL_EVENTS = ("was born", "died", "was released", "was published", "was founded",
                   "was formed", "was established", "was opened", "first aired")
#: The ones two comparable subjects are compared on. Not deaths: "presumably on or after
#: 8 May 1927" is no date to order by, and a lifespan's second year is the one the baseline
#: reader cannot tell from the first.
EVENTS = tuple(e for e in PARALLEL_EVENTS if e != "died")


def kinds(text: str) -> list[str]:
    """The head nouns of what a lead sentence says its subject is: "is an Italian theoretical
    physicist and writer who ..." -> ["physicist", "writer"]."""
    m = _LEAD.search(text)
    if not m:
        return []
    phrase = re.sub(r"\b\d{4}s?\b|\d+(?:st|nd|rd|th)\b", "", m.group("np"))
    out = []
    for part in re.split(r"\s+and\s+|\s*/\s*", phrase):
        ws = part.split()
        if not ws:
            continue
        head = ws[-1].lower()
        if head in _VAGUE and len(ws) >= 2 and ws[-2].isalpha() and ws[-2].islower():
            out.append(f"{ws[-2].lower()} {head}")  # "a box set": a kind; "a set": none
        elif head.isalpha() and len(head) > 2 and head not in _NOT_KINDS | _POSITIONS | _VAGUE:
            out.append(head)
    return sorted(set(out))


def _words(name: str) -> list[str]:
    return [w.strip(".,\"“”'").lower() for w in name.split()]


def same_person(name: str, title: str) -> bool:
    """Whether ``name`` is the title's subject under a longer name: every title word is a
    word of the name or the start of one ("Ed Wood" is "Edward Davis Wood Jr.", "Matt
    Busby" "Alexander Matthew Busby", "Terry Richardson" "Terrence "Uncle Terry"
    Richardson")."""
    words = _words(name)
    own = [w for w in _words(title) if len(w) > 1]
    return bool(own) and all(any(n == w or n.startswith(w) for n in words) for w in own)


def lead_subject(text: str, title: str | None) -> str | None:
    """The title subject when ``text`` is a lead sentence about it: it opens with the
    title ("Nola is a 2003 ... film"), with the subject's longer name ("Henry John Kaiser
    (May 9, 1882 – ...) was"), or names the subject as the one it is known as ("Clifford
    Smith (born 1971), better known by his stage name Method Man, is ...")."""
    subject = title_entity(title)
    if not subject or not _LEAD.search(text) or re.search(r"\([^()]*\d{4}[^()]*\)\s*$",
                                                           title or ""):
        # "Deliver Us from Evil (2014 film)": the source says several works share the name,
        # and two blind reviews rejected the bare title as ambiguous.
        return None
    if text.startswith(subject):
        return subject
    opening = re.split(r"\s*[(,]|\s+(?:is|was)\s", text, maxsplit=1)[0]
    if len(opening.split()) <= 7 and same_person(opening, subject):
        return subject
    if re.search(r"\b(?:known|stage name|nicknamed)\b[^.]{0,40}?\b" + re.escape(subject) +
                 r"\b", text):
        return subject
    return None


def compared(text: str, years: list[int], clauses: list[str | None],
             title: str | None) -> dict[str, object]:
    """The claim's comparable events, stored at link time: ``compared`` keys
    "<event>|<kind>" ("was born|physicist"), ``compared_years`` the year of each, and
    ``compared_subject`` the title subject they are events of; empty unless the claim is
    a lead sentence whose event (``clauses``, one per year) is one of ``EVENTS``."""
    subject = lead_subject(text, title)
    heads = kinds(text) if subject else []
    keys, out_years = [], []
    for y, clause in zip(years, clauses, strict=True):
        event = next((e for e in EVENTS if clause and clause.endswith(" " + e)), None)
        if event:
            for h in heads:
                keys.append(f"{event}|{h}")
                out_years.append(y)
    return {"compared": keys, "compared_years": out_years,
            "compared_subject": subject if keys else ""}


def comparable_pairs(first: tuple[list[str], list[int], str],
                     second: tuple[list[str], list[int], str],
                     question: str) -> list[tuple[int, int]]:
    """Index pairs (i, j) of two claims' comparable events: the same key, different years,
    different subjects, and not both subjects named in the seed question (that would ask
    the seed's own question again: HotpotQA's "Who is older, A or B?" is public)."""
    keys1, years1, s1 = first
    keys2, years2, s2 = second
    if not s1 or not s2 or s1.lower() == s2.lower():
        return []
    q = question.lower()
    if s1.lower() in q and s2.lower() in q:
        return []
    return [(i, j) for i, (k1, y1) in enumerate(zip(keys1, years1, strict=True))
            for j, (k2, y2) in enumerate(zip(keys2, years2, strict=True))
            if k1 == k2 and y1 != y2]
