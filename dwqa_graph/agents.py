"""Agents under evaluation: one protocol (question -> answer + trace) and its adapters.

INTERFACE SKELETON — the adapters are being written; the models and signatures below are fixed.

Agent specs (``make_agent``):

- ``baseline``                 built-in web agent over the graph's full-text index (offline)
- ``baseline:URL``             the same agent searching a SearxNG(-compatible) endpoint at URL
                               and fetching the result pages
- ``python:module:function``   a Python callable ``f(question) -> str | AgentAnswer | dict``
- ``perplexica:URL``           Perplexica's ``POST /api/search`` at URL
- ``closedbook:LLMSPEC``       an LLM answering without retrieval (LLMSPEC as ``make_llm``)
- ``memorize:SPEC``            SPEC wrapped in a leaked agent that memorises leaked QA pairs
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

# What an agent read is kept so run-time leakage can be checked later, but a hostile page can
# be megabytes: the trace keeps the first MAX_TRACE_CHARS characters of each document.
MAX_TRACE_CHARS = 20_000


class RetrievedDoc(BaseModel):
    """One document the agent retrieved, with the text it actually saw."""

    url: str
    title: str = ""
    text: str = Field("", description="What the agent read (excerpt or page text), capped.")
    rank: int = Field(description="1-based position in the agent's retrieval order.")


class AgentAnswer(BaseModel):
    """An agent's reply to one question, with its trace."""

    answer: str
    retrieved: list[RetrievedDoc] = []
    steps: list[str] = Field([], description="Reasoning / action steps, in order.")
    error: str | None = Field(None, description="Why the agent failed; answer is then ''.")


class AgentError(ValueError):
    """A bad agent spec or an agent that cannot be set up; the message says which and how."""


@runtime_checkable
class Agent(Protocol):
    spec: str

    def answer(self, question: str) -> AgentAnswer:
        """Answer one question. Must not raise for a per-question failure: set ``error``."""
        ...

    def close(self) -> None:
        ...


@runtime_checkable
class LeakableAgent(Agent, Protocol):
    """An agent that can be given test items: the offline stand-in for fine-tuning on them."""

    def leak(self, pairs: Iterable[tuple[str, str]]) -> int:
        """Memorise (question, answer) pairs; returns how many distinct questions it holds."""
        ...

    def forget(self) -> None:
        """Drop everything leaked so far (M_leak^t is M leaked on round t only)."""
        ...
