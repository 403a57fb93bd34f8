"""Typed facts at corpus scale, on real pages: extraction (Stanford CoreNLP) + entity
resolution + Neo4j writes, end to end through ``extract_facts``.

1. Full pages: the 184 Wikipedia pages of ../shared/data/freshqa-wiki/web, extracted with the
   project's own HTML extractor, stored as versions, rule claims extracted (not timed), then
   one ``extract_facts`` run. Target: <= 15 minutes, >= 1,500 tokens/s end to end.
2. HotpotQA-size graphs: the 120 items of ../shared/data/hotpotqa/dev-more.json (10
   paragraphs each). Prints graphs/s.
Prints the CoreNLP worker's peak RSS (VmHWM) and this process's.

    .venv/bin/python -m benchmarks.bench_facts [--pages 184] [--threads 2]
    (DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT move its Neo4j off 7689/7476.)
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.web.extract import extract

from ._server import REPO_ROOT, start_bench_server, stop_bench_server

SHARED = REPO_ROOT.parent / "shared" / "data"


def worker_peak_mb(nlp: CoreNLP) -> float:
    proc = getattr(nlp, "_proc", None)
    return peak_mb(proc.pid) if proc is not None else 0.0


def peak_mb(pid: int) -> float:
    """A process's peak resident memory (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pages_as_items(limit: int) -> list[dict]:
    """The full pages as one HotpotQA-format record each (title + extracted text), so the
    normal ingest path stores them as versions."""
    items = []
    for path in sorted((SHARED / "freshqa-wiki" / "web").glob("*.html"))[:limit]:
        page = extract(path.read_text(encoding="utf-8"), url=f"http://local/{path.name}")
        title = (page.title or path.stem).removesuffix(" - Wikipedia")
        items.append({"_id": path.stem, "question": f"About {title}?", "answer": "-",
                      "supporting_facts": [], "context": [[title, [page.text or ""]]]})
    return items


def run(store: Store, nlp: CoreNLP, items: list[dict], tmp: Path, label: str) -> dict:
    store.wipe()
    path = tmp / f"{label}.json"
    path.write_text(json.dumps(items))
    ingest(store, [path], fmt="hotpotqa")
    extract_claims(store)
    started = time.perf_counter()
    report = extract_facts(store, nlp=nlp)
    wall = time.perf_counter() - started
    words = sum(len(" ".join(str(p) for p in ctx[1]).split()) for it in items
                for ctx in it["context"])
    return {"label": label, "graphs": len(items), "versions": report.versions,
            "page_words": words, "page_words_per_s": round(words / wall),
            "facts": report.facts, "entities": report.entities, "tokens": report.tokens,
            "seconds": round(wall, 1), "tokens_per_s": round(report.tokens / wall),
            "graphs_per_s": round(len(items) / wall, 2), "by_relation": report.by_relation}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=184)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    settings, started = start_bench_server()
    tmp = REPO_ROOT / ".dwqa" / "bench-facts"
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        with Store(settings) as store, CoreNLP(threads=args.threads) as nlp:
            start_s = time.perf_counter() - t0
            full = run(store, nlp, pages_as_items(args.pages), tmp, "full pages")
            hotpot_items = json.loads((SHARED / "hotpotqa" / "dev-more.json").read_text())
            hotpot = run(store, nlp, hotpot_items, tmp, "hotpotqa graphs")
            peak = worker_peak_mb(nlp)
        for r in (full, hotpot):
            print(json.dumps(r))
        print(f"CoreNLP start {start_s:.1f}s; worker peak RSS {peak:.0f} MB; this process "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    finally:
        stop_bench_server(settings, started)


if __name__ == "__main__":
    main()
