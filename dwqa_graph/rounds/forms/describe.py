"""Descriptions: an entity a question names by two facts from different documents instead
of its name, where exactly one entity of its type in the database fits them (not only in
the seed graph: a reader searches the web for the description):

- two of its own facts: "the film released in 1997 and written by James Cameron"
  (``cypher/paths/descriptions.cypher``);
- its maker and a fact of the maker's, read from another page: "the film written by a person
  born in Kellhaven" (``cypher/paths/descriptions_nested.cypher``). The maker is not named.

A description stands in for the entity a form names as its anchor (a bridge's or a chain's
first subject), so every such form takes one without a template of its own: ``render`` words
the path with the entity's name replaced by the description. The description is worded by a
small grammar over the relations (a participle or a relative clause per relation, joined),
not a phrase per combination.
"""

from __future__ import annotations

import re
from typing import Any

from dwqa_graph.facts.resolve import title_qualifier
from dwqa_graph.rounds.forms.base import Path, PathFact, Unworded

#: The relations a description states: a date or a named object, each true of one entity in
#: a seed graph only together with another from a different page.
DESCRIBE = ("released", "founded", "opened", "born", "died", "born_in", "died_in",
            "directed_by", "written_by", "created_by", "founded_by", "hosted_by",
            "located_in")
#: Relations to a maker a description may go through, and what it may state of the maker.
MAKERS = ("directed_by", "written_by", "created_by", "founded_by", "hosted_by")
MAKER_FACTS = ("born", "died", "born_in", "died_in")
#: The forms whose anchor (the entity they name, never the answer) may be described.
DESCRIBABLE = ("bridge", "chain")
#: The facts a description has (the ``--constraints`` a described item counts).
CONSTRAINTS = 2
#: Described variants of one path at most (each of its anchor's descriptions is a
#: candidate; a full page's film has dozens of pairs of facts).
MAX_PER_PATH = 6

#: Relation -> (verb group, preposition phrase): "released in 1997", "written by X". The
#: verb group "born" or "died" merges a place and a year ("born in Kapuskasing in 1954").
_PHRASE = {"released": ("released", "in {v}"), "founded": ("founded", "in {v}"),
           "opened": ("opened", "in {v}"), "born": ("born", "in {v}"),
           "died": ("who died", "in {v}"), "born_in": ("born", "in {v}"),
           "died_in": ("who died", "in {v}"), "directed_by": ("directed", "by {v}"),
           "written_by": ("written", "by {v}"), "created_by": ("created", "by {v}"),
           "founded_by": ("founded", "by {v}"), "hosted_by": ("hosted", "by {v}"),
           "located_in": ("located", "in {v}")}
#: What the entity is called when its page title does not say (a film: "(1997 film)").
_NOUN = {"PERSON": "person", "PLACE": "place", "ORG": "organisation", "MISC": "work"}
_KIND_WORD = re.compile(r"\((?:\d{4} )?((?:[A-Z][a-z]+ )?(?:film|album|song|novel|book|"
                        r"play|musical|TV series|television series|series|video game|"
                        r"band|company|magazine|newspaper|opera|documentary|poem))\)$")


def theta() -> dict[str, Any]:
    return {"describe": {"relations": list(DESCRIBE), "forms": list(DESCRIBABLE),
                         "makers": list(MAKERS), "maker_facts": list(MAKER_FACTS),
                         "constraints": CONSTRAINTS, "max_per_path": MAX_PER_PATH}}


def value(f: PathFact) -> str | None:
    """What a description fact says of its entity: its object's name or its year."""
    if f.object is not None:
        return f.object_named
    y = f.the_year
    return None if y is None else str(y)


def through_maker(facts: list[PathFact]) -> bool:
    """Whether a description goes through a maker: the entity's fact naming the maker, then
    the maker's own fact."""
    return len(facts) == 2 and facts[1].subject_id == facts[0].object_id is not None


def stated(facts: list[PathFact]) -> list[str]:
    """What a description's words state: its values, but not a maker it goes through."""
    return [v for f in (facts[1:] if through_maker(facts) else facts)
            if (v := value(f)) is not None]


def stated_objects(facts: list[PathFact]) -> list[str]:
    """The entity names a description's words state (a question's anchors)."""
    return [f.object for f in (facts[1:] if through_maker(facts) else facts) if f.object]


def variants(path: Path, descriptions: list[list[PathFact]]) -> list[Path]:
    """``path`` with its anchor described, once per usable description of it: none that
    names an entity of the path (the bridge entity, the answer) or restates a fact of it,
    and none through a maker the path names."""
    if path.form not in DESCRIBABLE or path.described:
        return []
    anchor = path.facts[0].subject_id
    named = {f.subject_id for f in path.facts} | {f.object_id for f in path.facts
                                                  if f.object_id}
    ids = {f.id for f in path.facts}
    relations = {f.relation for f in path.facts if f.subject_id == anchor}
    out: list[Path] = []
    for facts in descriptions:
        own = facts[:1] if through_maker(facts) else facts
        if any(f.id in ids or (f.object_id and f.object_id in named) or value(f) is None
               for f in facts) or any(f.relation in relations or f.subject_id != anchor
                                      for f in own):
            continue
        out.append(path.model_copy(update={"facts": [*path.facts, *facts],
                                           "described": anchor,
                                           "constraints": len(facts)}))
        if len(out) == MAX_PER_PATH:
            break
    return out


def noun(f: PathFact) -> str:
    """The described entity's kind: its page title's ("film" for "Titanic (1997 film)"),
    else its type's."""
    for t in f.subject_titles:
        q = title_qualifier(t)
        m = _KIND_WORD.fullmatch(q[1]) if q else None
        if m:
            return m.group(1)
    return _NOUN.get(f.subject_type, "one")


def phrase(facts: list[PathFact]) -> str:
    """The description as a noun phrase: "the film released in 1997 and written by James
    Cameron", "the person born in Kapuskasing in 1954" (one verb group per verb), "the film
    written by a person born in Kellhaven" (through a maker)."""
    if through_maker(facts):
        by, of = facts
        outer, inner = _PHRASE.get(by.relation), _PHRASE.get(of.relation)
        v = value(of)
        if outer is None or inner is None or v is None:
            raise Unworded("no_template")
        kind = noun(of)
        article = "an" if kind[:1] in "aeiou" else "a"
        maker = f"{article} {kind} {inner[0]} {inner[1].format(v=v)}"
        return f"the {noun(by)} {outer[0]} {outer[1].format(v=maker)}"
    groups: dict[str, list[str]] = {}
    for f in sorted(facts, key=lambda f: DESCRIBE.index(f.relation)
                    if f.relation in DESCRIBE else len(DESCRIBE)):
        entry, v = _PHRASE.get(f.relation), value(f)
        if entry is None or v is None:
            raise Unworded("no_template")
        verb, prep = entry
        # a place before a year: "born in Kapuskasing in 1954"
        part = prep.format(v=v)
        if f.object is not None:
            groups.setdefault(verb, []).insert(0, part)
        else:
            groups.setdefault(verb, []).append(part)
    # participles joined ("released in 1997 and written by X"), then a relative clause
    # ("the person born in 1954 who died in Rome")
    participles = [f"{v} {' '.join(p)}" for v, p in groups.items() if not v.startswith("who ")]
    relatives = [f"{v} {' '.join(p)}" for v, p in groups.items() if v.startswith("who ")]
    return " ".join([f"the {noun(facts[0])}", " and ".join(participles), *relatives]
                    ).replace("  ", " ")


def described(path: Path) -> Path:
    """``path`` with its described entity named by its description wherever a fact names
    it (the form words the result as it words a name)."""
    if not path.described:
        return path
    text = phrase(path.description)
    return path.model_copy(update={"facts": [
        f.model_copy(update={"subject": text, "subject_titles": []})
        if f.subject_id == path.described else f for f in path.chain],
        "described": None, "constraints": 0})
