"""Any Python callable as an agent."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents.base import (
    AgentAnswer,
    AgentContext,
    capped,
    failed,
)
from dwqa_graph.registry import AGENTS


class PythonAgent:
    """``f(question)`` returning a str, an AgentAnswer or a dict in AgentAnswer's shape."""

    def __init__(self, spec: str, func: Callable[[str], Any]) -> None:
        self.spec = spec
        self.func = func

    def close(self) -> None:
        pass

    def answer(self, question: str) -> AgentAnswer:
        try:
            out = self.func(question)
        except Exception as exc:
            return failed(f"{type(exc).__name__}: {exc}")
        if isinstance(out, str):
            return AgentAnswer(answer=out)
        try:
            reply = (out if isinstance(out, AgentAnswer)
                     else AgentAnswer.model_validate(out) if isinstance(out, dict) else None)
        except ValidationError as exc:
            return failed(f"{self.spec} returned a dict that is not an AgentAnswer: {exc}")
        if reply is None:
            return failed(f"{self.spec} returned {type(out).__name__}; expected str, "
                           "AgentAnswer or dict")
        return reply.model_copy(update={"retrieved": [capped(d) for d in reply.retrieved]})


def _load_callable(target: str) -> Callable[[str], Any]:
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise AgentError(f"python agent {target!r}: use python:module:function "
                         "(e.g. python:my_agents.web:answer)")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentError(f"python agent: cannot import module {module_name!r}: {exc}. "
                         "Is it installed or on PYTHONPATH?") from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentError(f"python agent: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AgentError(f"python agent: {module_name}:{attr} is a {type(obj).__name__}, "
                         "not a function")
    return obj  # type: ignore[no-any-return]


# -- Perplexica ---------------------------------------------------------------------------------


@AGENTS.register("python", arg="MODULE:FUNC",
                 summary="any callable f(question) -> str | dict | AgentAnswer")
def python_agent(arg: str | None, ctx: AgentContext) -> PythonAgent:
    return PythonAgent(f"python:{arg}", _load_callable(arg or ""))
