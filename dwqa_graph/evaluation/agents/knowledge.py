"""The knowledge-leaked agent: ``knowledge:SPEC``.

What it models: a model that *learned the facts* of the leaked items, the closest offline,
deterministic stand-in for a model fine-tuned on a leaked round. A leak hands it each item
with its evidence (the facts the item used and their source spans, plus the QA pair), and
it answers from that knowledge first:

1. **Learned QA.** The leaked question most similar to the asked one (content-word Jaccard,
   as ``recall:``) gives its answer when the similarity reaches ``QA_THRESHOLD`` and both
   questions ask for the same answer type (``reader.answer_type``: a "how many years"
   question is not answered with the event a "which came first" question was answered
   with, even over the same facts).
2. **Learned facts, composed.** A question that quotes statements (``(1) "..."; (2) "..."``,
   the form the rule generator's rounds use) is answered by looking each statement up among
   the leaked facts, as a model that learned the facts would recall them: with every
   event's year found (one year per fact), "how many years between" is their span and
   "which came first" the earliest event; with every blank ``___`` filled by the same name,
   "which name completes" is that name. This answers *new combinations* of leaked facts,
   which no leaked QA pair holds.
3. **Learned facts, read.** Otherwise the built-in baseline reader (the ``baseline`` agent's
   search-read-answer loop, ``reader.rank_sentences``) runs over the leaked facts and spans,
   one knowledge document per leaked item, ranked by idf-weighted term overlap with the
   question. It answers only when the best document holds at least ``FACT_COVERAGE`` of the
   question's content terms: the question is about facts that were leaked.
4. **Abstain.** Anything else goes to the wrapped agent SPEC: a question whose facts were
   never leaked is answered exactly as the clean agent would.

So a reworded question about a leaked fact is answered (tiers 1-2), and on a fresh round the
agent gains only where the round reuses leaked facts: the overlap J of the collision bound.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterable

from dwqa_graph.evaluation.agents.base import (
    Agent,
    AgentAnswer,
    AgentContext,
    Leakable,
    LeakedItem,
    as_leaked,
)
from dwqa_graph.evaluation.agents.baseline import BaselineAgent, PageRead
from dwqa_graph.evaluation.agents.recall import jaccard, terms
from dwqa_graph.evaluation.reader import answer_type
from dwqa_graph.registry import AGENTS
from dwqa_graph.web.search import SearchResult

#: A quoted statement of a composed question: ``(n) "..."`` up to ``"; (n+1) "`` or ``"?``.
_STATEMENT = re.compile(r'\(\d+\) "(.*?)"(?=; \(\d+\) "|\?)')
_YEAR = re.compile(r"(?<![\d.,])(1[5-9]\d\d|20\d\d)(?![\d])")
#: Share of a quoted event's content terms a leaked fact must hold to be that event.
EVENT_MATCH = 0.9

#: Tier 1: minimum question-to-leaked-question Jaccard (same answer type required).
QA_THRESHOLD = 0.6
#: Tier 2: minimum share of the question's content terms found in one knowledge document.
FACT_COVERAGE = 0.6
#: Knowledge documents the reader reads (the baseline reads its top 5 pages).
FACT_TOP_K = 3

_SCHEME = "leaked://item/"


def knowledge_text(item: LeakedItem) -> str:
    """One knowledge document: the item's facts and their sentences (each sentence once)."""
    seen: dict[str, None] = {}
    for c in item.facts:
        for s in (c.text, c.span):
            s = " ".join(s.split())
            if s:
                seen.setdefault(s if s.endswith((".", "!", "?")) else s + ".", None)
    return " ".join(seen)


class _Knowledge:
    """The leaked items, searchable: a SearchClient and a PageSource for BaselineAgent."""

    name = "leaked-knowledge"

    def __init__(self) -> None:
        self.items: list[LeakedItem] = []
        self.item_terms: list[frozenset[str]] = []
        self.doc_terms: list[frozenset[str]] = []
        self.texts: list[str] = []

    def add(self, item: LeakedItem) -> None:
        self.items.append(item)
        self.item_terms.append(terms(item.question))
        text = knowledge_text(item)
        self.texts.append(text)
        self.doc_terms.append(terms(text))

    def ranked(self, question: str) -> list[tuple[float, float, int]]:
        """(idf-weighted overlap, coverage, index) of every document sharing a term,
        best first; coverage = share of the question's terms the document holds."""
        asked = terms(question)
        if not asked:
            return []
        n = len(self.doc_terms)
        df = {t: sum(t in d for d in self.doc_terms) for t in asked}
        idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        out = []
        for i, d in enumerate(self.doc_terms):
            own = asked & d
            if own and self.texts[i]:
                out.append((sum(idf[t] for t in own), len(own) / len(asked), i))
        out.sort(key=lambda x: (-x[0], x[2]))
        return out

    def search(self, query: str, limit: int = 10) -> list[SearchResult]:
        return [SearchResult(url=f"{_SCHEME}{i}", title="", content=self.texts[i],
                             rank=rank, engine=self.name)
                for rank, (_, _, i) in enumerate(self.ranked(query)[:limit], start=1)]

    def read(self, hits: list[SearchResult]) -> list[PageRead]:
        return [PageRead(url=h.url, text=h.content, source="page") for h in hits]


class KnowledgeAgent:
    """Answers from leaked knowledge (learned QA, then learned facts), else defers."""

    def __init__(self, spec: str, inner: Agent, *, qa_threshold: float = QA_THRESHOLD,
                 coverage: float = FACT_COVERAGE) -> None:
        self.spec = spec
        self.inner = inner
        self.qa_threshold = qa_threshold
        self.coverage = coverage
        self._lock = threading.Lock()
        self._kb = _Knowledge()
        self._questions: set[str] = set()

    def leak(self, items: Iterable[Leakable]) -> int:
        new = [as_leaked(x) for x in items]
        with self._lock:
            kb = self._copy()
            for item in new:
                kb.add(item)
                self._questions.add(item.question)
            self._kb = kb  # readers keep the snapshot they started with
            return len(self._questions)

    def _copy(self) -> _Knowledge:
        kb = _Knowledge()
        for item in self._kb.items:
            kb.add(item)
        return kb

    def forget(self) -> None:
        with self._lock:
            self._kb = _Knowledge()
            self._questions.clear()

    def _learned_qa(self, question: str, kb: _Knowledge) -> AgentAnswer | None:
        asked, kind = terms(question), answer_type(question)
        best: tuple[float, int] | None = None
        for i, ts in enumerate(kb.item_terms):
            sim = jaccard(asked, ts)
            if sim >= self.qa_threshold and (best is None or sim > best[0]) \
                    and answer_type(kb.items[i].question) == kind:
                best = (sim, i)
        if best is None:
            return None
        item = kb.items[best[1]]
        return AgentAnswer(answer=item.answer, steps=[
            f"learned QA: similarity {best[0]:.2f} to leaked question {item.question!r}"])

    def _facts(self, kb: _Knowledge) -> list[str]:
        return list(dict.fromkeys(" ".join(c.text.split()) for item in kb.items
                                  for c in item.facts if c.text.strip()))

    def _event_year(self, event: str, facts: list[str]) -> tuple[int, str] | None:
        """The year of the leaked fact that states ``event`` (one distinct year only)."""
        want = terms(event)
        if not want:
            return None
        best: tuple[float, float, str] | None = None
        for fact in facts:
            have = terms(fact)
            cover = len(want & have) / len(want)
            if cover >= EVENT_MATCH and (best is None or (cover, jaccard(want, have))
                                         > best[:2]):
                best = (cover, jaccard(want, have), fact)
        if best is None:
            return None
        years = set(_YEAR.findall(best[2]))
        return (int(years.pop()), best[2]) if len(years) == 1 else None

    @staticmethod
    def _filler(statement: str, facts: list[str]) -> str | None:
        """The text a leaked fact has where ``statement`` has ``___``."""
        if statement.count("___") != 1:
            return None
        before, after = (re.escape(" ".join(x.split())) for x in statement.split("___"))
        rx = re.compile(rf"{before}(.+?){after}" if after.strip() else rf"{before}(.+?)[.,;]?$")
        for fact in facts:
            if m := rx.search(fact):
                return m.group(1).strip()
        return None

    def _composed(self, question: str, kb: _Knowledge) -> AgentAnswer | None:
        statements = _STATEMENT.findall(question)
        if len(statements) < 2:
            return None
        facts = self._facts(kb)
        low = question.lower()
        if "how many years" in low or "which" in low and re.search(r"\b(first|earliest)\b",
                                                                   low):
            found = [self._event_year(e, facts) for e in statements]
            if any(f is None for f in found):
                return None
            years = [f[0] for f in found if f is not None]
            if "how many years" in low:
                answer = f"{max(years) - min(years)} years"
            else:
                answer = statements[years.index(min(years))]
            return AgentAnswer(answer=answer, steps=[
                f"learned facts, composed: years {years} of the quoted events"])
        if "___" in question:
            fills = [self._filler(x, facts) for x in statements]
            if fills[0] and all(f == fills[0] for f in fills):
                return AgentAnswer(answer=fills[0], steps=[
                    f"learned facts, composed: {fills[0]!r} fills every blank"])
        return None

    def _learned_facts(self, question: str, kb: _Knowledge) -> AgentAnswer | None:
        ranked = kb.ranked(question)
        if not ranked or ranked[0][1] < self.coverage:
            return None
        reader = BaselineAgent(f"{self.spec}#facts", kb, kb, top_k=FACT_TOP_K)
        reply = reader.answer(question)
        if reply.error or not reply.answer:
            return None
        steps = [f"learned facts: best leaked item covers {ranked[0][1]:.0%} of the "
                 "question's terms", *reply.steps]
        return reply.model_copy(update={"steps": steps})

    def answer(self, question: str) -> AgentAnswer:
        with self._lock:
            kb = self._kb
        for tier in (self._learned_qa, self._composed, self._learned_facts):
            if (reply := tier(question, kb)) is not None:
                return reply
        return self.inner.answer(question)

    def close(self) -> None:
        self.inner.close()


@AGENTS.register("knowledge", arg="SPEC",
                 summary="leaked agent that learned the leaked items' facts: answers from "
                         "their QA pairs, facts and spans (baseline reader), defers to the "
                         "agent SPEC when the question's facts were not leaked")
def knowledge_agent(arg: str | None, ctx: AgentContext) -> KnowledgeAgent:
    return KnowledgeAgent(f"knowledge:{arg}", ctx.inner(arg))
