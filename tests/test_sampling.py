"""Connected sampling (rounds/sampling.py) on hand-built buckets, without a database: which
claim combinations count as connected for each pattern."""

from __future__ import annotations

import random

from dwqa_graph.rounds.sampling import Bucket, ClaimRef, SampleConfig, applicable, choose_claims


def bucket(label: str, *claims: ClaimRef) -> Bucket:
    return Bucket(document_id=label, url=f"http://x/{label}", version_id=f"v-{label}",
                  claims=list(claims), label=label)


def claim(cid: str, **kw: object) -> ClaimRef:
    return ClaimRef(id=cid, text=cid, **kw)  # type: ignore[arg-type]


def test_temporal_needs_events_that_name_the_shared_entity() -> None:
    # Two births that both mention Rome: connected by a place, not by their events.
    a = claim("a", event_years=[1950], mentions=["rome", "carlo rovelli"],
              event_names=["carlo rovelli"])
    b = claim("b", event_years=[1901], mentions=["rome", "enrico fermi"],
              event_names=["enrico fermi"])
    assert "temporal" not in applicable([bucket("d1", a), bucket("d2", b)], SampleConfig())
    # Positive control: a release that names its director, and the director's birth.
    film = claim("f", event_years=[2012], mentions=["sinister", "scott derrickson"],
                 event_names=["sinister", "scott derrickson"])
    born = claim("s", event_years=[1966], mentions=["scott derrickson"],
                 event_names=["scott derrickson"])
    buckets = [bucket("d1", film), bucket("d2", born)]
    assert "temporal" in applicable(buckets, SampleConfig())
    picks = choose_claims("temporal", buckets, 2, random.Random(1))
    assert picks is not None and {p.year for p in picks} == {2012, 1966}


def test_causal_bridges_through_an_entity_another_document_describes() -> None:
    cause = claim("c", cause_split=True, mentions=["solvane energy", "lindqvarn"],
                  effect_names=["solvane energy"])
    mentions_only = claim("m", mentions=["solvane energy"])
    assert "causal" not in applicable([bucket("d1", cause), bucket("d2", mentions_only)],
                                      SampleConfig())
    describes = claim("d", mentions=["solvane energy"], described=["solvane energy"])
    buckets = [bucket("d1", cause), bucket("d2", mentions_only, describes)]
    assert "causal" in applicable(buckets, SampleConfig())
    for seed in range(5):  # never the claim that only mentions it
        picks = choose_claims("causal", buckets, 2, random.Random(seed))
        assert picks is not None and [p.claim.id for p in picks] == ["c", "d"]
