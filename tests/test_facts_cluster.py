"""The facts stage on a real Dask cluster on loopback: a scheduler and one worker process
(``LocalCluster`` with a nanny), each worker with its own CoreNLP, the driver writing to the
suite's Neo4j. The cluster's facts are the local run's, id for id, on FreshQA full pages and
HotpotQA paragraphs; a worker killed mid-run is replaced and its batch read again; a
cluster whose workers cannot read leaves every version pending and says why, and a re-run
on a good cluster resumes.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.facts.cluster import batches
from dwqa_graph.facts.extractor import MAX_VERSION_CHARS
from dwqa_graph.facts.extractors.corenlp import offline_extractor_id
from dwqa_graph.facts.stage import FactsReport, extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.web.extract import extract

from .conftest import HOTPOT, SHARED

#: A few full pages (the first 6,000 characters of each: several passages, dozens of facts)
#: and a few HotpotQA graphs' paragraphs.
FULL_PAGES = ("Elon_Musk.html", "Tesla__Inc..html", "2022_FIFA_World_Cup.html")
PAGE_CHARS = 6_000
HOTPOT_ITEMS = 3
#: Each worker's CoreNLP heap: enough for these pages; two JVMs share the test machine.
WORKER_HEAP = "2g"


def shared_pages(tmp_path: Path) -> Path:
    items = []
    web = SHARED / "freshqa-wiki" / "web"
    for name in FULL_PAGES:
        page = extract((web / name).read_text(encoding="utf-8"), url=f"http://local/{name}")
        title = (page.title or name).removesuffix(" - Wikipedia")
        text = (page.text or "")[:PAGE_CHARS]
        text = text[:text.rfind("\n")]
        items.append({"_id": name, "question": f"About {title}?", "answer": "-",
                      "supporting_facts": [], "context": [[title, [text]]]})
    items += json.loads(HOTPOT.read_text())[:HOTPOT_ITEMS]
    path = tmp_path / "shared.json"
    path.write_text(json.dumps(items))
    return path


def load(store: Store, path: Path) -> None:
    store.wipe()
    store.apply_schema()
    ingest(store, [path], fmt="hotpotqa")
    extract_claims(store)


def stored_facts(store: Store) -> dict[str, tuple[str, str, str]]:
    rows = store.read("MATCH (f:Fact) RETURN f.id AS id, f.version_id AS v, "
                      "f.relation AS r, f.extractor AS x")
    return {r["id"]: (r["v"], r["r"], r["x"]) for r in rows}


def unread(store: Store) -> int:
    [row] = store.read("MATCH (v:DocumentVersion) WHERE v.facts_extractor IS NULL "
                       "RETURN count(v) AS n")
    return int(row["n"])


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """A scheduler and one worker process (one thread) on loopback."""
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", env={"DWQA_CORENLP_HEAP": WORKER_HEAP}) as c:
        yield c


def test_cluster_writes_the_local_runs_facts_and_replaces_a_killed_worker(
        store: Store, nlp: CoreNLP, cluster: LocalCluster, tmp_path: Path) -> None:
    path = shared_pages(tmp_path)
    load(store, path)
    local = extract_facts(store, nlp=nlp)
    local_facts = stored_facts(store)
    # The positive control: the local run read facts from both kinds of page.
    full_versions = {v for v, _, _ in local_facts.values()}
    assert local.reader_failures == 0 and len(local_facts) >= 30
    assert local.versions > HOTPOT_ITEMS * 5 and len(full_versions) > len(FULL_PAGES)

    load(store, path)
    assert stored_facts(store) == {} and unread(store) == local.versions
    with Client(cluster) as client:
        [worker_pid] = client.run(os.getpid).values()
    box: list[FactsReport | BaseException] = []

    def run() -> None:
        try:
            box.append(extract_facts(store, dask=cluster.scheduler_address))
        except BaseException as exc:  # noqa: BLE001 -- shown by the assertion below
            box.append(exc)

    driver = threading.Thread(target=run)
    driver.start()
    # Kill the worker process once its CoreNLP is reading (the first batch is in flight):
    # its nanny starts a new one, which reads the batch again with a CoreNLP of its own.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not _java_children(worker_pid):
        time.sleep(0.5)
    orphans = _java_children(worker_pid)
    assert orphans, "the worker never started its CoreNLP"
    os.kill(worker_pid, signal.SIGKILL)
    driver.join(600)
    assert not driver.is_alive()
    [report] = box
    assert isinstance(report, FactsReport), report
    assert report.reader_failures == 0 and report.problems == []
    with Client(cluster) as client:
        [new_pid] = client.run(os.getpid).values()
    assert new_pid != worker_pid  # replaced, not the same process
    # Same facts, same ids, same extractor key as the local run.
    assert stored_facts(store) == local_facts
    assert {x for _, _, x in local_facts.values()} == {offline_extractor_id()}
    assert (report.versions, report.facts, report.tokens) == \
        (local.versions, local.facts, local.tokens)
    assert report.entities == local.entities
    # A re-run reads nothing: every version is marked read by this extractor.
    again = extract_facts(store, dask=cluster.scheduler_address)
    assert again.versions == 0 and stored_facts(store) == local_facts
    # The killed worker's JVM ends with it (its stdin closed).
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(p) for p in orphans):
        time.sleep(0.5)
    assert not any(_alive(p) for p in orphans)


def test_a_cluster_that_cannot_read_leaves_versions_pending_and_a_rerun_resumes(
        store: Store, cluster: LocalCluster, tmp_path: Path) -> None:
    load(store, shared_pages(tmp_path))
    total = unread(store)
    # A worker whose CoreNLP cannot start (a heap size Java refuses): each batch fails,
    # is tried once more, and its versions are reported -- nothing is written.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", env={"DWQA_CORENLP_HEAP": "lots"}) as bad:
        report = extract_facts(store, dask=bad.scheduler_address)
    assert report.reader_failures == total and report.facts == 0
    assert len(report.problems) == total
    assert all("failed on the cluster 2 times" in p and "did not start" in p
               for p in report.problems), report.problems[:2]
    assert stored_facts(store) == {} and unread(store) == total
    # The good cluster reads them all.
    good = extract_facts(store, dask=cluster.scheduler_address)
    assert good.versions == total and good.reader_failures == 0 and good.facts > 0
    assert unread(store) == 0


def test_batches_hold_about_equal_text_in_order() -> None:
    """Full pages of very different lengths and short paragraphs: every batch within both
    bounds (a page over the character bound alone), the versions in their order, none lost."""
    web = SHARED / "freshqa-wiki" / "web"
    pages = sorted(web.glob("*.html"))[:12]
    versions = [{"id": f"p{i}", "text": extract(f.read_text(encoding="utf-8")).text or ""}
                for i, f in enumerate(pages)]
    versions += [{"id": f"h{i}", "text": "A paragraph of a short lead. " * 20}
                 for i in range(150)]
    versions.append({"id": "empty", "text": None})
    lengths = [min(len(v["text"] or ""), MAX_VERSION_CHARS) for v in versions]
    # the positive control: the pages differ by more than a batch, and some pass the bound
    assert max(lengths) > 40_000 > min(lengths[:12])
    got = list(batches(versions, max_chars=40_000, max_versions=64))
    assert [v["id"] for b in got for v in b] == [v["id"] for v in versions]
    for b in got:
        size = sum(min(len(v["text"] or ""), MAX_VERSION_CHARS) for v in b)
        assert len(b) <= 64 and (size <= 40_000 or len(b) == 1)
    # a batch is closed only when the next version would not fit
    for a, b in zip(got, got[1:], strict=False):
        size = sum(min(len(v["text"] or ""), MAX_VERSION_CHARS) for v in a + b[:1])
        assert len(a) == 64 or size > 40_000
    assert any(len(b) == 64 for b in got) and any(len(b) == 1 for b in got)


def test_no_scheduler_is_a_clear_error(store: Store) -> None:
    from dwqa_graph.errors import ServiceError, UsageError
    with pytest.raises(ServiceError, match="unreachable"):
        extract_facts(store, dask="tcp://127.0.0.1:9")
    with pytest.raises(UsageError, match="corenlp extractor"):
        extract_facts(store, extractor="llm", dask="tcp://127.0.0.1:9")


def _java_children(pid: int) -> list[int]:
    """Java processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and b"DwqaCoreNLP" in cmd:
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
