"""Claims: rule extraction on real pages, verified spans, scripted-model failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dwqa_graph.claims.extract import (
    MAX_CLAIMS_PER_PAGE,
    extract_claims,
    keep_sentence,
    rule_candidates,
)
from dwqa_graph.claims.spans import SpanRejected, locate
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.llm import LLM
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve

from .conftest import HOTPOT, SHARED, scripted_model

SUBSTRING_VIOLATIONS = ("MATCH (v:DocumentVersion)-[:HAS_CLAIM]->(c:Claim) "
                        "WHERE substring(v.text, c.start, c.end - c.start) <> c.span "
                        "RETURN count(c) AS n")

PAGE = ("Valmora Riverside Tramway\n"
        "The Valmora City Council approved the tramway on 21 March 2019 by 38 votes to 19.\n"
        "It will open in 2022.\n"
        "The line opened on 14 September 2023, about nine months late, because workers found "
        "a medieval bridge at Miller's Bend.\n"
        "Accept all cookies to continue reading our newsletter today.\n"
        "Why did the tram open late?\n")


def one_page(store: Store, tmp_path: Path, text: str = PAGE) -> None:
    """A Document with one known version (the HotpotQA-style path: text already known)."""
    item = {"_id": "p1", "question": "q?", "answer": "a", "supporting_facts": [],
            "context": [["Valmora", [text]]]}
    path = tmp_path / "page.json"
    path.write_text(json.dumps([item]))
    ingest(store, [path], fmt="hotpotqa")


def fake_llm(tmp_path: Path, *replies: str) -> LLM:
    model = scripted_model(replies)
    return LLM(model, cache_path=tmp_path / "llm.sqlite")


def test_rule_filter() -> None:
    kept = [PAGE[a:b] for a, b in rule_candidates(PAGE)]
    assert kept == [
        "The Valmora City Council approved the tramway on 21 March 2019 by 38 votes to 19.",
        "The line opened on 14 September 2023, about nine months late, because workers "
        "found a medieval bridge at Miller's Bend."]
    assert not keep_sentence("It will open in 2022 after the council vote.")  # pronoun
    assert not keep_sentence("| 12.4 | 9.8 | 22 | 18 | 2019 | 2023 |.")  # table row


@pytest.mark.parametrize("text", ["", " \n\n ", "Ein Satz auf Deutsch, der lang genug ist.",
                                  "城市议会于2019年批准了有轨电车项目。" * 50,
                                  "- item\n- item two\n| a | b |\n" * 2000,
                                  "word " * 400_000])
def test_rule_extractor_never_crashes(text: str) -> None:
    assert isinstance(rule_candidates(text), list)


def test_span_location() -> None:
    text = "He said “no” – twice.  Leo has neither been married nor fathered a child."
    assert locate(text, 'He said "no" - twice.').method == "normalised"
    fuzzy = locate(text, "Leo has neither been maried nor fathered any child")
    assert fuzzy.method == "fuzzy" and text[fuzzy.start:fuzzy.end] == fuzzy.span
    with pytest.raises(SpanRejected) as err:
        locate(text, "DiCaprio won the Academy Award for Best Actor in 2016.")
    assert err.value.reason == "span_not_found"


def test_rule_claims_on_real_pages_and_hotpotqa(store: Store, tmp_path: Path) -> None:
    real = SHARED / "real-web"
    files = sorted(p.name for p in real.glob("*.html"))
    with serve(real) as web:
        log = {"question": "q?", "answer": "a", "thinking": "A [1].", "sources": [
            {"id": i, "url": f"{web.url}/{f}"} for i, f in enumerate(files, 1)]}
        (tmp_path / "real.jsonl").write_text(json.dumps(log) + "\n")
        ingest(store, [tmp_path / "real.jsonl", HOTPOT])
        fetch(store, FetchOptions(allow_private=True))
    report = extract_claims(store, extractor="rule")
    assert report.claims > 1000
    [bad] = store.read(SUBSTRING_VIOLATIONS)
    assert bad["n"] == 0  # the substring property holds for 100% of stored claims
    # Every fetched real page with usable text yields claims.
    empty = store.read(
        "MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion {status: 'fetched'}) "
        "WHERE NOT (v)-[:HAS_CLAIM]->() RETURN d.url AS url, size(v.text) AS chars")
    assert empty == [], empty
    [hp] = store.read("MATCH (v:DocumentVersion {status: 'dataset'}) WITH v, "
                      "COUNT { (v)-[:HAS_CLAIM]->() } AS n RETURN count(v) AS versions, "
                      "sum(CASE WHEN n > 0 THEN 1 ELSE 0 END) AS with_claims")
    assert hp["with_claims"] >= 0.9 * hp["versions"]
    again = extract_claims(store, extractor="rule")
    assert again.versions == 0  # processed versions are not processed twice


def test_hallucinated_span_is_rejected_and_nothing_stored(store: Store, tmp_path: Path) -> None:
    one_page(store, tmp_path)
    reply = {"claim1": "Leonardo DiCaprio won an Oscar in 2016.",
             "supporting_text_span1": "DiCaprio finally won the Academy Award for Best Actor "
                                      "in 2016 for his role in 'The Revenant'"}
    report = extract_claims(store, extractor="llm", llm=fake_llm(tmp_path, json.dumps(reply)))
    assert report.claims == 0 and report.rejected_by_reason == {"span_not_found": 1}
    assert store.counts().get("Claim", 0) == 0
    [rej] = store.read("MATCH (:DocumentVersion)-[:REJECTED_CLAIM]->(r) RETURN r.reason AS "
                       "reason, r.span AS span")
    assert rej["reason"] == "span_not_found" and "Revenant" in rej["span"]


def test_scripted_model_outputs(store: Store, tmp_path: Path) -> None:
    one_page(store, tmp_path)
    good = {"claim1": "The Valmora City Council approved the tramway in March 2019.",
            "supporting_text_span1": "The Valmora City Council approved the tramway on "
                                     "21 March 2019 by 38 votes to 19.",
            "claim2": "The Valmora tramway opened in September 2023.",
            "supporting_text_span2": "The line opened on 14 September 2023, about nine "
                                     "months late",
            "claim3": "Copied from elsewhere.",
            "supporting_text_span3": "Meta is leaving its lease in The Domain, a mixed-use "
                                     "district in North Austin."}
    # Prose first: the repair turn gets valid JSON with one span from another document.
    llm = fake_llm(tmp_path, "Sure, here are some claims about the tram!", json.dumps(good))
    report = extract_claims(store, extractor="llm", llm=llm)
    assert report.claims == 2 and report.rejected_by_reason == {"span_not_found": 1}
    assert report.llm is not None and report.llm.repairs == 1 and report.llm.calls == 2
    [bad] = store.read(SUBSTRING_VIOLATIONS)
    assert bad["n"] == 0
    kept = store.read("MATCH (c:Claim) RETURN c.text AS t ORDER BY c.start")
    assert [r["t"] for r in kept] == [good["claim1"], good["claim2"]]


def test_broken_and_runaway_models(store: Store, tmp_path: Path) -> None:
    one_page(store, tmp_path)
    truncated = '{"claim1": "The council approved", "supporting_text_sp'
    llm = fake_llm(tmp_path, truncated, "")  # truncated, then nothing at all
    report = extract_claims(store, extractor="llm", llm=llm)
    assert report.failed_versions == 1 and report.llm is not None
    assert report.llm.failures == {"parse_error": 1}
    assert store.counts().get("Claim", 0) == 0
    # 500 claims for one page: the first MAX_CLAIMS_PER_PAGE are checked, the rest counted.
    span = "The Valmora City Council approved the tramway on 21 March 2019 by 38 votes to 19."
    flood = {k: v for i in range(1, 501) for k, v in (
        (f"claim{i}", f"Claim number {i} about the council."),
        (f"supporting_text_span{i}", span))}
    report = extract_claims(store, extractor="llm", llm=fake_llm(tmp_path / "2",
                                                                 json.dumps(flood)))
    assert report.claims == 1  # the same span once; duplicates rejected
    assert report.rejected_by_reason == {"duplicate_span": MAX_CLAIMS_PER_PAGE - 1,
                                         "too_many_claims": 500 - MAX_CLAIMS_PER_PAGE}
