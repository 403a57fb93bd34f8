"""Hostile pages and a killed worker: what each costs one ``extract_facts`` run (Stanford
CoreNLP + Neo4j writes) beside the example web's ten ordinary pages.

Cases: the ordinary pages alone (the baseline); with one page of 39,000 random Latin-1
characters, of bracket nests, of one 39,000-character token, or of a list of names and dates
run on without a full stop; and the ordinary pages with the worker killed (SIGKILL) once
mid-run. Target: each hostile page costs <= 60 s more than the baseline, and the ordinary
pages get the same facts. Also prints the prose check's margin on the 184 full pages of
``bench_facts`` (the lowest share of letters and of characters in short words).

    .venv/bin/python -m benchmarks.bench_facts_attacks [--threads 2]
    (DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT move its Neo4j off 7689/7476.)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import threading
import time
from pathlib import Path

from dwqa_graph.facts.extractor import MAX_VERSION_CHARS
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import MAX_WORD_CHARS, CoreNLP
from dwqa_graph.web.extract import extract

from ._server import REPO_ROOT, start_bench_server, stop_bench_server

SHARED = REPO_ROOT.parent / "shared" / "data"
TARGET_EXTRA_S = 60


def hostile_pages() -> dict[str, str]:
    rng = random.Random(46)
    names = ["Anna Berg", "Carl Dahl", "Maria Lind", "Olof Holm", "Petra Vik"]
    run_on = ", ".join(f"{rng.choice(names)}, {rng.randrange(1, 29)} May "
                       f"{rng.randrange(1800, 2000)}" for _ in range(1_800))[:39_000]
    return {
        "random Latin-1": "".join(chr(rng.randrange(0x20, 0x100)) for _ in range(39_000)),
        "bracket nests": "([{" * 6_500 + "}])" * 6_500,
        "one long token": "3" * 39_000,
        "run-on list": run_on,
    }


def ordinary_pages() -> dict[str, str]:
    pages = {}
    for path in sorted((REPO_ROOT / "examples" / "web").glob("*.html")):
        page = extract(path.read_text(encoding="utf-8"), url=f"http://local/{path.name}")
        pages[page.title or path.stem] = page.text or ""
    return pages


def load(store: Store, pages: dict[str, str], tmp: Path) -> None:
    store.wipe()
    item = {"_id": "bench", "question": "?", "answer": "-", "supporting_facts": [],
            "context": [[t, [x]] for t, x in pages.items()]}
    path = tmp / "pages.json"
    path.write_text(json.dumps([item]))
    ingest(store, [path], fmt="hotpotqa")


def facts_of(store: Store) -> set[tuple[str, str, str]]:
    return {(r["s"], r["rel"], r["ev"]) for r in store.read(
        "MATCH (s)<-[:SUBJECT]-(f:Fact) RETURN s.name AS s, f.relation AS rel, "
        "f.evidence AS ev")}


def kill_once(nlp: CoreNLP, store: Store, done: threading.Event) -> None:
    """SIGKILL the worker once the first version is written."""
    while not done.is_set():
        n = store.read("MATCH (v:DocumentVersion) WHERE v.facts_extractor IS NOT NULL "
                       "RETURN count(v) AS n")[0]["n"]
        proc = nlp._proc
        if n and proc is not None:
            os.kill(proc.pid, signal.SIGKILL)
            return
        time.sleep(0.1)


def run_case(store: Store, nlp: CoreNLP, pages: dict[str, str], tmp: Path,
             kill: bool = False) -> tuple[float, dict]:
    load(store, pages, tmp)
    done = threading.Event()
    killer = threading.Thread(target=kill_once, args=(nlp, store, done), daemon=True)
    if kill:
        killer.start()
    started = time.perf_counter()
    try:
        report = extract_facts(store, nlp=nlp)
    finally:
        done.set()
    return time.perf_counter() - started, report.model_dump()


def screen_margin() -> str:
    low_letters, low_words = 1.0, 1.0
    for path in sorted((SHARED / "freshqa-wiki" / "web").glob("*.html")):
        page = extract(path.read_text(encoding="utf-8"), url="http://x/")
        text = (page.text or "")[:MAX_VERSION_CHARS]
        words = text.split()
        chars = sum(map(len, words)) or 1
        low_letters = min(low_letters, sum(c.isascii() and c.isalpha() for c in text) / chars)
        low_words = min(low_words, sum(len(w) for w in words if len(w) <= MAX_WORD_CHARS)
                        / chars)
    return (f"full pages: lowest letter share {low_letters:.0%}, lowest share in short words "
            f"{low_words:.0%} (the check needs 50% and 50%)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    print(screen_margin(), flush=True)
    settings, started = start_bench_server()
    tmp = REPO_ROOT / ".dwqa" / "bench-facts-attacks"
    tmp.mkdir(parents=True, exist_ok=True)
    ordinary = ordinary_pages()
    try:
        with Store(settings) as store, CoreNLP(threads=args.threads) as nlp:
            run_case(store, nlp, ordinary, tmp)  # warm-up: the first run is ~2x slower
            base_s, base = run_case(store, nlp, ordinary, tmp)
            base_facts = facts_of(store)
            print(json.dumps({"case": "ordinary pages", "seconds": round(base_s, 1),
                              "versions": base["versions"], "facts": base["facts"]}),
                  flush=True)
            cases = [(name, {**ordinary, name: text}, False)
                     for name, text in hostile_pages().items()]
            cases.append(("worker killed mid-run", ordinary, True))
            for name, pages, kill in cases:
                took, report = run_case(store, nlp, pages, tmp, kill=kill)
                same = facts_of(store) == base_facts
                extra = took - base_s
                print(json.dumps({
                    "case": name, "seconds": round(took, 1), "extra_s": round(extra, 1),
                    "target_extra_s": TARGET_EXTRA_S, "ok": extra <= TARGET_EXTRA_S and same,
                    "ordinary_facts_same": same, "failed_versions": report["failed_versions"],
                    "reader_failures": report["reader_failures"],
                    "sentences_skipped": report["sentences_skipped"],
                    "worker_restarts": report["worker_restarts"],
                    "problems": [p[:120] for p in report["problems"]]}), flush=True)
    finally:
        stop_bench_server(settings, started)


if __name__ == "__main__":
    main()
