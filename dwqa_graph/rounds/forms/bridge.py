"""The bridge form: a fact of A whose object is B, then a fact of B, asked naming A only
("In what year was the director of Titanic born?"). Paths: ``cypher/paths/bridge.cypher``."""

from __future__ import annotations

import random
from typing import Any

from dwqa_graph.rounds.forms.base import (
    AnswerType,
    FormBase,
    Path,
    PathFact,
    PathGraph,
    Rendered,
    Unworded,
    pick,
    spoken_date,
    type_ok,
)
from dwqa_graph.rounds.forms.credits import role_problem

#: The first hop names B through A ("the director of A"); a relation is a first hop only
#: when it has one object in the world ("founded by", "member of", "married" have several:
#: "the founder of Tesla" is not one person). Not "hosted by" either: a host holds the role
#: for a time and a long-running show has had several ("the host of Brain Games" in a season
#: whose page calls it its host's second), while a page rarely names the earlier ones, so the
#: graph's one host does not make the phrase name one person.
FIRST = ("directed_by", "written_by", "created_by", "born_in", "died_in")
SECOND = ("born", "died", "founded", "opened", "released", "born_in", "died_in",
          "directed_by", "written_by")

#: The first hop as a noun phrase naming B through A: relation -> (A's type, B's type,
#: phrasings).
NOUN_PHRASES: dict[str, tuple[str | None, str, dict[str, str]]] = {
    "directed_by": (None, "PERSON", {"d1": "the director of {A}",
                                     "d2": "the person who directed {A}"}),
    # "author" reads wrong for a film, "writer" is right for a film and a book
    "written_by": (None, "PERSON", {"w1": "the writer of {A}",
                                    "w3": "the person who wrote {A}"}),
    "created_by": (None, "PERSON", {"k1": "the creator of {A}",
                                    "k2": "the person who created {A}"}),
    "born_in": ("PERSON", "PLACE", {"b1": "the birthplace of {A}",
                                    "b2": "the place where {A} was born"}),
    "died_in": ("PERSON", "PLACE", {"x1": "the place where {A} died"}),
}
#: The second hop as a question about the noun phrase: relation -> (B's type, answer,
#: phrasings). ``{Q}`` is the noun phrase.
QUESTIONS: dict[str, tuple[str | None, str, dict[str, str]]] = {
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


def _render(p: Path, rng: random.Random) -> Rendered:
    f1, f2 = p.facts[0], p.facts[1]
    a_type, b_type, nps = NOUN_PHRASES[f1.relation]
    q_type, kind, qs = QUESTIONS[f2.relation]
    if not (type_ok(a_type, f1.subject_type) and type_ok(b_type, f1.object_type)
            and type_ok(q_type, f2.subject_type)):
        raise Unworded("entity_types")
    k1, np = pick(rng, nps)
    k2, frame = pick(rng, qs)
    np = np.format(A=f1.subject_named)
    question = frame.format(Q=np)
    question = question[0].upper() + question[1:]
    answer, atype = asked(f2, kind, k2)
    return Rendered(question=question, answer=answer, answer_type=atype, pattern="bridge",
                    phrasing=f"bridge/{f1.relation}.{k1}/{f2.relation}.{k2}",
                    anchors=[f1.subject],
                    detail={"bridge": f1.object, "first": f1.relation,
                            "second": f2.relation})


class Bridge(FormBase):
    name = "bridge"

    def params(self) -> dict[str, Any]:
        return {"first": list(FIRST), "second": list(SECOND)}

    def render(self, path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
        return _render(path, rng)

    def problems(self, g: PathGraph, path: Path, texts: dict[str, str]) -> list[str]:
        role = role_problem(path.facts[0], path.facts[1], texts)
        return [role] if role else []

    def unworded(self) -> list[str]:
        return sorted(set(FIRST) - set(NOUN_PHRASES)) + sorted(set(SECOND) - set(QUESTIONS))


FORM = Bridge()


def asked(f: PathFact, kind: str, key: str) -> tuple[str, AnswerType]:
    """The answer of a question frame ``key`` of ``QUESTIONS`` asks about fact ``f`` (a
    bridge's or a chain's last hop)."""
    if kind == "year":
        # "When ...?" asks for the date as precisely as the evidence gives it
        return (spoken_date(f) if key == "y3" else str(f.the_year)), "date"
    if not f.object:
        raise Unworded("no_object")
    return f.object, "entity"
