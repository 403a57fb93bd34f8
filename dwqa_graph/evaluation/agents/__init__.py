"""Agents under evaluation: one protocol (question -> answer + trace) and its adapters, one
module each, registered by name in ``dwqa_graph.AGENTS`` (``make_agent("NAME[:ARG]")``).
Adding an agent is one new module here (or an entry point in another package)."""

from dwqa_graph.evaluation.agents.base import (
    Agent,
    AgentAnswer,
    AgentContext,
    LeakableAgent,
    LeakedFact,
    LeakedItem,
    RetrievedDoc,
    as_leaked,
    make_agent,
    short_answer,
)

__all__ = ["Agent", "AgentAnswer", "AgentContext", "LeakableAgent", "LeakedFact", "LeakedItem",
           "RetrievedDoc", "as_leaked",
           "make_agent", "short_answer"]
