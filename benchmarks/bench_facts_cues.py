"""Reading only the sentences with a cue (``facts/extract.py`` ``CUES``) against reading every
sentence: the same texts, the same CoreNLP worker, the facts compared field by field.

For each corpus it reads the texts twice -- every sentence, then only the sentences with a
date, a number or one of the rules' verbs -- and prints the seconds and tokens/s of each,
the share of sentences left unread, **recall** (facts of the full reading the cued reading
also finds, identical in every field) and the facts only the cued reading finds (each one
printed: a precision question for the labelling, not a count to trust).

Corpora: the 184 FreshQA full pages (the project's HTML extractor, as ``bench_facts``) and
the HotpotQA ``dev-more`` paragraphs (title and text as ``dwqa ingest`` stores them). No
Neo4j: reading only, so the speed is the reader's, not the stage's (``bench_facts`` times the
stage end to end).

    .venv/bin/python -m benchmarks.bench_facts_cues [--pages 184] [--items 120] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from dwqa_graph.facts.extract import CUES
from dwqa_graph.facts.extractor import Reading
from dwqa_graph.facts.extractors.corenlp import offline_extractor_id, read_versions
from dwqa_graph.language.corenlp import CoreNLP, Cues

from .bench_facts import SHARED, pages_as_items


def full_pages(limit: int) -> list[dict[str, Any]]:
    return [{"id": f"page-{i}", "title": it["context"][0][0], "text": it["context"][0][1][0],
             "claims": []} for i, it in enumerate(pages_as_items(limit))]


#: Texts the JVM warms up on before the clock (other items than the measured ones).
WARM_UP = "dev-distractor-sample.json"


def paragraphs(items: int | str) -> list[dict[str, Any]]:
    """The paragraphs of the first ``items`` dev-more items (or of every item of a file)."""
    name = items if isinstance(items, str) else "dev-more.json"
    data = json.loads((SHARED / "hotpotqa" / name).read_text(encoding="utf-8"))
    if isinstance(items, int):
        data = data[:items]
    return [{"id": f"hotpot-{i}-{j}", "title": title, "text": "".join(sents), "claims": []}
            for i, item in enumerate(data) for j, (title, sents) in
            enumerate(item["context"])]


def read(nlp: CoreNLP, versions: list[dict[str, Any]], cues: Cues | None,
         ) -> tuple[float, int, dict[str, dict[str, Any]]]:
    """Seconds, tokens and the facts (by id, as stored) of one reading."""
    started = time.perf_counter()
    tokens, facts = 0, {}
    for _, got in read_versions(nlp, versions, offline_extractor_id(), cues=cues):
        if isinstance(got, Reading):
            tokens += got.tokens
            facts.update({f.id: f.model_dump(mode="json") for f in got.facts})
    return time.perf_counter() - started, tokens, facts


def compare(nlp: CoreNLP, label: str, versions: list[dict[str, Any]], cues: Cues,
            dump: Path | None) -> dict[str, Any]:
    seconds_all, tokens, every = read(nlp, versions, None)
    before = nlp.unread_sentences
    seconds_cued, tokens_cued, cued = read(nlp, versions, cues)
    if dump is not None:
        dump.write_text(json.dumps({"every": every, "cued": cued}))
    kept = [i for i, f in every.items() if cued.get(i) == f]
    extra = [f for i, f in cued.items() if every.get(i) != f]
    for f in extra:
        print(f"  only when cued: {f['subject']['name']} | {f['relation']} | "
              f"{f.get('object') or f.get('date') or f.get('value')} <- {f['evidence'][:120]}")
    return {"corpus": label, "texts": len(versions), "tokens": tokens,
            "tokens_cued_reading": tokens_cued,
            "seconds_every_sentence": round(seconds_all, 1),
            "seconds_cued": round(seconds_cued, 1),
            "tokens_per_s_every_sentence": round(tokens / seconds_all),
            "tokens_per_s_cued": round(tokens / seconds_cued),
            "speedup": round(seconds_all / seconds_cued, 2),
            "sentences_unread": nlp.unread_sentences - before,
            "facts": len(every), "facts_cued": len(cued), "recall": round(len(kept) / max(
                1, len(every)), 4), "only_cued": len(extra)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=184)
    ap.add_argument("--items", type=int, default=120)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--openers", choices=("yes", "no"), help="read every paragraph's first "
                    "sentence too, or not (default: as extract.CUES says)")
    ap.add_argument("--dump", type=Path, help="write both readings' facts here (a directory)")
    args = ap.parse_args()
    cues = CUES if args.openers is None else replace(CUES, openers=args.openers == "yes")
    with CoreNLP(threads=args.threads) as nlp:
        # the JVM compiles its hot paths in the first minute: warm it up on other texts, or
        # the first reading pays for the second's speed
        read(nlp, full_pages(184)[-12:] + paragraphs(WARM_UP), None)
        for label, versions in (("hotpotqa", paragraphs(args.items)),
                                ("full pages", full_pages(args.pages))):
            if versions:
                dump = args.dump / f"{label.replace(' ', '-')}.json" if args.dump else None
                print(json.dumps(compare(nlp, label, versions, cues, dump)), flush=True)


if __name__ == "__main__":
    main()
