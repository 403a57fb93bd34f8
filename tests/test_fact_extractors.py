"""One contract for every fact extractor (``facts/extractor.py``): the CoreNLP and the LLM
extractor pass the same test, on the same pages, through the same stage loop."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.errors import UsageError
from dwqa_graph.facts.extractor import MAX_VERSION_CHARS, FactExtractor, Reading, make_extractor
from dwqa_graph.facts.models import SCHEMA, Relation, allows
from dwqa_graph.facts.stage import run_extractor
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.llm import LLM, make_llm
from dwqa_graph.registry import FACT_EXTRACTORS
from dwqa_graph.rounds.forms import form_params

from .replay_llm import replay

PAGES = {
    "Low Water": "Low Water is a 2016 drama film directed by Petra Vilde. It was released "
                 "on 3 March 2016 in Norway.",
    "Petra Vilde": "Petra Vilde (born 12 May 1971) is a Norwegian film director.",
}
#: What a capable model replies to the facts prompt for the page "Low Water" (its claims,
#: numbered), with one fact the schema refuses: a film has no birth date.
LOW_WATER_REPLY = {"facts": [
    {"sentence": 1, "subject": "Low Water", "subject_type": "MISC", "relation": "directed_by",
     "object": "Petra Vilde", "object_type": "PERSON",
     "evidence": "drama film directed by Petra Vilde"},
    {"sentence": 1, "subject": "Low Water", "subject_type": "MISC", "relation": "born",
     "date": "2016", "evidence": "Low Water is a 2016 drama film"},
]}
PETRA_REPLY = {"facts": [
    {"sentence": 1, "subject": "Petra Vilde", "subject_type": "PERSON", "relation": "born",
     "date": "1971-05-12", "evidence": "born 12 May 1971"},
]}


def _pages(store: Store, tmp_path: Path) -> None:
    item = {"_id": "q1", "question": "Who directed Low Water?", "answer": "Petra Vilde",
            "supporting_facts": [], "context": [[t, [x]] for t, x in PAGES.items()]}
    path = tmp_path / "pages.json"
    path.write_text(json.dumps([item]))
    ingest(store, [path], fmt="hotpotqa")
    extract_claims(store)


@contextmanager
def extractor_for(name: str, nlp: CoreNLP, store: Store, tmp_path: Path,
                  ) -> Iterator[FactExtractor]:
    """The extractor ``name`` on the pages of ``_pages``. The LLM one talks to a loopback
    OpenAI-compatible server that replies, by prompt hash, what a capable model replies to
    the facts prompt of each page: a first pass records the prompts the extractor sends."""
    if name == "corenlp":
        with make_extractor("corenlp", nlp=nlp) as reader:
            yield reader
        return
    replies = {"Low Water": LOW_WATER_REPLY, "Petra Vilde": PETRA_REPLY}
    with replay({}) as srv:
        def llm(cache: str) -> LLM:
            return LLM(make_llm(srv.url), cache_path=tmp_path / cache)

        with make_extractor("llm", llm=llm("record.sqlite")) as recorder:
            pending = store.query("facts/pending", extractor=recorder.key, after="",
                                  limit=50, claims_only=True, max_chars=MAX_VERSION_CHARS)
            list(recorder.read(pending))
        for key, messages in srv.missing.items():
            title = messages[-1]["content"].split("Page title: ", 1)[1].split("\n", 1)[0]
            srv.replies[key] = json.dumps(replies[title])
        with make_extractor("llm", llm=llm("llm.sqlite")) as reader:
            yield reader


@pytest.mark.parametrize("name", ["corenlp", "llm"])
def test_an_extractor_keeps_the_contract(name: str, store: Store, nlp: CoreNLP,
                                         tmp_path: Path) -> None:
    _pages(store, tmp_path)
    with extractor_for(name, nlp, store, tmp_path) as extractor:
        _check_contract(store, extractor)


def _check_contract(store: Store, extractor: FactExtractor) -> None:
    versions = store.query("facts/pending", extractor=extractor.key, after="", limit=50,
                           claims_only=extractor.claims_only, max_chars=MAX_VERSION_CHARS)
    assert len(versions) == 2
    texts = {v["id"]: v["text"] for v in versions}
    got = list(extractor.read(versions))
    # one result per version, in input order
    assert [v["id"] for v, _ in got] == [v["id"] for v in versions]
    facts = [f for _, r in got if isinstance(r, Reading) for f in r.facts]
    assert facts, "the extractor read nothing"
    for f in facts:
        assert f.extractor == extractor.key
        assert texts[f.version_id][f.start:f.end] == f.evidence  # verbatim, exact offsets
        assert f.relation in SCHEMA
        assert allows(f.relation, f.subject.type, f.object.type if f.object else None)
    # what both read: the film's director, the director's birth date
    assert ("Low Water", "directed_by", "Petra Vilde") in {
        (f.subject.name, f.relation, f.object.name if f.object else None) for f in facts}
    assert ("Petra Vilde", "born", "1971-05-12") in {
        (f.subject.name, f.relation, f.date) for f in facts}
    # through the stage: stored once, and a second run reads nothing
    report = run_extractor(store, extractor)
    assert report.versions == 2 and report.facts == len(facts) and report.failed_versions == 0
    assert run_extractor(store, extractor).versions == 0
    stored = store.read("MATCH (f:Fact) RETURN count(f) AS n, collect(DISTINCT f.extractor) "
                        "AS ex")
    assert stored == [{"n": len(facts), "ex": [extractor.key]}]


def test_the_llm_extractor_holds_model_facts_to_the_schema(store: Store, nlp: CoreNLP,
                                                           tmp_path: Path) -> None:
    """The model's "Low Water born 2016" has its year in the evidence and its subject in the
    span: only the schema refuses it. The CoreNLP rules hold their facts to the same check."""
    _pages(store, tmp_path)
    with extractor_for("llm", nlp, store, tmp_path) as reader:
        report = run_extractor(store, reader)
    assert report.rejected_by_reason == {"types_not_in_schema": 1}
    assert report.facts == 2
    assert not allows("born", "MISC", None) and allows("born", "PERSON", None)


def test_the_registry_names_both_and_refuses_others() -> None:
    assert {"corenlp", "llm"} <= set(FACT_EXTRACTORS.names())
    with pytest.raises(UsageError, match="unknown fact_extractor 'nope'"):
        make_extractor("nope")
    with pytest.raises(UsageError, match="needs --llm"):
        make_extractor("llm")


def named_relations(value: object) -> set[str]:
    """Every string in a form's query parameters (relation lists, pairs of relations)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(named_relations(v) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(named_relations(v) for v in value))
    return set()


def test_the_schema_is_the_relation_vocabulary() -> None:
    assert set(Relation.__args__) == set(SCHEMA)  # type: ignore[attr-defined]
    # every relation a question form takes is one of the schema's
    named = named_relations(form_params())
    assert named and named <= set(SCHEMA), named - set(SCHEMA)
    assert not named_relations({"bridge": {"first": ["directed_by", "sank"]}}) <= set(SCHEMA)
