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
#: The lower-case words inside a person's name ("Ortega y Gasset", "Ludwig van Beethoven").
NAME_PARTICLE = r"(?:de|da|di|du|del|der|van|von|la|le|y|bin|al)"

_WORD = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without stop words."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def clean(text: str) -> str:
    """A phrase cut out of a sentence, tidied: no "( )" left by a removed date, no space
    before punctuation, no leading/trailing separators or final full stop."""
    text = re.sub(r"\(\s*[^()\w]*\s*\)", "", text)
    text = re.sub(r"\s+([,.;:)])", r"\1", " ".join(text.split()))
    return text.strip(" ,;:").rstrip(".")
