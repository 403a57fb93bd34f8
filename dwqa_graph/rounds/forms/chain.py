"""The chain form: entity -> entity hops ending in a fact of the last entity, asked naming
the first only ("In what year did the spouse of the director of Titanic die?"): three or
four facts, usually from as many documents. Paths: ``cypher/paths/chain.cypher`` (each hop
unique in the seed graph).

The wording is the bridge's grammar applied once per hop, not a template per combination:
each hop relation is a noun phrase over the entity before it ("the director of {A}"), the
noun phrases nest ("the birthplace of the director of Titanic"), and the last fact is the
bridge's question about the outermost one ("Where was {Q} born?").
"""

from __future__ import annotations

import random
from typing import Any

from dwqa_graph.rounds.forms import bridge
from dwqa_graph.rounds.forms.base import (
    FormBase,
    Path,
    PathFact,
    PathGraph,
    Rendered,
    Unworded,
    pick,
    type_ok,
)
from dwqa_graph.rounds.forms.credits import role_problem

#: The relations a hop walks: one object in the world (bridge.FIRST), and a spouse (one in
#: the seed graph, which the query checks).
HOPS = (*bridge.FIRST, "married")
#: The relations the last fact asks.
LAST = bridge.SECOND
#: The most facts a chain has: at five, the questions read as riddles and a hop's page is
#: rarely in a seed graph at all.
LONGEST = 4

#: A hop as a noun phrase over the entity before it: bridge's, and a spouse.
_NP: dict[str, tuple[str | None, str, dict[str, str]]] = {
    **bridge.NOUN_PHRASES,
    "married": ("PERSON", "PERSON", {"s1": "the spouse of {A}"}),
}
#: Phrasings a chain's hops take: the "of" ones nest ("the birthplace of the director of
#: X"); a relative clause around another phrase reads as a puzzle ("In what year was the
#: place where the spouse of the director of X was born founded?").
_NESTING = ("d1", "w1", "k1", "b1", "x1", "s1")


def noun_phrase(hops: list[PathFact], rng: random.Random) -> tuple[str, list[str]]:
    """The last hop's object named through the first hop's subject: each hop's noun phrase
    wraps the one before it. Returns the phrase and the phrasing keys."""
    phrase, keys = hops[0].subject_named, []
    for f in hops:
        entry = _NP.get(f.relation)
        if entry is None:
            raise Unworded("no_template")
        a_type, b_type, phrasings = entry
        if not (type_ok(a_type, f.subject_type) and type_ok(b_type, f.object_type)):
            raise Unworded("entity_types")
        usable = {k: v for k, v in phrasings.items() if k in _NESTING}
        if not usable:
            raise Unworded("no_template")
        key, frame = pick(rng, usable)
        phrase = frame.format(A=phrase)
        keys.append(f"{f.relation}.{key}")
    return phrase, keys


def _render(p: Path, rng: random.Random) -> Rendered:
    facts = p.chain
    hops, last = facts[:-1], facts[-1]
    np, keys = noun_phrase(hops, rng)
    q_type, kind, qs = bridge.QUESTIONS[last.relation]
    if not type_ok(q_type, last.subject_type):
        raise Unworded("entity_types")
    k2, frame = pick(rng, qs)
    question = frame.format(Q=np)
    answer, atype = bridge.asked(last, kind, k2)
    return Rendered(question=question[0].upper() + question[1:], answer=answer,
                    answer_type=atype, pattern="chain",
                    phrasing="chain/" + "/".join(keys) + f"/{last.relation}.{k2}",
                    anchors=[hops[0].subject],
                    detail={"chain": [f.object for f in hops],
                            "relations": [f.relation for f in facts]})


class Chain(FormBase):
    name = "chain"

    def params(self) -> dict[str, Any]:
        return {"hops": list(HOPS), "last": list(LAST), "longest": LONGEST}

    def render(self, path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
        return _render(path, rng)

    def problems(self, g: PathGraph, path: Path, texts: dict[str, str]) -> list[str]:
        """A credit's person must be the person of its role, at every hop."""
        facts = path.chain
        roles = {role_problem(a, b, texts) for a, b in zip(facts, facts[1:], strict=False)}
        return sorted(r for r in roles if r)

    def unworded(self) -> list[str]:
        return sorted(set(HOPS) - set(_NP)) + sorted(set(LAST) - set(bridge.QUESTIONS))


FORM = Chain()
