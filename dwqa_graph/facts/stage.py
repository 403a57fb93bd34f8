"""Stage 4 — facts: typed facts and resolved entities for every DocumentVersion.

Offline, the library reads each version's text itself (its own sentence splitting, not the
claims stage's): the first ``MAX_VERSION_CHARS`` characters, whole paragraphs, in passages
of at most ``MAX_CHARS`` pipelined through the worker's threads. The passages of one version
resolve their names against each other (``resolve.py``), facts are read (``extract.py``)
and linked to the claim whose span holds their sentence where the claims stage kept it.
With ``--extractor llm`` the model reads the version's claims instead (``llm.py``).
A version's facts are written in one transaction together with the mark that says which
extractor read them: a killed run leaves no half-written version, and a re-run skips what
is done. A new rules version (``extract.RULES_VERSION``) replaces the older facts.
"""

from __future__ import annotations

import bisect
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, NamedTuple

from pydantic import BaseModel, Field

from dwqa_graph._progress import progress
from dwqa_graph.errors import LanguageError, UsageError
from dwqa_graph.facts.extract import RULES_VERSION, Passage, read_facts
from dwqa_graph.facts.models import Fact
from dwqa_graph.facts.resolve import PageResolver, norm_name, page_subject
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.language.corenlp import MAX_CHARS, VERSION, CoreNLP
from dwqa_graph.language.doc import Sentence

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
    failed_versions: int = Field(0, description="Versions the library could not read "
                                 "(left pending; the reasons are in `problems`).")
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


def read_versions(nlp: CoreNLP, versions: list[dict[str, Any]], extractor: str,
                  ) -> Iterator[tuple[dict[str, Any], Reading | LanguageError, int]]:
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
            yield v, error, 0
            continue
        parsed = [(p, doc.sentences) for p, doc in read]
        yield v, _read(v, parsed, extractor), sum(len(s.tokens) for _, ss in parsed
                                                   for s in ss)


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
    try:
        with progress(f"facts ({key})", total["n"]) as advance:
            for page in pending(store, key):
                done: list[dict[str, Any]] = []
                facts: dict[str, list[Fact]] = {}
                pronouns: dict[str, str | None] = {}
                for v, found, tokens in read_versions(nlp, page, key):
                    if isinstance(found, LanguageError):
                        report.failed_versions += 1
                        report.problems.append(f"version {v['id']} ({v.get('title')}): "
                                               f"{found}")
                        continue
                    facts[v["id"]], pronouns[v["id"]] = found
                    done.append(v)
                    report.tokens += tokens
                store.write_plan(facts_plan(done, facts, "corenlp", key, pronouns))
                for v in done:
                    read = facts[v["id"]]
                    report.facts += len(read)
                    report.versions_with_facts += bool(read)
                    relations.update(f.relation for f in read)
                report.versions += len(page)
                advance(len(page))
                if not done:
                    break  # the library reads nothing: stop instead of re-reading the page
    finally:
        if own:
            nlp.close()
    report.by_relation = dict(relations.most_common())
    [n] = store.query("facts/count_entities")
    report.entities = n["n"]
    wall = time.perf_counter() - started
    report.seconds = round(wall, 3)
    report.tokens_per_s = round(report.tokens / wall, 1) if wall else 0.0
    return report
