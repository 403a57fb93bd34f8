"""What the fact-path generator gives per complexity level on every shared corpus, and the
blind-review material for it.

Every shared corpus is loaded as ``bench_verify_corpora`` loads it (each HotpotQA, MuSiQue
and 2WikiMultihopQA paragraph a page of a local web, FreshQA-wiki's full pages served as
they are, refreshed), held out by split: *development* is the even items of each paragraph
corpus and the FreshQA logs whose cited pages are all even-indexed in the sorted list of
``freshqa-wiki/web`` files; *review* the odd ones. Each split has its own local webs holding
only its own pages, so a refresh or ``dwqa expand`` never brings a page of the other split
into a graph: FreshQA is split by page, not by log (its graphs share pages), and a log citing
pages of both parities is in neither split. The full pages are a web of their own, as in
``bench_expand``: FreshQA's refresh and expand search it alone, so its graphs stay made of
full pages (a web shared with the paragraphs let refreshed FreshQA graphs ask about HotpotQA
paragraphs). Each corpus and split is its own dataset (``hotpotqa-review``, ...).

Then facts (CoreNLP, ``extract_facts``), ``dwqa expand`` on the FreshQA graphs against their
split's web, and per corpus and level -- ``--hops 2-2``, ``3-3``, ``4-4`` (constraints 0-2)
and ``--constraints 2-2`` (any hops), plus the default setting for comparison -- up to
``--rounds`` consecutive fresh rounds (``new_round`` with a ``SampleConfig``), their items
kept once per set of facts. Reported per corpus and level: the graphs with an askable
candidate of that setting, the distinct items and their forms, the median askable K and the
collision bound at T = 5 (``round collisions --checked``'s ``by_setting``), items per round
over the graphs with >= 2 connected facts, and the decomposing baseline's EM (the
``decompose`` agent of ``dwqa eval``, no model, against the split's local web) on at most
``--eval-items`` of the items.

    .venv/bin/python -m benchmarks.bench_levels [--split review|development|both]
        [--rounds 5] [--eval-items 15] [--port 8851] [--out F.json]
        [--review-items F.jsonl] [--skip-build] [--no-eval] [--sample N]
    (DWQA_BENCH_BOLT_PORT / DWQA_BENCH_HTTP_PORT / DWQA_BENCH_HOME move its Neo4j.)

``--review-items`` writes the review split's items, one JSON object a line (id, corpus,
hops, sources, constraints, form, question, answer, evidence [{url, sentence}]); ``--out``
is rewritten after every phase, so a run stopped midway keeps what it measured.

Targets (issue 44): >= 40 review items at each of hops 2, 3, 4 and constraints >= 2, a
quarter of them from full pages; the decomposing baseline's EM falls as hops and
constraints rise.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from dwqa_graph.evaluation.agents.baseline import web_sources
from dwqa_graph.evaluation.agents.decompose import DecomposeAgent
from dwqa_graph.evaluation.evaluate import predict
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.models import EvalItem
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import collisions, export_rows, new_round
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.web.expand import expand
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.refresh import refresh
from dwqa_graph.web.search import make_search_client

from ._server import start_bench_server, stop_bench_server
from .bench_verify_corpora import PARAGRAPHS, SHARED, paragraph_web, served

CORPORA = [*PARAGRAPHS, "freshqa"]
#: The parity of a split's items (paragraph corpora) and pages (FreshQA), 0-based.
SPLITS = {"development": 0, "review": 1}
#: The complexity levels, as ``round new --hops/--constraints`` sets them; "default" is the
#: round a user gets without either (measured beside the levels, not in the review set).
LEVELS: dict[str, dict[str, tuple[int, int]]] = {
    "hops 2": {"hops": (2, 2)}, "hops 3": {"hops": (3, 3)}, "hops 4": {"hops": (4, 4)},
    "constraints 2": {"constraints": (2, 2)}, "default": {}}
REVIEW_LEVELS = ["hops 2", "hops 3", "hops 4", "constraints 2"]
#: The ``by_setting`` entry of ``round collisions --checked`` each level is measured by. Its
#: "hops N" counts candidates without a description, while a ``--hops N-N`` round also
#: draws described ones (constraints 0-2): the K of a hops level is the undescribed part.
SETTING = {"hops 2": "hops 2", "hops 3": "hops 3", "hops 4": "hops 4",
           "constraints 2": "constraints 2", "default": "all"}
#: A level stops drawing rounds after this many in a row added no new item: a fresh round
#: alternates between a graph's paths, so one empty round alone does not mean the pool is
#: spent.
DRY_ROUNDS = 2
TARGET_PER_LEVEL, TARGET_FULL_PAGE_SHARE = 40, 0.25


def dataset(corpus: str, split: str) -> str:
    return f"{corpus}-{split}"


def freshqa_split(parity: int) -> tuple[list[str], list[str], int]:
    """The FreshQA pages of one parity (every one of them: a refresh finds the split's
    other pages), the log lines whose cited pages are all of that parity, and how many logs
    cite pages of both parities (in no split)."""
    files = sorted(p.name for p in (SHARED / "freshqa-wiki" / "web").iterdir())
    index = {f: i for i, f in enumerate(files)}
    lines, mixed = [], 0
    for line in (SHARED / "freshqa-wiki" / "logs.jsonl").read_text().splitlines():
        cited = {s["url"].removeprefix("{WEB}/") for s in json.loads(line)["sources"]}
        parities = {index[f] % 2 for f in cited}
        if parities == {parity}:
            lines.append(line)
        elif len(parities) > 1:
            mixed += 1
    return [f for f in files if index[f] % 2 == parity], lines, mixed


def split_web(split: str, roots: dict[str, Path], sample: int = 0) -> dict[str, Any]:
    """Write one split's local webs, ``roots["paragraphs"]`` and ``roots["full"]``; its logs
    per corpus (``{WEB}`` for its web's base URL) and its sizes. ``sample`` > 0: only the
    first that many items and logs of each corpus, and only the pages those logs cite (a
    quick check of the run)."""
    parity = SPLITS[split]
    for root in roots.values():
        root.mkdir(parents=True)
    logs: dict[str, list[str]] = {}
    sizes: dict[str, Any] = {}
    for name, files in PARAGRAPHS.items():
        data = [x for f in files for x in json.loads((SHARED / f).read_text())]
        mine = data[parity::2]
        logs[name] = paragraph_web(name, mine[:sample] if sample else mine,
                                   roots["paragraphs"])
        sizes[name] = {"items": len(logs[name]), "of": len(data)}
    pages, logs["freshqa"], mixed = freshqa_split(parity)
    if sample:
        logs["freshqa"] = logs["freshqa"][:sample]
        cited = {s["url"].removeprefix("{WEB}/") for line in logs["freshqa"]
                 for s in json.loads(line)["sources"]}
        pages = [f for f in pages if f in cited]
    for f in pages:
        shutil.copy(SHARED / "freshqa-wiki" / "web" / f, roots["full"] / f)
    sizes["freshqa"] = {"logs": len(logs["freshqa"]), "pages": len(pages),
                        "logs_citing_both_parities": mixed}
    return {"logs": logs, "sizes": sizes}


def build(store: Store, nlp: CoreNLP, webs: dict[str, dict[str, Any]], tmp: Path,
          opts: FetchOptions) -> dict[str, Any]:
    """Ingest, fetch, refresh FreshQA, read facts, expand FreshQA; each stage's report."""
    out: dict[str, Any] = {}
    t0 = time.perf_counter()
    for split, web in webs.items():
        for name, lines in web["logs"].items():
            log = tmp / f"{dataset(name, split)}.jsonl"
            log.write_text("\n".join(lines).replace("{WEB}", web_url(web, name)) + "\n")
            ingest(store, [log], dataset=dataset(name, split))
    out["ingest_seconds"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    out["fetch"] = fetch(store, opts).model_dump(include={"ok", "failed", "failed_by_reason"})
    out["refresh"] = {split: refresh(store, make_search_client(
                                         f"searxng:{web_url(web, 'freshqa')}", store),
                                     dataset=dataset("freshqa", split), fetch_options=opts)
                      .model_dump(include={"queries", "new_documents"})
                      for split, web in webs.items()}
    out["fetch_seconds"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    out["facts"] = extract_facts(store, nlp=nlp).model_dump(include={"versions", "facts"})
    out["facts_seconds"] = round(time.perf_counter() - t0, 1)
    out["expand"] = {}
    for split, web in webs.items():
        got = expand(store, make_search_client(f"searxng:{web_url(web, 'freshqa')}", store),
                     dataset=dataset("freshqa", split), fetch_options=opts,
                     read_facts=lambda: extract_facts(store, nlp=nlp))
        out["expand"][split] = got.model_dump(include={
            "graphs", "graphs_grown", "entities", "pages_added", "new_documents",
            "rejected_by_reason", "seconds"})
    return out


def web_url(web: dict[str, Any], corpus: str) -> str:
    """The base URL of the local web a corpus's pages are on."""
    return str(web["urls"]["full" if corpus == "freshqa" else "paragraphs"])


def item_key(row: dict[str, Any]) -> str:
    """An item by its facts: two items on the same facts ask the same thing."""
    return ",".join(sorted(p["fact_id"] for p in row["provenance"]))


def level_rounds(store: Store, ds: str, level: str, rounds: int,
                 seed0: int, attempts: int | None = None) -> dict[str, Any]:
    """Up to ``rounds`` consecutive fresh rounds of ``ds`` at ``level``; the first steers
    against no round (the round before it is another level's or dataset's), each next one
    against the one before, as `round new` does. ``attempts``: ``SampleConfig.attempts``
    (None: its default)."""
    cfg = SampleConfig(**LEVELS[level], **({} if attempts is None else {"attempts": attempts}))
    made, per_round, items = [], [], {}
    dry = 0
    for i in range(rounds):
        rep = new_round(store, seed=seed0 + i, generator=PathGenerator(), cfg=cfg,
                        dataset=ds, previous=0 if i == 0 else None)
        made.append(rep)
        rows = export_rows(store, rep.round)
        per_round.append(len(rows))
        new = {item_key(r): r for r in rows if item_key(r) not in items}
        items.update(new)
        dry = 0 if new else dry + 1
        if dry >= DRY_ROUNDS:
            break
    return {"rounds": [r.round for r in made], "graphs": made[0].graphs,
            "items_per_round": per_round, "items": items,
            "round_seconds": [round(r.seconds, 1) for r in made],
            "items_on_a_repeated_fact_pair": [
                r.set_quality.get("items_on_a_repeated_fact_pair") for r in made],
            "no_item_reasons": dict(sum((Counter(r.no_item_reasons) for r in made),
                                        Counter()))}


def connected(store: Store, ds: str) -> int:
    """Seed graphs with >= 2 facts that meet another fact (what a path is made of)."""
    return sum(r["connected"] >= 2
               for r in store.query("explore/fact_connectivity", dataset=ds))


def decompose_em(nlp: CoreNLP, url: str, drawn: dict[str, Any], limit: int) -> dict[str, Any]:
    """The decomposing baseline on at most ``limit`` of a level's distinct items (a seeded
    sample: it reads pages with CoreNLP for every question): EM, right answers, errors."""
    # each item as `dwqa eval --round T` asks it (``round_items``: unverified rounds)
    items = sorted((EvalItem(id=r["id"], question=r["question"], golds=[r["answer"]],
                             pattern=r["pattern"], hops=r["hops"], source="round",
                             dataset=f"round:{r['round']}") for r in drawn["items"].values()),
                   key=lambda it: it.id)
    items = random.Random(44).sample(items, min(limit, len(items)))
    if not items:
        return {"n": 0, "em": None}
    client, pages = web_sources(url, 60.0)
    # The agent `dwqa eval --agent decompose:URL` builds, on this run's CoreNLP worker
    # rather than a second 4 GB one beside it.
    agent = DecomposeAgent(f"decompose:{url}", client, pages, nlp=nlp, close=client.close)
    t0 = time.perf_counter()
    try:
        preds = predict(agent, items, run_id="bench-levels", concurrency=2)
    finally:
        agent.close()
    return {"n": len(preds), "em": round(statistics.mean(p.scores["em"] for p in preds), 3),
            "correct": sum(p.scores["em"] == 1.0 for p in preds),
            "errors": sum(p.error is not None for p in preds),
            "seconds": round(time.perf_counter() - t0, 1)}


def review_row(corpus: str, row: dict[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "corpus": corpus, "hops": row["hops"], "sources": row["sources"],
            "constraints": row["constraints"], "form": row["pattern"],
            "question": row["question"], "answer": row["answer"],
            # two facts of one sentence (a lifespan's birth and death) are one sentence to read;
            # the page's title as the export gives it: a sentence saying "He was born in
            # 1950" on a page whose URL is a hash names its subject only there (reviewers
            # rejected four items whose evidence they could not tie to a name without it)
            "evidence": list({(p["url"], p["evidence"]): {"url": p["url"],
                                                          "title": p.get("title"),
                                                          "sentence": p["evidence"]}
                              for p in row["provenance"]}.values())}


def review_level(item: dict[str, Any]) -> str:
    """The level an item counts at, as ``by_setting`` splits them: a description makes it a
    constraints item whatever its hops."""
    return "constraints 2" if item["constraints"] >= 2 else f"hops {item['hops']}"


def write_review(measured: dict[str, dict[str, Any]], out: Path) -> dict[str, Any]:
    """The review split's items of the four levels, each once (by its facts, and no two on
    one pair of facts), as JSONL; their counts per level and corpus."""
    rows: dict[str, dict[str, Any]] = {}
    pairs: set[frozenset[str]] = set()
    for corpus in CORPORA:
        cell = measured.get(dataset(corpus, "review"), {})
        for level in reversed(REVIEW_LEVELS):
            for key, row in cell.get(level, {}).get("items", {}).items():
                # rounds pooled here ask two facts again that an earlier round asked
                # another way, which no user's round shows; the pooled set keeps the first,
                # the deepest levels' first (a rare 3-hop item over a pair a 2-hop item also
                # asks stays in); a round's own repeats are set_quality's
                # items_on_a_repeated_fact_pair
                mine = {frozenset(c) for c in itertools.combinations(key.split(","), 2)}
                if key in rows or mine & pairs:
                    continue
                pairs |= mine
                rows[key] = review_row(corpus, row)
    items = sorted(rows.values(), key=lambda r: (r["corpus"], review_level(r), r["id"]))
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items))
    counts: dict[str, dict[str, int]] = {lv: dict.fromkeys(CORPORA, 0) for lv in REVIEW_LEVELS}
    for r in items:
        counts.setdefault(review_level(r), dict.fromkeys(CORPORA, 0))[r["corpus"]] += 1
    return {"items": len(items), "by_level": counts,
            "full_page_share": {lv: round(c["freshqa"] / sum(c.values()), 3)
                                if sum(c.values()) else None for lv, c in counts.items()},
            "targets_met": {lv: sum(c.values()) >= TARGET_PER_LEVEL and
                            c["freshqa"] >= TARGET_FULL_PAGE_SHARE * sum(c.values())
                            for lv, c in counts.items() if lv in REVIEW_LEVELS}}


def summary(cell: dict[str, Any], k: dict[str, Any], n_connected: int) -> dict[str, Any]:
    """One corpus x level row (the items themselves left out)."""
    per_round = cell["items_per_round"]
    return {"graphs": cell["graphs"], "eligible": k.get("graphs_with_k"),
            "rounds": len(per_round), "items_per_round": per_round,
            "items": len(cell["items"]),
            "forms": dict(Counter(r["pattern"] for r in cell["items"].values()).most_common()),
            "median_k": k.get("median_k"), "bound_t5": k.get("bound"),
            "items_per_round_share_of_connected":
                round(statistics.mean(per_round) / n_connected, 3) if n_connected else None,
            "no_item_reasons": cell["no_item_reasons"],
            "round_seconds": cell["round_seconds"],
            "items_on_a_repeated_fact_pair": cell.get("items_on_a_repeated_fact_pair"),
            "decompose": cell.get("decompose")}


def save(out: Path | None, result: dict[str, Any]) -> None:
    if out:
        out.write_text(json.dumps(result, indent=1))


def table(result: dict[str, Any]) -> str:
    lines = ["| corpus | split | level | graphs | eligible | items (rounds) | forms | K med. "
             "| bound T=5 | items/round / connected | decompose EM (n) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for ds, per in result.get("levels", {}).items():
        corpus, split = ds.rsplit("-", 1)
        for level, s in per["levels"].items():
            forms = ", ".join(f"{f} {n}" for f, n in s["forms"].items()) or "-"
            em = s["decompose"] or {}
            lines.append(
                f"| {corpus} | {split} | {level} | {s['graphs']} | {s['eligible']} | "
                f"{s['items']} ({s['rounds']}) | {forms} | {s['median_k']} | {s['bound_t5']} | "
                f"{s['items_per_round_share_of_connected']} | "
                f"{em.get('em', '-')} ({em.get('n', 0)}) |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=[*SPLITS, "both"], default="both")
    ap.add_argument("--rounds", type=int, default=5,
                    help="Most rounds per corpus and level (fewer once two add nothing).")
    ap.add_argument("--eval-items", type=int, default=15,
                    help="Most items per corpus and level the decomposing baseline answers.")
    ap.add_argument("--no-eval", action="store_true", help="Skip the decomposing baseline.")
    ap.add_argument("--port", type=int, default=8851,
                    help="The first local web's port; the others (paragraphs and full pages of "
                         "each split) on the next ones.")
    ap.add_argument("--skip-build", action="store_true",
                    help="Reuse the graph a run before built (its webs are served again).")
    ap.add_argument("--sample", type=int, default=0,
                    help="Only the first N items and logs of each corpus and split (0: all).")
    ap.add_argument("--out", type=Path, help="Also write the JSON result here.")
    ap.add_argument("--attempts", type=int,
                    help="Draws per graph before it is reported empty (SampleConfig.attempts).")
    ap.add_argument("--review-items", type=Path,
                    help="Write the review split's items here (JSONL).")
    args = ap.parse_args()
    splits = list(SPLITS) if args.split == "both" else [args.split]
    started_at = time.perf_counter()
    settings, started = start_bench_server()
    tmp = Path(tempfile.mkdtemp(prefix="dwqa-levels-"))
    env = {**os.environ, "DWQA_HOME": str(settings.home)}
    result: dict[str, Any] = {"splits": splits, "rounds": args.rounds,
                              "sample": args.sample or "all"}
    webs: dict[str, dict[str, Any]] = {}
    procs = []
    try:
        for n, split in enumerate(splits):
            roots = {kind: tmp / split / kind / "web" for kind in ("paragraphs", "full")}
            webs[split] = split_web(split, roots, args.sample)
            webs[split]["roots"] = roots
            webs[split]["urls"] = {kind: f"http://127.0.0.1:{args.port + 2 * n + i}"
                                   for i, kind in enumerate(roots)}
        result["sizes"] = {s: w["sizes"] for s, w in webs.items()}
        opts = FetchOptions(allow_hosts=frozenset(u.removeprefix("http://")
                                                  for w in webs.values()
                                                  for u in w["urls"].values()))
        with Store(settings) as store, CoreNLP() as nlp:
            for split in splits:
                for kind, root in webs[split]["roots"].items():
                    port = int(webs[split]["urls"][kind].rsplit(":", 1)[1])
                    procs.append(served(root, port, env))
            if not args.skip_build:
                store.wipe()
                store.apply_schema()
                t0 = time.perf_counter()
                result["build"] = build(store, nlp, webs, tmp, opts)
                result["build"]["seconds"] = round(time.perf_counter() - t0, 1)
                save(args.out, result)
            measured: dict[str, dict[str, Any]] = {}
            result["levels"] = {}
            t0 = time.perf_counter()
            seed = 4401
            for split in splits:
                for corpus in CORPORA:
                    ds = dataset(corpus, split)
                    measured[ds] = {}
                    for level in LEVELS:
                        measured[ds][level] = level_rounds(store, ds, level, args.rounds, seed,
                                                           args.attempts)
                        seed += args.rounds
            result["rounds_seconds"] = round(time.perf_counter() - t0, 1)
            if args.review_items and "review" in splits:
                result["review_items"] = write_review(measured, args.review_items)
            t0 = time.perf_counter()
            for ds, per in measured.items():
                ts = sorted(t for cell in per.values() for t in cell["rounds"])
                ks = collisions(store, rounds=ts, checked=True)["by_setting"]
                n_connected = connected(store, ds)
                result["levels"][ds] = {
                    "connected_graphs": n_connected,
                    "levels": {lv: summary(cell, ks.get(SETTING[lv], {}), n_connected)
                               for lv, cell in per.items()}}
            result["collisions_seconds"] = round(time.perf_counter() - t0, 1)
            save(args.out, result)
            if not args.no_eval:
                t0 = time.perf_counter()
                # level by level, so a run stopped midway has every corpus of a level
                for level in REVIEW_LEVELS:
                    for ds, per in measured.items():
                        corpus, split = ds.rsplit("-", 1)
                        url = web_url(webs[split], corpus)
                        em = decompose_em(nlp, url, per[level], args.eval_items)
                        result["levels"][ds]["levels"][level]["decompose"] = em
                        save(args.out, result)
                result["eval_seconds"] = round(time.perf_counter() - t0, 1)
                result["decompose_by_level"] = pooled_em(result)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
        stop_bench_server(settings, started)
    result["seconds"] = round(time.perf_counter() - started_at, 1)
    save(args.out, result)
    print(table(result))
    if "review_items" in result:
        print(json.dumps(result["review_items"]))
    if "decompose_by_level" in result:
        print("decompose EM by level:", json.dumps(result["decompose_by_level"]))
    print(f"{result['seconds']} s in all")


def pooled_em(result: dict[str, Any]) -> dict[str, Any]:
    """The decomposing baseline's EM per split and level over every corpus."""
    out: dict[str, Any] = {}
    for ds, per in result["levels"].items():
        split = ds.rsplit("-", 1)[1]
        for level in REVIEW_LEVELS:
            em = per["levels"][level].get("decompose") or {}
            got = out.setdefault(split, {}).setdefault(level, {"n": 0, "correct": 0})
            got["n"] += em.get("n", 0)
            got["correct"] += em.get("correct", 0)
    for per_level in out.values():
        for got in per_level.values():
            got["em"] = round(got["correct"] / got["n"], 3) if got["n"] else None
    return out


if __name__ == "__main__":
    main()
