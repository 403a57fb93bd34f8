"""What a question form works with: the path models, the wording it returns, the protocol a
form implements, and the wording helpers several forms share.

A path is a small connected set of typed facts (``facts/``) whose answer is unique in its
seed graph; a form enumerates its paths in one Cypher query (``cypher/paths/<form>.cypher``),
words them (``render``), computes the answer from the facts, and checks what only it can get
wrong (``problems``). The generic loop -- draw, word, check, store -- is
``rounds/path_generate.py``; it reaches a form only through ``QuestionForm``.
"""

from __future__ import annotations

import random
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from dwqa_graph.facts.models import whole_years as facts_whole_years
from dwqa_graph.facts.resolve import qualified_name
from dwqa_graph.language.lexicon import MONTHS


class PathFact(BaseModel):
    """A fact as a path carries it: what the question is worded from and its evidence."""

    id: str
    relation: str
    verb: str = ""
    subject_id: str
    subject: str
    subject_type: str
    object_id: str | None = None
    object: str | None = None
    object_type: str | None = None
    date: str | None = None
    year: int | None = None
    precision: str | None = None
    value: float | None = None
    unit: str | None = None
    when: str | None = None
    approximate: bool | None = False
    phrase: str | None = None
    short_phrase: str | None = Field(None, description="The phrase's core, where the seed "
                                     "graph has no other event of the subject worded so "
                                     "(``cypher/paths/short_phrases.cypher``).")
    evidence: str
    start: int
    end: int
    version_id: str
    claim_id: str | None = None
    subject_titles: list[str] = Field(default_factory=list)
    object_titles: list[str] = Field(default_factory=list)
    subject_pronoun: str | None = Field(None, description="The pronoun the subject's own "
                                        "page uses for it ('he', 'she'), if it has a page.")

    @property
    def subject_named(self) -> str:
        """The subject as a question names it: with its page title's qualifier."""
        return qualified_name(self.subject, self.subject_titles)

    @property
    def object_named(self) -> str | None:
        return None if self.object is None else qualified_name(self.object, self.object_titles)

    @property
    def the_year(self) -> int | None:
        """The fact's year: its date's, or the year stated for an entity fact."""
        if self.year is not None:
            return self.year
        if self.when and self.when[:4].isdigit():
            return int(self.when[:4])
        return None


class Path(BaseModel):
    form: str = Field(description="The question form's name (``rounds.forms.FORMS``).")
    facts: list[PathFact] = Field(description="In the form's order (bridge: A's fact, then "
                                  "B's; comparison: the two dated facts, then the links).")
    link: str | None = Field(None, description="The linking entity's id, if any.")
    others: int | None = Field(None, description="Intersection: the graph's other entities "
                               "with the first clue alone.")
    across_documents: bool = True
    described: str | None = Field(None, description="The entity the question names by a "
                                  "description instead of its name (its id), if any.")
    constraints: int = Field(0, description="How many facts describe that entity: the last "
                             "``constraints`` of ``facts`` (``paths/descriptions.cypher``).")

    @property
    def chain(self) -> list[PathFact]:
        """The facts the answer is reached by: ``facts`` without the description's."""
        return self.facts[:len(self.facts) - self.constraints]

    @property
    def description(self) -> list[PathFact]:
        return self.facts[len(self.facts) - self.constraints:]

    @property
    def sources(self) -> int:
        """Distinct documents the question needs: its facts' and its description's."""
        return len({f.version_id for f in self.facts})

    @property
    def kind(self) -> str:
        """The question's kind: its form and the relations it computes with
        ("temporal/born+event", "temporal/event+event", "bridge/directed_by+born")."""
        return self.form + "/" + "+".join(f.relation for f in self.facts[:2])

    @property
    def shortened(self) -> Path | None:
        """The path with its events worded by their short phrases, or None where none has
        one. The same candidate (``key``), worded with fewer of its page's words."""
        if not any(f.short_phrase for f in self.facts):
            return None
        return self.model_copy(update={"facts": [
            f.model_copy(update={"phrase": f.short_phrase}) if f.short_phrase else f
            for f in self.facts]})

    @property
    def key(self) -> str:
        """The candidate's identity: its form and facts (the same facts in another round is
        the same candidate, for freshness and the collision statistics)."""
        return self.form + ":" + ",".join(sorted(f.id for f in self.facts))


class DocRef(BaseModel):
    document_id: str
    url: str
    title: str | None = None
    version_id: str


class PathGraph(BaseModel):
    query_id: str
    question: str
    evidence_round: int
    documents: list[DocRef]
    answers: list[str] = Field(default_factory=list, description="The seed's own answers.")
    paths: list[Path] = Field(default_factory=list)

    def document_of(self, version_id: str) -> DocRef | None:
        return next((d for d in self.documents if d.version_id == version_id), None)


AnswerType = Literal["entity", "date", "number", "choice"]


class Unworded(Exception):
    """No template of the form words the path (``reason``: why, counted per round)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Rendered(BaseModel):
    question: str
    answer: str
    answer_type: AnswerType
    pattern: str = Field(description="The form's name.")
    phrasing: str = Field(description="Template key: the set's phrasing variety.")
    two_option: bool = False
    options: list[str] = Field(default_factory=list)
    anchors: list[str] = Field(description="Entity names the question states.")
    detail: dict[str, Any] = Field(default_factory=dict)


class QuestionForm(Protocol):
    """One question form: its Cypher query, the relations it takes, its wording, what its
    answer is computed from, and its own checks. ``FormBase`` gives the defaults."""

    #: The form's name: ``Path.form``, the item's ``pattern``.
    name: str

    @property
    def query(self) -> str:
        """The named query that enumerates its paths (``cypher/paths/<name>.cypher``), run
        with ``graphs`` and ``params()``."""
        ...

    def params(self) -> dict[str, Any]:
        """The query's parameters: the relations the form takes (part of θ)."""
        ...

    def theta(self) -> dict[str, Any]:
        """What else of the form a round's θ holds (top-level keys)."""
        ...

    def render(self, path: Path, rng: random.Random, last_resort: bool = False) -> Rendered:
        """The path as a question, worded with ``rng``'s choices; raises ``Unworded``.
        ``last_resort``: also the frames reviewers read as fill-in frames."""
        ...

    def computed_from(self, path: Path) -> list[PathFact]:
        """The facts the answer is computed from (fresh rounds steer by them)."""
        ...

    def hops(self, path: Path) -> int:
        """The path's hops: the sentences a reader has to find to reach the answer
        (``sentences``), not counting what the question states or describes."""
        ...

    def problems(self, g: PathGraph, path: Path, texts: dict[str, str]) -> list[str]:
        """What a question of this form can get wrong beyond the checks every item passes
        (``texts``: the pages' texts by version id)."""
        ...

    def unworded(self) -> list[str]:
        """The relations its query takes that no template words (a test wants none)."""
        ...


class FormBase:
    """Defaults of ``QuestionForm``: the answer computed from every fact, no θ of its own,
    no checks of its own."""

    name = ""

    @property
    def query(self) -> str:
        return f"paths/{self.name}"

    def theta(self) -> dict[str, Any]:
        return {}

    def computed_from(self, path: Path) -> list[PathFact]:
        return path.facts

    def hops(self, path: Path) -> int:
        # a description's facts are constraints, not hops
        return sentences(path.chain)

    def problems(self, g: PathGraph, path: Path, texts: dict[str, str]) -> list[str]:
        return []


def sentences(facts: list[PathFact]) -> int:
    """How many sentences state ``facts``: two facts read from one sentence are one hop (a
    reader who found the sentence has both), so hops count sentences, not facts."""
    return len({(f.version_id, f.evidence) for f in facts})


# -- wording helpers ---------------------------------------------------------------------
def spoken_date(f: PathFact) -> str:
    """The fact's date at its precision: 1954, August 1954, August 16, 1954."""
    if f.date is None:
        return str(f.the_year)
    parts = f.date.split("-")
    if f.precision == "day" and len(parts) == 3:
        return f"{MONTHS[int(parts[1]) - 1]} {int(parts[2])}, {parts[0]}"
    if f.precision == "month" and len(parts) >= 2:
        return f"{MONTHS[int(parts[1]) - 1]} {parts[0]}"
    return parts[0]


def whole_years(f1: PathFact, f2: PathFact) -> int | None:
    """The whole years from ``f1``'s date to ``f2``'s where the dates decide them."""
    return facts_whole_years((f1.date, f1.precision), (f2.date, f2.precision))


def years(n: int) -> str:
    return f"{n} year" + ("" if n == 1 else "s")


def pick(rng: random.Random, options: dict[str, str]) -> tuple[str, str]:
    """A phrasing: its key and frame, chosen with the draw's ``rng``."""
    key = rng.choice(sorted(options))
    return key, options[key]


def type_ok(want: str | None, got: str | None) -> bool:
    return want is None or got == want
