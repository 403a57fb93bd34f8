"""An LLM answering without retrieval."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from dwqa_graph.errors import AgentError, LLMError
from dwqa_graph.evaluation.agents.base import (
    LLM_LOOP,
    AgentAnswer,
    AgentContext,
    failed,
    short_answer,
)
from dwqa_graph.evaluation.reader import (
    WORD,
)
from dwqa_graph.llm import LLM, LLMFailure, load_prompt, make_llm
from dwqa_graph.registry import AGENTS


class ClosedBookAgent:
    """An LLM with no retrieval: what the model answers from its weights alone."""

    def __init__(self, spec: str, llm: LLM, *, owns_llm: bool = True) -> None:
        self.spec = spec
        self.llm = llm
        self.prompt = load_prompt("closed_book")
        self._owns_llm = owns_llm

    def close(self) -> None:
        if self._owns_llm:
            self.llm.close()

    def answer(self, question: str) -> AgentAnswer:
        steps = [f"closed book: {self.llm.id} (prompt {self.prompt.name} "
                 f"v{self.prompt.version}, {self.prompt.hash})"]
        message = HumanMessage(self.prompt.render(question=question))
        try:
            reply = LLM_LOOP.run(self.llm.acall([message]))
        except LLMFailure as exc:
            return failed(f"llm {exc.reason}: {exc.detail}", steps=steps)
        except Exception as exc:  # the contract: a failed question is a result, not a raise
            return failed(f"{type(exc).__name__}: {exc}", steps=steps)
        answer = short_answer(reply)
        if not WORD.search(answer):
            return failed(f"llm unusable reply: no answer text in {reply[:120]!r}",
                           steps=steps)
        steps.append(f"reply: {reply[:200]!r}")
        return AgentAnswer(answer=answer, steps=steps)


@AGENTS.register("closedbook", arg="LLMSPEC",
                 summary="an LLM with no retrieval (LLMSPEC as for --llm)")
def closedbook_agent(arg: str | None, ctx: AgentContext) -> ClosedBookAgent:
    try:
        # A short answer needs few tokens; a cap keeps a rambling model cheap.
        model = make_llm(arg or "", max_tokens=64)
    except LLMError as exc:
        raise AgentError(f"closedbook: {exc}") from exc
    return ClosedBookAgent(f"closedbook:{arg}", LLM(model, cache_path=ctx.llm_cache,
                                                    timeout=ctx.timeout))
