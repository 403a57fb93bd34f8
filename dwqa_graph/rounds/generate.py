"""Stage 4b — generation: the generator protocol, what a generator hands the round, and the
registered generators.

A generator (``Generator``) makes one round's items from the seed graphs as of round t;
``new_round`` calls its ``round`` and stores what it returns. The built-in generator is
``paths`` (``rounds/path_generate.py``): questions worded from typed fact paths.
``make_generator`` builds the one registered under a name (built-in or a plugin's); θ,
everything fixed for a round, is hashed into the round and its items' ids.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from dwqa_graph.registry import GENERATORS
from dwqa_graph.rounds.forms.base import Path, PathGraph

if TYPE_CHECKING:
    from dwqa_graph.graph.store import Store
    from dwqa_graph.llm import LLM
    from dwqa_graph.rounds.sampling import SampleConfig


class QACandidate(BaseModel):
    question: str
    answer: str
    pattern: str = Field(description="The question form (``rounds.forms.FORMS``).")
    hops: int = Field(description="Facts on the answer's path.")
    sources: int = Field(1, description="Distinct documents the item needs.")
    constraints: int = Field(0, description="Facts that describe an entity in place of its "
                             "name.")
    used_facts: list[str] = Field(default_factory=list, description="Fact ids, in path order.")
    generator: str
    detail: dict[str, Any] = Field(default_factory=dict,
                                   description="Values the answer was computed from.")
    checks: list[str] = Field(default_factory=list, description="The checks it passed.")


class PathDraw:
    """Which draw gave an item: its seed graph, r_i,t, the attempt and the path (what the
    item row and the snapshot read of it)."""

    def __init__(self, query_id: str, r: int, attempt: int, path: Path) -> None:
        self.query_id, self.r, self.attempt, self.path = query_id, r, attempt, path


#: What a generator's round is: the seed graphs it drew from, the items (with their draws),
#: the graphs without an item and their reasons, and its counts (``attempts``, ``rejected``
#: by reason, ``pool``: each graph's candidates).
Generation = tuple[list[PathGraph], list[tuple[PathDraw, QACandidate]], dict[str, list[str]],
                   dict[str, Any]]


class Generator(Protocol):
    """What ``new_round`` asks of a generator (registered in ``GENERATORS`` as
    ``factory(llm: LLM | None) -> Generator``)."""

    #: Stored with the round ("paths", "paths-llm:MODEL").
    name: str
    #: The model it words with, if any (its call counts go into the round's report).
    llm: LLM | None

    def theta(self) -> dict[str, Any]:
        """Everything fixed for its rounds (hashed into the round and its items' ids)."""
        ...

    def round(self, store: Store, t: int, dataset: str | None, cfg: SampleConfig,
              round_seed: int, load_texts: Callable[[list[str]], dict[str, str]],
              ) -> Generation:
        """Round ``t``'s items, one per seed graph at most (``load_texts``: page texts by
        version id, for the checks)."""
        ...


def theta_hash(theta: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(theta, sort_keys=True).encode()).hexdigest()[:16]


def make_generator(name: str, *, llm: LLM | None = None) -> Generator:
    """The generator registered as ``name`` (``paths`` or a plugin's)."""
    gen: Generator = GENERATORS.get(name).factory(llm)
    return gen
