"""Stage 4 — facts: typed facts and resolved entities for every DocumentVersion.

Offline, the library reads each version's text itself (its own sentence splitting, not the
claims stage's): the first ``MAX_VERSION_CHARS`` characters, whole paragraphs, in passages
of at most ``MAX_CHARS`` pipelined through the worker's threads. The passages of one version
resolve their names against each other (``resolve.py``), facts are read (``extract.py``)
and linked to the claim whose span holds their sentence where the claims stage kept it.
With ``--extractor llm`` the model reads the version's claims instead (``llm.py``).
A version's facts are written as soon as it is read, in one transaction together with the
mark that says which extractor read them: a killed run loses only the versions in flight,
leaves no half-written one, and a re-run skips what is done. A new rules version
(``extract.RULES_VERSION``) replaces the older facts.
"""

from __future__ import annotations

import bisect
import re
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from pydantic import BaseModel, Field

from dwqa_graph._progress import progress
from dwqa_graph.errors import LanguageError, UsageError, WorkerError
from dwqa_graph.facts.extract import RULES_VERSION, Passage, read_facts
from dwqa_graph.facts.models import Fact
from dwqa_graph.facts.resolve import PageResolver, norm_name, page_subject
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.language.corenlp import MAX_CHARS, VERSION, CoreNLP
from dwqa_graph.language.doc import Doc, Sentence

EXTRACTORS = ("corenlp", "llm")
WRITE_ORDER = ("facts/clear", "facts/entities", "facts/write", "facts/page_subjects",
               "facts/mark")
#: Characters of a version the offline extractor reads: a full page's lead and first
#: sections, where its facts about its subject are (and the throughput budget: ~10k tokens).
MAX_VERSION_CHARS = 40_000
#: Where a lost space glued two sentences: "film.It" (two lowercase letters, a full stop, a
#: capitalised word; initials such as "John G.Blystone" are left alone).
_GLUE = re.compile(r"(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])")


class FactsReport(BaseModel):
    extractor: str
    versions: int = 0
    versions_with_facts: int = 0
    facts: int = 0
    entities: int = 0
    by_relation: dict[str, int] = {}
    rejected_by_reason: dict[str, int] = Field({}, description="LLM extractor: model facts "
                                               "that failed verification, by reason.")
    failed_versions: int = Field(0, description="Versions the library could not read for "
                                 "their own text: not prose, too slow (left pending; the "
                                 "reasons are in `problems`).")
    reader_failures: int = Field(0, description="Versions not read because the CoreNLP "
                                 "worker broke (died twice with them in flight, or could "
                                 "not be restarted): left pending for a re-run; the "
                                 "command exits non-zero.")
    sentences_skipped: int = Field(0, description="Sentences over the library's token "
                                   "limit, not tagged or parsed (tables, run-on lists).")
    worker_restarts: int = Field(0, description="Times the CoreNLP worker was restarted "
                                 "(it died, or timed out on a text).")
    problems: list[str] = []
    tokens: int = 0
    seconds: float = 0.0
    tokens_per_s: float = 0.0


def offline_extractor_id() -> str:
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


class Reading(NamedTuple):
    """What the offline extractor read from one version."""

    facts: list[Fact]
    #: The pronoun the page's text uses for its subject ("he", "she"; None when its text
    #: does not say): a question names a person once and then by it.
    pronoun: str | None


def read_versions(nlp: CoreNLP, versions: Iterable[dict[str, Any]], extractor: str,
                  ) -> Iterator[tuple[dict[str, Any], Reading | LanguageError, int]]:
    """Each version with what was read from it (or the LanguageError that kept the library
    from reading it; a ``WorkerError`` before one about the text) and the number of tokens
    read -- each as soon as its last passage is read. The passages of consecutive versions
    are pipelined through the worker's threads together: one at a time would leave threads
    idle."""
    # (version, passage or None for a version with none, last of its version), in the
    # order the passages are sent: the parses come back in that order.
    sent: deque[tuple[dict[str, Any], Passage | None, bool]] = deque()

    def texts() -> Iterator[str]:
        for v in versions:
            parts = passages(v["id"], v["text"] or "")
            if not parts:
                sent.append((v, None, True))
            for i, p in enumerate(parts):
                sent.append((v, p, i == len(parts) - 1))
                yield p.text

    read: list[tuple[Passage, Doc | LanguageError]] = []

    def done(v: dict[str, Any]) -> tuple[dict[str, Any], Reading | LanguageError, int]:
        errors = [d for _, d in read if isinstance(d, LanguageError)]
        parsed = [(p, d.sentences) for p, d in read if not isinstance(d, LanguageError)]
        read.clear()
        if errors:
            return v, next((e for e in errors if isinstance(e, WorkerError)), errors[0]), 0
        return v, _read(v, parsed, extractor), sum(len(s.tokens) for _, ss in parsed
                                                    for s in ss)

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
    return Reading(facts, page.pronoun)


def facts_plan(versions: list[dict[str, Any]], facts: dict[str, list[Fact]], family: str,
               extractor: str, pronouns: dict[str, str | None] | None = None) -> WritePlan:
    """The writes of these versions' facts, entities and page subjects (with the pronoun
    each page uses for its subject, by version id, where the extractor read one)."""
    plan = WritePlan(WRITE_ORDER)
    plan.add("facts/clear", [{"id": v["id"], "family": family} for v in versions])
    entities: dict[str, dict[str, Any]] = {}
    rows = []
    subjects = []
    for v in versions:
        for f in facts.get(v["id"], []):
            for e in (f.subject, f.object):
                if e is not None:
                    entities[e.id] = {**e.model_dump(), "norm": norm_name(e.name)}
            # every field, an empty one as null: it removes what an earlier read of the
            # same fact stored (facts/write)
            props = f.model_dump(exclude={"subject", "object"})
            props["family"] = family
            rows.append({"version_id": f.version_id, "claim_id": f.claim_id,
                         "subject_id": f.subject.id,
                         "object_id": f.object.id if f.object else None, "props": props})
        # The page's own subject, as the entity its facts name (a page whose subject has no
        # fact adds no entity).
        subject = page_subject(v.get("title"))
        ref = next((f.subject for f in facts.get(v["id"], [])
                    if subject and norm_name(f.subject.name) == norm_name(subject)), None)
        if ref is not None:
            subjects.append({"document_id": v["document_id"], "entity_id": ref.id,
                             "pronoun": (pronouns or {}).get(v["id"])})
    plan.add("facts/entities", entities.values())
    plan.add("facts/write", rows)
    plan.add("facts/page_subjects", subjects)
    plan.add("facts/mark", [{"id": v["id"], "extractor": extractor,
                             "facts": len(facts.get(v["id"], []))} for v in versions])
    return plan


def pending(store: Store, extractor: str, page: int = 50, *, claims_only: bool = False,
            ) -> Iterator[list[dict[str, Any]]]:
    """Versions still to read, a page at a time (``claims_only``: those with claims, which
    the LLM extractor reads)."""
    after = ""
    while True:
        rows = store.query("facts/pending", extractor=extractor, after=after, limit=page,
                           claims_only=claims_only, max_chars=MAX_VERSION_CHARS)
        if not rows:
            return
        yield rows
        after = rows[-1]["id"]


def extract_facts(store: Store, *, extractor: str = "corenlp", nlp: CoreNLP | None = None,
                  llm: Any = None) -> FactsReport:
    """Read typed facts for every version not yet read by this extractor (and version).

    ``nlp``: a running ``CoreNLP`` to reuse (else one is started for this call and stopped
    after it). ``extractor="llm"`` reads facts with ``llm`` instead (``facts/llm.py``).
    """
    if extractor not in EXTRACTORS:
        raise UsageError(f"unknown facts extractor {extractor!r}; choose corenlp or llm")
    if extractor == "llm":
        if llm is None:
            raise UsageError("the llm facts extractor needs --llm SPEC")
        from dwqa_graph.facts.llm import extract_facts_llm
        return extract_facts_llm(store, llm)
    store.ensure_schema()
    key = offline_extractor_id()
    report = FactsReport(extractor=key)
    relations: Counter[str] = Counter()
    started = time.perf_counter()
    [total] = store.query("facts/count_pending", extractor=key, claims_only=False)
    own = nlp is None
    nlp = nlp or CoreNLP()
    skipped, restarts = nlp.skipped_sentences, nlp.restarts
    try:
        with progress(f"facts ({key})", total["n"]) as advance:
            versions = (v for page in pending(store, key) for v in page)
            for v, found, tokens in read_versions(nlp, versions, key):
                report.versions += 1
                advance(1)
                if isinstance(found, LanguageError):
                    # Left pending: a re-run reads it again (cheaply, where the text was
                    # refused before parsing).
                    broke = isinstance(found, WorkerError)
                    report.reader_failures += broke
                    report.failed_versions += not broke
                    report.problems.append(f"version {v['id']} ({v.get('title')}): {found}")
                    if nlp.broken is not None:  # no worker will read the rest
                        left = max(0, total["n"] - report.versions)
                        report.reader_failures += left
                        report.problems.append(f"stopped: {left} more versions left pending")
                        break
                    continue
                # Written as soon as read: a stall or a kill loses only the versions in flight.
                store.write_plan(facts_plan([v], {v["id"]: found.facts}, "corenlp", key,
                                            {v["id"]: found.pronoun}))
                report.tokens += tokens
                report.facts += len(found.facts)
                report.versions_with_facts += bool(found.facts)
                relations.update(f.relation for f in found.facts)
    finally:
        report.sentences_skipped = nlp.skipped_sentences - skipped
        report.worker_restarts = nlp.restarts - restarts
        if own:
            nlp.close()
    report.by_relation = dict(relations.most_common())
    [n] = store.query("facts/count_entities")
    report.entities = n["n"]
    wall = time.perf_counter() - started
    report.seconds = round(wall, 3)
    report.tokens_per_s = round(report.tokens / wall, 1) if wall else 0.0
    return report
