"""How fast the CoreNLP reader alone reads HotpotQA-size graphs, and what cheaper readings
would give: the same paragraphs (the 120 ``dev-more`` items, 10 each), one warm worker per
reading (2 threads, no Neo4j), each reading timed twice, its facts compared field by field
with the kept reading's (recall: the kept reading's facts it finds identical).

Readings:
- ``kept``: the extractor as it is (``extract.CUES`` with the page subject's words and the
  sentence before a pronoun);
- ``lean``: cue sentences and paragraph openers only (no subject words, no sentence before a
  pronoun: the selection bench_facts_cues measured as "+ every paragraph's first sentence");
- ``no-muc7`` / ``no-conll4``: the kept reading with one of the library's three NER models
  left out.

It answers whether 5 HotpotQA graphs/s (issue 47) is within reach on this machine by reading
less: the stage end to end (``bench_facts``) adds the Neo4j writes to the reader's time.

    .venv/bin/python -m benchmarks.bench_facts_reader [--items 120] [--readings kept,lean]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

import dwqa_graph.facts.extractors.corenlp as corenlp_extractor
from dwqa_graph.facts.extract import CUES
from dwqa_graph.language.corenlp import PROPERTIES, CoreNLP

from .bench_facts_cues import WARM_UP, full_pages, paragraphs, read

NER = "edu/stanford/nlp/models/ner/english."
MODELS = {"3class": NER + "all.3class.distsim.crf.ser.gz",
          "muc7": NER + "muc.7class.distsim.crf.ser.gz",
          "conll4": NER + "conll.4class.distsim.crf.ser.gz"}
READINGS: dict[str, dict[str, Any]] = {
    "kept": {},
    "lean": {"lean": True},
    "no-muc7": {"ner.model": f"{MODELS['3class']},{MODELS['conll4']}"},
    "no-conll4": {"ner.model": f"{MODELS['3class']},{MODELS['muc7']}"},
}


def reading(nlp: CoreNLP, versions: list[dict[str, Any]], lean: bool,
            ) -> tuple[float, int, dict[str, dict[str, Any]]]:
    """The best of two timed readings (seconds), its tokens and its facts."""
    subject_cues = corenlp_extractor.subject_cues
    cues = replace(CUES, leaners=frozenset()) if lean else CUES
    if lean:  # no page subject's words either
        corenlp_extractor.subject_cues = lambda c, _title: c  # type: ignore[assignment]
    try:
        runs = [read(nlp, versions, cues) for _ in range(2)]
    finally:
        corenlp_extractor.subject_cues = subject_cues
    seconds = min(r[0] for r in runs)
    return seconds, runs[0][1], runs[0][2]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=120)
    ap.add_argument("--readings", default=",".join(READINGS))
    args = ap.parse_args()
    versions = paragraphs(args.items)
    base: dict[str, dict[str, Any]] | None = None
    names = args.readings.split(",")
    for name in ["kept"] + [n for n in names if n != "kept"]:
        spec = dict(READINGS[name])
        lean = bool(spec.pop("lean", False))
        with CoreNLP(threads=2, properties={**PROPERTIES, **spec}, shared=False) as nlp:
            read(nlp, full_pages(184)[-6:] + paragraphs(WARM_UP), None)  # warm the JVM
            seconds, tokens, facts = reading(nlp, versions, lean)
        base = facts if base is None else base
        kept = sum(1 for i, f in base.items() if facts.get(i) == f)
        print(json.dumps({"reading": name, "seconds": round(seconds, 1),
                          "tokens_per_s": round(tokens / seconds),
                          "graphs_per_s": round(args.items / seconds, 2), "facts": len(facts),
                          "recall_vs_kept": round(kept / max(1, len(base)), 4),
                          "facts_only_here": sum(1 for i, f in facts.items()
                                                 if base.get(i) != f)}), flush=True)


if __name__ == "__main__":
    main()
