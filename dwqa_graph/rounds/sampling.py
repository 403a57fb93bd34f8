"""Stage 4a — sampling: from one seed graph, a reproducible multi-hop claim combination.

For seed graph i in round t the per-graph seed is r_i,t = H(round seed, graph id). Cypher
(``cypher/rounds/evidence.cypher``) walks Query -> Document -> current DocumentVersion ->
Claim and returns the claims grouped into buckets by document with their features; the
random choices are made here with ``random.Random(r)`` because Cypher's ``rand()`` cannot be
seeded. Sampling is *connected*: claims are combined only through an Entity they both
MENTION (the entity layer, ``rounds/entities.py``): a pattern with a connected candidate is
drawn, then an entity, then one claim per document through it. The candidate pools the
collision statistics count (``cypher/rounds/pool_*.cypher``) are exactly these connected
combinations.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from dwqa_graph.rounds.causes import chained
from dwqa_graph.rounds.entities import norm
from dwqa_graph.rounds.kinds import comparable_pairs

Pattern = Literal["temporal", "comparison", "causal", "conjunction"]
PATTERNS: tuple[Pattern, ...] = ("temporal", "comparison", "causal", "conjunction")


class ClaimRef(BaseModel):
    """A claim as sampling sees it; absent (null) features mean none."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    text: str
    # default_factory, not a [] default: pydantic deep-copies a mutable default per
    # instance, and a round builds ~10^5 of these.
    values: list[float] = Field(default_factory=list, alias="number_values")
    units: list[str] = Field(default_factory=list, alias="number_units")
    raw: list[str] = Field(default_factory=list, alias="number_raw")
    mentions: list[str] = Field(default_factory=list,
                                description="Non-generic Entity norms (MENTIONS).")
    names: list[str] = Field(default_factory=list,
                             description="The same entities' display names.")
    event_years: list[int] = Field(default_factory=list,
                                   description="Years that date an event (entity layer).")
    event_names: list[str] = Field(default_factory=list,
                                   description="Entities those events name.")
    effect_heads: list[str] = Field(default_factory=list, description="Causal chain, first "
                                    "link: stems of its effect's head (rounds/causes.py).")
    effect_stems: list[str] = Field(default_factory=list,
                                    description="... and of all its effect's words.")
    cause_stems: list[str] = Field(default_factory=list, description="Causal chain, second "
                                   "link: stems of its cause (an event noun phrase), head "
                                   "first.")
    quantity_units: list[str] = Field(default_factory=list,
                                      description="Per number: unit if named, else ''.")
    quantity_kinds: list[str] = Field(default_factory=list,
                                      description="Per number: what it measures.")
    listed: list[str] = Field(default_factory=list, description="Entities in the claim's "
                              "list of names (rounds/lists.py).")
    compared: list[str] = Field(default_factory=list, description="Comparable events of a "
                                "lead sentence's subject, '<event>|<kind>' (rounds/kinds.py).")
    compared_years: list[int] = Field(default_factory=list,
                                      description="The year of each compared event.")
    compared_subject: str = Field("", description="The subject of the compared events.")

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
    title: str | None = None
    version_id: str
    text: str = ""
    claims: list[ClaimRef]
    label: str = ""


#: Entity norm -> bucket label -> the claims of that bucket that MENTION it.
Connections = dict[str, dict[str, list[ClaimRef]]]


class SeedGraph(BaseModel):
    query_id: str
    question: str
    evidence_round: int
    documents: list[Bucket]
    # What every draw of this graph starts from (labelled buckets, their entity connections,
    # the applicable patterns), per sampling shape: redraws reuse it (``_prepared``).
    _draws: dict[tuple[Any, ...], tuple[list[Bucket], Connections, list[Pattern]]] = \
        PrivateAttr(default_factory=dict)


class SampleConfig(BaseModel):
    """Controllable complexity (``dwqa round new`` options)."""

    docs: int = Field(3, ge=1, description="Documents a sample shows a generator: the picks' "
                      "own, then others connected through the same entity.")
    hops: int = Field(2, ge=2, le=4, description="Claims chained into one question.")
    patterns: tuple[Pattern, ...] = PATTERNS
    min_buckets: int = Field(2, ge=2, description="Distinct documents a question must use.")
    attempts: int = Field(16, ge=1, description="Redraws before a graph is reported empty.")
    pool_docs: int | None = Field(
        None, ge=2, description="Only the first N documents (by id) of each seed graph may be "
        "drawn: a smaller candidate pool K, so consecutive rounds reuse claims (the "
        "leak-transfer experiment's knob; None: every document).")
    reuse: Literal["fresh", "avoid", "allow", "prefer"] = Field(
        "fresh", description="The claims the previous round's items used: 'fresh' (the "
        "default) never draws them again in the next round -- a seed graph whose every "
        "connected candidate uses one gets no item this round; 'avoid' draws them only when "
        "nothing connected without them is left; 'allow' ignores them (independent draws); "
        "'prefer' draws only them while they still form a connected candidate (heavy "
        "reuse). See ``steer``.")
    reuse_share: float = Field(
        1.0, ge=0.0, le=1.0, description="Share of seed graphs the reuse rule applies to "
        "(chosen per graph and round from r); the others draw as with 'allow'.")
    previous_claims: frozenset[str] = Field(
        frozenset(), exclude=True, description="Claim ids the previous round's items used; "
        "set by ``new_round`` from the graph (not part of θ: it is graph state, like the "
        "evidence).")


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


def _distinct(picks: list[Pick], key: str, n: int) -> list[Pick] | None:
    """First ``n`` picks with distinct buckets and distinct ``key`` values."""
    chosen: list[Pick] = []
    for p in picks:
        if all(p.bucket != c.bucket and getattr(p, key) != getattr(c, key) for c in chosen):
            chosen.append(p)
            if len(chosen) == n:
                return chosen
    return None


def connections(buckets: list[Bucket]) -> Connections:
    """Entity norm -> bucket label -> the claims of that bucket that MENTION it: the paths
    claim -> entity <- claim the entity layer gives, restricted to the drawn documents."""
    out: Connections = {}
    for b in buckets:
        for c in b.claims:
            for e in c.mentions:
                out.setdefault(e, {}).setdefault(b.label, []).append(c)
    return out


def _dated(claims: list[ClaimRef], entity: str) -> list[ClaimRef]:
    """Claims with an event that names ``entity``: two events linked only by a place one of
    them happened in are unrelated (the blind review's "born in Rome" pairs)."""
    return [c for c in claims if c.event_years and entity in c.event_names]


def _quantities(buckets: list[Bucket]) -> dict[tuple[str, str], dict[str, list[int]]]:
    """(unit, kind) -> bucket label -> indexes of claims' numbers of that unit and kind:
    quantities are comparable when they measure the same thing in the same unit."""
    out: dict[tuple[str, str], dict[str, list[int]]] = {}
    for b in buckets:
        for c in b.claims:
            for u, k in zip(c.quantity_units, c.quantity_kinds, strict=False):
                if u and k:
                    out.setdefault((u, k), {}).setdefault(b.label, []).append(1)
    return out


def applicable(buckets: list[Bucket], cfg: SampleConfig,
               conn: Connections | None = None, question: str = "") -> list[Pattern]:
    """Patterns with at least one *connected* candidate: temporal = dated claims of
    ``hops`` documents whose events name one entity; comparison = quantities with one unit
    and kind in ``hops`` documents, or (two hops) the same event of two subjects of one
    kind (rounds/kinds.py; ``question``: the seed's, which it must not ask again); causal =
    a claim whose stated effect is the event a claim of another document gives as its cause
    (a chain); conjunction = two claims of different documents whose lists of names share
    exactly one entity (rounds/lists.py).
    ``conn``: ``connections(buckets)`` when the caller has it already."""
    conn = connections(buckets) if conn is None else conn
    need = max(cfg.hops, cfg.min_buckets)
    out: list[Pattern] = []
    if any(sum(bool(_dated(cs, e)) for cs in per.values()) >= need
           for e, per in conn.items()):
        out.append("temporal")
    if any(len(labs) >= need for labs in _quantities(buckets).values()) or (
            need == 2 and _compared_pairs(buckets, question)):
        out.append("comparison")
    if _causal_pairs(buckets):
        out.append("causal")
    if _list_pairs(buckets):
        out.append("conjunction")
    return [p for p in out if p in cfg.patterns]


def _causal_pairs(buckets: list[Bucket]) -> list[tuple[str, ClaimRef, str, ClaimRef]]:
    """(label, first link, label, second link) of every causal chain across two documents
    (rounds/causes.py): the first claim's effect is the event the second one's cause names."""
    firsts = [(b.label, c) for b in buckets for c in b.claims if c.effect_stems]
    seconds = [(b.label, c) for b in buckets for c in b.claims if c.cause_stems]
    return [(k, c, k2, c2) for k, c in firsts for k2, c2 in seconds
            if k != k2 and chained(c, c2)]


def _list_pairs(buckets: list[Bucket]) -> list[tuple[str, ClaimRef, str, ClaimRef, str]]:
    """(label, claim, label, claim, entity) of every pair of claims of different documents
    whose lists of names share exactly one entity (the conjunction's answer): each list
    alone leaves >= lists.MIN_MEMBERS candidates, the two together one."""
    lists = [(b.label, c) for b in buckets for c in b.claims if c.listed]
    out = []
    for i, (k, c) in enumerate(lists):
        for k2, c2 in lists[i + 1:]:
            common = set(c.listed) & set(c2.listed)
            if k != k2 and len(common) == 1:
                out.append((k, c, k2, c2, common.pop()))
    return out


def _compared_pairs(buckets: list[Bucket], question: str
                    ) -> list[tuple[str, ClaimRef, int, str, ClaimRef, int, str]]:
    """(label, claim, year, label, claim, year, kind) of every pair of comparable events in
    two documents: the same event of two subjects of one kind (rounds/kinds.py)."""
    leads = [(b.label, c) for b in buckets for c in b.claims if c.compared]
    out = []
    for i, (k, c) in enumerate(leads):
        for k2, c2 in leads[i + 1:]:
            if k == k2:
                continue
            for a, b in comparable_pairs((c.compared, c.compared_years, c.compared_subject),
                                         (c2.compared, c2.compared_years,
                                          c2.compared_subject), question):
                out.append((k, c, c.compared_years[a], k2, c2, c2.compared_years[b],
                            c.compared[a].split("|", 1)[1]))
    return out


def _by_label(buckets: list[Bucket]) -> dict[str, Bucket]:
    return {b.label: b for b in buckets}


def choose_claims(pattern: Pattern, buckets: list[Bucket], hops: int, rng: random.Random,
                  conn: Connections | None = None, question: str = "") -> list[Pick] | None:
    """One connected candidate: an entity first, then one claim per document through it.
    ``question``: the seed's (a comparison of two subjects must not ask it again)."""
    conn = connections(buckets) if conn is None else conn
    lab = _by_label(buckets)

    def name_of(c: ClaimRef, e: str) -> str:
        return c.names[c.mentions.index(e)] if e in c.mentions and len(c.names) == len(
            c.mentions) else e

    if pattern == "conjunction":  # two lists meeting in one entity
        found = _list_pairs(buckets)
        if not found:
            return None
        k, c, k2, c2, e = rng.choice(found)
        return [_pick(lab[k], c, entity=name_of(c, e)),
                _pick(lab[k2], c2, entity=name_of(c, e))]
    if pattern == "causal":  # through an event, not an entity
        pairs = _causal_pairs(buckets)
        if not pairs:
            return None
        k, c, k2, c2 = rng.choice(pairs)
        return [_pick(lab[k], c), _pick(lab[k2], c2)]
    if pattern == "comparison":
        # Two quantities of the same kind and unit from different documents (the same
        # subject or comparable ones: one seed graph is one information need), or the dates
        # of one event of two subjects of the same kind.
        keys = sorted(k for k, labs in _quantities(buckets).items() if len(labs) >= hops)
        dated = _compared_pairs(buckets, question) if hops == 2 else []
        if dated and (not keys or rng.random() < 0.5):
            k, c, y, k2, c2, y2, kind = rng.choice(dated)
            return [_pick(lab[k], c, year=y, entity=kind),
                    _pick(lab[k2], c2, year=y2, entity=kind)]
        rng.shuffle(keys)
        for unit, kind in keys:
            same = [_pick(b, c, value=v, unit=u, raw=raw, entity=kind)
                    for b in buckets for c in b.claims
                    for v, u, k, raw in zip(c.values, c.quantity_units, c.quantity_kinds,
                                            c.raw, strict=False) if u == unit and k == kind]
            rng.shuffle(same)
            chosen = _distinct(same, "value", hops)
            if chosen:
                return chosen
        return None
    entities = sorted(conn)  # temporal: dated events that name one entity
    rng.shuffle(entities)
    for e in entities:
        per = conn[e]
        labels = sorted(k for k, cs in per.items() if _dated(cs, e))
        if len(labels) < hops:
            continue
        rng.shuffle(labels)
        events = [_pick(lab[k], c, year=y, entity=name_of(c, e)) for k in labels
                  for c in _dated(per[k], e) for y in c.event_years]
        rng.shuffle(events)
        chosen = _distinct(events, "year", hops)
        if chosen:
            return chosen
    return None


def _prepared(graph: SeedGraph, cfg: SampleConfig
              ) -> tuple[list[Bucket], Connections, list[Pattern]]:
    """The eligible documents labelled doc1..docN (by id), their entity connections and the
    patterns with a connected candidate: the same for every attempt of a graph, so built
    once (they were most of a draw's cost)."""
    key = (cfg.pool_docs, cfg.hops, cfg.min_buckets, cfg.patterns)
    if key not in graph._draws:
        eligible = sorted((b for b in graph.documents if b.claims),
                          key=lambda b: b.document_id)
        eligible = eligible[:cfg.pool_docs] if cfg.pool_docs else eligible
        buckets = [b.model_copy(update={"label": f"doc{i}"})
                   for i, b in enumerate(eligible, 1)]
        conn = connections(buckets)
        graph._draws[key] = (buckets, conn, applicable(buckets, cfg, conn, graph.question)
                             if len(buckets) >= cfg.min_buckets else [])
    return graph._draws[key]


def no_draw_reason(graph: SeedGraph, cfg: SampleConfig) -> str:
    """Why ``sample`` drew nothing (the NO_ITEM reason): the graph has no connected candidate
    at all (``no_applicable_pattern``), or it has some but steering away from the previous
    round's claims left none (``no_fresh_candidate``: the graph sits a fresh round out)."""
    base, _, patterns = _prepared(graph, cfg)
    return "no_fresh_candidate" if patterns and len(base) >= cfg.min_buckets else \
        "no_applicable_pattern"


def sample(graph: SeedGraph, cfg: SampleConfig, r: int, attempt: int = 0) -> Sample | None:
    """One draw for attempt ``attempt`` (redraws use the next attempt number): a pattern among
    those with a connected candidate in the whole seed graph, then an entity and one claim
    per document through it. The sample's buckets are the documents the picks come from
    (at most ``cfg.docs`` besides the picks' own when fewer), so a generator only ever sees
    claims that are connected."""
    rng = random.Random(f"{r}:{attempt}")
    base, base_conn, base_patterns = _prepared(graph, cfg)
    if len(base) < cfg.min_buckets:
        return None
    buckets = steer(base, cfg, r, attempt, graph.question)
    if buckets is base:  # unsteered: the graph's own connections and patterns
        conn, patterns = base_conn, base_patterns
    else:
        conn = connections(buckets)
        patterns = applicable(buckets, cfg, conn, graph.question)
    if not patterns:
        return None
    pattern = rng.choice(patterns)
    picks = choose_claims(pattern, buckets, cfg.hops, rng, conn, graph.question)
    if not picks:
        return None
    used = {p.bucket for p in picks}
    # Up to cfg.docs documents: the picks' own, then others that MENTION the same entity
    # (an LLM generator sees more connected claims, never unrelated ones). A comparison's
    # pick carries what it compares ("population", "goalkeeper"), not an entity.
    shared = {norm(p.entity) for p in picks if p.entity} & set(conn) \
        if pattern != "comparison" else set()
    for b in buckets:
        if len(used) >= cfg.docs:
            break
        if b.label not in used and any(e in c.mentions for c in b.claims for e in shared):
            used.add(b.label)
    kept = [b for b in buckets if b.label in used]
    # Relabel doc1..docN in pick order, so prompts do not leak the graph's size.
    order = list(dict.fromkeys([p.bucket for p in picks] + [b.label for b in kept]))
    relabel = {old: f"doc{i}" for i, old in enumerate(order, 1)}
    kept = sorted((b.model_copy(update={"label": relabel[b.label]}) for b in kept),
                  key=lambda b: b.label)
    picks = [p.model_copy(update={"bucket": relabel[p.bucket]}) for p in picks]
    return Sample(query_id=graph.query_id, r=r, attempt=attempt, pattern=pattern,
                  buckets=kept, picks=picks)


def steer(buckets: list[Bucket], cfg: SampleConfig, r: int, attempt: int,
          question: str = "") -> list[Bucket]:
    """The buckets a draw may use under ``cfg.reuse``, given the claims the previous round's
    items used (``previous_claims``):

    * 'fresh': the buckets without those claims -- possibly none, then no draw, and the
      graph sits this round out (NO_ITEM ``no_fresh_candidate``); the round after, its
      claims are free again (only round t-1 is avoided, which is what Leak&Test leaks);
    * 'avoid': the same while that leaves a connected candidate (``applicable``) with
      ``min_buckets`` documents, and before attempt ``max(1, attempts // 2)``; otherwise
      the buckets unchanged, so a repeat happens only where the pool (or verification)
      forces it;
    * 'prefer': only those claims, while they still form a connected candidate (else
      unchanged): the same facts asked again, reworded or recombined;
    * 'allow', a graph outside ``reuse_share``, or no previous claims: unchanged.

    Deterministic: it depends only on the buckets, the previous claims, r and the attempt,
    so the same round seed over the same graph state (evidence *and* previous round) gives
    the same items.

    Collision statistics: steering never adds a candidate, so the pool K, the overlap J and
    the bound t(t-1)J/(2K^2) (``rounds.collisions``, ``dwqa round collisions``) are those of
    the unsteered pool. The bound is a union bound over round pairs for independent uniform
    draws (each pair repeats with probability J/K^2). 'fresh' makes round t repeat a claim of
    round t-1 impossible ('avoid': while an alternative exists; a fallback draw is one the
    pool or verification forced), so the t-1 consecutive pairs contribute 0; a pair two or
    more rounds apart is, for uniform draws, at most K/(K-m) times as likely as
    independently (m: the candidates sharing a claim with the round between, excluded
    there). The expected repeats therefore stay below the bound when
    (t-2)/t * K/(K-m) <= 1, which holds for all but tiny pools. That argument is for
    uniform draws over K; real draws are not uniform, and verification rejects most of a
    small pool: on the HotpotQA sample + example (K median 4) most graphs have one or two
    *valid* candidates, so `round collisions` observes a repeat within 5 rounds on every
    graph with items (rate 1.0 against a mean bound of 0.79) under 'fresh' as under
    'allow' -- 'fresh' removes the t-1 -> t repeats only (a graph with a single valid
    candidate asks it in rounds t and t+2). The observed rate is measured, not assumed, and
    the leak-transfer curve reports the measured consecutive reuse beside the bound.
    'prefer' is the opposite knob: it reuses on purpose and exceeds the bound by design."""
    prev = cfg.previous_claims
    if cfg.reuse == "allow" or not prev:
        return buckets
    if cfg.reuse_share < 1.0 and random.Random(f"{r}:reuse").random() >= cfg.reuse_share:
        return buckets
    keep_previous = cfg.reuse == "prefer"
    steered = [b.model_copy(update={"claims": [c for c in b.claims
                                               if (c.id in prev) == keep_previous]})
               for b in buckets]
    steered = [b for b in steered if b.claims]
    if cfg.reuse == "fresh":
        return steered
    if cfg.reuse == "avoid" and attempt >= max(1, cfg.attempts // 2):
        return buckets
    if len(steered) >= cfg.min_buckets and applicable(steered, cfg, question=question):
        return steered
    return buckets
