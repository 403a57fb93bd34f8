"""One sentence splitter for text the library does not parse (the claims stage's rule
extractor, the evaluation reader): fast and offset-exact, where CoreNLP's own splitting is
used wherever the text is parsed anyway (the facts stage).

A line of extracted page text is a paragraph, a heading, a list item or a table row: a
sentence never runs on past it. Inside a line, a sentence ends at ``.``, ``!`` or ``?`` (and
any closing quotes or brackets) before white space, except after an abbreviation
(``lexicon.ABBREVIATIONS``), after an initial ("John G. Blystone"), or before a lower-case
word (the sentence goes on: "approx. three km").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from dwqa_graph.language.lexicon import ABBREVIATIONS

_LINE = re.compile(r"[^\n]+")
_END = re.compile(r"[.!?][\"'”’)\]]*\s+")
#: Where a lost space glued two sentences: "film.It" (two lowercase letters, a full stop, a
#: capitalised word; initials such as "John G.Blystone" are left alone). Common in the
#: paragraph datasets; a parser reads such a pair as one sentence and gives the first verb the
#: second one's objects.
GLUED = re.compile(r"(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])")


def sentence_spans(text: str, *, glued: bool = False) -> Iterator[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, in order; ``text[start:end]`` has no
    trailing white space. ``glued``: also cut where a lost space glued two sentences
    (``GLUED``)."""
    if glued:
        for a, b in sentence_spans(text):
            cuts = [a] + [m.start() for m in GLUED.finditer(text, a, b)] + [b]
            yield from zip(cuts, cuts[1:], strict=False)
        return
    for line in _LINE.finditer(text):
        start = line.start()
        for m in _END.finditer(line.group(0)):
            end = line.start() + m.end()
            before = text[start:line.start() + m.start()].split()
            last = before[-1].lower().lstrip("(\"'“").rstrip(".") if before else ""
            nxt = text[end:end + 1]
            if last in ABBREVIATIONS or (len(last) == 1 and last.isalpha()) or (
                    nxt and nxt.islower()):
                continue
            yield start, line.start() + m.end() - (len(m.group(0)) - len(m.group(0).rstrip()))
            start = end
        if start < line.end():
            yield start, line.end()


def split_sentences(text: str, *, glued: bool = False) -> list[str]:
    """The sentences of ``text`` as strings, stripped."""
    return [s for a, b in sentence_spans(text, glued=glued) if (s := text[a:b].strip())]
