"""J between consecutive rounds measured by what the candidates state, in the real Neo4j.

Synthetic seed graphs written as the ingest, fetch and facts stages write them
(``bench_round``: a director's page with the birth, two films directed by them and released).
Between two rounds some director pages get a new version:

- edited elsewhere: a sentence about something else added, the birth stated as before (a new
  version, new fact ids, the same facts): J stays K;
- moved: the birth year changed (``bench_verify.move_births``): the paths through the birth
  leave J (the positive control: J drops below K);

and the other graphs' pages stay as they were (J = K).
"""

from __future__ import annotations

from datetime import UTC, datetime

from benchmarks.bench_round import _ref, load, person
from benchmarks.bench_verify import move_births
from dwqa_graph.facts.models import Fact
from dwqa_graph.facts.stage import facts_plan
from dwqa_graph.graph.store import Store
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import collisions, new_round
from dwqa_graph.rounds.sampling import SampleConfig

GRAPHS = 9
EDITED = (0, 1, 2)
MOVED = (3, 4, 5)


def edit_elsewhere(store: Store, graphs: tuple[int, ...]) -> None:
    """A new version of each graph's director page: the same birth, a sentence added."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    records, versions, facts = [], [], {}
    for g in graphs:
        who = _ref(person(g), "PERSON")
        born = f"{who.name} (born 14 March {1900 + g % 60}) is a filmmaker from the north."
        text = born + " The studio stands by the river."
        vid = stable_id(g, 0, text)
        records.append({"document_id": f"q{g}d0", "reason": "ok", "detail": "",
                        "fetched_at": now, "http_status": 200, "final_url": None,
                        "version_id": vid, "text": text, "title": who.name,
                        "published": None, "content_type": "text/html", "bytes": len(text),
                        "extractor": "bench", "content_hash": vid})
        versions.append({"id": vid, "document_id": f"q{g}d0", "title": who.name})
        facts[vid] = [Fact(id=stable_id(vid, 0), relation="born", verb="be", subject=who,
                           object_kind="date", date=f"{1900 + g % 60}-03-14",
                           year=1900 + g % 60, precision="day", version_id=vid, start=0,
                           end=len(born), evidence=born, extractor="bench")]
    store.write("fetch/record", records)
    store.write_plan(facts_plan(versions, facts, "bench", "bench"))


def test_j_counts_what_the_candidates_state_not_their_page_versions(store: Store) -> None:
    load(store, GRAPHS)
    first = new_round(store, seed=1, generator=PathGenerator(), cfg=SampleConfig(reuse="allow"))
    edit_elsewhere(store, EDITED)
    move_births(store, list(MOVED))
    second = new_round(store, seed=2, generator=PathGenerator(),
                       cfg=SampleConfig(reuse="allow"))
    stats = collisions(store, rounds=[first.round, second.round])["graphs"]
    assert len(stats) == GRAPHS
    for g in range(GRAPHS):
        s = stats[f"q{g}"]
        [k, k2], [j] = s["k_per_round"], s["j_consecutive"]
        # every graph has paths through the birth (a bridge from each film) and others
        assert k == k2 > 2, (g, s)
        if g in MOVED:
            assert 0 < j < k, (g, s)
        else:
            assert j == k, (g, s)
    # the rounds did see new versions for the edited graphs (their J is not J by default)
    [row] = store.read("MATCH (d:Document {id: 'q0d0'})-[:HAS_VERSION]->(v) "
                       "RETURN count(v) AS n")
    assert row["n"] == 2
