"""Where the facts stage's time goes on full pages: each CoreNLP annotator, then the Python side.

A sample of the 184 FreshQA full pages (every ``--step``-th; their passages as the CoreNLP
extractor sends them) is annotated by growing pipelines, one JVM each, started and warmed
before its clock runs: tokenize+ssplit, +pos, +lemma, +ner (neither SUTime nor fine-grained
types), +SUTime, +fine-grained types (the NER facts read), +depparse (everything facts read),
and the full pipeline on one thread. An annotator's cost is the difference between two
consecutive lines. Then, for the full pipeline, the Python side of the same passages: the
worker's JSON decoded, the parse built (``parse_doc``), names resolved and rules run
(``_read``). No Neo4j: ``bench_facts`` times the writes end to end.

What a second, selective pass could save: the share of sentences (and tokens) with at least
one named-entity mention -- a fact's object is always a mention (an entity, a date or a
number) -- and that every fact's sentence is one of them.

    .venv/bin/python -m benchmarks.bench_facts_profile [--step 15] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from dwqa_graph.facts.extractors.corenlp import _read, offline_extractor_id, passages
from dwqa_graph.language.corenlp import ANNOTATORS, PROPERTIES, CoreNLP
from dwqa_graph.language.doc import parse_doc
from dwqa_graph.models import stable_id

from .bench_facts import pages_as_items

CHEAP_NER = {**PROPERTIES, "ner.useSUTime": "false", "ner.applyFineGrained": "false"}
SUTIME_ONLY = {**PROPERTIES, "ner.applyFineGrained": "false"}
#: (label, annotators, properties, threads (None: --threads))
PIPELINES: list[tuple[str, str, dict[str, str], int | None]] = [
    ("tokenize,ssplit", "tokenize,ssplit", PROPERTIES, None),
    ("+pos", "tokenize,ssplit,pos", PROPERTIES, None),
    ("+lemma", "tokenize,ssplit,pos,lemma", PROPERTIES, None),
    ("+ner (no SUTime, no fine-grained)", "tokenize,ssplit,pos,lemma,ner", CHEAP_NER, None),
    ("+SUTime", "tokenize,ssplit,pos,lemma,ner", SUTIME_ONLY, None),
    ("+fine-grained types", "tokenize,ssplit,pos,lemma,ner", PROPERTIES, None),
    ("+depparse (the pipeline facts read)", ANNOTATORS, PROPERTIES, None),
    ("the same on 1 thread", ANNOTATORS, PROPERTIES, 1),
]


def sample(step: int) -> list[dict[str, Any]]:
    versions = []
    for it in pages_as_items(184)[::step]:
        title, [text] = it["context"][0]
        versions.append({"id": stable_id("profile", title), "title": title, "text": text,
                         "claims": []})
    return versions


def annotate_raw(nlp: CoreNLP, texts: list[str]) -> list[dict[str, Any]]:
    """The worker's replies as JSON text-to-dict, in input order (pipelined like
    ``annotate_many``), without building the parse."""
    window, out = [], []
    for text in texts:
        window.append(nlp._submit(text))
        if len(window) >= 2 * nlp.threads:
            out.append(window.pop(0).future.result())
    out.extend(req.future.result() for req in window)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--step", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    versions = sample(args.step)
    parts = [(v, p) for v in versions for p in passages(v["id"], v["text"])]
    texts = [p.text for _, p in parts]
    print(f"{len(versions)} pages, {len(parts)} passages, {sum(map(len, texts)):,} characters")
    rows = []
    replies: list[dict[str, Any]] = []
    for label, annotators, props, threads in PIPELINES:
        with CoreNLP(threads=threads or args.threads, annotators=annotators,
                     properties=props) as nlp:
            annotate_raw(nlp, texts[:2])  # warm the JIT on real text before the clock
            t0 = time.perf_counter()
            out = annotate_raw(nlp, texts)
            wall = time.perf_counter() - t0
        tokens = sum(len(s["tokens"]) for d in out for s in d.get("sentences", []))
        rows.append({"pipeline": label, "threads": threads or args.threads,
                     "seconds": round(wall, 1), "tokens": tokens,
                     "tokens_per_s": round(tokens / wall)})
        print(json.dumps(rows[-1]), flush=True)
        if annotators == ANNOTATORS and threads is None:
            replies = out
    # The Python side, on the full pipeline's replies.
    t0 = time.perf_counter()
    wire = [json.dumps(d) for d in replies]
    encode = time.perf_counter() - t0
    t0 = time.perf_counter()
    decoded = [json.loads(w) for w in wire]
    decode = time.perf_counter() - t0
    t0 = time.perf_counter()
    docs = [parse_doc(p.text, d) for (_, p), d in zip(parts, decoded, strict=True)]
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    facts = []
    for v in versions:
        mine = [(p, d.sentences) for (w, p), d in zip(parts, docs, strict=True) if w is v]
        facts.extend(_read(v, mine, offline_extractor_id()).facts)
    rules = time.perf_counter() - t0
    sents = [s for d in docs for s in d.sentences]
    with_mention = [s for s in sents if s.mentions]
    # Each fact's sentence (the one holding its evidence's start), and whether it has a mention.
    spans = [(w["id"], p.start + s.tokens[0].start, p.start + s.tokens[-1].end, bool(s.mentions))
             for (w, p), d in zip(parts, docs, strict=True) for s in d.sentences if s.tokens]
    fact_sentences = {next((sp for sp in spans if sp[0] == f.version_id
                            and sp[1] <= f.start < sp[2]), None) for f in facts}
    print(json.dumps({
        "python": {"json_decode_s": round(decode, 2), "json_encode_s": round(encode, 2),
                   "parse_doc_s": round(build, 2), "resolve_and_rules_s": round(rules, 2)},
        "facts": len(facts),
        "sentences": len(sents), "sentences_with_a_mention": len(with_mention),
        "tokens": sum(len(s.tokens) for s in sents),
        "tokens_in_sentences_with_a_mention": sum(len(s.tokens) for s in with_mention),
        "fact_sentences": len(fact_sentences),
        "fact_sentences_without_a_mention": sum(1 for sp in fact_sentences
                                                if sp is None or not sp[3])}))


if __name__ == "__main__":
    main()
