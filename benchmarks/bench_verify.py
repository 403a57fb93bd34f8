"""Cost per verified item, without the fetch and the facts stage: ``round verify`` on a
round of 500 synthetic seed graphs (``bench_round``'s: a director's page and two films).

The pages' new versions are written as a fetch and the facts stage would write them (a
director's birth year moved on ``--changed`` of the graphs' pages), then the round is
verified with ``refetch=False`` and ``read_facts=False``: what is timed is reading the items,
re-matching each changed item's facts among its pages' new facts, recomputing its answer
with its path's form and wording, and writing the results. Target: <= 50 ms per item.

    .venv/bin/python -m benchmarks.bench_verify [--graphs 500] [--changed 0.2]
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from dwqa_graph.facts.models import Fact
from dwqa_graph.facts.stage import facts_plan
from dwqa_graph.graph.store import Store
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import new_round
from dwqa_graph.rounds.verify import verify_round

from ._server import start_bench_server, stop_bench_server
from .bench_round import _ref, load, person

TARGET_MS = 50.0
YEARS_MOVED = 3


def move_births(store: Store, graphs: list[int]) -> None:
    """A new version of each of these graphs' director pages, its birth year moved."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    records, versions, facts = [], [], {}
    for g in graphs:
        who = _ref(person(g), "PERSON")
        year = 1900 + g % 60 + YEARS_MOVED
        text = f"{who.name} (born 14 March {year}) is a filmmaker from the north."
        vid = stable_id(g, 0, text)
        records.append({"document_id": f"q{g}d0", "reason": "ok", "detail": "",
                        "fetched_at": now, "http_status": 200, "final_url": None,
                        "version_id": vid, "text": text, "title": who.name,
                        "published": None, "content_type": "text/html", "bytes": len(text),
                        "extractor": "bench", "content_hash": vid})
        versions.append({"id": vid, "document_id": f"q{g}d0", "title": who.name})
        facts[vid] = [Fact(id=stable_id(vid, 0), relation="born", verb="be", subject=who,
                           object_kind="date", date=f"{year}-03-14", year=year,
                           precision="day", version_id=vid, start=0, end=len(text),
                           evidence=text, extractor="bench")]
    store.write("fetch/record", records)
    store.write_plan(facts_plan(versions, facts, "bench", "bench"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=500)
    ap.add_argument("--changed", type=float, default=0.2,
                    help="Share of the graphs whose director page changes.")
    args = ap.parse_args()
    settings, started = start_bench_server()
    try:
        with Store(settings) as store:
            store.wipe()
            store.apply_schema()
            load(store, args.graphs)
            made = new_round(store, seed=1, generator=PathGenerator())
            # warm the query plans on an unchanged web: every item holds
            unchanged = verify_round(store, made.round, refetch=False, read_facts=False)
            move_births(store, list(range(0, args.graphs, max(1, round(1 / args.changed)))))
            report = verify_round(store, made.round, refetch=False, read_facts=False)
            store.wipe()
    finally:
        stop_bench_server(settings, started)
    n = max(report.items, 1)
    print(f"{args.graphs} seed graphs, {report.items} items; unchanged web: "
          f"{unchanged.counts} in {unchanged.seconds:.2f} s "
          f"({1000 * unchanged.seconds / n:.2f} ms per item)")
    print(f"{args.changed:.0%} of the graphs' director pages changed: {report.counts}")
    print(f"verify without fetch and facts: {report.seconds:.2f} s = "
          f"{1000 * report.seconds / n:.2f} ms per item (target <= {TARGET_MS:.0f} ms); "
          f"re-matching and recomputing alone {1000 * report.check_seconds / n:.2f} ms")


if __name__ == "__main__":
    main()
