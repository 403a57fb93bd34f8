"""The LLM layer with langchain-core's fake chat models: structured output, repair,
failures, caching, prompts, the LLM step parser."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from dwqa_graph.errors import LLMError
from dwqa_graph.ingest.steps import LLMStepParser
from dwqa_graph.llm import LLM, LLMFailure, load_prompt, make_llm, parse_json

from .conftest import DATA, scripted_model


def scripted(tmp_path: Path, *replies: str, **kw: object) -> LLM:
    model = scripted_model(replies)
    return LLM(model, cache_path=tmp_path / "cache.sqlite", **kw)  # type: ignore[arg-type]


def test_parse_json_variants() -> None:
    assert parse_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json('Sure! Here it is: [1, 2] hope it helps') == [1, 2]
    assert parse_json("{'claim1': 'x'}") == {"claim1": "x"}  # Python-literal style
    for bad in ("I cannot do that.", '{"claim1": "x", "supp', ""):
        with pytest.raises(ValueError):
            parse_json(bad)


def test_repair_turn_then_success(tmp_path: Path) -> None:
    llm = scripted(tmp_path, "Here are the claims you asked for.", '{"x": 3}')
    assert llm.structured("give x", lambda d: d["x"]) == 3
    assert (llm.stats.calls, llm.stats.repairs, llm.stats.failures) == (2, 1, {})


def test_two_bad_replies_are_a_counted_failure(tmp_path: Path) -> None:
    llm = scripted(tmp_path, '{"claim1": "trunc', '{"wrong": "keys"}')
    with pytest.raises(LLMFailure) as err:
        llm.structured("give x", lambda d: d["x"])
    assert err.value.reason == "parse_error" and err.value.raw == '{"wrong": "keys"}'
    assert llm.stats.failures == {"parse_error": 1}


def test_cache_makes_no_new_calls(tmp_path: Path) -> None:
    first = scripted(tmp_path, '{"x": 1}')
    assert first.structured("same prompt", lambda d: d["x"]) == 1
    first.close()
    again = scripted(tmp_path)  # no replies scripted: any real call would fail
    assert again.structured("same prompt", lambda d: d["x"]) == 1
    assert (again.stats.calls, again.stats.cache_hits) == (0, 1)


def test_errors_are_retried_then_counted(tmp_path: Path) -> None:
    llm = scripted(tmp_path, retries=1)  # the fake raises StopIteration when out of replies
    with pytest.raises(LLMFailure) as err:
        asyncio.run(llm.acall([]))
    assert err.value.reason == "error" and llm.stats.calls == 2


def test_concurrency_is_bounded(tmp_path: Path) -> None:
    active, peak = 0, 0

    class Slow(GenericFakeChatModel):
        async def ainvoke(self, *a: object, **k: object) -> AIMessage:  # type: ignore[override]
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.05)
            active -= 1
            return AIMessage('{"x": 1}')

    llm = LLM(Slow(messages=iter([])), cache_path=tmp_path / "c.sqlite", concurrency=3)

    async def many() -> None:
        await asyncio.gather(*(llm.astructured(f"p{i}", lambda d: d) for i in range(12)))

    asyncio.run(many())
    assert peak == 3 and llm.stats.calls == 12


def test_make_llm_specs() -> None:
    model = make_llm("http://127.0.0.1:8799/v1#smollm2", temperature=0.2)
    assert model._identifying_params["model"] == "smollm2"
    with pytest.raises(LLMError, match="unknown --llm"):
        make_llm("nonsense")
    with pytest.raises(LLMError, match=r"pip install 'dwqa-graph\[anthropic\]'"):
        make_llm("anthropic:claude-x")


@pytest.mark.parametrize("name", ["claims", "transcript_formatter", "path_wording",
                                  "paraphrase_checker"])
def test_prompts_load_render_and_hash(name: str) -> None:
    prompt = load_prompt(name)
    assert prompt.version and len(prompt.hash) == 16
    placeholders = {"text": "T", "max_claims": 5, "question": "Q", "answer": "A",
                    "transcript": "X", "question_set": "1. q", "form": "bridge",
                    "answer_type": "date", "facts": "{}", "reference": "R", "must_name": "N",
                    "must_not_name": "M"}
    used = {k: v for k, v in placeholders.items() if "{{" + k + "}}" in prompt.template}
    assert used, name
    rendered = prompt.render(**used)
    assert "{{" not in rendered
    with pytest.raises(KeyError):
        prompt.render()


def test_llm_step_parser(tmp_path: Path) -> None:
    log = json.loads((DATA / "meta_austin.json").read_text())
    reply = {"thoughts": [
        {"id": 1, "text": "Meta is in talks to reincorporate in Texas [8].",
         "step_type": "evidence", "cites": [{"id": 8, "stance": "neutral"}]},
        {"id": 2, "text": "Meta is leaving The Domain [4].", "step_type": "evidence",
         "cites": [{"id": 4, "stance": "supports"}]},
        {"id": 3, "text": "Therefore Meta has not moved.", "step_type": "conclude",
         "cites": []}],
        "answer": {"text": "It hasn't moved", "cites": [{"id": 8, "stance": "supports"}]}}
    llm = scripted(tmp_path, "```json\n" + json.dumps(reply) + "\n```")
    parsed = LLMStepParser(llm).parse(log["thinking"], question=log["question"],
                                      answer=log["answer"])
    assert [s.step_type for s in parsed.thoughts] == ["evidence", "evidence", "conclude"]
    assert parsed.thoughts[0].cites[0].stance == "neutral"
    assert parsed.parser.startswith("llm:") and parsed.answer_cites[0].id == 8
    # A model that answers with prose twice: the rule parser takes over, the failure counts.
    broken = scripted(tmp_path / "b", "I think there are three steps.", "Still prose.")
    fallback = LLMStepParser(broken).parse(log["thinking"])
    assert fallback.parser == "rule" and broken.stats.failures == {"parse_error": 1}
