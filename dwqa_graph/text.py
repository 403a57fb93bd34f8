"""Word-level text helpers shared by search (the local web's BM25) and reading (the baseline
agent): one stop-word list, one tokeniser."""

from __future__ import annotations

import re

# Function words that carry no topic: dropped from search terms and from sentence overlap.
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "had", "has", "have",
    "he", "her", "his", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of",
    "on", "or", "our", "she", "so", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "why", "will", "with", "you", "your",
})

_WORD = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without stop words."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]

