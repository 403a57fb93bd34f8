"""Connected sampling (rounds/sampling.py) on hand-built buckets, without a database: which
claim combinations count as connected for each pattern."""

from __future__ import annotations

import random

from dwqa_graph.rounds.causes import chain_roles
from dwqa_graph.rounds.entities import norm
from dwqa_graph.rounds.lists import listed, members
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


TRUE_LIES = ("True Lies is a 1994 American action film written, co-produced and directed by "
             "James Cameron, starring Arnold Schwarzenegger, Jamie Lee Curtis, Tom Arnold, Art "
             "Malik and Tia Carrere.")
END_OF_DAYS = ("End of Days is a 1999 American fantasy action horror thriller film directed by "
               "Peter Hyams and starring Arnold Schwarzenegger, Gabriel Byrne, Robin Tunney and "
               "Kevin Pollak.")


def list_claim(cid: str, text: str) -> ClaimRef:
    names = [m[2] for m in members(text)]
    return ClaimRef(id=cid, text=text, mentions=[norm(n) for n in names], names=names,
                    listed=[norm(n) for n in listed(text, names)])


def test_conjunction_needs_two_lists_that_share_one_name() -> None:
    cast, other = list_claim("t", TRUE_LIES), list_claim("e", END_OF_DAYS)
    assert cast.listed[0] == "arnold schwarzenegger" and len(cast.listed) == 5
    assert "James Cameron" not in cast.names  # "directed by James Cameron, starring": no list
    buckets = [bucket("d1", cast), bucket("d2", other)]
    assert "conjunction" in applicable(buckets, SampleConfig())
    picks = choose_claims("conjunction", buckets, 2, random.Random(3))
    assert picks is not None and {p.claim.id for p in picks} == {"t", "e"}
    assert {p.entity for p in picks} == {"Arnold Schwarzenegger"}
    # Two lists sharing two names single out nobody.
    both = list_claim("b", END_OF_DAYS.replace("Gabriel Byrne", "Tom Arnold"))
    assert "conjunction" not in applicable([bucket("d1", cast), bucket("d2", both)],
                                           SampleConfig())
    # One document's two lists are no cross-document conjunction.
    assert "conjunction" not in applicable([bucket("d1", cast, other)], SampleConfig())
    # A list of two names is no clue that narrows: it is not stored as a list.
    assert list_claim("s", "The film starred Arnold Schwarzenegger and Tom Arnold.").listed == []


def lead(cid: str, subject: str, kind: str, year: int) -> ClaimRef:
    return claim(cid, compared=[f"was born|{kind}"], compared_years=[year],
                 compared_subject=subject)


def test_comparison_of_two_subjects_of_one_kind() -> None:
    fermi, rovelli = lead("f", "Enrico Fermi", "physicist", 1901), lead(
        "r", "Carlo Rovelli", "physicist", 1956)
    buckets = [bucket("d1", fermi), bucket("d2", rovelli)]
    assert applicable(buckets, SampleConfig()) == ["comparison"]
    picks = choose_claims("comparison", buckets, 2, random.Random(0))
    assert picks is not None and [(p.year, p.entity) for p in picks] == [
        (1901, "physicist"), (1956, "physicist")]
    # Positive controls: other kinds, one document, or the seed's own question (HotpotQA's
    # "Who is older, A or B?" is public) give no candidate.
    pele = lead("p", "Pelé", "footballer", 1940)
    assert applicable([bucket("d1", fermi), bucket("d2", pele)], SampleConfig()) == []
    assert applicable([bucket("d1", fermi, rovelli)], SampleConfig()) == []
    seed = "Who is older, Enrico Fermi or Carlo Rovelli?"
    assert applicable(buckets, SampleConfig(), question=seed) == []
    assert applicable(buckets, SampleConfig(), question="Who was Enrico Fermi?") == [
        "comparison"]
    # The same year orders nothing; three hops are no pair.
    same = lead("s", "Sergio Ferrara", "physicist", 1901)
    assert applicable([bucket("d1", fermi), bucket("d2", same)], SampleConfig()) == []
    assert applicable(buckets, SampleConfig(hops=3)) == []


def test_evidence_decoding_pauses_the_collector_and_restores_it() -> None:
    import gc
    import threading

    from dwqa_graph.rounds.round import gc_paused

    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    def other_batch() -> None:
        with gc_paused():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=other_batch)
    t.start()
    inside.wait(5)
    try:
        with gc_paused():
            assert not gc.isenabled()
            raise RuntimeError("a batch fails to decode")
    except RuntimeError:
        pass
    assert not gc.isenabled()  # the other batch still decodes
    release.set()
    t.join(5)
    assert gc.isenabled()  # the last one out restores it
    # A caller that had paused the collector itself keeps it paused.
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_comparison_sample_adds_no_document_through_its_kind() -> None:
    from dwqa_graph.rounds.sampling import SeedGraph, sample

    fermi, rovelli = lead("f", "Enrico Fermi", "physicist", 1901), lead(
        "r", "Carlo Rovelli", "physicist", 1956)
    # A third document mentions an Entity that happens to be named like the kind.
    other = claim("o", mentions=["physicist"], names=["Physicist"])
    graph = SeedGraph(query_id="q", question="Who wrote Seven Brief Lessons on Physics?",
                      evidence_round=1, documents=[bucket("d1", fermi), bucket("d2", rovelli),
                                                   bucket("d3", other)])
    s = sample(graph, SampleConfig(), r=1)
    assert s is not None and s.pattern == "comparison"
    assert {b.document_id for b in s.buckets} == {"d1", "d2"}
