"""No false alarm on real material: a slice of every shared corpus (the first items of
HotpotQA, MuSiQue and 2WikiMultihopQA, each paragraph served as a page as
``benchmarks/bench_verify_corpora`` serves them, and two FreshQA-wiki full pages), fetched
over loopback, read by the real CoreNLP, five rounds drawn in the real Neo4j; every page is
fetched again unchanged and every item of every round must hold. The positive control: one
page whose sentence an item reads really changes (a year in it moves), and that item is
flagged while the round's other items still hold.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from benchmarks.bench_verify_corpora import PARAGRAPHS, paragraph_web
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import export_rows, new_round
from dwqa_graph.rounds.verify import verify_round
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from tests.paths import SHARED

#: Items taken from each paragraph corpus (10-20 paragraphs each).
ITEMS_PER_CORPUS = 3
#: FreshQA-wiki full pages about people (births, careers, "as of" sentences).
FRESHQA_PAGES = ("Maura_Healey.html", "Keegan-Michael_Key.html")
ROUNDS = 5
YEAR = re.compile(r"\b(1[6-9]\d\d|20[0-2]\d)\b")


def build(store: Store, nlp: CoreNLP, root: Path, tmp: Path, url: str) -> FetchOptions:
    lines = []
    for name, files in PARAGRAPHS.items():
        items = json.loads((SHARED / files[0]).read_text())[:ITEMS_PER_CORPUS]
        lines += paragraph_web(name, items, root)
    lines += [line for line in (SHARED / "freshqa-wiki" / "logs.jsonl").read_text()
              .splitlines() if any(f"{{WEB}}/{p}" in line for p in FRESHQA_PAGES)]
    log = tmp / "logs.jsonl"
    log.write_text("\n".join(lines).replace("{WEB}", url) + "\n")
    ingest(store, [log])
    opts = FetchOptions(allow_hosts=frozenset({url.removeprefix("http://")}))
    got = fetch(store, opts)
    # a paragraph of a few words is no page text to the extractor; nothing else may fail
    assert set(got.failed_by_reason) <= {"no_text"} and got.ok > 100
    extract_facts(store, nlp=nlp)
    return opts


def test_an_unchanged_corpus_web_raises_no_false_alarm(
        store: Store, nlp: CoreNLP, tmp_path: Path) -> None:
    root = tmp_path / "web"
    root.mkdir()
    # the pages exist before the local web indexes them
    for name, files in PARAGRAPHS.items():
        paragraph_web(name, json.loads((SHARED / files[0]).read_text())[:ITEMS_PER_CORPUS],
                      root)
    for page in FRESHQA_PAGES:
        shutil.copy(SHARED / "freshqa-wiki" / "web" / page, root / page)
    with serve(root) as site:
        opts = build(store, nlp, root, tmp_path, site.url)
        rounds = [new_round(store, seed=s, generator=PathGenerator())
                  for s in range(1, ROUNDS + 1)]
        assert sum(r.items for r in rounds) >= 10  # there are items to raise alarms on
        alarms = []
        for r in rounds:
            report = verify_round(store, r.round, opts, nlp=nlp)
            assert report.fetch is not None and report.fetch.failed == 0
            assert report.fetch.new_versions == 0 and report.facts is None
            alarms += [(c.question, c.status, c.reason) for c in report.results
                       if c.status != "holds"]
        assert not alarms

        # the positive control: the year an item's answer is read from moves on its page --
        # wherever the page states it: edited in one sentence only, a page that states it
        # in two (a lead's "(born March 22, 1971)" and "Key was born ... on March 22,
        # 1971") would contradict itself, which verify reports as unsupported, not changed
        # (tests/test_verify.py, the "contradicted" pages)
        item, p, t = next((i, p, r.round) for r in rounds for i in export_rows(store, r.round)
                          for p in i["provenance"] if _year(p, i["answer"])
                          and _page(root, p).read_text().count(p["evidence"]) == 1)
        year = _year(p, item["answer"])
        page = _page(root, p)
        page.write_text(re.sub(rf"\b{year}\b", str(int(year) - 7), page.read_text()))
        report = verify_round(store, t, opts, nlp=nlp)
        assert report.fetch is not None and report.fetch.new_versions == 1
        status = {c.item_id: c.status for c in report.results}
        assert status[item["id"]] in ("changed", "unsupported"), (item, p)
        # the round's items reading other pages hold
        others = {i["id"] for i in export_rows(store, t)
                  if all(q["document_id"] != p["document_id"] for q in i["provenance"])}
        assert others and all(status[i] == "holds" for i in others)


def _year(p: dict[str, str], answer: str) -> str:
    """A year the evidence states and the answer names ('' if none)."""
    return next((y for y in YEAR.findall(p["evidence"]) if y in answer), "")


def _page(root: Path, p: dict[str, str]) -> Path:
    return root / p["url"].rsplit("/", 1)[1]
