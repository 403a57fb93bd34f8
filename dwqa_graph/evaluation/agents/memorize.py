"""The verbatim-recall leaked agent: ``memorize:SPEC``.

What it models: a model that memorised the leaked test items word for word and recalls an
answer only when asked the same question (exactly, or after SQuAD normalisation). It is the
upper bound of memorisation on a leaked static set and helps on a fresh round only when a
question repeats verbatim. See ``recall:`` (paraphrase-tolerant) and ``knowledge:`` (learned
facts) for leaked models that generalise."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from dwqa_graph.evaluation.agents.base import (
    Agent,
    AgentAnswer,
    AgentContext,
    Leakable,
    as_leaked,
)
from dwqa_graph.registry import AGENTS
from dwqa_graph.text import normalize_answer


# -- a leaked agent ---------------------------------------------------------------------------
class MemorizingAgent:
    """An agent given the test items (the offline stand-in for fine-tuning on them): a leaked
    question is answered from memory, exactly or after normalisation; anything else goes to
    the wrapped agent."""

    def __init__(self, spec: str, inner: Agent) -> None:
        self.spec = spec
        self.inner = inner
        self._lock = threading.Lock()
        self._exact: dict[str, str] = {}
        self._normalised: dict[str, str] = {}

    @staticmethod
    def _key(question: str) -> str:
        return normalize_answer(question)

    def leak(self, items: Iterable[Leakable]) -> int:
        pairs = [(x.question, x.answer) for x in map(as_leaked, items)]  # evidence unused
        with self._lock:
            for question, answer in pairs:
                self._exact[question] = answer
                if key := self._key(question):  # "???" must not match every "!!!"
                    self._normalised[key] = answer
            return len(self._exact)

    def forget(self) -> None:
        with self._lock:
            self._exact.clear()
            self._normalised.clear()

    def answer(self, question: str) -> AgentAnswer:
        key = self._key(question)
        with self._lock:
            if question in self._exact:
                hit: tuple[str, str] | None = (self._exact[question], "exact")
            elif key and key in self._normalised:
                hit = (self._normalised[key], "normalised")
            else:
                hit = None
        if hit is not None:
            return AgentAnswer(answer=hit[0], steps=[f"memorised: {hit[1]}"])
        return self.inner.answer(question)  # outside the lock: the inner agent is slow

    def close(self) -> None:
        self.inner.close()


@AGENTS.register("memorize", arg="SPEC",
                 summary="leaked agent: answers leaked questions from memory (exact or "
                         "normalised match), defers to the agent SPEC otherwise")
def memorize_agent(arg: str | None, ctx: AgentContext) -> MemorizingAgent:
    return MemorizingAgent(f"memorize:{arg}", ctx.inner(arg))
