"""Fact paths worded by a model, replayed: the model only words, the checks still decide.

tests/data/path_wording_replay.json holds the exact prompts (prompts/path_wording.md) the
paths generator sent for round seed 1 over the example's film pages and the replies a
capable stand-in model wrote to them; a loopback OpenAI-compatible server answers by
sha256 of the messages. Facts are read by the real CoreNLP, paths enumerated in the real
Neo4j, replies parsed by the real HTTP client. Some replies are wrong on purpose, as models
are: each must be caught by its check, and the graph then offers the model its next path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.facts.stage import extract_facts
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.language.corenlp import CoreNLP
from dwqa_graph.llm import LLM
from dwqa_graph.openai_compat import OpenAICompatChat
from dwqa_graph.rounds.path_generate import PathGenerator
from dwqa_graph.rounds.round import export_rows, new_round
from dwqa_graph.rounds.sampling import SampleConfig
from dwqa_graph.web.fetch import FetchOptions, fetch
from dwqa_graph.web.localweb import serve
from tests.paths import EXAMPLES

from .conftest import DATA
from .replay_llm import prompt_hash, replay

FIXTURE_PATH = DATA / "path_wording_replay.json"
FIXTURE = json.loads(FIXTURE_PATH.read_text())


def test_fixture_is_keyed_by_prompt_hash() -> None:
    for key, prompt in FIXTURE["prompts"].items():
        assert prompt_hash([{"role": "user", "content": prompt}]) == key
    assert FIXTURE["replies"].keys() == FIXTURE["prompts"].keys()


@pytest.fixture
def films(store: Store, nlp: CoreNLP, tmp_path: Path) -> Store:
    # on the port the log cites: document ids (and so the draws) depend on the URLs
    with serve(EXAMPLES / "web", port=8765):
        ingest(store, [EXAMPLES / "logs" / "film_runs.jsonl"], dataset="films")
        fetch(store, FetchOptions(allow_private=True))
    extract_claims(store, extractor="rule")
    extract_facts(store, nlp=nlp)
    return store


def run(store: Store, tmp: Path, name: str) -> tuple[list[dict], dict, set[str]]:
    recording = os.environ.get("DWQA_RECORD")  # a file: record every prompt afresh there
    with replay({} if recording else FIXTURE["replies"]) as srv:
        llm = LLM(OpenAICompatChat(base_url=srv.url, model="replay"),
                  cache_path=tmp / f"{name}.sqlite")
        report = new_round(store, seed=1, generator=PathGenerator(llm), cfg=SampleConfig(),
                           dataset="films", previous=0)
        if recording:
            Path(recording).write_text(json.dumps(
                {k: m[0]["content"] for k, m in srv.missing.items() if len(m) == 1},
                indent=1, ensure_ascii=False))
        assert srv.missing == {}, f"a prompt changed: re-record {FIXTURE_PATH.name}"
        served = {prompt_hash(r["messages"]) for r in srv.requests}
    return export_rows(store, report.round), report.model_dump(), served


def test_model_worded_round_replays(films: Store, tmp_path: Path) -> None:
    rows, report, served = run(films, tmp_path, "a")
    assert served == set(FIXTURE["prompts"])  # every recorded prompt, nothing else
    # Ten graphs, ten items. Three replies are wrong as models are wrong, and each is caught:
    # one names the director the question leaves to the reader (llm_reveals), one gives the
    # computed number away with its unit ("..., a gap of 44 years?": answer_in_question),
    # one leaves out the film the question must name ("the person who directed the film":
    # llm_unnamed); each graph then offered its next path. no_shortcut, same_answer and one
    # answer_in_question are the template wording's rejections of paths a graph offers
    # before any model call. (A reply that says "its director" before it names the film,
    # dangling_reference, is tests/test_checks.py's.)
    assert report["items"] == report["graphs"] == 10 and report["no_item_reasons"] == {}
    assert report["rejected_by_reason"] == {"answer_in_question": 2, "llm_reveals": 1,
                                            "llm_unnamed": 1, "no_shortcut": 14,
                                            "same_answer": 13}
    assert report["llm"]["calls"] == len(FIXTURE["prompts"]) == 13
    assert report["generator"] == "paths-llm:openai-compatible:replay"
    details = {r["id"]: json.loads(r["detail"]) for r in films.read(
        "MATCH (i:QAItem) RETURN i.id AS id, i.detail AS detail")}
    replies = {json.loads(r)["question"] for r in FIXTURE["replies"].values()}
    for row in rows:
        d = details[row["id"]]
        # the model's words, not the template's, and the computed answer, not the model's
        assert row["phrasing"] == "llm" and row["question"] in replies
        assert row["question"] != d["template_question"]
        assert row["answer"] not in row["question"]
        if row["pattern"] == "bridge":  # the middle entity stays the reader's to find
            assert all(p not in row["question"] for p in
                       ("Halvard Ostrem", "Ingrid Tallmark", "Petra Vilde", "Ruth Aldane",
                        "Mats Fennick", "Sigrid Holm")), row["question"]
    [theta] = films.read("MATCH (r:Round) RETURN r.theta AS theta")
    wording = json.loads(theta["theta"])["wording"]
    assert wording["model"]["model"] == "replay" and len(wording["prompt"]) == 16
    again, report2, _ = run(films, tmp_path, "b")  # same seed, same replies, same round
    assert [(r["question"], r["answer"]) for r in again] == \
        [(r["question"], r["answer"]) for r in rows]
    assert report2["rejected_by_reason"] == report["rejected_by_reason"]


def test_round_without_a_model_is_worded_by_templates(films: Store) -> None:
    """Control: the same round without a model sends nothing and words by template."""
    report = new_round(films, seed=1, generator=PathGenerator(), cfg=SampleConfig(),
                       dataset="films", previous=0)
    rows = export_rows(films, report.round)
    assert report.items >= 8 and report.llm is None and report.generator == "paths"
    assert all(r["phrasing"] != "llm" for r in rows)
