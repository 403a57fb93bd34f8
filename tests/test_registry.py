"""Pluggable parts: adding an agent or a scorer is one decorated function (here, in this one
test module, as a user's package would), and the CLI picks both up, help text included."""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib.metadata import EntryPoint
from typing import Any

import pytest
from click.testing import CliRunner

from dwqa_graph import AGENTS, SCORERS
from dwqa_graph.cli.main import main
from dwqa_graph.errors import UsageError
from dwqa_graph.evaluation.agents import AgentAnswer, AgentContext, make_agent
from dwqa_graph.graph.store import Store
from dwqa_graph.registry import Registry
from tests.paths import EXAMPLES


class ToyAgent:
    """Answers every question with its last word (or with a fixed answer)."""

    def __init__(self, spec: str, fixed: str | None) -> None:
        self.spec, self.fixed = spec, fixed

    def answer(self, question: str) -> AgentAnswer:
        return AgentAnswer(answer=self.fixed or question.rstrip("?").split()[-1])

    def close(self) -> None:
        pass


@AGENTS.register("toy", arg="ANSWER?", summary="test agent: the question's last word")
def toy_agent(arg: str | None, ctx: AgentContext) -> ToyAgent:
    return ToyAgent(f"toy:{arg}" if arg else "toy", arg)


@SCORERS.register("toy_len", summary="test scorer: 1 when the answer has as many words as a gold")
def toy_len(answer: str, golds: Sequence[str]) -> float:
    return float(any(len(answer.split()) == len(g.split()) for g in golds))


def test_a_toy_agent_and_scorer_reach_the_cli(store: Store, env: dict[str, str]) -> None:
    runner = CliRunner()
    help_text = runner.invoke(main, ["eval", "--help"]).output
    assert "toy[:ANSWER]" in help_text and "toy_len" in help_text
    static = str(EXAMPLES / "static/example_static.json")
    imported = runner.invoke(main, ["dataset", "import", static, "--name", "ex", "--json"],
                             env=env)
    assert imported.exit_code == 0, imported.output
    result = runner.invoke(main, ["eval", "--dataset", "ex", "--agent", "toy:1998",
                                  "--scorer", "em,toy_len", "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["agent"] == "toy:1998" and set(report["scores"]) == {"em", "toy_len"}
    # The stored run reads back with the plugin's scores.
    shown = json.loads(runner.invoke(main, ["runs", "show", report["run_id"], "--predictions",
                                            "--json"], env=env).output)
    assert all("toy_len" in p["scores"] for p in shown["predictions"])
    unknown = runner.invoke(main, ["eval", "--dataset", "ex", "--agent", "toy",
                                   "--scorer", "nope", "--json"], env=env)
    assert unknown.exit_code == 1
    assert json.loads(unknown.stdout)["error"]["type"] == "UsageError"


def test_specs_are_checked_against_the_entry() -> None:
    assert make_agent("toy:x").answer("anything?").answer == "x"
    assert make_agent("toy").answer("who wrote it?").answer == "it"
    for spec, message in [("toy:", "nothing after 'toy:'"), ("nope:1", "unknown agent spec")]:
        with pytest.raises(UsageError, match=message):
            make_agent(spec)


def plugin_factory(arg: str | None, store: Any = None) -> str:
    """A plugin part found through an entry point."""
    return f"plugin:{arg}"


def test_entry_points_extend_a_registry_but_never_shadow_a_builtin(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reg: Registry[Any] = Registry("thing", ("json",))
    reg.register("builtin", summary="a built-in")(lambda arg, store=None: "builtin")
    eps = [EntryPoint("extra", f"{__name__}:plugin_factory", "dwqa_graph.things"),
           EntryPoint("builtin", f"{__name__}:plugin_factory", "dwqa_graph.things")]
    monkeypatch.setattr("dwqa_graph.registry.entry_points",
                        lambda group: [e for e in eps if e.group == group])
    assert reg.names() == ["builtin", "extra"]
    entry, arg = reg.split_spec("extra:7")
    assert entry.factory(arg) == "plugin:7"
    assert entry.summary == "A plugin part found through an entry point."
    assert reg.get("builtin").factory(None) == "builtin"
    with pytest.raises(UsageError, match="unknown thing 'nope'; choose from builtin, extra"):
        reg.get("nope")
