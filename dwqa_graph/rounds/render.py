"""Stage 4b (fact paths) — wording a path as a question, by its form's templates.

Every template is a whole question over typed slots (a person, a work, a place, a year), so
there are no clause fragments: the subject and object of each fact are resolved entities,
the dates are the facts' own. Each form (``rounds/forms/``) has several phrasings per
relation, chosen with r_i,t. The answer is computed from the facts, never read from the
wording.

``render(path, rng)`` returns the question, the answer, its type and what it was computed
from, or raises ``Unworded`` when no template fits the path's types (a path whose entities
are of the wrong kind for its relation is a reading error, not a question). What it does for
every form is naming: an entity with its page title's qualifier, unless that gives away a
year the question asks about.
"""

from __future__ import annotations

import random

from dwqa_graph.facts.resolve import title_qualifier
from dwqa_graph.rounds.forms import describe, form_of
from dwqa_graph.rounds.forms.base import AnswerType, Path, Rendered, Unworded

__all__ = ["TEMPLATES_VERSION", "AnswerType", "Rendered", "Unworded", "render"]

#: Part of θ: bump when a phrasing of any form changes.
TEMPLATES_VERSION = "20"


def _titles_not_revealing(path: Path) -> Path:
    """The path with the page titles whose qualifier states one of its years dropped: "the
    director of Titanic (1997 film)" would give away the release year a question computes
    with (and an entity left with no title is not asked about, ``render``)."""
    years = {str(y) for f in path.facts if (y := f.the_year) is not None}

    def keep(titles: list[str]) -> list[str]:
        return [t for t in titles
                if not any(y in q[1] for q in [title_qualifier(t)] if q for y in years)]

    return path.model_copy(update={"facts": [
        f.model_copy(update={"subject_titles": keep(f.subject_titles),
                             "object_titles": keep(f.object_titles)}) for f in path.facts]})


def render(path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
    """The question a path asks, worded with ``rng``'s choices by its form. Entities are
    named with their page title's qualifier ("the 1930 film The Golden Calf", "Metrocenter
    Mall (Jackson, Mississippi)") unless it states a year the question is about. With
    ``last_resort`` a form may also word it by the frames reviewers read as fill-in frames
    (an interval anchored by its first year, ``forms/temporal.py``)."""
    shown = _titles_not_revealing(path)
    # (a description keeps its entity's page title: "(1997 film)" says it is a film, and
    # the noun it gives drops the year)
    worded = describe.described(shown.model_copy(update={
        "facts": shown.chain + path.description}))
    got = form_of(path).render(worded, rng, last_resort)
    if path.described:
        # the question names the description's objects, not the entity it describes
        text = worded.facts[0].subject
        got = got.model_copy(update={"anchors": [a for a in got.anchors if a != text]
                                     + describe.stated_objects(path.description)})
    # An entity the question names whose title's qualifier states a year the question asks
    # about: without the qualifier the bare title names several things ("The Golden Calf
    # (1930 film)"), with it the year is given away.
    bare = {n for f, g in zip(path.facts, shown.facts, strict=True)
            for n, before, after in ((f.subject, f.subject_titles, g.subject_titles),
                                     (f.object, f.object_titles, g.object_titles))
            if n and before and not after}
    if bare & set(got.anchors):
        raise Unworded("title_gives_year")
    # a qualified name may open the question ("the 1930 film The Golden Calf came out ...")
    return got.model_copy(update={"question": got.question[:1].upper() + got.question[1:]})
