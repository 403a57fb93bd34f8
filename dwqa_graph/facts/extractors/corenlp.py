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
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from dwqa_graph.errors import LanguageError, WorkerError
from dwqa_graph.facts.extract import (
    CUES,
    RULES_VERSION,
    Passage,
    SentenceTrace,
    read_facts,
    repeated_events,
)
from dwqa_graph.facts.extractor import MAX_VERSION_CHARS, FactExtractor, Reading, Unread
from dwqa_graph.facts.models import Fact
from dwqa_graph.facts.resolve import TITLE_SMALL, PageResolver, page_subject
from dwqa_graph.language.corenlp import MAX_CHARS, VERSION, CoreNLP, Cues
from dwqa_graph.language.doc import Doc, Sentence
from dwqa_graph.language.sentences import GLUED
from dwqa_graph.registry import FACT_EXTRACTORS


def offline_extractor_id() -> str:
    """The CoreNLP extractor's key: the library's version, the rules' version and how many
    characters of a version it reads (a larger cap finds facts a smaller one did not reach)."""
    return f"{VERSION}/facts-{RULES_VERSION}/chars-{MAX_VERSION_CHARS}"


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
        cuts = [start] + [start + m.start() for m in GLUED.finditer(text, start, stop)] \
            + [stop]
        for a, b in zip(cuts, cuts[1:], strict=False):
            if text[a:b].strip():
                out.append(Passage(version_id, a, text[a:b]))
        start = stop
    return out


def subject_cues(cues: Cues, title: str | None) -> Cues:
    """``cues`` and the words of the page subject's name: the resolver types the subject by
    how the tagger tags its mentions across the page (``resolve.PageResolver``), so every
    sentence that may name it is read ("Paris Hilton" tagged a person in most sentences, an
    organisation in a few)."""
    subject = page_subject(title) or ""
    words = {w.lower() for w in subject.split() if len(w) > 1 and w.isalpha()
             and w[0].isupper() and w.lower() not in TITLE_SMALL}
    return replace(cues, words=cues.words | words) if words else cues


def read_versions(nlp: CoreNLP, versions: Iterable[dict[str, Any]], extractor: str,
                  cues: Cues | None = CUES,
                  ) -> Iterator[tuple[dict[str, Any], Reading | LanguageError]]:
    """Each version with what was read from it (or the LanguageError that kept the library
    from reading it; a ``WorkerError`` before one about the text), each as soon as its last
    passage is read. The passages of consecutive versions are pipelined through the worker's
    threads together: one at a time would leave threads idle. Only the sentences with
    ``cues`` are parsed (None: every sentence; ``bench_facts_cues`` compares the two)."""
    # (version, passage or None for a version with none, last of its version), in the
    # order the passages are sent: the parses come back in that order.
    sent: deque[tuple[dict[str, Any], Passage | None, bool]] = deque()

    def texts() -> Iterator[tuple[str, Cues | None]]:
        for v in versions:
            parts = passages(v["id"], v["text"] or "")
            if not parts:
                sent.append((v, None, True))
            own = subject_cues(cues, v.get("title")) if cues is not None else None
            for i, p in enumerate(parts):
                sent.append((v, p, i == len(parts) - 1))
                yield p.text, own

    read: list[tuple[Passage, Doc | LanguageError]] = []

    def done(v: dict[str, Any]) -> tuple[dict[str, Any], Reading | LanguageError]:
        errors = [d for _, d in read if isinstance(d, LanguageError)]
        parsed = [(p, d.sentences) for p, d in read if not isinstance(d, LanguageError)]
        unread = [w for _, d in read if not isinstance(d, LanguageError)
                  for w in d.unread_words]
        read.clear()
        if errors:
            return v, next((e for e in errors if isinstance(e, WorkerError)), errors[0])
        return v, _read(v, parsed, extractor, unread)

    for doc in nlp.annotate_many(texts()):
        while sent[0][1] is None:  # versions without a passage, sent before this one
            yield done(sent.popleft()[0])
        v, p, last = sent.popleft()
        assert p is not None
        read.append((p, doc))
        if last:
            yield done(v)
    while sent:
        yield done(sent.popleft()[0])


def _read(version: dict[str, Any], parsed: list[tuple[Passage, list[Sentence]]],
          extractor: str, unread_words: list[str] | None = None) -> Reading:
    unread_words = unread_words or []
    page = PageResolver(version.get("title"), [(s, p.text) for p, ss in parsed for s in ss],
                        unread_words)
    claims = sorted((c["start"], c["end"], c["id"]) for c in version.get("claims") or [])
    starts = [c[0] for c in claims]
    facts: list[Fact] = []
    trace: dict[int, SentenceTrace] = {}
    for p, sents in parsed:
        for f in read_facts(p, sents, page, extractor, trace):
            # The claim whose span holds the fact's sentence, if the claims stage kept it.
            k = bisect.bisect_right(starts, f.start) - 1
            inside = k >= 0 and claims[k][1] >= f.end
            facts.append(f.model_copy(update={"claim_id": claims[k][2]}) if inside else f)
    facts = repeated_events(facts, trace)  # a page's later sentences decide its earlier ones
    # the tokens of the version's text, its unread sentences' too (a speed is per text read)
    return Reading(facts, page.pronoun,
                   sum(len(s.tokens) for _, ss in parsed for s in ss) + len(unread_words))


class CoreNLPExtractor(FactExtractor):
    """Facts read from the version's text by the library's parses (``extract.py``)."""

    family = "corenlp"

    def __init__(self, nlp: CoreNLP | None = None) -> None:
        super().__init__()
        self._own = nlp is None
        self.nlp = nlp or CoreNLP()
        self._since = (self.nlp.skipped_sentences, self.nlp.restarts, self.nlp.unread_sentences)

    @property
    def key(self) -> str:
        return offline_extractor_id()

    def read(self, versions: Iterable[dict[str, Any]]) -> Iterator[tuple[dict[str, Any],
                                                                        Reading | Unread]]:
        for v, found in read_versions(self.nlp, versions, self.key):
            if isinstance(found, LanguageError):
                yield v, Unread(str(found), broken=isinstance(found, WorkerError))
            else:
                yield v, found

    @property
    def broken(self) -> str | None:
        return str(self.nlp.broken) if self.nlp.broken is not None else None

    def counts(self) -> dict[str, int]:
        return {"sentences_skipped": self.nlp.skipped_sentences - self._since[0],
                # sentences without a date, a number or a verb the rules read (extract.CUES)
                "sentences_unread": self.nlp.unread_sentences - self._since[2],
                "worker_restarts": self.nlp.restarts - self._since[1]}

    def close(self) -> None:
        if self._own:
            self.nlp.close()


@FACT_EXTRACTORS.register("corenlp", summary="Stanford CoreNLP parses the page text, offline "
                          "(fetched from Maven Central once)")
def corenlp_extractor(*, nlp: CoreNLP | None = None, llm: Any = None) -> CoreNLPExtractor:
    return CoreNLPExtractor(nlp)
