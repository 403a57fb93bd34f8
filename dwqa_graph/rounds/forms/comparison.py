"""The comparison form: the same dated relation of two subjects that share a named link
(same director, band, founder; married), never two strangers of one type. Paths:
``cypher/paths/comparison.cypher``."""

from __future__ import annotations

import random
from typing import Any

from dwqa_graph.rounds.forms.base import (
    FormBase,
    Path,
    PathFact,
    Rendered,
    Unworded,
    pick,
    sentences,
    type_ok,
    years,
)

#: The shared object that links two subjects (same director, writer, band, founder), or a
#: relation from one subject to the other. Not a shared birthplace: two physicists born in
#: Rome are strangers (QUALITY.md: "strangers who merely share a type").
LINKS = ("directed_by", "written_by", "created_by", "hosted_by", "member_of", "founded_by")
DIRECT = ("married",)
DATED = ("born", "died", "released", "founded")
#: Share of comparisons asked as "which first, A or B?" (two options: a coin flip scores
#: 50%, QUALITY.md caps a set's two-option items at 20%); the rest ask the difference.
CHOICE_SHARE = 0.15

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


def _render(p: Path, rng: random.Random) -> Rendered:
    fa, fb, links = p.facts[0], p.facts[1], p.facts[2:]
    entry = _COMPARE.get(fa.relation)
    if entry is None or not links:
        raise Unworded("no_template")
    s_type, diffs, first = entry
    if not (type_ok(s_type, fa.subject_type) and type_ok(s_type, fb.subject_type)):
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
    key, frame = pick(rng, diffs)
    question = frame.format(A=named[0], B=named[1], link=link_text, link_bare=link_bare)
    return Rendered(question=question, answer=years(abs(ya - yb)), answer_type="number",
                    pattern="comparison", phrasing=f"comparison/{fa.relation}.{key}",
                    anchors=names, detail={"years": [ya, yb], "link": link.relation})


class Comparison(FormBase):
    name = "comparison"

    def params(self) -> dict[str, Any]:
        return {"links": list(LINKS), "direct": list(DIRECT), "dated": list(DATED)}

    def theta(self) -> dict[str, Any]:
        return {"choice_share": CHOICE_SHARE}

    def render(self, path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
        return _render(path, rng)

    def computed_from(self, path: Path) -> list[PathFact]:
        """The two dated facts: the link facts say why the two subjects are compared, not
        what the answer is."""
        return path.facts[:2]

    def hops(self, path: Path) -> int:
        """The two dated facts' sentences: the question states the link ("both directed by
        L"), so a reader finds two dates, however many facts the link took."""
        return sentences(path.facts[:2])

    def unworded(self) -> list[str]:
        return sorted(set(DATED) - set(_COMPARE)) + sorted(
            (set(LINKS) | set(DIRECT)) - set(_LINK) - set(_DIRECT))


FORM = Comparison()
