"""Stage 4 — rounds: one fresh, checked QA item per seed graph, with full provenance.

``new_round`` = the seed graphs' fact paths (Cypher) -> seeded draws -> wording -> checks ->
store (``Generator.round``). A seed graph whose draws all fail is retried with the
next attempt number, up to ``SampleConfig.attempts``, then reported under the round
(``NO_ITEM`` with reasons). Same round seed + same graph + same θ -> the same items; a
frozen round is never modified.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from dwqa_graph.errors import (
    ConflictError,
    InputError,
    NotFoundError,
    RoundFrozenError,
    UsageError,
)
from dwqa_graph.graph.store import Guard, Store, WritePlan
from dwqa_graph.llm import LLM, LLMStats
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.generate import Generator, QACandidate, theta_hash
from dwqa_graph.rounds.path_generate import (
    PathDraw,
    checked_pool_levels,
    is_path_generator,
    is_wordable,
    set_quality,
)
from dwqa_graph.rounds.sampling import RECENT_ROUNDS, SampleConfig

WRITE_ORDER = ("rounds/create", "rounds/items", "rounds/no_item", "rounds/snapshot",
               "rounds/quality")


class RoundReport(BaseModel):
    round: int
    seed: int
    generator: str
    theta_hash: str
    graphs: int = 0
    items: int = 0
    no_item: int = 0
    coverage: float = Field(0.0, description="items / graphs")
    patterns: dict[str, int] = Field(default_factory=dict)
    hops: dict[str, int] = Field(default_factory=dict, description="Items by hops.")
    sources: dict[str, int] = Field(default_factory=dict, description="Items by sources.")
    constraints: dict[str, int] = Field(default_factory=dict,
                                        description="Items by constraints.")
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    no_item_reasons: dict[str, int] = Field(default_factory=dict)
    attempts: int = 0
    generation_seconds: float = Field(
        0.0, description="Path load, drawing, wording and checks.")
    seconds: float = 0.0
    llm: LLMStats | None = None
    previous: int | None = Field(
        None, description="The round whose items' facts this round steered against "
        "(``cfg.reuse``); None: none (round 1, ``previous=0``, 'allow', or no such round).")
    waited_seconds: float = Field(
        0.0, description="Time spent waiting for that round to be written (a concurrent "
        "`round new`), before generation.")
    set_quality: dict[str, Any] = Field(
        default_factory=dict, description="Set-level numbers (path_generate.set_quality): "
        "two-option share, answer types, relations, phrasings, median K, collision bound.")


def _item_row(t: int, round_seed: int, th: str, s: PathDraw,
              qa: QACandidate) -> dict[str, Any]:
    item_id = stable_id(s.query_id, round_seed, th, qa.question, qa.answer)
    extra = {k: qa.detail[k] for k in ("answer_type", "two_option", "phrasing")
             if k in qa.detail}
    return {"t": t, "id": item_id, "query_id": s.query_id, "facts": qa.used_facts,
            "props": {**extra, "id": item_id, "question": qa.question, "answer": qa.answer,
                      "pattern": qa.pattern, "hops": qa.hops, "sources": qa.sources,
                      "constraints": qa.constraints, "generator": qa.generator,
                      "theta_hash": th, "r": str(s.r), "attempt": s.attempt,
                      "detail": json.dumps(qa.detail, sort_keys=True),
                      "checks": qa.checks}}


# -- round numbers and the write guard -------------------------------------------------------
#: Claims of the next number that lose to a concurrent run (constraint violation) are retried
#: with the number after; each loss means another run got a number, so this bounds nothing
#: but a pathological pile-up.
CLAIM_ATTEMPTS = 100

#: Seconds a round waits for the round it steers against to be written (a concurrent `round
#: new` that claimed the number before it) -- the facts it avoids are only known then. Long
#: enough for a model-worded round of a few hundred graphs; a run that died holding the
#: number never finishes, and the wait then ends with a message naming it.
PREDECESSOR_WAIT_SECONDS = 1800.0
#: Seconds between two looks at that round while waiting (one small read each).
PREDECESSOR_POLL_SECONDS = 0.5


def _unfrozen(t: int, claim: str | None = None) -> Guard:
    """Round ``t`` locked and not frozen -- and, with ``claim``, still claimed by this run."""

    def check(rows: list[dict[str, Any]]) -> None:
        if rows and rows[0]["frozen"]:
            raise RoundFrozenError(f"round {t} is frozen; create a new round instead")
        if claim is not None and (not rows or rows[0]["claim"] != claim):
            raise ConflictError(f"round {t} was claimed by another `round new --round {t}` "
                                "while this run generated it; this run wrote nothing")

    return Guard("rounds/guard", {"t": t}, check)


def claim_round(store: Store, t: int | None, claim: str) -> int:
    """Claim round ``t`` (or the next free number) for this run before any work."""
    if t is None:
        for _ in range(CLAIM_ATTEMPTS):
            try:
                return int(store.run_write("rounds/claim_next", claim=claim)[0]["t"])
            except ConflictError:  # another run created that number first: take the next
                continue
        raise ConflictError(f"could not claim a round number in {CLAIM_ATTEMPTS} attempts")
    plan = WritePlan()
    plan.add("rounds/claim", [{"t": t, "claim": claim}])
    store.write_plan(plan, guard=_unfrozen(t))
    return t


def new_round(store: Store, *, seed: int, generator: Generator,
              cfg: SampleConfig | None = None, dataset: str | None = None, t: int | None = None,
              previous: int | None = None,
              wait: float = PREDECESSOR_WAIT_SECONDS) -> RoundReport:
    """Create round ``t`` (default: the next number) with one item per seed graph.

    ``previous`` is the round whose items' facts ``cfg.reuse`` avoids or prefers (default
    t-1; 0: none), read from the graph when generation starts (``previous_facts``) -- after
    waiting up to ``wait`` seconds for a concurrent run to write that round
    (``ConflictError`` when it does not); the round records which one it was.

    The number is claimed in Neo4j first (``claim_round``); the items are written in one
    transaction that re-checks, under the round's lock, that it is unfrozen and still ours."""
    started = time.perf_counter()
    cfg = cfg or SampleConfig()
    if cfg.time_sensitive != "any" and not is_path_generator(generator.name):
        # only fact paths carry the facts whose sentences say what holds now
        raise UsageError(f"--time-sensitive {cfg.time_sensitive} needs the paths generator, "
                         f"not {generator.name!r}")
    [scope] = store.query("paths/facts_read", dataset=dataset)
    if scope["graphs"] and not scope["read"]:
        raise InputError("no typed facts in these seed graphs yet: the generator draws from "
                         "them. Run `dwqa facts` first.")
    claim = secrets.token_hex(8)
    t = claim_round(store, t, claim)
    try:
        return _generate_and_write(store, t, claim, seed=seed, generator=generator, cfg=cfg,
                                   dataset=dataset, started=started, previous=previous,
                                   wait=wait)
    except BaseException:
        # nothing written: give the number back (a kill -9 leaves it 'generating', empty);
        # a failure to do so must not hide the error that got us here
        with contextlib.suppress(Exception):
            store.run_write("rounds/release", t=t, claim=claim)
        raise


def _generate_and_write(store: Store, t: int, claim: str, *, seed: int,
                        generator: Generator, cfg: SampleConfig, dataset: str | None,
                        started: float, previous: int | None = None,
                        wait: float = PREDECESSOR_WAIT_SECONDS) -> RoundReport:
    w0 = time.perf_counter()
    steered = wait_for_previous(store, t, cfg, previous, wait)
    waited = round(time.perf_counter() - w0, 3)
    cfg = previous_facts(store, t, cfg, previous)
    theta = {**generator.theta(), "sampling": cfg.model_dump(mode="json")}
    th = theta_hash(theta)
    report = RoundReport(round=t, seed=seed, generator=generator.name, theta_hash=th,
                         previous=steered, waited_seconds=waited)
    t0 = time.perf_counter()

    def load_texts(ids: list[str]) -> dict[str, str]:
        return {r["id"]: r["text"] for r in store.query("rounds/version_texts", ids=ids)}

    path_graphs, done, failed, stats = generator.round(store, t, dataset, cfg, seed,
                                                       load_texts)
    graphs = [(g.query_id, [d.version_id for d in g.documents]) for g in path_graphs]
    report.graphs, report.attempts = len(graphs), stats["attempts"]
    report.rejected_by_reason = stats["rejected"]
    report.set_quality = set_quality([qa for _, qa in done], stats["pool"])
    report.generation_seconds = round(time.perf_counter() - t0, 3)
    plan = WritePlan(WRITE_ORDER)
    plan.add("rounds/create", [{"t": t, "seed": seed, "theta": json.dumps(theta, sort_keys=True),
                                "theta_hash": th, "generator": generator.name,
                                "config": json.dumps(cfg.model_dump(mode="json")),
                                "previous": steered}])
    plan.add("rounds/items", [_item_row(t, seed, th, s, qa) for s, qa in done])
    plan.add("rounds/no_item", [{"t": t, "query_id": q, "reasons": sorted(set(r))}
                                for q, r in failed.items()])
    plan.add("rounds/snapshot", [{"t": t, "query_id": q, "version_id": v}
                                 for q, versions in graphs for v in versions])
    report.items = len(done)
    report.no_item = len(failed)
    report.coverage = round(len(done) / len(graphs), 4) if graphs else 0.0
    report.patterns = dict(sorted(Counter(qa.pattern for _, qa in done).items()))
    report.hops = dict(sorted(Counter(str(qa.hops) for _, qa in done).items()))
    report.sources = dict(sorted(Counter(str(qa.sources) for _, qa in done).items()))
    report.constraints = dict(sorted(Counter(str(qa.constraints) for _, qa in done).items()))
    report.no_item_reasons = dict(sorted(Counter(
        x for r in failed.values() for x in set(r)).items()))
    llm = generator.llm
    report.llm = llm.stats if isinstance(llm, LLM) else None
    report.seconds = round(time.perf_counter() - started, 3)
    # The round's quality numbers are stored with it, for `round show` and the report.
    plan.add("rounds/quality", [{"t": t, "quality": json.dumps(_quality(report))}])
    store.write_plan(plan, guard=_unfrozen(t, claim))
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _quality(report: RoundReport) -> dict[str, Any]:
    return {"graphs": report.graphs, "items": report.items, "coverage": report.coverage,
            "patterns": report.patterns, "rejected_by_reason": report.rejected_by_reason,
            "no_item_reasons": report.no_item_reasons, "attempts": report.attempts,
            "set": report.set_quality}


def list_rounds(store: Store) -> list[dict[str, Any]]:
    return store.query("rounds/list")


def show_round(store: Store, t: int) -> dict[str, Any]:
    rows = store.query("rounds/get", t=t)
    if not rows:
        raise NotFoundError(f"no round {t}")
    info = rows[0]
    info["theta"] = json.loads(info["theta"]) if info["theta"] else None
    info["config"] = json.loads(info["config"]) if info["config"] else None
    items = export_rows(store, t)
    info["patterns"] = dict(Counter(i["pattern"] for i in items))
    info["quality"] = json.loads(info["quality"]) if info.get("quality") else None
    info["levels"] = {k: dict(sorted(Counter(str(i[k]) for i in items).items()))
                      for k in ("hops", "sources", "constraints")}
    info["examples"] = [{k: i[k] for k in ("query_id", "pattern", "hops", "sources",
                                           "constraints", "question", "answer", "checks")}
                        for i in items[:5]]
    return info


def export_rows(store: Store, t: int) -> list[dict[str, Any]]:
    return store.query("rounds/export", t=t)


def export_round(store: Store, t: int, out: Path) -> int:
    """JSON lines, keys sorted: the same items export byte for byte (apart from ``round``)."""
    rows = export_rows(store, t)
    if not rows and not store.query("rounds/get", t=t):
        raise NotFoundError(f"no round {t} (see `dwqa round list`)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
    return len(rows)


def freeze_round(store: Store, t: int) -> dict[str, Any]:
    rows = store.run_write("rounds/freeze", t=t)
    if not rows:
        existing = store.query("rounds/get", t=t)
        if existing:  # claimed, first generation not written yet (or its run died)
            raise ConflictError(f"round {t} is still being generated; freeze it once "
                                f"`round new` has written it (a run that died: regenerate it "
                                f"with `round new --round {t}`)")
        raise NotFoundError(f"no round {t} (see `dwqa round list`)")
    return rows[0]


# -- collision statistics ----------------------------------------------------------------------
def collisions(store: Store, rounds: list[int] | None = None, delta: float = 0.05,
               trials: int = 0, checked: bool = False) -> dict[str, Any]:
    """Per seed graph: pool size K per round, overlap J between rounds (the pool over the
    evidence both rounds share: facts are version-specific, so a path is in both pools
    exactly when all its facts are), J between consecutive rounds by what their candidates'
    facts state (``collisions.content_key``), the observed repeat rate of the items actually
    drawn, the bound t(t-1)J_max/(2K^2) and the K needed for ``delta``, tight and as printed
    in the paper. ``trials`` > 0 adds a Monte-Carlo estimate for each graph's (t, K, J).
    K counts the paths a template words; ``checked``: only those whose wording passes every
    check against its pages (``path_generate.askable``), slower and smaller -- the
    candidates a rule round can draw."""
    from dwqa_graph.rounds.collisions import (
        aggregate,
        by_setting,
        content_pools,
        graph_stats,
        shared,
    )

    # default: rounds that were written (a claimed round whose run died holds nothing)
    listed = list_rounds(store)
    rounds = sorted(rounds or [r["t"] for r in listed if r["status"] == "complete"])
    if len(rounds) < 2:
        raise UsageError("collision statistics need at least two rounds")
    # K is the fact-path pool; a round stored under another generator's name drew from none
    if not all(is_path_generator(r["generator"]) for r in listed if r["t"] in rounds):
        raise UsageError("these rounds include rounds not made by the paths generator, which "
                         "have no fact-path pool; pass --rounds for rounds of the paths "
                         "generator")
    snaps: dict[str, dict[int, frozenset[str]]] = {}
    for row in store.query("rounds/snapshots", rounds=rounds):
        snaps.setdefault(row["query_id"], {})[row["t"]] = frozenset(row["versions"])
    # K depends only on the evidence (the set of document versions), and consecutive rounds
    # mostly share it: count each distinct set and each pair of distinct sets once, not
    # every pair of rounds (quadratic: 800 rounds ran out of memory).
    distinct = {vs for per in snaps.values() for vs in per.values()}
    groups = {q: list(dict.fromkeys(per[r] for r in rounds if r in per))
              for q, per in snaps.items()}
    sets = distinct | {a & b for gs in groups.values() for i, a in enumerate(gs)
                       for b in gs[i + 1:]}
    keys = {vs: str(n) for n, vs in enumerate(sorted(sets, key=sorted))}
    # K as a round counts it: the paths a template words (checked: that pass the checks)
    entries = [{"query_id": keys[vs], "versions": sorted(vs)} for vs in sets]
    pools = content_pools(store, entries, keep=is_wordable)
    levels = checked_pool_levels(store, entries) if checked else None
    sizes = ({q: sum(lv.values()) for q, lv in levels.items()} if levels is not None
             else {q: sum(c.values()) for q, c in pools.items()})
    drawn: dict[str, list[str]] = {}
    for row in store.query("rounds/items_facts", rounds=rounds):
        drawn.setdefault(row["query_id"], []).append(row["candidate"])
    graphs = {}
    for q, per in sorted(snaps.items()):
        present = [r for r in rounds if r in per]
        rep = {vs: present.index(next(r for r in present if per[r] == vs)) for vs in groups[q]}
        count = {vs: sum(per[r] == vs for r in present) for vs in groups[q]}
        overlaps: dict[tuple[int, int], int] = {}
        weights: dict[tuple[int, int], int] = {}
        for i, a in enumerate(groups[q]):
            if count[a] > 1:  # rounds on the same evidence: J = K
                overlaps[rep[a], rep[a]] = sizes[keys[a]]
                weights[rep[a], rep[a]] = count[a] * (count[a] - 1) // 2
            for b in groups[q][i + 1:]:
                key = (min(rep[a], rep[b]), max(rep[a], rep[b]))
                overlaps[key] = sizes[keys[a & b]]
                weights[key] = count[a] * count[b]
        # J between consecutive rounds by what the candidates state: an edit elsewhere on
        # a page is a new version with the same facts (capped at K: checked K is smaller)
        drift = [min(shared(pools[keys[per[a]]], pools[keys[per[b]]]),
                     sizes[keys[per[a]]], sizes[keys[per[b]]])
                 for a, b in zip(present, present[1:], strict=False)]
        graphs[q] = graph_stats([sizes[keys[per[r]]] for r in present], overlaps, delta,
                                drawn=drawn.get(q), trials=trials, weights=weights,
                                consecutive=drift)
    out = {"rounds": rounds, "delta": delta, "k_counts": "askable" if checked else "wordable",
           "graphs": {q: g.model_dump() for q, g in graphs.items()},
           "aggregate": aggregate(graphs, delta)}
    if levels is not None:  # K per complexity setting, on each graph's latest evidence
        latest = {q: keys[per[max(per)]] for q, per in snaps.items()}
        out["by_setting"] = by_setting({q: levels[k] for q, k in latest.items()})
    return out


def _previous_round(t: int, cfg: SampleConfig, previous: int | None) -> int | None:
    """The round ``cfg.reuse`` steers round ``t`` against (None: none)."""
    if cfg.reuse == "allow" or previous == 0:
        return None
    return t - 1 if previous is None else previous


def wait_for_previous(store: Store, t: int, cfg: SampleConfig, previous: int | None = None,
                      wait: float = PREDECESSOR_WAIT_SECONDS) -> int | None:
    """The round round ``t`` steers against, once it is written: a concurrent `round new`
    that claimed it first may still be generating it, and its facts read now would be
    none (a fresh round computed from them) or the ones it is replacing. None: no round
    to steer against (none asked, or it does not exist). Waits at most ``wait`` seconds."""
    last = _previous_round(t, cfg, previous)
    if last is None or last < 1:
        return None
    if last >= t:  # a round can only steer against one made before it
        raise UsageError(f"round {t} cannot steer against round {last}: it must be an "
                         "earlier round")
    deadline = time.monotonic() + wait
    while True:
        rows = store.query("rounds/predecessor", t=last)
        if not rows:  # never made, or its run failed and gave the number back
            return None
        if rows[0]["status"] == "complete" and not rows[0]["claimed"]:
            return last
        left = deadline - time.monotonic()
        if left <= 0:
            raise ConflictError(
                f"round {t} steers against round {last}'s facts (--reuse {cfg.reuse}), and "
                f"round {last} was still being generated after {wait:g} s: by a concurrent "
                f"`dwqa round new` (run again once it is written), or by a run that died "
                f"(regenerate it with `dwqa round new --round {last}`); this run wrote "
                "nothing")
        time.sleep(min(PREDECESSOR_POLL_SECONDS, left))


def previous_facts(store: Store, t: int, cfg: SampleConfig,
                   previous: int | None = None) -> SampleConfig:
    """``cfg`` with the fact ids the items of round ``previous`` (default t-1) used, and
    those of every fact stating the same thing from another sentence, for ``cfg.reuse``
    (not read when it is 'allow'); for a fresh round also each graph's candidates of the
    ``RECENT_ROUNDS`` rounds up to ``previous``."""
    last = _previous_round(t, cfg, previous)
    if last is None:
        return cfg
    rows = store.query("rounds/previous_facts", t=last)
    recent: dict[str, set[str]] = {}
    if cfg.reuse == "fresh":
        window = list(range(last - RECENT_ROUNDS + 1, last + 1))
        for r in store.query("rounds/items_facts", rounds=window):
            recent.setdefault(r["query_id"], set()).add(r["candidate"])
    return cfg.model_copy(update={"previous_facts": frozenset(r["id"] for r in rows),
                                  "recent": {q: frozenset(k) for q, k in recent.items()}})
