"""Word-level text helpers shared by search (the local web's BM25), reading (the baseline
agent), scoring and the checks on answers: one stop-word list, one tokeniser, one answer
normalisation, and the fold that keys entity names."""

from __future__ import annotations

import re
import string
import unicodedata

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



# SQuAD's answer normalisation: scoring, the rounds' answer checks and the leakage checks must
# agree on when two answers are the same (see evaluation/scoring.py for its quirks, kept on
# purpose so scores compare with published numbers).
_PUNCT = frozenset(string.punctuation)
# Same pattern as the official scripts; on str patterns Python 3 \b is Unicode-aware already
# (v2.0 passes re.UNICODE explicitly, which is the default).
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(s: str) -> str:
    """Official SQuAD normalisation, in the official order: lower, punctuation, articles, spaces."""
    text = s.lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def norm_name(name: str) -> str:
    """Case-, accent- and punctuation-folded name: the key of an entity across documents
    (the facts stage) and what a search result's title must fold to for ``dwqa expand``."""
    s = unicodedata.normalize("NFKD", name)
    s = "".join(ch for ch in s if not unicodedata.combining(ch)).lower()
    s = re.sub(r"['’]s\b", "", s)
    s = re.sub(r"[^\w\s]", " ", s)
    return " ".join(s.split())
