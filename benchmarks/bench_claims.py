"""Rule claim extraction at paper scale: 7,500 documents (500 questions x 15 sources).

Page texts are generated (news-like paragraphs with dates, numbers with units and causal
sentences, plus headings and boilerplate lines the filter must drop), stored as
DocumentVersions, then one ``extract_claims(extractor="rule")`` run extracts, verifies and
writes every claim to Neo4j. Prints documents/s and claims/s; target >= 100 documents/s on
2 cores, Neo4j writes included.

    .venv/bin/python -m benchmarks.bench_claims [--docs 7500]
"""

from __future__ import annotations

import argparse
import random
import time

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.graph.store import Store
from dwqa_graph.models import stable_id

from ._server import start_bench_server, stop_bench_server

SUBJECTS = ["The Valmora City Council", "Solvane Energy", "The regional transport authority",
            "The Ketterby flood committee", "Engineers at Brannsfjord", "The national grid"]
VERBS = ["approved", "opened", "announced", "completed", "postponed", "financed"]
OBJECTS = ["a 12.4 km tram line", "a pilot line of 0.4 GWh", "a retention basin",
           "a budget of 286 million euros", "a new depot with 40 trams", "an inquiry"]


def page(rng: random.Random) -> str:
    lines = [f"Report {rng.randint(1, 9999)}", "Accept cookies to read more"]
    for _ in range(rng.randint(6, 14)):
        s = rng.choice(SUBJECTS)
        lines.append(
            f"{s} {rng.choice(VERBS)} {rng.choice(OBJECTS)} on {rng.randint(1, 28)} "
            f"{rng.choice(['March', 'May', 'October'])} {rng.randint(1990, 2025)}. "
            f"{s} said the cost rose by {rng.randint(2, 40)} percent because of "
            f"{rng.choice(['flooding', 'a fire', 'higher steel prices'])}. "
            "It was not clear what would happen next. "
            f"Ridership reached {rng.randint(1000, 30000):,} passengers per day in "
            f"{rng.randint(2000, 2025)}.")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=7500)
    args = ap.parse_args()
    settings, started = start_bench_server()
    rng = random.Random(0)
    try:
        with Store(settings) as store:
            store.wipe()
            store.apply_schema()
            docs = [{"id": f"d{i}", "url": f"https://example.org/{i}", "title": "",
                     "query_id": f"q{i // 15}", "rank": i % 15, "cite": i % 15 + 1,
                     "snippet": "", "round": 0, "engine": "bench"} for i in range(args.docs)]
            store.write("ingest/queries", [
                {"id": f"q{j}", "text": f"q{j}", "dataset": "bench", "source": "bench",
                 "source_file": "-", "source_line": 0} for j in range(args.docs // 15 + 1)])
            store.write("ingest/documents", docs)
            versions = []
            for d in docs:
                text = page(rng)
                versions.append({"id": stable_id(d["id"], text), "document_id": d["id"],
                                 "text": text, "status": "dataset", "extractor": "bench",
                                 "fetched_at": None})
            store.write("ingest/versions", versions, batch_rows=500)
            chars = sum(len(v["text"]) for v in versions)
            t = time.perf_counter()
            report = extract_claims(store, extractor="rule")
            wall = time.perf_counter() - t
            [bad] = store.read("MATCH (v)-[:HAS_CLAIM]->(c) WHERE substring(v.text, c.start, "
                               "c.end - c.start) <> c.span RETURN count(c) AS n")
            store.wipe()
    finally:
        stop_bench_server(settings, started)
    print(f"{report.versions} documents ({chars / report.versions:.0f} chars each), "
          f"{report.claims} claims stored, substring violations: {bad['n']}")
    print(f"{wall:.2f} s = {report.versions / wall:.1f} documents/s (target >= 100), "
          f"{report.claims / wall:.0f} claims/s")


if __name__ == "__main__":
    main()
