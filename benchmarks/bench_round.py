"""One fact-path round at paper scale: 500 seed graphs x 3 documents of typed facts.

Each seed graph is a director's page and two of their films (synthetic facts written as the
facts stage writes them), so every form but the intersection has paths.

1. Template wording: the round end to end (path queries, draws, wording, checks, write),
   and the path load per seed graph. Target: the round <= 30 s on 2 cores.
2. Model wording with a chat model that sleeps a fixed latency L per call and words each
   path as its template does (so it passes the checks as a good model's question would):
   the round must take <= 1.2 x the latency-bound ideal (calls x L / concurrency).

    .venv/bin/python -m benchmarks.bench_round [--graphs 500] [--latency 1.0]
    (DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT move its Neo4j off 7689/7476.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from dwqa_graph.facts.models import EntityRef, Fact
from dwqa_graph.facts.stage import facts_plan
from dwqa_graph.graph.store import Store
from dwqa_graph.llm import LLM
from dwqa_graph.models import stable_id
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.paths import load_path_graphs
from dwqa_graph.rounds.round import new_round

from ._server import start_bench_server, stop_bench_server

FIRST = ("Halvard Anton Ruth Mats Petra Ingrid Lars Greta Nils Freya Oskar Sigrid Emil Liv "
         "Tomas Karin Axel Hedda Viggo Maren").split()
LAST = ("Ostrem Reske Aldane Fennick Vilde Tallmark Brenner Solberg Haugen Lindqvist Moberg "
        "Sandvik Eklund Norberg Hallin Dahlgren Strand Vestby Roald Kjeldsen Aamodt Berglund "
        "Fossum Granlund Lunde").split()
WORDS = ("Salt Ferryman Harbour Winter Lantern Orchard Glass Northern Quiet Silver Copper "
         "Distant Iron Amber Hollow Paper Velvet Crimson Stone Willow").split()


def person(g: int) -> str:
    return f"{FIRST[g % len(FIRST)]} {LAST[g // len(FIRST) % len(LAST)]}"


def film(g: int, k: int) -> str:
    return f"The {WORDS[(g + 7 * k) % len(WORDS)]} {WORDS[(3 * g + k + 1) % len(WORDS)]} {g}{k}"


def _ref(name: str, kind: Any) -> EntityRef:
    return EntityRef(id=stable_id(kind, name.lower()), name=name, type=kind)


def load(store: Store, graphs: int) -> None:
    """Seed graph g: the page of director ``person(g)`` (born), two films' pages (directed
    by them, released), as the ingest and facts stages would write them."""
    store.write("ingest/queries", [{"id": f"q{g}", "text": f"Who directed {film(g, 0)}?",
                                    "dataset": "bench", "source": "bench", "source_file": "-",
                                    "source_line": 0} for g in range(graphs)])
    docs, versions, facts = [], [], {}
    for g in range(graphs):
        who = _ref(person(g), "PERSON")
        born = (f"{who.name} (born 14 March {1900 + g % 60}) is a filmmaker from the north.",
                "born", f"{1900 + g % 60}-03-14")
        pages = [(who.name, who, [born])]
        for k in (0, 1):
            work = _ref(film(g, k), "MISC")
            year = 1950 + (g + 11 * k) % 50
            pages.append((work.name, work, [
                (f"{work.name} is a drama directed by {who.name}.", "directed_by", who),
                (f"{work.name} was released on 2 May {year}.", "released", f"{year}-05-02")]))
        for d, (title, subject, sentences) in enumerate(pages):
            text = " ".join(s for s, _, _ in sentences)
            vid = stable_id(g, d, text)
            docs.append({"id": f"q{g}d{d}", "url": f"https://example.org/{g}/{d}",
                         "title": title, "query_id": f"q{g}", "rank": d, "cite": d,
                         "snippet": "", "round": 0, "engine": "bench"})
            versions.append({"id": vid, "document_id": f"q{g}d{d}", "text": text,
                             "title": title, "status": "dataset", "extractor": "bench",
                             "fetched_at": None})
            start, out = 0, []
            for sentence, relation, obj in sentences:
                dated = isinstance(obj, str)
                out.append(Fact(
                    id=stable_id(vid, start), relation=relation, verb="be", subject=subject,
                    object_kind="date" if dated else "entity",
                    object=None if dated else obj, date=obj if dated else None,
                    year=int(obj[:4]) if dated else None, precision="day" if dated else None,
                    version_id=vid, start=start, end=start + len(sentence),
                    evidence=sentence, extractor="bench"))
                start += len(sentence) + 1
            facts[vid] = out
    store.write("ingest/documents", docs)
    store.write("ingest/versions", versions)
    store.write_plan(facts_plan(versions, facts, "bench", "bench"))


class SleepyModel(GenericFakeChatModel):
    """Words a path as its template does (the prompt's reference wording), after
    ``latency``."""

    latency: float = 1.0

    async def ainvoke(self, messages: Any, *a: Any, **k: Any) -> AIMessage:  # type: ignore[override]
        await asyncio.sleep(self.latency)
        last = messages[-1]
        prompt = str(last.content) if isinstance(last, BaseMessage) else str(messages)
        m = re.search(r"worded mechanically[^\n]*\n(.+)\n", prompt)
        return AIMessage(json.dumps({"question": m.group(1).strip() if m else "?"}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=500)
    # 1 s per call: a realistic hosted-model latency (a short one makes the fixed Cypher and
    # write costs dominate the round, which is not what this measures).
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--templates-only", action="store_true", help="Skip the model round.")
    args = ap.parse_args()
    settings, started = start_bench_server()
    try:
        with Store(settings) as store:
            store.wipe()
            store.apply_schema()
            load(store, args.graphs)
            load_path_graphs(store, 1)  # warm the query plans; the first is not the round's
            # the median of three loads: one varies by 2x from run to run on this machine
            loads = []
            for _ in range(3):
                t0 = time.perf_counter()
                graphs = load_path_graphs(store, 1)
                loads.append(1000 * (time.perf_counter() - t0) / max(len(graphs), 1))
            paths_ms = statistics.median(loads)
            report = new_round(store, seed=1, generator=PathGenerator())
            llm_report = None
            if not args.templates_only:
                cache = Path(tempfile.mkdtemp()) / "llm.sqlite"
                llm = LLM(SleepyModel(messages=iter([]), latency=args.latency),
                          cache_path=cache, concurrency=args.concurrency)
                llm_report = new_round(store, seed=2, generator=PathGenerator(llm),
                                       previous=0)
            store.wipe()
    finally:
        stop_bench_server(settings, started)
    print(f"{args.graphs} seed graphs x 3 documents; median paths per graph "
          f"{report.set_quality.get('median_k')}")
    print(f"template round: {report.items} items ({report.no_item} without; rejected "
          f"{report.rejected_by_reason}), {report.seconds:.2f} s end to end (target <= 30 s)")
    print(f"path load per seed graph: {paths_ms:.2f} ms, median of "
          f"{', '.join(f'{x:.2f}' for x in loads)} (target <= 10 ms)")
    if llm_report is None:
        return
    calls = llm_report.llm.calls if llm_report.llm else 0
    ideal = calls * args.latency / args.concurrency
    print(f"model-worded round: {llm_report.items} items ({llm_report.no_item} without; "
          f"rejected {llm_report.rejected_by_reason}),")
    print(f"  {calls} calls x {args.latency} s / {args.concurrency} = {ideal:.2f} s ideal; "
          f"round took {llm_report.seconds:.2f} s = {llm_report.seconds / max(ideal, 1e-9):.2f} "
          f"x (target <= 1.2 x); outside generation (write) "
          f"{llm_report.seconds - llm_report.generation_seconds:.2f} s")


if __name__ == "__main__":
    main()
