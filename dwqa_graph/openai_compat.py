"""An OpenAI-compatible chat model for LangChain (llama.cpp server, vLLM, LM Studio, the
replay servers of the tests): ``make_llm("http://.../v1")`` builds it (``llm.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, convert_to_openai_messages
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool


class OpenAICompatChat(BaseChatModel):
    """``POST {base_url}/chat/completions`` with httpx; no extra dependency."""

    base_url: str
    model: str = "default"
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = 0
    timeout: float = 120.0
    api_key: str | None = None
    #: Ask for ``response_format: json_object`` (llama.cpp, vLLM, LM Studio support it):
    #: small models that ignore "reply in JSON" then produce parseable output.
    json_mode: bool = False

    @property
    def _llm_type(self) -> str:
        return "openai-compatible"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": self.seed, "json_mode": self.json_mode}

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None,
                   **kwargs: Any) -> Runnable[Any, AIMessage]:
        """Native tool calling (the ``tools`` field of the chat API); the server must support
        it (vLLM, llama.cpp with ``--jinja``, LM Studio)."""
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _payload(self, messages: list[BaseMessage], stop: list[str] | None,
                 **bound: Any) -> dict[str, Any]:
        if any(m.type == "tool" or getattr(m, "tool_calls", None) for m in messages):
            wire = convert_to_openai_messages(messages)  # tool calls and their results
        else:  # plain turns, byte-identical to what earlier versions sent (replay keys)
            roles = {"human": "user", "ai": "assistant", "system": "system"}
            wire = [{"role": roles.get(m.type, "user"), "content": m.content} for m in messages]
        payload: dict[str, Any] = {
            "model": self.model, "temperature": self.temperature, "max_tokens": self.max_tokens,
            "messages": wire}
        for field in ("tools", "tool_choice"):  # from bind_tools
            if bound.get(field):
                payload[field] = bound[field]
        if self.seed is not None:
            payload["seed"] = self.seed
        if stop:
            payload["stop"] = stop
        if self.json_mode:
            payload["response_format"] = {"type": "json_object"}
        return payload

    def _headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    @staticmethod
    def _result(data: dict[str, Any]) -> ChatResult:
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        calls, invalid = [], []
        raw_calls = choice["message"].get("tool_calls") or []
        for raw in raw_calls if isinstance(raw_calls, list) else []:
            try:  # the library's parser: arguments are a JSON string in the wire format
                calls.append(parse_tool_call(raw, return_id=True))
            except Exception as exc:  # a malformed call is kept, as langchain keeps it
                invalid.append(make_invalid_tool_call(raw, str(exc)[:200]))
        msg = AIMessage(content=choice["message"].get("content") or "", tool_calls=calls,
                        invalid_tool_calls=invalid, usage_metadata={
            "input_tokens": usage.get("prompt_tokens", 0),
            "output_tokens": usage.get("completion_tokens", 0),
            "total_tokens": usage.get("total_tokens", 0)})
        return ChatResult(generations=[ChatGeneration(message=msg)],
                          llm_output={"finish_reason": choice.get("finish_reason")})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        with httpx.Client(timeout=self.timeout, trust_env=False) as client:
            resp = client.post(f"{self.base_url}/chat/completions",
                               json=self._payload(messages, stop, **kwargs),
                               headers=self._headers())
            resp.raise_for_status()
            return self._result(resp.json())

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None,
                         **kwargs: Any) -> ChatResult:
        async with httpx.AsyncClient(timeout=self.timeout, trust_env=False) as client:
            resp = await client.post(f"{self.base_url}/chat/completions",
                                     json=self._payload(messages, stop, **kwargs),
                                     headers=self._headers())
            resp.raise_for_status()
            return self._result(resp.json())
