"""The LLM generator's round over the held-out HotpotQA sample, replayed reproducibly.

tests/data/llm_replay.json holds the exact prompts LLMGenerator (prompts v2) sent for round
seed 11 over the shared HotpotQA sample and the replies a capable model wrote to them; a
loopback OpenAI-compatible server (tests/replay_llm.py) answers by sha256 of the messages.
The round is rerun here end to end (ingest, claims, entity layer, sampling, the real HTTP
client, the rubric checks) and must send exactly the recorded prompts."""

from __future__ import annotations

import json
from pathlib import Path

from dwqa_graph.claims.extract import extract_claims
from dwqa_graph.graph.store import Store
from dwqa_graph.ingest.logs import ingest
from dwqa_graph.llm import LLM, OpenAICompatChat
from dwqa_graph.rounds.generate import LLMGenerator
from dwqa_graph.rounds.round import export_rows, new_round
from dwqa_graph.rounds.sampling import SampleConfig

from .conftest import DATA, HOTPOT
from .replay_llm import prompt_hash, replay

FIXTURE = json.loads((DATA / "llm_replay.json").read_text())


def test_fixture_is_keyed_by_prompt_hash() -> None:
    for key, prompt in FIXTURE["prompts"].items():
        assert prompt_hash([{"role": "user", "content": prompt}]) == key
    assert FIXTURE["replies"].keys() == FIXTURE["prompts"].keys()


def run(store: Store, tmp: Path, name: str) -> tuple[list[dict], int, dict]:
    with replay(FIXTURE["replies"]) as srv:
        llm = LLM(OpenAICompatChat(base_url=srv.url, model="replay"),
                  cache_path=tmp / f"{name}.sqlite")
        report = new_round(store, seed=11, generator=LLMGenerator(llm),
                           cfg=SampleConfig(attempts=1), dataset="dev-distractor-sample",
                           previous=0)  # both runs as round 1 (no previous round to avoid)
        assert srv.missing == {}, "a prompt changed: re-record tests/data/llm_replay.json"
        served = srv.served
    rows = [{k: r[k] for k in ("query_id", "question", "answer", "pattern", "checks")}
            for r in export_rows(store, report.round)]
    return rows, served, report.model_dump()


def test_llm_round_replays_reproducibly(store: Store, tmp_path: Path) -> None:
    ingest(store, [HOTPOT])
    extract_claims(store, extractor="rule")
    first, served, report = run(store, tmp_path, "a")
    assert served == len(FIXTURE["prompts"]) == 10
    # Three prompts the model answered with [] (no stated causal chain): NO_ITEM, counted.
    assert report["rejected_by_reason"] == {"llm_no_item": 3}
    assert report["items"] == 7 and report["patterns"] == {"temporal": 7}
    assert all(set(r["checks"]) >= {"self_contained", "not_verbatim", "solvable",
                                    "no_shortcut", "coherent", "date_roles"} for r in first)
    again, _, _ = run(store, tmp_path, "b")
    assert again == first  # same seed, same replies, same items
    questions = {r["question"] for r in first}
    assert ("How many years after True Lies came out did Arnold Schwarzenegger star in End "
            "of Days?") in questions
