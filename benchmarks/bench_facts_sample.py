"""A blind-labelling sample of the CoreNLP extractor's facts on held-out pages.

Held-out pages: odd-numbered FreshQA full pages (every ``--step``-th of them; 0: none) and the
paragraphs of odd-numbered HotpotQA ``dev-more`` items, read through the extractor's own path
(``read_versions``: passages, the library, resolution, rules; no Neo4j). Writes ``--sample``
facts (at least ``--min-full`` from full pages), each with its evidence sentence and page
title, as JSONL, and prints the read's speed.

    .venv/bin/python -m benchmarks.bench_facts_sample --out PATH [--step 6] [--hotpot 25] \\
        [--sample 160] [--min-full 55]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from dwqa_graph.facts.extractors.corenlp import offline_extractor_id, read_versions
from dwqa_graph.facts.models import Fact
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.models import stable_id

from .bench_facts import SHARED, pages_as_items


def held_out(step: int, hotpot: int, hotpot_from: int = 0) -> list[dict[str, Any]]:
    versions = []
    for it in pages_as_items(184)[1::2][::step] if step else []:
        title, [text] = it["context"][0]
        versions.append({"id": stable_id("full", title), "title": title, "text": text,
                         "claims": [], "kind": "full page"})
    odd = json.loads((SHARED / "hotpotqa" / "dev-more.json").read_text())[1::2]
    items = odd[hotpot_from:hotpot_from + hotpot]
    for it in items:
        for title, sents in it["context"]:
            versions.append({"id": stable_id("hotpot", it["_id"], title), "title": title,
                             "text": "".join(sents), "claims": [], "kind": "hotpotqa"})
    return versions


def read_all(versions: list[dict[str, Any]], threads: int,
             ) -> tuple[dict[str, Fact], int, float]:
    facts: dict[str, Fact] = {}
    tokens = 0
    with CoreNLP(threads=threads) as nlp:
        nlp.annotate("Warm up on 1 January 2000 in Paris.")
        t0 = time.perf_counter()
        for _, found in read_versions(nlp, versions, offline_extractor_id()):
            if not isinstance(found, Exception):
                tokens += found.tokens
                facts.update((f.id, f) for f in found.facts)
        wall = time.perf_counter() - t0
    return facts, tokens, wall


def row(f: Fact, v: dict[str, Any]) -> dict[str, Any]:
    obj = f.object.name if f.object else (f.date or (f"{f.value:g} {f.unit or ''}".strip()
                                                     if f.value is not None else None))
    return {"id": f.id, "source": v["kind"], "page": v["title"], "subject": f.subject.name,
            "relation": f.relation, "object": obj, "phrase": f.phrase, "when": f.when,
            "evidence": f.evidence}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--step", type=int, default=6)
    ap.add_argument("--hotpot", type=int, default=25)
    ap.add_argument("--hotpot-from", type=int, default=0, help="odd items to skip")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sample", type=int, default=160)
    ap.add_argument("--min-full", type=int, default=55)
    args = ap.parse_args()
    versions = held_out(args.step, args.hotpot, args.hotpot_from)
    by_id = {v["id"]: v for v in versions}
    facts, tokens, wall = read_all(versions, args.threads)
    rng = random.Random(47)
    rows = [row(f, by_id[f.version_id]) for f in facts.values()]
    on_full = [r for r in rows if r["source"] == "full page"]
    rest = [r for r in rows if r["source"] != "full page"]
    rng.shuffle(on_full)
    rng.shuffle(rest)
    n_full = min(len(on_full), max(args.min_full, args.sample // 2))
    sample = on_full[:n_full] + rest[:args.sample - n_full]
    rng.shuffle(sample)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in sample))
    print(json.dumps({"versions": len(versions), "facts": len(facts),
                      "facts_on_full_pages": len(on_full), "tokens": tokens,
                      "seconds": round(wall, 1), "tokens_per_s": round(tokens / wall)}))
    print(f"wrote {len(sample)} facts ({n_full} from full pages) to {args.out}")


if __name__ == "__main__":
    main()
