"""Connected sampling (rounds/sampling.py) on hand-built buckets, without a database: which
claim combinations count as connected for each pattern."""

from __future__ import annotations

import random

from dwqa_graph.rounds.causes import chain_roles
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


def chain_claim(cid: str, text: str) -> ClaimRef:
    return ClaimRef(id=cid, text=text, **chain_roles(text))


BREACH = ("The breach of the Morrow embankment in July 2022 was caused by years of neglected "
          "maintenance, an independent inquiry found.")
FLOODED = ("The breach led to water up to 1.9 metres deep in the streets of Lower Ketterby by "
           "the morning of 20 July.")


def test_causal_needs_a_chain_across_two_documents() -> None:
    first, second = chain_claim("a", BREACH), chain_claim("b", FLOODED)
    assert "causal" in applicable([bucket("d1", first), bucket("d2", second)], SampleConfig())
    for seed in range(5):  # always in chain order: the answer's claim first
        picks = choose_claims("causal", [bucket("d1", first), bucket("d2", second)], 2,
                              random.Random(seed))
        assert picks is not None and [p.claim.id for p in picks] == ["a", "b"]
    # The same two sentences in one document are no cross-document chain.
    assert "causal" not in applicable([bucket("d1", first, second)], SampleConfig())
    # A cause that shares a word but not the event: "stricter fire safety rules" is no fire.
    fire = chain_claim("f", "A faulty charging module caused the fire at the pilot plant.")
    rules = chain_claim("r", "The fire safety rules led to a delay of the Brannsfjord "
                        "gigafactory of Solvane Energy.")
    assert "causal" not in applicable([bucket("d1", fire), bucket("d2", rules)],
                                      SampleConfig())
    # An answer that only points elsewhere ("this capacity loss") starts no chain.
    vague = chain_claim("v", "This capacity loss caused the breach of the Morrow embankment.")
    assert "causal" not in applicable([bucket("d1", vague), bucket("d2", second)],
                                      SampleConfig())
