"""Pydantic models for everything the pipeline reads, stores or reports.

Input models (``AgentLog``, ``Source``) are what every log format is normalised into.
Stored models (``QueryNode`` ...) mirror the graph schema in ``cypher/schema``; their
``row()`` is exactly the parameter map the ingest Cypher reads.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

StepType = Literal["conclude", "evidence", "retrieve", "comparison", "hypothesis", "reason"]
Stance = Literal["supports", "contradicts", "neutral"]
AnswerKind = Literal["gold", "agent"]


def stable_id(*parts: object) -> str:
    """A short, stable content key: the same parts always give the same id."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8"))
    return h.hexdigest()[:24]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- input ---------------------------------------------------------------------------
class Source(_Model):
    """One retrieved source as a log lists it."""

    id: int = Field(description="The number the transcript cites as [id].")
    url: str = Field(min_length=1)
    title: str = ""
    snippet: str = Field("", description="Search-result excerpt shown to the agent.")
    text: str | None = Field(None, description="Full text, when the log already has it.")


class Cite(_Model):
    id: int
    stance: Stance = "supports"


class Step(_Model):
    """One typed reasoning step (a THOUGHT of the seed's JSON formatter)."""

    position: int
    text: str
    step_type: StepType
    cites: list[Cite] = []


class ParsedTranscript(_Model):
    """What a step parser returns: the seed's ``{"thoughts": [...], "answer": {...}}``."""

    thoughts: list[Step]
    answer_cites: list[Cite] = []
    parser: str = Field(description="Which parser produced this (rule, llm:<model>).")


class SupportingFact(_Model):
    """A gold evidence sentence (HotpotQA ``supporting_facts``)."""

    source_id: int
    text: str


class AgentLog(_Model):
    """An agent run (or a gold dataset item) normalised from any input format."""

    key: str = Field(description="Explicit record id, or a hash of the record's content.")
    question: str = Field(min_length=1)
    answer: str = ""
    answer_kind: AnswerKind = "agent"
    thinking: str = ""
    sources: list[Source] = []
    supporting: list[SupportingFact] = []
    dataset: str
    format: str


# -- stored ----------------------------------------------------------------------------
class _Node(_Model):
    def row(self) -> dict[str, Any]:
        return self.model_dump()


class QueryNode(_Node):
    id: str
    text: str
    dataset: str
    source: str = Field(description="Input format the query came from.")
    source_file: str
    source_line: int
    content_hash: str | None = Field(None, description="Hash of the normalised record: "
                                     "a re-ingest with another hash is a conflict.")


class DocumentNode(_Node):
    id: str = Field(description="Hash of the normalised URL.")
    url: str
    title: str


class DocumentVersionNode(_Node):
    id: str = Field(description="Hash of the text: unchanged text never adds a version.")
    document_id: str
    text: str
    status: str
    extractor: str
    fetched_at: str | None = None


class SnippetNode(_Node):
    id: str
    query_id: str
    text: str
    step_type: StepType
    position: int
    cites: list[int]
    missing_cites: list[int] = Field(description="Citations [n] that name no source.")
    parser: str


class AnswerNode(_Node):
    id: str
    query_id: str
    text: str
    kind: AnswerKind


# -- evaluation ---------------------------------------------------------------------------
class EvalItem(_Model):
    """One test question as every scorer sees it, from a round or from a static benchmark.

    ``golds`` holds every acceptable answer (FreshQA lists up to ten; a round item has one):
    EM and F1 take the max over them.
    """

    id: str = Field(description="QAItem.id or StaticItem.id.")
    question: str
    golds: list[str] = Field(min_length=1)
    pattern: str | None = Field(
        None, description="Round pattern, HotpotQA type or FreshQA fact_type.")
    hops: int | None = None
    false_premise: bool | None = Field(
        None, description="FreshQA: the question rests on a false premise (FreshEval then "
                          "credits only a rebuttal).")
    source: Literal["round", "static"]
    dataset: str = Field(description="'round:<t>' or the static set's name.")
