"""Stage 4a — sampling: from one seed graph, a reproducible multi-hop claim combination.

For seed graph i in round t the per-graph seed is r_i,t = H(round seed, graph id). Cypher
(``cypher/rounds/evidence.cypher``) walks Query -> Document -> current DocumentVersion ->
Claim and returns the claims grouped into buckets by document with their features; the
random choices are made here with ``random.Random(r)`` because Cypher's ``rand()`` cannot be
seeded. Nothing enumerates the C(n, k) document sets: k documents are drawn directly, then
a pattern among those that apply, then the claims.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Pattern = Literal["temporal", "comparison", "causal", "conjunction"]
PATTERNS: tuple[Pattern, ...] = ("temporal", "comparison", "causal", "conjunction")


class ClaimRef(BaseModel):
    """A claim as sampling sees it; absent (null) features mean none."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    text: str
    years: list[int] = []
    dates: list[str] = []
    values: list[float] = Field([], alias="number_values")
    units: list[str] = Field([], alias="number_units")
    raw: list[str] = Field([], alias="number_raw")
    cause: bool = Field(False, alias="has_cause")
    cues: list[str] = Field([], alias="cause_cues")
    entities: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _nulls_are_empty(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None}
        return data


class Bucket(BaseModel):
    """The claims of one document (the seed prompts' "bucket", labelled doc1, doc2 ...)."""

    document_id: str
    url: str
    version_id: str
    claims: list[ClaimRef]
    label: str = ""


class SeedGraph(BaseModel):
    query_id: str
    question: str
    evidence_round: int
    documents: list[Bucket]


class SampleConfig(BaseModel):
    """Controllable complexity (``dwqa round new`` options)."""

    docs: int = Field(3, ge=1, description="k documents drawn per seed graph.")
    hops: int = Field(2, ge=2, le=4, description="Claims chained into one question.")
    patterns: tuple[Pattern, ...] = PATTERNS
    min_buckets: int = Field(2, ge=2, description="Distinct documents a question must use.")
    attempts: int = Field(8, ge=1, description="Redraws before a graph is reported empty.")
    pool_docs: int | None = Field(
        None, ge=2, description="Only the first N documents (by id) of each seed graph may be "
        "drawn: a smaller candidate pool K, so consecutive rounds reuse claims (the "
        "leak-transfer experiment's knob; None: every document).")


class Pick(BaseModel):
    """One claim in a sample, with the value the pattern uses from it."""

    bucket: str  # label
    document_id: str
    version_id: str
    claim: ClaimRef
    year: int | None = None
    value: float | None = None
    unit: str | None = None
    raw: str | None = None
    entity: str | None = None


class Sample(BaseModel):
    query_id: str
    r: int
    attempt: int
    pattern: Pattern
    buckets: list[Bucket]
    picks: list[Pick]


def graph_seed(round_seed: int | str, graph_id: str) -> int:
    """r_i,t = H(round seed, graph id): independent across graphs, fixed for a pair."""
    return int(hashlib.sha256(f"{round_seed}:{graph_id}".encode()).hexdigest()[:16], 16)


def _pick(b: Bucket, c: ClaimRef, **kw: object) -> Pick:
    return Pick(bucket=b.label, document_id=b.document_id, version_id=b.version_id, claim=c,
                **kw)  # type: ignore[arg-type]


def applicable(buckets: list[Bucket], cfg: SampleConfig) -> list[Pattern]:
    """The seed's rules: temporal/comparison/causal need >= min_buckets buckets with dates /
    numbers (sharing a unit, so a value can be compared) / causal cues; conjunction >= 3."""
    dated = sum(any(c.years for c in b.claims) for b in buckets)
    causal = sum(any(c.cause for c in b.claims) for b in buckets)
    units: dict[str, set[str]] = {}
    for b in buckets:
        for c in b.claims:
            for u in c.units:
                if u:
                    units.setdefault(u, set()).add(b.label)
    out: list[Pattern] = []
    if dated >= cfg.min_buckets:
        out.append("temporal")
    if any(len(s) >= cfg.min_buckets for s in units.values()):
        out.append("comparison")
    if causal >= cfg.min_buckets:
        out.append("causal")
    if len(buckets) >= max(3, cfg.min_buckets):
        out.append("conjunction")
    return [p for p in out if p in cfg.patterns]


def _distinct(picks: list[Pick], key: str, n: int) -> list[Pick] | None:
    """First ``n`` picks with distinct buckets and distinct ``key`` values."""
    chosen: list[Pick] = []
    for p in picks:
        if all(p.bucket != c.bucket and getattr(p, key) != getattr(c, key) for c in chosen):
            chosen.append(p)
            if len(chosen) == n:
                return chosen
    return None


def choose_claims(pattern: Pattern, buckets: list[Bucket], hops: int,
                  rng: random.Random) -> list[Pick] | None:
    if pattern == "temporal":
        events = [_pick(b, c, year=y) for b in buckets for c in b.claims for y in c.years]
        rng.shuffle(events)
        return _distinct(events, "year", hops)
    if pattern == "comparison":
        numbers = [_pick(b, c, value=v, unit=u, raw=raw) for b in buckets for c in b.claims
                   for v, u, raw in zip(c.values, c.units, c.raw, strict=False) if u]
        units = sorted({p.unit for p in numbers if p.unit})
        rng.shuffle(units)
        for unit in units:
            same = [p for p in numbers if p.unit == unit]
            rng.shuffle(same)
            chosen = _distinct(same, "value", hops)
            if chosen:
                return chosen
        return None
    if pattern == "causal":
        causes = [_pick(b, c) for b in buckets for c in b.claims if c.cause]
        rng.shuffle(causes)
        for first in causes:
            # Chain through a shared entity into other documents' claims.
            chain = [first]
            for _ in range(hops - 1):
                ents = set(chain[-1].claim.entities)
                nxt = [_pick(b, c, entity=sorted(ents & set(c.entities))[0]) for b in buckets
                       for c in b.claims if b.label not in {p.bucket for p in chain}
                       and ents & set(c.entities)]
                if not nxt:
                    break
                chain.append(rng.choice(nxt))
            if len(chain) == hops:
                return chain
        return None
    # conjunction: one entity that claims in >= max(3, hops) documents all mention
    need = max(3, hops)
    by_entity: dict[str, dict[str, list[Pick]]] = {}
    for b in buckets:
        for c in b.claims:
            for e in c.entities:
                by_entity.setdefault(e, {}).setdefault(b.label, []).append(_pick(b, c, entity=e))
    shared = sorted(e for e, per in by_entity.items() if len(per) >= need)
    if not shared:
        return None
    entity = rng.choice(shared)
    labels = sorted(by_entity[entity])
    rng.shuffle(labels)
    return [rng.choice(by_entity[entity][lab]) for lab in labels[:need]]


def sample(graph: SeedGraph, cfg: SampleConfig, r: int, attempt: int = 0) -> Sample | None:
    """One draw for attempt ``attempt`` (redraws use the next attempt number)."""
    rng = random.Random(f"{r}:{attempt}")
    eligible = sorted((b for b in graph.documents if b.claims), key=lambda b: b.document_id)
    eligible = eligible[:cfg.pool_docs] if cfg.pool_docs else eligible
    if len(eligible) < cfg.min_buckets:
        return None
    chosen = rng.sample(eligible, min(cfg.docs, len(eligible)))
    buckets = [b.model_copy(update={"label": f"doc{i}"}) for i, b in enumerate(chosen, 1)]
    patterns = applicable(buckets, cfg)
    if not patterns:
        return None
    pattern = rng.choice(patterns)
    picks = choose_claims(pattern, buckets, cfg.hops if pattern != "conjunction"
                          else max(3, cfg.hops), rng)
    if not picks:
        return None
    return Sample(query_id=graph.query_id, r=r, attempt=attempt, pattern=pattern,
                  buckets=buckets, picks=picks)
