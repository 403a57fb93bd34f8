"""The intersection form: the one entity with a named clue and a dated clue from another
document ("What did James Cameron direct that was released in 1997?"). Paths:
``cypher/paths/intersection.cypher``."""

from __future__ import annotations

import random
from typing import Any

from dwqa_graph.rounds.forms.base import FormBase, Path, Rendered, Unworded, pick, type_ok

#: A clue with few subjects per object in the world (one director's films, one founder's
#: companies), and a dated clue that picks one of them. Not "member of": an employer or a
#: club has thousands of members born in any year.
CLUES = ("directed_by", "written_by", "founded_by")
DATED = ("released", "born", "died", "founded")

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


def _render(p: Path, rng: random.Random) -> Rendered:
    f1, f2 = p.facts[0], p.facts[1]
    entry = _INTERSECTION.get((f1.relation, f2.relation))
    if entry is None:
        raise Unworded("no_template")
    x_type, qs = entry
    if not type_ok(x_type, f1.subject_type) or f1.object is None:
        raise Unworded("entity_types")
    key, frame = pick(rng, qs)
    question = frame.format(O=f1.object_named, Y=f2.the_year)
    return Rendered(question=question, answer=f1.subject, answer_type="entity",
                    pattern="intersection",
                    phrasing=f"intersection/{f1.relation}+{f2.relation}.{key}",
                    anchors=[f1.object],
                    detail={"clue": f1.relation, "object": f1.object,
                            "dated": f2.relation, "year": f2.the_year,
                            "others": p.others})


class Intersection(FormBase):
    name = "intersection"

    def params(self) -> dict[str, Any]:
        return {"clues": list(CLUES), "dated": list(DATED)}

    def render(self, path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
        return _render(path, rng)

    def unworded(self) -> list[str]:
        """The clues no template words. (Not every clue goes with every dated relation: the
        query also takes a birth, which no template asks with a clue.)"""
        return sorted(set(CLUES) - {c for c, _ in _INTERSECTION})


FORM = Intersection()
