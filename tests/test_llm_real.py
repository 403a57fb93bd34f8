"""The LLM path end to end against a real local model over HTTP (llama.cpp server with
SmolLM2-135M-Instruct). The model is tiny and often wrong: these tests assert that the
pipeline survives it — no crash, every stored span verified, rejections and failures
counted — not that it is smart."""

from __future__ import annotations

import json
from pathlib import Path

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.llm import LLM, make_llm
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from tests.paths import REPO_ROOT

PAGES = ["valmora-tram-council-approval.html", "solvane-pilot-plant-fire.html"]


def test_llm_claims_with_a_real_local_model(store: Store, llm_url: str, tmp_path: Path) -> None:
    with serve(REPO_ROOT / "examples" / "web") as web:
        log = {"question": "q?", "answer": "a", "thinking": "A [1].",
               "sources": [{"id": i, "url": f"{web.url}/{p}"} for i, p in enumerate(PAGES, 1)]}
        (tmp_path / "log.jsonl").write_text(json.dumps(log) + "\n")
        ingest(store, [tmp_path / "log.jsonl"])
        assert fetch(store, FetchOptions(allow_private=True)).ok == 2
    llm = LLM(make_llm(llm_url, max_tokens=400, json_mode=True), cache_path=tmp_path / "llm.sqlite",
              concurrency=1, timeout=300)
    report = extract_claims(store, extractor="llm", llm=llm)
    assert report.llm is not None and report.llm.calls >= 2
    assert report.llm.completion_tokens > 0  # the server really generated
    [bad] = store.read("MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim) "
                       "WHERE substring(v.text, c.start, c.end - c.start) <> c.span "
                       "RETURN count(c) AS n")
    assert bad["n"] == 0
    stored = store.counts().get("Claim", 0)
    assert stored == report.claims
    [rej] = store.read("MATCH (r:ClaimRejection) RETURN count(r) AS n")
    assert rej["n"] == report.rejected == sum(report.rejected_by_reason.values())
    # Whatever the model did, every page ended processed or counted as failed.
    assert report.versions == 2
    assert report.versions_with_claims + report.failed_versions <= 2
    print(f"real model: {report.claims} claims stored, rejected {report.rejected_by_reason}, "
          f"llm {report.llm.model_dump()}")
