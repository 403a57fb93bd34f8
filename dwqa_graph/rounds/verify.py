"""Stage 6 — verify: re-check a past round's items against their pages as they are now.

``verify_round(store, t)`` fetches the current version of every page the round's items
read their facts from (the same fetcher, SSRF guard, bounds and politeness as
``dwqa fetch``; versions stored as usual), reads the facts of the pages that changed (the
facts stage: ``extract_facts`` reads every version not read yet) and, per item, re-matches
its path's facts among the facts of the pages' new versions and recomputes its answer with
the same form and wording (``render.render`` with the draw's own seed). Per item one
status:

- ``holds``: every fact of the path is still stated with the same value, or the path's
  recomputed answer is the same;
- ``changed``: the recomputed answer differs (the new answer and the sentences that now
  give it are stored);
- ``unsupported``: a fact's sentence is gone (no fact of the same relation and subject on
  its page), the pages now state several values where the round asked the one they stated
  (one of two sentences edited), or the new facts no longer make a question of the path's
  form;
- ``unreachable``: a page could not be fetched (the fetch's reason says why).

A fact is re-matched by what it states about whom: the same relation and subject (an
event: the same phrase; an award, membership or marriage: the same object) on the same
page. Where a fact's object is the value that changed (a film's director replaced), the
path's facts about the old object are looked for about the new one, on any page of the
seed graph ("the director of X was born in ..." now asks about the new director).

The results are stored as a ``VerifyRun`` of the round with one ``Verification`` per item
(status, the answer that holds now, the version ids checked against, when), written in one
transaction. The round and its items are not modified: a frozen round may be verified, and
its snapshot answer stays as it was.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from dwqa_graph.errors import NotFoundError
from dwqa_graph.facts.extractors.corenlp import offline_extractor_id
from dwqa_graph.facts.stage import FactsReport, extract_facts
from dwqa_graph.graph.store import Store, WritePlan
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.path_generate import REWORDINGS
from dwqa_graph.rounds.paths import Path, PathFact, _graph_fact
from dwqa_graph.rounds.render import Unworded, render
from dwqa_graph.rounds.timesense import fact_marks
from dwqa_graph.text import normalize_answer
from dwqa_graph.web.fetch import FetchOptions, FetchReport, fetch

Status = Literal["holds", "changed", "unsupported", "unreachable"]
STATUSES: tuple[Status, ...] = ("holds", "changed", "unsupported", "unreachable")
#: Relations whose object is the fact's value (the director, the birthplace): a new object
#: is the same fact changed, and the path's facts about the old object follow it.
OBJECT_VALUED = frozenset({"directed_by", "written_by", "produced_by", "created_by",
                           "hosted_by", "born_in", "died_in", "founded_by", "located_in"})
#: Relations whose object says which fact it is (won *the Oscar*, member of *the band*,
#: married *to her*): a fact with another object is another fact, not this one changed.
OBJECT_KEYED = frozenset({"won", "member_of", "married"})
#: Characters of a vanished sentence quoted in a result's reason.
QUOTE_CHARS = 160


class Evidence(BaseModel):
    """A sentence that gives the item's answer now."""

    fact_id: str
    relation: str
    sentence: str
    version_id: str


class ItemCheck(BaseModel):
    """One item's verification, as stored on its ``Verification`` node."""

    item_id: str
    query_id: str
    question: str
    status: Status
    original_answer: str
    answer: str | None = Field(None, description="The answer that holds now: the original "
                               "(holds), the recomputed one (changed), none otherwise.")
    reason: str = Field("", description="Why an item changed, lost support or could not "
                        "be checked (a page's fetch failure, the sentence that is gone).")
    versions: list[str] = Field(default_factory=list, description="The page versions it "
                                "was checked against, in its facts' order.")
    sentences: list[Evidence] = Field(default_factory=list, description="Changed: the "
                                      "sentences that now give the answer.")
    time_sensitive: bool | None = Field(None, description="A fact of it was read from a "
                                        "present-tense or 'as of' claim (``timesense``); "
                                        "None: not asked for.")


class VerifyReport(BaseModel):
    """The ``--json`` document of ``dwqa round verify``."""

    round: int
    run_id: str
    checked_at: str
    items: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    pages: int = Field(0, description="Pages the items' facts were read from.")
    fetch: FetchReport | None = None
    facts: FactsReport | None = None
    check_seconds: float = Field(0.0, description="Re-matching and recomputing, without "
                                 "the fetch and the facts stage.")
    time_sensitive: int | None = Field(None, description="Items marked time-sensitive "
                                       "(None: not asked for).")
    seconds: float = 0.0
    results: list[ItemCheck] = Field(default_factory=list)


def verify_round(store: Store, t: int, opts: FetchOptions | None = None, *,
                 nlp: CoreNLP | None = None, refetch: bool = True, read_facts: bool = True,
                 mark_time_sensitive: bool = False) -> VerifyReport:
    """Verify round ``t``'s items against their pages now (see the module docstring).
    ``refetch=False`` checks against the versions already stored (the last fetch of each
    page), without fetching; ``read_facts=False`` uses the facts already read (the pages'
    new versions are not read if no extractor did). ``mark_time_sensitive``: also mark the
    items whose facts come from a present-tense or "as of" claim (``timesense``; parses
    their sentences)."""
    started = time.perf_counter()
    rows = store.query("verify/items", t=t)
    if not rows and not store.query("rounds/get", t=t):
        raise NotFoundError(f"no round {t} (see `dwqa round list`)")
    checked_at = datetime.now(UTC).isoformat(timespec="milliseconds")
    report = VerifyReport(round=t, run_id=stable_id("verify", t, checked_at),
                          checked_at=checked_at, items=len(rows))
    versions = sorted({f["version_id"] for r in rows for f in r["facts"]}
                      | {v for r in rows for v in r["snapshot"]})
    docs = {d["version_id"]: d for d in store.query("verify/documents", versions=versions)}
    pages = sorted({docs[f["version_id"]]["document_id"] for r in rows for f in r["facts"]})
    report.pages = len(pages)
    fetched_since = None
    if refetch and pages:
        # every page again, failed ones too: a page is checked as it is now (the start is
        # kept to the millisecond, as a fetch records when it began)
        since = datetime.now(UTC)
        fetched_since = since.replace(microsecond=since.microsecond // 1000 * 1000)
        report.fetch = fetch(store, opts, ids=pages, older_than=timedelta(0),
                             retry_failed=True)
        docs = {d["version_id"]: d for d in store.query("verify/documents",
                                                        versions=versions)}
    if read_facts and any(d["current"] != v and d["current_read"] != offline_extractor_id()
                          for v, d in docs.items()):
        # a page that changed has a version the facts stage has not read yet
        report.facts = extract_facts(store, nlp=nlp)
    t0 = time.perf_counter()
    report.results = [check_item(store, r, docs, fetched_since) for r in rows]
    report.check_seconds = round(time.perf_counter() - t0, 3)
    if mark_time_sensitive:
        _mark(store, report, rows, nlp)
    counts = Counter(c.status for c in report.results)
    report.counts = {s: counts[s] for s in STATUSES}
    store.write_plan(_plan(report))
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _mark(store: Store, report: VerifyReport, rows: list[dict[str, Any]],
          nlp: CoreNLP | None) -> None:
    """Mark each result time-sensitive where a fact its item uses was read from a claim
    about now (``timesense.fact_marks``: made once per fact, stored on it)."""
    marked = fact_marks(store, [(f["fact_id"], f["evidence"], f["verb"]) for r in rows
                                for f in r["facts"]], nlp)
    for r, c in zip(rows, report.results, strict=True):
        c.time_sensitive = any(marked[f["fact_id"]] for f in r["facts"])
    report.time_sensitive = sum(bool(c.time_sensitive) for c in report.results)


def _plan(report: VerifyReport) -> WritePlan:
    plan = WritePlan()
    plan.add("verify/store", [{
        "t": report.round, "id": report.run_id, "checked_at": report.checked_at,
        "props": {"t": report.round, "items": report.items, **report.counts},
        "items": [{"item_id": c.item_id, "id": stable_id(report.run_id, c.item_id),
                   "props": {"status": c.status, "answer": c.answer,
                             "original_answer": c.original_answer, "reason": c.reason,
                             "versions": c.versions, "time_sensitive": c.time_sensitive,
                             "sentences": json.dumps([s.model_dump() for s in c.sentences])}}
                  for c in report.results]}])
    return plan


def check_item(store: Store, row: dict[str, Any], docs: dict[str, dict[str, Any]],
               fetched_since: datetime | None) -> ItemCheck:
    """One item of ``verify/items`` checked against its pages' current versions ``docs``
    (version id -> its document now); ``fetched_since``: when this run's fetch began (a
    page not fetched since could not be)."""
    out = ItemCheck(item_id=row["id"], query_id=row["query_id"], question=row["question"],
                    status="holds", original_answer=row["answer"], answer=row["answer"])
    facts = row["facts"]
    failed = []
    for f in facts:
        d = docs[f["version_id"]]
        if fetched_since is not None and (d["status"] != "ok" or not d["fetched_at"] or
                                          datetime.fromisoformat(d["fetched_at"])
                                          < fetched_since):
            failed.append(f"{d['url']}: {d['status'] or 'not fetched'}"
                          + (f" ({d['detail']})" if d["detail"] else ""))
    if failed:
        return out.model_copy(update={"status": "unreachable", "answer": None,
                                      "reason": "; ".join(dict.fromkeys(failed))})
    now = [docs[f["version_id"]]["current"] for f in facts]
    if now == [f["version_id"] for f in facts]:
        return out.model_copy(update={"versions": now})  # no page of it changed
    return _recompute(store, row, docs, out)


def _scope_facts(store: Store, versions: list[str],
                 query_id: str) -> dict[str, PathFact]:
    """The facts of a seed graph's ``versions`` as its paths carry them (``paths.paths_of``:
    an event's short phrase only where it names one event of its subject)."""
    graphs = [{"query_id": query_id, "versions": versions}]
    [worded] = store.query("paths/short_phrases", graphs=graphs)
    usable = set(worded["usable"])
    return {r["id"]: _graph_fact(PathFact(**{k: v for k, v in r.items() if v is not None}),
                                 usable)
            for r in store.query("paths/facts", versions=versions)}


def _value(f: PathFact) -> tuple[Any, ...]:
    return (f.object_id, f.date, f.year, f.when, f.value, f.unit)


def _stated(facts: Iterable[PathFact], f: PathFact, subject: str) -> dict[str, PathFact]:
    """The values ``facts`` state for what ``f`` states about ``subject``, keyed as the
    path queries count an answer unique (``cypher/paths/chain.cypher``): an entity by id,
    a date by its year, a quantity by its value."""
    return {str(h.object_id if h.object_id is not None else
                h.year if h.year is not None else h.value): h
            for h in sorted(facts, key=lambda h: h.id) if _same_fact(f, h, subject)}


def _same_fact(old: PathFact, new: PathFact, subject: str) -> bool:
    if new.relation != old.relation or new.subject_id != subject:
        return False
    if old.relation == "event":
        return (old.phrase or "").lower() == (new.phrase or "").lower()
    if old.relation in OBJECT_KEYED and old.object_id is not None:
        return new.object_id == old.object_id
    return True


def rematch(old: list[PathFact], new: list[PathFact], page_of: dict[str, str]
            ) -> list[PathFact | None]:
    """Each of ``old``'s facts found among ``new`` (None: gone). ``page_of``: version id ->
    document id. A fact about an entity the path's other facts still name is looked for on
    its own page; a fact about an object that was replaced (``OBJECT_VALUED``), about the
    new object on any page. Among several, one with the same value, else the first by id."""
    replaced: dict[str, str] = {}
    found: list[PathFact | None] = [None] * len(old)
    # twice: a bridge's second fact is about the object its first fact names
    for _ in range(2):
        for i, f in enumerate(old):
            subject = replaced.get(f.subject_id, f.subject_id)
            same_page = subject == f.subject_id
            cands = sorted((g for g in new if _same_fact(f, g, subject) and (
                not same_page or page_of.get(g.version_id) == page_of.get(f.version_id))),
                key=lambda g: g.id)
            pick = next((g for g in cands if _value(g) == _value(f)), None) or (
                cands[0] if cands else None)
            found[i] = pick
            if (pick is not None and f.relation in OBJECT_VALUED and f.object_id
                    and pick.object_id and pick.object_id != f.object_id):
                replaced[f.object_id] = pick.object_id
    return found


def _wording(path: Path, row: dict[str, Any]) -> tuple[bool, str, bool]:
    """How the item's question was worded from its path: by its events' short phrases or
    not, the draw seed and whether a last-resort frame (``path_generate._worded`` tries
    these in turn). Found by wording the stored path again until the stored question (a
    model-worded item: its template question) comes out; the draw's first seed otherwise."""
    detail = json.loads(row["detail"] or "{}")
    target = detail.get("template_question") or row["question"]
    first = f"{row['r']}:{row['attempt']}"
    seeds = [first] + [f"{first}:{n}" for n in range(1, REWORDINGS)]
    for last_resort in (False, True):
        for short in (False, True):
            worded = path.shortened if short else path
            if worded is None:
                continue
            for seed in seeds:
                try:
                    if render(worded, random.Random(seed), last_resort).question == target:
                        return short, seed, last_resort
                except Unworded:
                    continue
    return False, first, bool(detail.get("last_resort"))


def _recompute(store: Store, row: dict[str, Any], docs: dict[str, dict[str, Any]],
               out: ItemCheck) -> ItemCheck:
    old_scope = sorted(set(row["snapshot"]) | {f["version_id"] for f in row["facts"]})
    new_scope = sorted({docs[v]["current"] for v in old_scope})
    old_facts = _scope_facts(store, old_scope, row["query_id"])
    new_facts = _scope_facts(store, new_scope, row["query_id"])
    page_of = {**{v: d["document_id"] for v, d in docs.items()},
               **{d["current"]: d["document_id"] for d in docs.values()}}
    missing_old = [f for f in row["facts"] if f["fact_id"] not in old_facts]
    if missing_old:
        # a fact no longer in any path (its page re-read by newer rules): it is not
        # re-matched by what it stated, only by its page
        return out.model_copy(update={
            "status": "unsupported", "answer": None,
            "reason": f"fact {missing_old[0]['fact_id']} was retired by a re-read of its "
                      "page; its page changed since"})
    old = [old_facts[f["fact_id"]] for f in row["facts"]]
    got = rematch(old, list(new_facts.values()), page_of)
    gone = [(f, src) for f, src, g in zip(old, row["facts"], got, strict=True) if g is None]
    if gone:
        f, src = gone[0]
        return out.model_copy(update={
            "status": "unsupported", "answer": None,
            "versions": [docs[s["version_id"]]["current"] for s in row["facts"]],
            "reason": f"{src['url']} no longer states {f.subject}'s {f.relation} "
                      f"(was: {f.evidence[:QUOTE_CHARS]!r})"})
    new = [g for g in got if g is not None]
    versions = [g.version_id for g in new]
    sentences = [Evidence(fact_id=g.id, relation=g.relation, sentence=g.evidence,
                          version_id=g.version_id) for g in new]
    for f, g, src in zip(old, new, row["facts"], strict=True):
        before = _stated(old_facts.values(), f, f.subject_id)
        now = _stated(new_facts.values(), f, g.subject_id)
        if len(now) > max(1, len(before)):
            # the round asked a value the graph stated once; its pages now state several
            # (one of two sentences edited): re-matching the other would call it "holds"
            said = sorted({h.evidence[:QUOTE_CHARS] for h in now.values()})
            return out.model_copy(update={
                "status": "unsupported", "answer": None, "versions": versions,
                "sentences": sentences,
                "reason": f"the seed graph's pages ({src['url']} among them) now state "
                          f"{len(now)} values of {g.subject}'s {g.relation}: "
                          + " / ".join(map(repr, said))})
    if all(_value(f) == _value(g) for f, g in zip(old, new, strict=True)):
        return out.model_copy(update={"versions": versions})
    path = Path(form=row["form"], facts=old)
    short, seed, last_resort = _wording(path, row)
    again = Path(form=row["form"], facts=new)
    worded = (again.shortened or again) if short else again
    try:
        answer = render(worded, random.Random(seed), last_resort).answer
    except Unworded as exc:
        return out.model_copy(update={
            "status": "unsupported", "answer": None, "versions": versions,
            "sentences": sentences,
            "reason": f"the new facts no longer make a {row['form']} question "
                      f"({exc.reason})"})
    if normalize_answer(answer) == normalize_answer(row["answer"]):
        return out.model_copy(update={"versions": versions})
    changed = [f"{g.subject}'s {g.relation}: {g.evidence[:QUOTE_CHARS]!r}"
               for f, g in zip(old, new, strict=True) if _value(f) != _value(g)]
    return out.model_copy(update={"status": "changed", "answer": answer,
                                  "versions": versions, "sentences": sentences,
                                  "reason": "now " + "; ".join(changed)})


def latest(store: Store, t: int) -> dict[str, dict[str, Any]]:
    """Per item of round ``t`` its latest verification (status, answer; items never
    verified are left out)."""
    return {r["id"]: r for r in store.query("verify/latest", t=t) if r["status"]}


def history(store: Store, t: int | None = None) -> list[dict[str, Any]]:
    """Every verification run (of round ``t``, or all) with its status counts."""
    return store.query("verify/runs", t=t)
