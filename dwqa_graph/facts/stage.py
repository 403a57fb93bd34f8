"""Stage 4 — facts: typed facts and resolved entities for every DocumentVersion.

One loop for every extractor (``extractor.py``; built-ins in ``extractors/``): the versions
this extractor (at its version) has not read, streamed a page at a time -> ``read`` -> the
write plan -> one transaction per batch of versions read (``WRITE_BATCH_VERSIONS``, or what
was read within ``WRITE_BATCH_S``). A version's facts are written together with the mark that
says which extractor read them: a stalled or killed run loses only the versions in flight
and the batch not yet written, and leaves no half-written one; a re-run skips what is done.
A new extractor version replaces the older facts of its family.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph._progress import progress
from dwqa_graph.errors import UsageError
from dwqa_graph.facts.extractor import (
    MAX_VERSION_CHARS,
    FactExtractor,
    Reading,
    Unread,
    make_extractor,
)
from dwqa_graph.facts.models import Fact
from dwqa_graph.facts.resolve import norm_name, page_subject
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.language.corenlp import CoreNLP

#: Versions written in one transaction at most. One transaction per version cost a fifth of
#: the stage's time on paragraph corpora (a commit per ~100-token paragraph); a batch keeps a
#: kill's loss small and a transaction's memory bounded.
WRITE_BATCH_VERSIONS = 32
#: Seconds a read version waits for the rest of its batch, at most (checked as versions
#: arrive): full pages, read one every second or two, are written nearly one by one.
WRITE_BATCH_S = 1.0
WRITE_ORDER = ("facts/clear", "facts/entities", "facts/write", "facts/page_subjects",
               "facts/mark")


class FactsReport(BaseModel):
    extractor: str
    versions: int = 0
    versions_with_facts: int = 0
    facts: int = 0
    entities: int = 0
    by_relation: dict[str, int] = {}
    rejected_by_reason: dict[str, int] = Field({}, description="Facts the extractor read "
                                               "and refused (the LLM's that failed "
                                               "verification), by reason.")
    failed_versions: int = Field(0, description="Versions the extractor could not read for "
                                 "their own text: not prose, too slow (left pending; the "
                                 "reasons are in `problems`).")
    reader_failures: int = Field(0, description="Versions not read because the reader broke "
                                 "(a CoreNLP worker that died twice with them in flight, or "
                                 "could not be restarted): left pending for a re-run; the "
                                 "command exits non-zero.")
    sentences_skipped: int = Field(0, description="Sentences over the library's token "
                                   "limit, not tagged or parsed (tables, run-on lists).")
    sentences_unread: int = Field(0, description="Sentences only tokenized: no date, number "
                                  "or verb the rules read, and nothing the resolver needs "
                                  "(``extract.CUES``).")
    worker_restarts: int = Field(0, description="Times the CoreNLP worker was restarted "
                                 "(it died, or timed out on a text).")
    problems: list[str] = []
    tokens: int = 0
    seconds: float = 0.0
    tokens_per_s: float = 0.0


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
                  llm: Any = None, dask: str | None = None) -> FactsReport:
    """Read typed facts for every version not yet read by this extractor (and version).

    ``extractor``: a name in ``FACT_EXTRACTORS`` (``corenlp``, ``llm``, a plugin's). ``nlp``: a
    running ``CoreNLP`` for the corenlp extractor to reuse (else it starts one for this call);
    ``llm``: the chat model of the llm extractor. ``dask``: the address of a Dask scheduler
    whose workers read the pages for the corenlp extractor (``cluster.py``); this process
    writes them, with the same facts as a local run.
    """
    if dask is not None:
        if extractor != "corenlp":
            raise UsageError(f"a Dask cluster runs the corenlp extractor, not {extractor!r}")
        try:  # the optional extra: only a cluster run needs it
            from dwqa_graph.facts.cluster import ClusterExtractor
        except ImportError as exc:
            raise UsageError("a Dask cluster needs the cluster extra: pip install "
                             "'dwqa-graph[cluster]'") from exc
        with ClusterExtractor(dask) as on_cluster:
            return run_extractor(store, on_cluster)
    with make_extractor(extractor, nlp=nlp, llm=llm) as reader:
        return run_extractor(store, reader)


def run_extractor(store: Store, reader: FactExtractor) -> FactsReport:
    """The stage's loop over one extractor: pending -> read -> plan -> write, the versions read
    written in batches (a stall or a kill loses only the versions in flight and the batch not
    yet written)."""
    store.ensure_schema()
    key = reader.key
    report = FactsReport(extractor=key)
    relations: Counter[str] = Counter()
    started = time.perf_counter()
    [total] = store.query("facts/count_pending", extractor=key, claims_only=reader.claims_only)
    batch: list[tuple[dict[str, Any], Reading]] = []
    batch_since = 0.0

    def write() -> None:
        if batch:
            store.write_plan(facts_plan([v for v, _ in batch],
                                        {v["id"]: r.facts for v, r in batch}, reader.family,
                                        key, {v["id"]: r.pronoun for v, r in batch}))
            batch.clear()

    try:
        with progress(f"facts ({key})", total["n"]) as advance:
            # Pages of pending versions, streamed: a version left pending (unread) is not
            # read again in this run, the next page starts after it.
            versions = (v for page in pending(store, key, reader.page_size,
                                              claims_only=reader.claims_only) for v in page)
            for v, found in reader.read(versions):
                report.versions += 1
                advance(1)
                if isinstance(found, Unread):
                    report.reader_failures += found.broken
                    report.failed_versions += not found.broken
                    report.problems.append(f"version {v['id']} ({v.get('title')}): "
                                           f"{found.reason}")
                    if reader.broken is not None:  # nothing will read the rest
                        left = max(0, total["n"] - report.versions)
                        report.reader_failures += left
                        report.problems.append(f"stopped: {left} more versions left pending "
                                               f"({reader.broken})")
                        break
                    continue
                if not batch:
                    batch_since = time.monotonic()
                batch.append((v, found))
                if len(batch) >= WRITE_BATCH_VERSIONS \
                        or time.monotonic() - batch_since >= WRITE_BATCH_S:
                    write()
                report.tokens += found.tokens
                report.facts += len(found.facts)
                report.versions_with_facts += bool(found.facts)
                relations.update(f.relation for f in found.facts)
            write()
    finally:
        for name, count in reader.counts().items():
            setattr(report, name, count)
    report.by_relation = dict(relations.most_common())
    report.rejected_by_reason = dict(sorted(reader.rejected.items()))
    [n] = store.query("facts/count_entities")
    report.entities = n["n"]
    wall = time.perf_counter() - started
    report.seconds = round(wall, 3)
    report.tokens_per_s = round(report.tokens / wall, 1) if wall else 0.0
    return report
