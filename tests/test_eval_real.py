"""Evaluation against a real local model (SmolLM2-135M on llama.cpp's OpenAI-compatible
server): a closed-book agent, the LLM judge and the pretraining checks, through the CLI.

The numbers are whatever a 135M model gives; what is asserted is that everything runs end to
end, scores are well-formed, and failures are counted rather than crashing the run.
"""

from __future__ import annotations

import json
import math

from click.testing import CliRunner

from dwqa_graph.cli.main import main
from dwqa_graph.graph.store import Store
from tests.paths import REPO_ROOT

STATIC = REPO_ROOT / "examples" / "static" / "example_static.json"


def _run(env: dict[str, str], *args: str) -> dict:
    result = CliRunner().invoke(main, [*args, "--json"], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_closed_book_eval_and_llm_judge_with_a_real_model(store: Store, env: dict[str, str],
                                                          llm_url: str) -> None:
    _run(env, "dataset", "import", str(STATIC), "--name", "example-static")
    out = _run(env, "eval", "--dataset", "example-static", "--agent", f"closedbook:{llm_url}",
               "--scorer", "em,f1,judge", "--judge-llm", llm_url, "--concurrency", "2")
    assert out["n"] == 14 and out["judge"].startswith("llm:")
    for scorer in ("em", "f1", "judge"):
        s = out["scores"][scorer]
        assert 0.0 <= s["ci_low"] <= s["score"] <= s["ci_high"] <= 1.0 and math.isfinite(s["score"])
    # Every item was graded; unparseable judge replies are counted, not dropped.
    assert out["llm"]["calls"] + out["llm"]["cache_hits"] >= 14
    assert out["judge_fallbacks"] == out["llm"]["failures"].get("unparseable_label", 0)
    preds = _run(env, "runs", "show", out["run_id"], "--predictions")["predictions"]
    assert len(preds) == 14
    assert all(p["judge"] in ("CORRECT", "INCORRECT", "NOT_ATTEMPTED") for p in preds)
    assert all(p["retrieved"] == [] for p in preds)  # closed book: no retrieval trace
    assert out["agent_llm"]["calls"] + out["agent_llm"]["cache_hits"] >= 14
    answered = [p for p in preds if p["error"] is None]
    assert answered, "the model answered nothing"
    assert all(p["answer"] == p["answer"].strip() and "\n" not in p["answer"] for p in answered)


def test_pretraining_check_with_a_real_model_through_the_cli(store: Store, env: dict[str, str],
                                                             llm_url: str) -> None:
    _run(env, "dataset", "import", str(STATIC), "--name", "example-static")
    out = _run(env, "contamination", "pretraining", "--llm", llm_url,
               "--dataset", "example-static")
    guided, min_k = out["guided_completion"], out["min_k_prob"]
    assert guided["items"] == 14
    assert guided["scored"] + sum(guided["failures"].values()) == 14
    assert 0.0 <= guided["mean_rouge_l"] <= 1.0
    assert min_k["available"] is True and min_k["scored"] >= 1
    assert min_k["mean"] < 0 and math.isfinite(min_k["mean"])  # mean log-prob of the rarest 20%
    rows = store.read("MATCH (c:ContaminationCheck {kind: 'pretraining'}) "
                      "RETURN c.dataset AS d, c.total AS n")
    assert rows == [{"d": "example-static", "n": guided["scored"]}]
