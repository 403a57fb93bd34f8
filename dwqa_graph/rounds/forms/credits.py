"""A credit's person must be the person of its role: the check the forms that go through a
credit share (a bridge's first hop, a maker's birth in a temporal path)."""

from __future__ import annotations

from dwqa_graph.rounds.forms.base import PathFact

#: The role a credit gives its object, as a page's lead would name it. Two people of one
#: name merge into one entity (a film's director and a poet's page: "Christopher Nolan"); a
#: bridge through the credit then reads the poet's dates as the director's. The page the
#: bridge's second fact comes from must call its subject what the credit says he is.
ROLE_WORDS = {
    "directed_by": ("director", "filmmaker", "film-maker", "film maker"),
    "written_by": ("writer", "author", "novelist", "screenwriter", "songwriter", "poet",
                   "playwright", "lyricist", "composer", "dramatist", "journalist"),
    "founded_by": ("founder", "entrepreneur", "businessman", "businesswoman", "executive",
                   "investor", "industrialist"),
    "created_by": ("creator", "designer", "developer", "inventor", "engineer", "artist",
                   "cartoonist", "animator", "writer", "author", "producer", "programmer"),
    "hosted_by": ("host", "presenter", "broadcaster", "commentator", "personality",
                  "journalist", "comedian", "anchor"),
}
#: How much of a page's start is its lead, where it says who its subject is.
LEAD_CHARS = 600


def role_problem(credit: PathFact, person_fact: PathFact, texts: dict[str, str]) -> str | None:
    """``wrong_person`` where the page ``person_fact`` (a credit's person's date) comes from
    does not call its subject by ``credit``'s role."""
    words = ROLE_WORDS.get(credit.relation)
    text = texts.get(person_fact.version_id)
    if words is None or text is None:
        return None
    lead = text[:LEAD_CHARS].lower()
    return None if any(w in lead for w in words) else "wrong_person"


def named_role_problem(facts: list[PathFact], question: str) -> str | None:
    """``wrong_person`` where ``question`` names a credit's person by the page title of
    another person of the name: the director of two films as "Christopher Nolan (author)"
    because the poet's page qualifies the merged entity. A qualifier the question uses must
    say the credit's role ("(director)", "(American filmmaker)"); a bare name passes."""
    for f in facts:
        words = ROLE_WORDS.get(f.relation)
        named = f.object_named
        if words is None or f.object is None or named is None or named == f.object:
            continue
        if named not in question:
            continue
        qualifier = named.lower().replace(f.object.lower(), " ")
        if not any(w in qualifier for w in words):
            return "wrong_person"
    return None
