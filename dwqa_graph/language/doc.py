"""A parsed text as the rest of the package reads it: sentences of tokens with their
part of speech, lemma, named-entity tag and normalised value, the enhanced++ Universal
Dependencies between them, and the library's entity mentions.

Plain slotted dataclasses, not pydantic: a full page is ~10^4 tokens and nothing here is
stored (facts are, see ``facts/models.py``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Token:
    i: int  # 1-based index in its sentence (as the dependencies number it; 0 is the root)
    word: str
    lemma: str
    pos: str
    ner: str
    norm: str | None
    start: int  # character offsets in the annotated text
    end: int


@dataclass(slots=True)
class Mention:
    """A named-entity mention: tokens [first, last] (1-based, inclusive)."""

    first: int
    last: int
    ner: str
    norm: str | None
    text: str
    start: int
    end: int

    def covers(self, i: int) -> bool:
        return self.first <= i <= self.last


@dataclass(slots=True)
class Sentence:
    tokens: list[Token]
    mentions: list[Mention]
    #: governor index -> [(relation, dependent index)]; dependents of 0 are the roots
    children: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    #: dependent index -> [(relation, governor index)]
    parents: dict[int, list[tuple[str, int]]] = field(default_factory=dict)

    @property
    def start(self) -> int:
        return self.tokens[0].start if self.tokens else 0

    @property
    def end(self) -> int:
        return self.tokens[-1].end if self.tokens else 0

    def token(self, i: int) -> Token:
        return self.tokens[i - 1]

    def deps(self, i: int, *relations: str) -> list[int]:
        """Dependents of token ``i`` by relation; a relation ending in ':' matches its
        subtypes ('obl:' matches obl:in, obl:tmod ...)."""
        return [d for r, d in self.children.get(i, ())
                if not relations or r in relations
                or any(x.endswith(":") and r.startswith(x) for x in relations)]

    def heads(self, i: int) -> list[tuple[str, int]]:
        return self.parents.get(i, [])

    def mention_at(self, i: int) -> Mention | None:
        for m in self.mentions:
            if m.covers(i):
                return m
        return None

    def text_of(self, source: str, first: int, last: int) -> str:
        return source[self.token(first).start:self.token(last).end]


@dataclass(slots=True)
class Doc:
    text: str
    sentences: list[Sentence]
    #: The words of the sentences left unread (``Cues``): in the text, not in ``sentences``.
    unread_words: list[str] = field(default_factory=list)


def parse_doc(text: str, data: dict[str, Any]) -> Doc:
    """The worker's compact JSON (see ``corenlp/DwqaCoreNLP.java``) as a ``Doc``."""
    sentences = []
    for s in data.get("sentences", []):
        tokens = [Token(i + 1, w, lem or w, pos or "", ner or "O", norm, b, e)
                  for i, (w, lem, pos, ner, norm, b, e) in enumerate(s["tokens"])]
        children: dict[int, list[tuple[str, int]]] = defaultdict(list)
        parents: dict[int, list[tuple[str, int]]] = defaultdict(list)
        for rel, gov, dep in s["deps"]:
            children[gov].append((rel, dep))
            parents[dep].append((rel, gov))
        mentions = []
        for first, end, ner, norm in s["mentions"]:
            if not 0 <= first < end <= len(tokens):
                continue
            a, b = tokens[first], tokens[end - 1]
            mentions.append(Mention(first + 1, end, ner, norm, text[a.start:b.end],
                                    a.start, b.end))
        sentences.append(Sentence(tokens, mentions, dict(children), dict(parents)))
    return Doc(text, sentences, list(data.get("unread_words") or []))
