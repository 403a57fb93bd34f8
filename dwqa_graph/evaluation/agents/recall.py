"""The paraphrase-tolerant recall leaked agent: ``recall:SPEC``.

What it models: a model that memorised the leaked (question, answer) pairs and recalls the
answer of the leaked question *most like* the one it is asked, even when the wording
changed; it learned nothing about the facts behind them. Between ``memorize:`` (verbatim
recall only) and ``knowledge:`` (learned facts).

Similarity is lexical and deterministic: the Jaccard index of the two questions' content
terms (stemmed words without stop or question words, ``reader.content_terms``):
``|A ∩ B| / |A ∪ B|``. A fresh question is answered from memory when its best leaked match
reaches ``RECALL_THRESHOLD`` (0.6: a reworded question keeps most of its content words,
"When did the X tramway open?" / "In which year was the X tramway opened?" share
{x, tramway, open} of {x, tramway, open, year} = 0.75). Its limit is that of any lexical
match: a short question about the same named thing can reach it too ("How long is the X
tramway?" shares 0.6 with "When did the X tramway open?") and gets the leaked answer, as a
model that recalls without understanding would. Ties go to the earliest leaked question.
Below the threshold the wrapped agent SPEC answers.
"""

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
from dwqa_graph.evaluation.reader import content_terms
from dwqa_graph.registry import AGENTS

#: Minimum content-term Jaccard similarity for a fresh question to recall a leaked answer.
RECALL_THRESHOLD = 0.6


def jaccard(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 when both are empty (two questions of stop words only do not
    match each other)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def terms(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))


class RecallAgent:
    """Answers with the answer of the most similar leaked question above ``threshold``."""

    def __init__(self, spec: str, inner: Agent, *, threshold: float = RECALL_THRESHOLD) -> None:
        self.spec = spec
        self.inner = inner
        self.threshold = threshold
        self._lock = threading.Lock()
        # question -> (its terms, answer); insertion order breaks similarity ties.
        self._memory: dict[str, tuple[frozenset[str], str]] = {}

    def leak(self, items: Iterable[Leakable]) -> int:
        new = [as_leaked(x) for x in items]
        with self._lock:
            for item in new:
                self._memory.setdefault(item.question, (terms(item.question), item.answer))
            return len(self._memory)

    def forget(self) -> None:
        with self._lock:
            self._memory.clear()

    def best(self, question: str) -> tuple[float, str, str] | None:
        """(similarity, leaked question, its answer) of the closest leaked question."""
        asked = terms(question)
        best: tuple[float, str, str] | None = None
        with self._lock:
            for q, (ts, answer) in self._memory.items():
                sim = jaccard(asked, ts)
                if best is None or sim > best[0]:
                    best = (sim, q, answer)
        return best

    def answer(self, question: str) -> AgentAnswer:
        hit = self.best(question)
        if hit is not None and hit[0] >= self.threshold:
            return AgentAnswer(answer=hit[2], steps=[
                f"recalled: similarity {hit[0]:.2f} to leaked question {hit[1]!r}"])
        return self.inner.answer(question)

    def close(self) -> None:
        self.inner.close()


@AGENTS.register("recall", arg="SPEC",
                 summary="leaked agent: answers with the answer of the most similar leaked "
                         f"question (content-word Jaccard >= {RECALL_THRESHOLD}), defers to "
                         "the agent SPEC otherwise")
def recall_agent(arg: str | None, ctx: AgentContext) -> RecallAgent:
    return RecallAgent(f"recall:{arg}", ctx.inner(arg))
