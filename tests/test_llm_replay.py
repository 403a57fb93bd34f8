"""The LLM generator's round over the held-out HotpotQA sample, replayed reproducibly.

tests/data/llm_replay.json holds the exact prompts LLMGenerator (prompts v2) sent for round
seed 11 over the shared HotpotQA sample and the replies a capable model wrote to them; a
loopback OpenAI-compatible server (tests/replay_llm.py) answers by sha256 of the messages.
The round is rerun here end to end (ingest, claims, entity layer, sampling, the real HTTP
client, the rubric checks) and must send exactly the recorded prompts.

The generator's model is also the round's closed-book probe: tests/data/llm_replay_closed_book
.json holds the question-only prompts (prompts/closed_book_check.md) sent for the candidates
that pass every mechanical check, with the replies a capable model gives from memory."""

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
CLOSED_BOOK = json.loads((DATA / "llm_replay_closed_book.json").read_text())


def test_fixture_is_keyed_by_prompt_hash() -> None:
    for fixture in (FIXTURE, CLOSED_BOOK):
        for key, prompt in fixture["prompts"].items():
            assert prompt_hash([{"role": "user", "content": prompt}]) == key
        assert fixture["replies"].keys() == fixture["prompts"].keys()


def run(store: Store, tmp: Path, name: str) -> tuple[list[dict], int, dict]:
    with replay({**FIXTURE["replies"], **CLOSED_BOOK["replies"]}) as srv:
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
    assert served == len(FIXTURE["prompts"]) + len(CLOSED_BOOK["prompts"]) == 14 + 3
    # Fourteen seed graphs of the sample have a connected candidate for seed 11, nine of
    # them a comparison of two subjects of one kind (two drivers' births, two films'
    # releases). The model follows the v2 prompt's "connected facts only" and declines
    # those nine ([]: the two subjects share nothing named). Three candidates pass every
    # mechanical check -- and the model answers all three from memory (HotpotQA asks about
    # Wikipedia's best-known facts), so the closed-book check rejects them. The others
    # name a work that identifies the answer alone, or the reader cannot recover their
    # answers from the spans.
    assert report["check_rejections"] == {
        "self_contained": 0, "not_verbatim": 0, "solvable": 2, "no_shortcut": 1,
        "coherent": 1, "date_roles": 0, "conjunction": 0, "closed_book": 3}
    assert report["rejected_by_reason"] == {"closed_book": 3, "clue_sufficient": 1,
                                            "llm_no_item": 9, "not_solvable": 2,
                                            "unrelated_claims": 1}
    assert report["items"] == 0 and first == []
    again, _, report2 = run(store, tmp_path, "b")
    assert again == first  # same seed, same replies, same verdicts
    for k in ("rejected_by_reason", "check_rejections", "no_item_reasons", "attempts"):
        assert report2[k] == report[k]
    # the closed-book prompts served were exactly the recorded ones: these questions came out
    questions = {p.split("Question: ")[1].split("\n")[0] for p in CLOSED_BOOK["prompts"].values()}
    assert ("How old was photographer Terry Richardson when his photo-book with Lady Gaga was "
            "released?") in questions
