"""The item rubric's text checks (QUALITY.md), run on every candidate question.

Each check returns None (a pass) or a short reason key, counted per round (``NO_ITEM``
reasons when a graph ends without an item). What a path item can get wrong beyond them is
checked in ``path_generate.path_problems``.

- self_contained: no quoted passage, numbered statements, blanks, references to the
  statements/passages/documents, or an opening pronoun/demonstrative with no antecedent.
- not_verbatim: no run of >= 8 consecutive normalised words shared with any evidence span or
  with the text of the documents the spans come from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

VERBATIM_RUN = 8


class CheckInput(BaseModel):
    """What the checks see: the candidate and its evidence, nothing else."""

    question: str
    spans: list[str] = Field(description="The evidence sentences of the used facts, in order.")
    documents: list[str] = Field(default_factory=list,
                                 description="Full text of the spans' document versions.")


# -- self-contained ------------------------------------------------------------------------
_QUOTE = re.compile(r"[\"“”«»]([^\"“”«»]{0,400})[\"“”«»]")
_NUMBERED = re.compile(r"(?:^|[\s:;,])\(?\d\)\s|\b(?:statement|claim|passage|fact)\s+\d\b", re.I)
_BLANK = re.compile(r"_{2,}|\[\s*blank\s*\]|\.\.\.\s*\?", re.I)
_META = re.compile(r"\b(?:the|these|those|both|each|all|following)\s+(?:(?:two|three|four|"
                   r"above|given|following|quoted|listed)\s+)?(?:statements?|passages?|"
                   r"documents?|sources?|texts?|excerpts?|claims?|snippets?|buckets?|quotes?|"
                   r"sentences?|articles?)\b|\baccording to\b|\bprovided (?:text|context)\b"
                   r"|\bthese (?:events|things|facts|figures)\b|\bmissing (?:figure|name|word)",
                   re.I)
# A question opening with a pronoun or a demonstrative used as a noun has nothing to refer to.
_OPENING = re.compile(r"^(?:(?:how many years (?:after|before)|how long after|when|why|what|"
                      r"how|which|where)\s+)?(?:(?:did|does|do|was|is|were|has|had)\s+)?"
                      r"(?:he|she|it|they|him|her|them|his|its|their|this|that|these|those)\b"
                      r"(?!\s+of\b)", re.I)


def self_contained(x: CheckInput) -> str | None:
    q = x.question.strip()
    for m in _QUOTE.finditer(q):
        if len(m.group(1).split()) >= 4:
            return "quoted_passage"
    if _NUMBERED.search(q):
        return "numbered_statements"
    if _BLANK.search(q):
        return "blank"
    if _META.search(q):
        return "mentions_documents"
    if _OPENING.match(q):
        return "dangling_reference"
    return None


# -- not verbatim --------------------------------------------------------------------------
def words(text: str) -> list[str]:
    """The words of ``text`` as a reader counts them: lower case, punctuation dropped,
    articles kept (QUALITY.md's "8 consecutive words" counts "the" and "a"; dropping them,
    as SQuAD's answer normalisation does, let 9-word copies through as 7)."""
    # A search engine reads "second-generation" as two words: so does the verbatim check.
    return re.findall(r"[\w']+", re.sub(r"[-–—/]", " ", text.replace("’", "'").lower()))


def shingles(text: str, n: int = VERBATIM_RUN) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def copied_run(question: str, sources: Sequence[str], n: int = VERBATIM_RUN) -> str | None:
    """The first run of ``n`` normalised question words found in any source, or None."""
    qs = shingles(question, n)
    if not qs:
        return None
    for s in sources:
        hit = qs & shingles(s, n)
        if hit:
            return " ".join(sorted(hit)[0])
    return None


def not_verbatim(x: CheckInput) -> str | None:
    return "copied_run" if copied_run(x.question, [*x.spans, *x.documents]) else None
