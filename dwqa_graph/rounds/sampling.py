"""Stage 4a — what a round's draws are seeded and steered by.

For seed graph i in round t the per-graph seed is r_i,t = H(round seed, graph id)
(``graph_seed``); the draws themselves are the path generator's (``paths.draw``). The
``SampleConfig`` of a round holds its redraw budget, its reuse rule over the facts the
previous round's items used, whether it draws time-sensitive paths, and its complexity:
the hops, sources and constraints an item may have.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

#: A round's default complexity: every form (two to four hops to the answer), with
#: or without a description. A benchmark's rounds mix the levels; the report and `round
#: collisions --checked` split them (``--hops 3-4 --constraints 2-2`` makes a hard round).
DEFAULT_HOPS = (2, 4)
DEFAULT_CONSTRAINTS = (0, 2)

#: How a round treats the facts the previous round's items used (``SampleConfig.reuse``).
Reuse = Literal["fresh", "disjoint", "avoid", "allow", "prefer"]
#: Which paths a round draws by their time-sensitivity (``SampleConfig.time_sensitive``).
TimeSensitive = Literal["any", "only", "exclude"]


class SampleConfig(BaseModel):
    """What a round's draws may do (``dwqa round new`` options)."""

    attempts: int = Field(16, ge=1, description="Redraws before a graph is reported empty.")
    reuse: Reuse = Field(
        "fresh", description="The facts the previous round's items used: 'fresh' (the "
        "default) draws no path whose answer is computed from them alone -- every item "
        "needs a fact the previous round did not use (it may share one, such as a "
        "subject's birth); 'disjoint' draws no path with any of them -- a seed graph whose "
        "every path uses one gets no item this round; 'avoid' is 'disjoint' in the first "
        "half of a graph's attempts and while a path without them is left; 'allow' ignores "
        "them (independent draws); 'prefer' draws only paths made of them while there is "
        "one (heavy reuse). See ``path_generate._exclude``.")
    max_per_fact: int | None = Field(
        None, ge=1, description="How many of a round's items may name one fact (None: no "
        "cap). Seed graphs that share a page share its facts, and a fresh round's draws "
        "prefer the facts its items already use (``paths.draw``): uncapped, one fact of a "
        "page many graphs cite stood in up to 9 items of a round.")
    hops: tuple[int, int] = Field(
        DEFAULT_HOPS, description="The sentences a reader has to find to reach an item's "
        "answer, least and most (``forms.hops``: two facts of one sentence are one hop, a "
        "link or description the question states is none): 2 is a bridge, an intersection, "
        "a comparison, a temporal pair; 3-4 a chain.")
    sources: int = Field(
        1, ge=1, description="The least number of distinct documents an item needs "
        "(``Path.sources``, its description's included).")
    constraints: tuple[int, int] = Field(
        DEFAULT_CONSTRAINTS, description="How many facts describe an entity in place of "
        "its name, least and most (``Path.constraints``: 0, or a description's 2).")
    reuse_share: float = Field(
        1.0, ge=0.0, le=1.0, description="Share of seed graphs the reuse rule applies to "
        "(chosen per graph and round from r); the others draw as with 'allow'.")
    time_sensitive: TimeSensitive = Field(
        "any", description="'any' (the default) draws every path; 'only' only paths with a "
        "fact read from a claim about now (a present-tense or 'as of' sentence, "
        "``timesense``); 'exclude' only paths without one.")
    previous_facts: frozenset[str] = Field(
        frozenset(), exclude=True, description="Fact ids the previous round's items used "
        "(with every fact stating the same from another sentence); "
        "set by ``new_round`` from the graph (not part of θ: it is graph state, like the "
        "evidence).")
    recent: dict[str, frozenset[str]] = Field(
        default_factory=dict, exclude=True, description="Per seed graph, the candidates "
        "(``Path.key``) its items were in the ``RECENT_ROUNDS`` rounds up to the previous "
        "one; a fresh round draws them last. Set by ``new_round`` (graph state, like "
        "``previous_facts``).")


    @model_serializer(mode="wrap")
    def _without_default_knobs(self, handler: SerializerFunctionWrapHandler) -> Any:
        # θ holds this dump: a knob left at its default is left out, so a round drawn
        # without it keeps the θ (and θ hash) it had before the knob existed
        data = handler(self)
        if isinstance(data, dict) and self.time_sensitive == "any":
            data.pop("time_sensitive", None)
        return data

    @model_validator(mode="after")
    def _ranges(self) -> SampleConfig:
        for name in ("hops", "constraints"):
            lo, hi = getattr(self, name)
            if lo < 0 or hi < lo:
                raise ValueError(f"{name}: a range LO-HI with 0 <= LO <= HI, got {lo}-{hi}")
        return self

    def admits(self, hops: int, sources: int, constraints: int) -> bool:
        """Whether an item of this complexity belongs in the round."""
        return (self.hops[0] <= hops <= self.hops[1] and sources >= self.sources
                and self.constraints[0] <= constraints <= self.constraints[1])


#: How many rounds back a fresh round looks for a graph's own candidates to draw last: the
#: collision bound's horizon is 5 rounds, so the 4 before it.
RECENT_ROUNDS = 4


def graph_seed(round_seed: int | str, graph_id: str) -> int:
    """r_i,t = H(round seed, graph id): independent across graphs, fixed for a pair."""
    return int(hashlib.sha256(f"{round_seed}:{graph_id}".encode()).hexdigest()[:16], 16)
