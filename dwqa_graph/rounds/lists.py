"""Conjunctions through named lists: one entity in the lists of two documents.

A conjunction clue must narrow the answer down without pinning it, and the clues together
must single it out (QUALITY.md). Descriptions cannot be judged that way mechanically
("is an American director" is true of many people; is "was born in Denver" too?), and two
blind reviews rejected every description-based conjunction. A *list* can: "True Lies ...
starring Arnold Schwarzenegger, Jamie Lee Curtis, Tom Arnold ..." names every candidate the
clue leaves, so whether one clue is sufficient (its list has one member) and whether the
clues together single the answer out (the lists share exactly one member) is read off the
spans. The entity layer finds such pairs: two claims of different documents whose listed
entities meet in one ``Entity`` node.

One rule, used at link time (``listed`` on the Claim), by the generator (``cast_of``), and by
the checks (``shared_member``, which reads the lists from the span text alone).
"""

from __future__ import annotations

import re

from dwqa_graph.evaluation.scoring import normalize_answer
from dwqa_graph.text import NAME_PARTICLE

#: A list clue leaves at least this many candidates (the answer and two others).
MIN_MEMBERS = 3

_NAME = re.compile(rf"[A-Z][\w'’.-]*(?:\s+(?:{NAME_PARTICLE}\s+)?[A-Z][\w'’.-]*)*")
# Between two members: a comma or "and" / "&", then at most two lowercase words that say the
# next member's role ("guitarist Gary Lee Conner, bass player Van Conner and drummer ...").
# Words that are no role word between two names ("Tom Arnold, and the Neville brothers").
_STOP = frozenset("""a an the of in on at to for from by with and or as like such including
is are was were be been being has have had do does did he she it they we this these that those
his her its their who which also""".split())
_SEP = re.compile(r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)"
                  rf"(?:(?!(?:{'|'.join(sorted(_STOP))})\b)[a-z]+(?<!ing)(?<!ed)\s+){{0,2}}")


def members(text: str) -> list[tuple[int, int, str]]:
    """The longest run of >= 2 capitalised names joined as a list in ``text``: (start, end,
    name) per member."""
    best: list[tuple[int, int, str]] = []
    run: list[tuple[int, int, str]] = []
    for m in _NAME.finditer(text):
        # A sentence's full stop is not part of the last name (an initial's is: "J.").
        name = m.group(0)[:-1] if re.search(r"\w{2}\.$", m.group(0)) else m.group(0)
        member = (m.start(), m.start() + len(name), name)
        if run and _SEP.fullmatch(text[run[-1][1]:m.start()]):
            run.append(member)
        else:
            run = [member]
        if len(run) > len(best):
            best = list(run)
    # The list ends at its last name: "... and Ryan McGinley, and featured interviews with"
    # is no separator, so the run stops there.
    return best if len(best) >= 2 else []


def listed(text: str, names: list[str]) -> list[str]:
    """Which of ``names`` (an entity's display names) are members of the claim's list (with
    at least MIN_MEMBERS members): the entity layer stores their norms on the claim."""
    ms = members(text)
    if len(ms) < MIN_MEMBERS:
        return []
    inside = {normalize_answer(n) for _, _, n in ms}
    return [n for n in names if normalize_answer(n) in inside]


_CAST = re.compile(r"\b(?:starring|co-starring|and stars|stars)\s*$")
_WORK = re.compile(r"^(?P<x>[A-Z][^,()]*?)\s+(?:is|was)\s+an?\s+[^,()]*?\b(?P<kind>film|"
                   r"television series|TV series|miniseries|sitcom|series|musical|play|"
                   r"video game)\b")


def cast_of(text: str) -> str | None:
    """The work whose cast the claim's list is ("the film True Lies"), in the generator's
    words, or None when the words before the list do not say what its members are (then the
    claim is no clue): the list follows "starring" and the sentence names the work.
    Lists of examples ("artists such as A, B, C", "players like ...") are left out on
    purpose: they do not claim to be complete, so two of them sharing one name does not
    show that only one is shared (a blind review rejected the item), and their subject is
    often "the book", named only by the page title, which the spans do not show."""
    ms = members(text)
    if len(ms) < MIN_MEMBERS or not _CAST.search(text[:ms[0][0]]):
        return None
    m = _WORK.match(text)
    if not m:
        return None
    return f"the {m.group('kind')} {m.group('x').strip()}"


def shared_member(spans: list[str]) -> list[str]:
    """The members every span's list names (compared normalised), in the first span's
    wording: exactly one is a conjunction's answer."""
    lists = [members(s) for s in spans]
    if not lists or any(len(ms) < 2 for ms in lists):
        return []
    common = set.intersection(*({normalize_answer(n) for _, _, n in ms} for ms in lists))
    return [n for _, _, n in lists[0] if normalize_answer(n) in common]


def list_sizes(spans: list[str]) -> list[int]:
    return [len(members(s)) for s in spans]
