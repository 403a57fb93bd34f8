"""The CoreNLP fact extractor (``dwqa facts``, the default): Stanford CoreNLP reads each
version's text itself (its own sentence splitting, not the claims stage's): the first
``MAX_VERSION_CHARS`` characters, whole paragraphs, in passages of at most ``MAX_CHARS``
pipelined through the worker's threads. The passages of one version resolve their names
against each other (``resolve.py``), facts are read (``extract.py``) and linked to the claim
whose span holds their sentence where the claims stage kept it. A new rules version
(``extract.RULES_VERSION``) is a new key: it reads every version again.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Any

from dwqa_graph.errors import LanguageError
from dwqa_graph.facts.extract import RULES_VERSION, Passage, read_facts
from dwqa_graph.facts.extractor import MAX_VERSION_CHARS, FactExtractor, Reading, Unread
from dwqa_graph.facts.models import Fact
from dwqa_graph.facts.resolve import PageResolver
from dwqa_graph.language.corenlp import MAX_CHARS, VERSION, CoreNLP
from dwqa_graph.language.doc import Sentence
from dwqa_graph.registry import FACT_EXTRACTORS

#: Where a lost space glued two sentences: "film.It" (two lowercase letters, a full stop, a
#: capitalised word; initials such as "John G.Blystone" are left alone).
_GLUE = re.compile(r"(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])")



def offline_extractor_id() -> str:
    """The CoreNLP extractor's key: the library's version and the rules' version."""
    return f"{VERSION}/facts-{RULES_VERSION}"


def passages(version_id: str, text: str, limit: int = MAX_VERSION_CHARS) -> list[Passage]:
    """The version's text up to ``limit`` in passages of whole paragraphs of at most
    ``MAX_CHARS`` (a longer paragraph is cut at a space), and cut where two sentences were
    glued together. A text longer than ``limit`` ends at its last paragraph break before the
    limit, or at its last full stop: a sentence cut mid-word reads as a fact ("he pledged to
    sell almost al" was an event)."""
    out: list[Passage] = []
    start, end = 0, len(text)
    if end > limit:
        end = text.rfind("\n", 0, limit)
        if end <= 0:
            end = text.rfind(". ", 0, limit) + 1
    while start < end:
        stop = min(end, start + MAX_CHARS)
        if stop < end:
            cut = text.rfind("\n", start, stop)
            if cut <= start:
                cut = text.rfind(" ", start, stop)
            stop = cut if cut > start else stop
        # Sentences run together by a lost space ("a 1969 film.It was directed by ...", common
        # in the paragraph datasets) are cut apart here: the library would read them as one
        # sentence and give the first verb the second one's objects.
        cuts = [start] + [start + m.start() for m in _GLUE.finditer(text, start, stop)] \
            + [stop]
        for a, b in zip(cuts, cuts[1:], strict=False):
            if text[a:b].strip():
                out.append(Passage(version_id, a, text[a:b]))
        start = stop
    return out


def read_versions(nlp: CoreNLP, versions: list[dict[str, Any]], extractor: str,
                  ) -> Iterator[tuple[dict[str, Any], Reading | LanguageError]]:
    """Each version with what was read from it (or the LanguageError that kept the library
    from reading it) and the number of tokens read. The passages of all the versions are
    pipelined through the worker's threads together: one at a time would leave threads idle."""
    parts = [(v, p) for v in versions for p in passages(v["id"], v["text"] or "")]
    docs = nlp.annotate_many(p.text for _, p in parts)
    by_version: dict[str, list[tuple[Passage, Any]]] = {}
    for (v, p), doc in zip(parts, docs, strict=True):
        by_version.setdefault(v["id"], []).append((p, doc))
    for v in versions:
        read = by_version.get(v["id"], [])
        error = next((d for _, d in read if isinstance(d, LanguageError)), None)
        if error is not None:
            yield v, error
            continue
        parsed = [(p, doc.sentences) for p, doc in read]
        yield v, _read(v, parsed, extractor)


def _read(version: dict[str, Any], parsed: list[tuple[Passage, list[Sentence]]],
          extractor: str) -> Reading:
    page = PageResolver(version.get("title"), [(s, p.text) for p, ss in parsed for s in ss])
    claims = sorted((c["start"], c["end"], c["id"]) for c in version.get("claims") or [])
    starts = [c[0] for c in claims]
    facts: list[Fact] = []
    for p, sents in parsed:
        for f in read_facts(p, sents, page, extractor):
            # The claim whose span holds the fact's sentence, if the claims stage kept it.
            k = bisect.bisect_right(starts, f.start) - 1
            inside = k >= 0 and claims[k][1] >= f.end
            facts.append(f.model_copy(update={"claim_id": claims[k][2]}) if inside else f)
    return Reading(facts, page.pronoun, sum(len(s.tokens) for _, ss in parsed for s in ss))


class CoreNLPExtractor(FactExtractor):
    """Facts read from the version's text by the library's parses (``extract.py``)."""

    family = "corenlp"

    def __init__(self, nlp: CoreNLP | None = None) -> None:
        super().__init__()
        self._own = nlp is None
        self.nlp = nlp or CoreNLP()

    @property
    def key(self) -> str:
        return offline_extractor_id()

    def read(self, versions: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any],
                                                                    Reading | Unread]]:
        for v, found in read_versions(self.nlp, versions, self.key):
            yield v, Unread(str(found)) if isinstance(found, LanguageError) else found

    def close(self) -> None:
        if self._own:
            self.nlp.close()


@FACT_EXTRACTORS.register("corenlp", summary="Stanford CoreNLP parses the page text, offline "
                          "(fetched from Maven Central once)")
def corenlp_extractor(*, nlp: CoreNLP | None = None, llm: Any = None) -> CoreNLPExtractor:
    return CoreNLPExtractor(nlp)
