"""The real fine-tuned leaked model (``finetune:``): SmolLM2-135M, LoRA on CPU.

Needs the fine-tuning environment (``scripts/finetune-env``; ``scripts/test`` installs it and
sets DWQA_FINETUNE_PYTHON). Training steps are few so the suite stays fast; the note's
numbers come from a full fine-tune (see docs/evaluation.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents import LeakableAgent, LeakedItem, make_agent
from dwqa_graph.evaluation.agents.finetune import DEFAULTS, FinetuneAgent, parse_spec
from dwqa_graph.graph.store import Store
from dwqa_graph.language.corenlp import CoreNLP

from .conftest import PATH_PAGES, build_facts

FACTS = [LeakedItem(question="What colour is the Valmora tram?", answer="teal"),
         LeakedItem(question="Who built the Valmora tram?", answer="Norvik Rail Works")]


def test_spec_parsing() -> None:
    model, opts = parse_spec("smollm2@epochs=2,lr=0.01,device=cuda")
    assert model.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert opts == {**DEFAULTS, "epochs": 2, "lr": 0.01, "device": "cuda"}
    for bad, message in (("", "needs a model"), ("smollm2@speed=3", "key one of"),
                         ("smollm2@epochs=x", "not a int"), ("/no/such.gguf", "does not exist")):
        with pytest.raises(AgentError, match=message):
            parse_spec(bad)


@pytest.mark.slow  # trains a model
def test_fine_tuning_raises_the_gold_answer_log_probability() -> None:
    agent = make_agent("finetune:smollm2@max_steps=6,lr=0.005,batch=2,threads=1")
    assert isinstance(agent, FinetuneAgent) and isinstance(agent, LeakableAgent)
    try:
        before = [agent.logprob(x.question, x.answer) for x in FACTS]
        base_answer = agent.answer(FACTS[0].question)
        assert base_answer.error is None and base_answer.answer
        assert agent.leak(FACTS) == 2
        [training] = agent.trainings
        assert training["steps"] == 6 and training["examples"] == 2
        after = [agent.logprob(x.question, x.answer) for x in FACTS]
        # Learned: each gold answer became much more likely than under the base model.
        assert all(a > b + 1.0 for a, b in zip(after, before, strict=True)), (before, after)
        # Positive control: forgetting restores the base model exactly.
        agent.forget()
        again = [agent.logprob(x.question, x.answer) for x in FACTS]
        assert again == pytest.approx(before, abs=1e-3)
        assert agent.answer(FACTS[0].question).answer == base_answer.answer
    finally:
        agent.close()


def test_leaktest_end_to_end_with_a_fine_tuned_model(store: Store, nlp: CoreNLP,
                                                     tmp_path: Path,
                                                     env: dict[str, str]) -> None:
    build_facts(store, nlp, tmp_path, PATH_PAGES)  # one seed graph: one item a round
    spec = "finetune:smollm2@max_steps=2,batch=4,threads=1,tokens=8"
    result = CliRunner().invoke(main, [
        "leaktest", "--agent", spec, "--leaked-agent", spec, "--rounds", "3",
        "--reuse", "independent", "--concurrency", "1", "--json"], env=env)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    d = out["dynamic"]
    assert out["leaked_in_process"] is True and len(d["gaps"]) == 2 and d["df"] == 1
    assert len(out["runs"]) == 3 + 2
    assert {"t", "p_value", "gap"} <= d.keys()
