"""Span verification: a claim's supporting span must literally be in the page.

Matching is exact after normalising whitespace, quotes and dashes (models re-type those);
failing that, a fuzzy match (rapidfuzz partial ratio over the normalised text) at or above
``FUZZY_THRESHOLD`` locates the offsets. What is stored is always the page's own text at
those offsets, so ``substring(version.text, start, end - start) = span`` holds exactly.
Offsets count code points, as Python and Cypher's ``substring`` both do.
"""

from __future__ import annotations

from pydantic import BaseModel
from rapidfuzz import fuzz

#: Minimum rapidfuzz partial-ratio score (0-100) for a fuzzy location. 90 tolerates a
#: dropped word or re-typed punctuation in a sentence, not a paraphrase.
FUZZY_THRESHOLD = 90.0
#: Spans shorter than this are only matched exactly: fuzzy scores on a few words are noise.
MIN_FUZZY_CHARS = 25
MAX_SPAN_CHARS = 3000

_TRANSLATE = {ord(c): "'" for c in "‘’‚‛′`´"} | {ord(c): '"' for c in "“”„‟″«»"} | {
    ord(c): "-" for c in "‐‑‒–—―−"} | {ord(c): " " for c in "\u00a0\u2007\u202f\u2009\u200a"}


class Located(BaseModel):
    start: int
    end: int
    span: str  # the page's own text[start:end]
    method: str  # exact | normalised | fuzzy
    score: float


class SpanRejected(ValueError):
    def __init__(self, reason: str, detail: str, score: float | None = None) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail, self.score = reason, detail, score


def normalise(text: str) -> tuple[str, list[int]]:
    """Normalised text and, for each of its characters, the index in ``text``."""
    out: list[str] = []
    index: list[int] = []
    space = False
    for i, ch in enumerate(text.translate(_TRANSLATE)):
        if ch.isspace():
            if not space and out:
                out.append(" ")
                index.append(i)
            space = True
            continue
        space = False
        out.append(ch)
        index.append(i)
    if out and out[-1] == " ":
        out.pop()
        index.pop()
    return "".join(out), index


def locate(text: str, span: str, *, normalised: tuple[str, list[int]] | None = None,
           threshold: float = FUZZY_THRESHOLD) -> Located:
    """Find ``span`` in ``text`` or raise ``SpanRejected``."""
    if not span or not span.strip():
        raise SpanRejected("empty_span", "no supporting span given")
    if len(span) > MAX_SPAN_CHARS:
        raise SpanRejected("span_too_long", f"{len(span)} characters")
    i = text.find(span)
    if i >= 0:
        return Located(start=i, end=i + len(span), span=span, method="exact", score=100.0)
    norm_text, index = normalised or normalise(text)
    norm_span, _ = normalise(span)
    j = norm_text.find(norm_span)
    if j >= 0 and norm_span:
        start, end = index[j], index[j + len(norm_span) - 1] + 1
        return Located(start=start, end=end, span=text[start:end], method="normalised",
                       score=100.0)
    if len(norm_span) < MIN_FUZZY_CHARS:
        raise SpanRejected("span_not_found", f"{span[:80]!r} is not in the page")
    hit = fuzz.partial_ratio_alignment(norm_span.lower(), norm_text.lower(),
                                       score_cutoff=threshold)
    if hit is None or hit.dest_end <= hit.dest_start:
        best = fuzz.partial_ratio(norm_span.lower(), norm_text.lower())
        raise SpanRejected("span_not_found", f"{span[:80]!r}: best match {best:.0f} < "
                           f"{threshold:.0f}", score=best)
    start, end = index[hit.dest_start], index[hit.dest_end - 1] + 1
    while start < end and text[start].isspace():  # alignments may include a boundary space
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Located(start=start, end=end, span=text[start:end], method="fuzzy", score=hit.score)
