"""Stage 4b — generation: what a generator hands the round, and the registered generators.

The built-in generator is ``paths`` (``rounds/path_generate.py``): questions worded from
typed fact paths. ``make_generator`` builds the one registered under a name (built-in or a
plugin's); θ, everything fixed for a round, is hashed into the round and its items' ids.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from dwqa_graph.registry import GENERATORS

if TYPE_CHECKING:
    from dwqa_graph.llm import LLM
    from dwqa_graph.rounds.path_generate import PathGenerator


class QACandidate(BaseModel):
    question: str
    answer: str
    pattern: str = Field(description="The fact-path form (paths.FORMS).")
    hops: int
    used_facts: list[str] = Field(default_factory=list, description="Fact ids, in path order.")
    generator: str
    detail: dict[str, Any] = Field(default_factory=dict,
                                   description="Values the answer was computed from.")
    checks: list[str] = Field(default_factory=list, description="The checks it passed.")


def theta_hash(theta: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(theta, sort_keys=True).encode()).hexdigest()[:16]


def make_generator(name: str, *, llm: LLM | None = None) -> PathGenerator:
    """The generator registered as ``name`` (``paths`` or a plugin's)."""
    gen: PathGenerator = GENERATORS.get(name).factory(llm)
    return gen
