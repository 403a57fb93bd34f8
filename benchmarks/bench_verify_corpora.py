"""False alarms of ``round verify`` on the shared corpora: every page served on loopback by
``dwqa web serve``, ingested, fetched, its facts read; five rounds per corpus; then every
page fetched again, unchanged, and each round verified. An item that does not ``hold`` is
a false alarm (nothing changed). Target: 0 over every item of the five rounds.

The paragraph corpora (HotpotQA, MuSiQue, 2WikiMultihopQA) become a web here: each
paragraph one page (its title, its sentences as one paragraph, as ingest joins them), each
item a log citing its paragraphs' pages. FreshQA-wiki is served as it is and refreshed (its
seed queries re-issued against the local web's search), as ``bench_load`` does.

    .venv/bin/python -m benchmarks.bench_verify_corpora [--corpus hotpotqa ...]
        [--items 0] [--freshqa-logs 0] [--port 8810]
    (DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT move its Neo4j off 7689/7476.)
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import export_rows, new_round
from dwqa_graph.rounds.verify import STATUSES, verify_round
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.refresh import refresh
from dwqa_graph.web.search import make_search_client

from ._server import REPO_ROOT, start_bench_server, stop_bench_server

SHARED = Path(os.environ.get("DWQA_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
DWQA = str(Path(sys.executable).parent / "dwqa")
#: The paragraph corpora (HotpotQA format), each its own dataset.
PARAGRAPHS = {"hotpotqa": ["hotpotqa/dev-distractor-sample.json", "hotpotqa/dev-more.json"],
              "musique": ["musique/dev-sample.json"], "2wiki": ["2wiki/dev-sample.json"]}
ROUNDS = 5
#: Items of each kind (marked time-sensitive or not) listed for a check by hand.
SAMPLE = 15
#: Seconds to wait for ``dwqa web serve`` to index its pages and listen (thousands of
#: pages on a busy machine take minutes).
SERVE_WAIT = 900.0


def page(title: str, paragraphs: list[str]) -> str:
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    t = html.escape(title)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
            f"<title>{t}</title></head>\n<body><main><article><h1>{t}</h1>\n{body}\n"
            f"</article></main></body>\n</html>\n")


def paragraph_web(name: str, items: list[dict[str, Any]], root: Path) -> list[str]:
    """Write each item's paragraphs as pages of ``root`` (one page per distinct title and
    text) and return one log line per item citing them, the web's base URL as ``{WEB}``."""
    logs = []
    for item in items:
        sources = []
        for n, (title, sents) in enumerate(item["context"], 1):
            text = "".join(sents)
            key = hashlib.sha256(f"{title}\n{text}".encode()).hexdigest()[:12]
            file = f"{name}-{key}.html"
            if not (root / file).exists():
                (root / file).write_text(page(title, [text]), encoding="utf-8")
            sources.append({"id": n, "url": f"{{WEB}}/{file}", "title": title})
        logs.append(json.dumps({
            "question": item["question"], "answer": str(item["answer"]),
            "thinking": " ".join(f"- Source {s['id']} is about {s['title']} [{s['id']}]."
                                 for s in sources), "sources": sources}))
    return logs


def served(root: Path, port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``dwqa web serve root`` on ``port``, once it listens."""
    log = (root.parent / "serve.log").open("wb")
    proc = subprocess.Popen([DWQA, "web", "serve", str(root), "--port", str(port)], env=env,
                            stdout=log, stderr=log)
    deadline = time.monotonic() + SERVE_WAIT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"dwqa web serve exited ({proc.returncode}): "
                             + (root.parent / "serve.log").read_text()[-600:])
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit(f"dwqa web serve did not listen on {port} within {SERVE_WAIT:.0f} s")


def build(store: Store, nlp: CoreNLP, corpora: list[str], root: Path, url: str, tmp: Path,
          items: int, freshqa_logs: int) -> dict[str, Any]:
    """Ingest, fetch (and refresh FreshQA) and read facts; the stages' seconds."""
    took: dict[str, Any] = {}
    opts = FetchOptions(allow_hosts=frozenset({url.removeprefix("http://")}))
    t0 = time.perf_counter()
    for name in corpora:
        log = tmp / f"{name}.jsonl"
        if name == "freshqa":
            lines = (SHARED / "freshqa-wiki" / "logs.jsonl").read_text().splitlines()
            lines = lines[:freshqa_logs] if freshqa_logs else lines
        else:
            data = [x for f in PARAGRAPHS[name] for x in json.loads((SHARED / f).read_text())]
            lines = paragraph_web(name, data[:items] if items else data, root)
        log.write_text("\n".join(lines).replace("{WEB}", url) + "\n")
        ingest(store, [log], dataset=name)
    took["ingest"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    took["fetch"] = fetch(store, opts).model_dump(
        include={"ok", "failed", "new_versions", "failed_by_reason"})
    if "freshqa" in corpora:
        got = refresh(store, make_search_client(f"searxng:{url}", store), dataset="freshqa",
                      fetch_options=opts)
        took["refresh"] = got.model_dump(include={"queries", "new_documents"})
    took["fetch_seconds"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    facts = extract_facts(store, nlp=nlp)
    took["facts"] = facts.model_dump(include={"versions", "facts"})
    took["facts_seconds"] = round(time.perf_counter() - t0, 1)
    return took


def verify_corpus(store: Store, nlp: CoreNLP, name: str, url: str,
                  mark: bool) -> dict[str, Any]:
    """Five rounds of one corpus, then each verified after an unchanged re-fetch."""
    opts = FetchOptions(allow_hosts=frozenset({url.removeprefix("http://")}))
    rounds = [new_round(store, seed=s, generator=PathGenerator(), dataset=name)
              for s in range(1, ROUNDS + 1)]
    counts: Counter[str] = Counter()
    alarms, marked, seconds = [], 0, 0.0
    sample: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for r in rounds:
        report = verify_round(store, r.round, opts, nlp=nlp, mark_time_sensitive=mark)
        seconds += report.seconds
        counts.update(report.counts)
        marked += report.time_sensitive or 0
        alarms += [{"round": r.round, "question": c.question, "status": c.status,
                    "reason": c.reason} for c in report.results if c.status != "holds"]
        if mark:  # items to check the marks by hand: the first of each kind
            evidence = {i["id"]: [p["evidence"] for p in i["provenance"]]
                        for i in export_rows(store, r.round)}
            for c in report.results:
                kind = sample[bool(c.time_sensitive)]
                if len(kind) < SAMPLE:
                    kind.append({"round": r.round, "question": c.question,
                                 "answer": c.original_answer, "evidence": evidence[c.item_id]})
    return {"corpus": name, "items": sum(r.items for r in rounds),
            **{s: counts[s] for s in STATUSES}, "false_alarms": len(alarms),
            "time_sensitive": marked if mark else None,
            "verify_seconds": round(seconds, 1), "alarms": alarms,
            "marked_sample": sample[True], "unmarked_sample": sample[False]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="append", choices=[*PARAGRAPHS, "freshqa"],
                    help="Corpora to run (default: all four).")
    ap.add_argument("--items", type=int, default=0,
                    help="Items of each paragraph corpus (0: all).")
    ap.add_argument("--freshqa-logs", type=int, default=0, help="FreshQA logs (0: all).")
    ap.add_argument("--port", type=int, default=8810, help="The local web's port.")
    ap.add_argument("--out", type=Path, help="Also write the JSON result here.")
    args = ap.parse_args()
    corpora = args.corpus or [*PARAGRAPHS, "freshqa"]
    settings, started = start_bench_server()
    tmp = Path(tempfile.mkdtemp(prefix="dwqa-verify-corpora-"))
    root = tmp / "web"
    if "freshqa" in corpora:
        shutil.copytree(SHARED / "freshqa-wiki" / "web", root)
    else:
        root.mkdir()
    result: dict[str, Any] = {"corpora": corpora}
    url = f"http://127.0.0.1:{args.port}"
    try:
        with Store(settings) as store, CoreNLP() as nlp:
            store.wipe()
            store.apply_schema()
            env = {**os.environ, "DWQA_HOME": str(settings.home)}
            web = None
            try:
                # the pages are written before the server indexes them
                for name in corpora:
                    if name != "freshqa":
                        data = [x for f in PARAGRAPHS[name]
                                for x in json.loads((SHARED / f).read_text())]
                        paragraph_web(name, data[:args.items] if args.items else data, root)
                web = served(root, args.port, env)
                result["build"] = build(store, nlp, corpora, root, url, tmp, args.items,
                                        args.freshqa_logs)
                result["verify"] = [verify_corpus(store, nlp, name, url, name == "freshqa")
                                    for name in corpora]
            finally:
                if web is not None:
                    web.terminate()
                    web.wait(10)
            store.wipe()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        stop_bench_server(settings, started)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text)
    for v in result["verify"]:
        print(f"{v['corpus']}: {v['items']} items over {ROUNDS} rounds; holds {v['holds']}, "
              f"changed {v['changed']}, unsupported {v['unsupported']}, unreachable "
              f"{v['unreachable']}: {v['false_alarms']} false alarms (target 0); "
              f"verify {v['verify_seconds']} s"
              + (f"; time-sensitive {v['time_sensitive']}" if v["time_sensitive"] is not None
                 else ""))
    print(json.dumps(result["build"]))


if __name__ == "__main__":
    main()
