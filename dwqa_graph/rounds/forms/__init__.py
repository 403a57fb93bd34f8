"""Question forms: one module per form, each behind ``base.QuestionForm``.

A form module holds everything about its questions: the relations its Cypher query takes
(``cypher/paths/<name>.cypher``), its templates and how it words a path, what its answer is
computed from, and the checks only it needs. The generic loop (``rounds/paths.py`` draws,
``rounds/render.py`` words, ``rounds/path_generate.py`` checks and builds the round) reaches
the forms through ``FORMS`` only. A new form is a module here, its query, and one entry in
``FORMS``.
"""

from __future__ import annotations

from typing import Any

from dwqa_graph.rounds.forms import bridge, chain, comparison, describe, intersection, temporal
from dwqa_graph.rounds.forms.base import Path, PathFact, QuestionForm

#: The forms by name, in the order θ lists them.
FORMS: dict[str, QuestionForm] = {
    m.FORM.name: m.FORM for m in (bridge, intersection, comparison, temporal, chain)}


def form_of(path: Path) -> QuestionForm:
    return FORMS[path.form]


def computed_from(path: Path) -> list[PathFact]:
    """The facts ``path``'s answer is computed from (``QuestionForm.computed_from``)."""
    return form_of(path).computed_from(path)


def hops(path: Path) -> int:
    """``path``'s hops (``QuestionForm.hops``): the sentences a reader has to find."""
    return form_of(path).hops(path)


def form_params() -> dict[str, dict[str, Any]]:
    """Each form's query parameters: the relations it takes."""
    return {name: f.params() for name, f in FORMS.items()}


def forms_theta() -> dict[str, Any]:
    """What the forms put in a round's θ: their names, relations, and their own entries."""
    th: dict[str, Any] = {"forms": list(FORMS), "relations": form_params()}
    for f in FORMS.values():
        th.update(f.theta())
    th.update(describe.theta())
    return th
