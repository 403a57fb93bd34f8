"""The LLM layer every model-backed step uses (claims, step parsing, generation, judges).

- Any langchain-core ``BaseChatModel`` works; ``make_llm(SPEC)`` builds common ones lazily
  (openai, anthropic, bedrock, ollama from optional extras; any OpenAI-compatible base URL
  — vLLM, llama.cpp server, LM Studio — with the built-in ``OpenAICompatChat``,
  ``openai_compat.py``).
- Prompts are files in ``prompts/`` with a version; their hash is recorded on outputs.
- Structured output: the reply is parsed as JSON into the caller's model; a bad reply gets
  one repair turn (the error is sent back), then becomes a recorded, counted failure.
- Bounded async concurrency, a timeout and retries per call, and an on-disk cache keyed by
  (prompt messages, model, decoding settings): re-running a stage makes no new calls.
"""

from __future__ import annotations

import ast
import asyncio
import hashlib
import importlib
import json
import os
import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from dwqa_graph.config import PROMPTS_DIR, load_settings
from dwqa_graph.errors import InputError, LLMError
from dwqa_graph.registry import LLM_PROVIDERS

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.runnables import Runnable

# LangChain is imported where a model is built or called, not here: this module is on the
# import path of nearly every command, most of which never call a model, and LangChain's
# import costs about a second.

T = TypeVar("T")

def _langchain_provider(name: str, module_name: str, cls_name: str, *,
                        max_tokens: bool = True) -> None:
    """Register ``name:MODEL`` -> the langchain chat model class of the ``name`` extra."""

    @LLM_PROVIDERS.register(name, arg="MODEL",
                            summary=f"{cls_name} ({module_name}; pip install 'dwqa-graph[{name}]')")
    def factory(model: str, *, temperature: float, max_tokens_: int) -> BaseChatModel:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise LLMError(f"--llm {name}:{model} needs the {name!r} extra: "
                           f"pip install 'dwqa-graph[{name}]'") from exc
        kwargs: dict[str, Any] = {"model": model, "temperature": temperature}
        if max_tokens:
            kwargs["max_tokens"] = max_tokens_
        return getattr(module, cls_name)(**kwargs)  # type: ignore[no-any-return]


_langchain_provider("openai", "langchain_openai", "ChatOpenAI")
_langchain_provider("anthropic", "langchain_anthropic", "ChatAnthropic")
_langchain_provider("bedrock", "langchain_aws", "ChatBedrockConverse")
_langchain_provider("ollama", "langchain_ollama", "ChatOllama", max_tokens=False)



class LLMFailure(Exception):
    """One call that produced nothing usable; ``reason`` is counted in the stats."""

    def __init__(self, reason: str, detail: str, raw: str | None = None) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail, self.raw = reason, detail, raw


# -- prompts ---------------------------------------------------------------------------------
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


class Prompt(BaseModel):
    """A versioned prompt file: ``name:``/``version:`` header lines, ``---``, the template.

    Placeholders are ``{{name}}`` (JSON braces in the text stay literal)."""

    name: str
    version: str
    template: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(f"{self.name}\n{self.version}\n{self.template}".encode()
                              ).hexdigest()[:16]

    def render(self, **values: Any) -> str:
        # Placeholders are checked in the template and filled in one pass, so a value that
        # itself contains "{{...}}" (wiki markup in a question) is inserted literally.
        missing = set(_PLACEHOLDER.findall(self.template)) - values.keys()
        if missing:
            raise KeyError(f"prompt {self.name}: no value for {', '.join(sorted(missing))}")
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.template)


def load_prompt(name: str, root: Path = PROMPTS_DIR) -> Prompt:
    path = root / f"{name}.md"
    head, sep, body = path.read_text(encoding="utf-8").partition("\n---\n")
    if not sep:
        raise InputError(f"{path}: expected header lines, a '---' line, then the template")
    meta = dict(line.split(":", 1) for line in head.splitlines() if ":" in line)
    return Prompt(name=meta.get("name", name).strip(), version=meta.get("version", "0").strip(),
                  template=body.strip("\n"))


# -- JSON from model output ------------------------------------------------------------------
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def parse_json(text: str) -> Any:
    """The first JSON value in a model reply: fenced or bare, with Python-literal fallback
    (small models often answer with single quotes)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for cand in candidates:
        for start, ch in enumerate(cand):
            if ch not in "{[":
                continue
            try:
                return decoder.raw_decode(cand, start)[0]
            except json.JSONDecodeError:
                pass
            end = cand.rfind("}" if ch == "{" else "]")
            if end > start:
                try:
                    value = ast.literal_eval(cand[start:end + 1])
                    if isinstance(value, dict | list):
                        return value
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    pass
            break  # only the first opening bracket of each candidate is tried
    raise ValueError("no JSON object or array in the reply")


def make_llm(spec: str, *, temperature: float = 0.0, max_tokens: int = 1024,
             seed: int | None = 0, json_mode: bool | None = None) -> BaseChatModel:
    """A chat model from ``provider:model`` (openai, anthropic, bedrock, ollama) or an
    OpenAI-compatible base URL: ``http://127.0.0.1:8799/v1``, ``URL#model``, or
    ``URL#model?json`` to request JSON-object output (also DWQA_LLM_JSON=1)."""
    if spec.startswith(("http://", "https://", "openai-compatible:")):
        url = spec.removeprefix("openai-compatible:")
        base, _, model = url.partition("#")
        model, _, flags = model.partition("?")
        if json_mode is None:
            json_mode = flags == "json" or os.environ.get("DWQA_LLM_JSON") == "1"
        from dwqa_graph.openai_compat import OpenAICompatChat
        return OpenAICompatChat(base_url=base.rstrip("/"), model=model or "default",
                                temperature=temperature, max_tokens=max_tokens, seed=seed,
                                json_mode=json_mode)
    provider, sep, model = spec.partition(":")
    if not sep or not model or provider not in LLM_PROVIDERS:
        raise LLMError(f"unknown --llm {spec!r}: use {LLM_PROVIDERS.usage()}, or an "
                       "OpenAI-compatible base URL")
    chat: BaseChatModel = LLM_PROVIDERS.get(provider).factory(
        model, temperature=temperature, max_tokens_=max_tokens)
    return chat


# -- the runner -------------------------------------------------------------------------------
class LLMStats(BaseModel):
    """Counted in every ``--json`` summary of a model-backed stage."""

    calls: int = Field(0, description="Requests sent to the model (cache hits excluded).")
    cache_hits: int = 0
    repairs: int = Field(0, description="Replies that needed the repair turn.")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: dict[str, int] = Field(default_factory=dict)


class _Cache:
    """(key -> reply) in SQLite: one file, safe across processes, cheap to look up."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, reply TEXT)")
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def put(self, key: str, reply: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?)", (key, reply))

    def close(self) -> None:
        self._db.close()


def model_identity(model: BaseChatModel) -> dict[str, Any]:
    """Model id and decoding settings, as recorded on outputs and used in cache keys."""
    params = {k: v for k, v in model._identifying_params.items()
              if isinstance(v, str | int | float | bool | type(None))}
    return {"type": model._llm_type, **params}


class LLM:
    """A chat model with caching, bounded concurrency, timeouts, retries and stats."""

    def __init__(self, model: BaseChatModel, *, cache_path: Path | None = None,
                 use_cache: bool = True, concurrency: int = 4, timeout: float = 120.0,
                 retries: int = 2) -> None:
        self.model = model
        self.identity = model_identity(model)
        self.id = ":".join(str(self.identity.get(k)) for k in ("type", "model", "model_name")
                           if self.identity.get(k))
        cache_path = cache_path or load_settings().home / "cache" / "llm.sqlite"
        self._cache = _Cache(cache_path) if use_cache else None
        self._concurrency = concurrency
        self._semaphore: asyncio.Semaphore | None = None
        self.timeout, self.retries = timeout, retries
        self.stats = LLMStats()
        self._failures: Counter[str] = Counter()

    def close(self) -> None:
        if self._cache:
            self._cache.close()

    def _key(self, messages: Sequence[BaseMessage]) -> str:
        body = {"model": self.identity, "messages": [(m.type, m.content) for m in messages]}
        return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()

    def fail(self, reason: str) -> None:
        self._failures[reason] += 1
        self.stats.failures = dict(sorted(self._failures.items()))

    async def _invoke(self, runnable: Runnable[Any, BaseMessage],
                      messages: Sequence[BaseMessage]) -> BaseMessage:
        """One call with bounded concurrency, a timeout and retries; then ``LLMFailure``."""
        if self._semaphore is None:  # created lazily: it binds to the running loop
            self._semaphore = asyncio.Semaphore(self._concurrency)
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            try:
                async with self._semaphore:
                    self.stats.calls += 1
                    reply = await asyncio.wait_for(runnable.ainvoke(list(messages)),
                                                   self.timeout)
                break
            except TimeoutError as exc:
                last = exc
            except Exception as exc:  # provider errors come in many types
                last = exc
            if attempt < self.retries:
                await asyncio.sleep(0.5 * 2 ** attempt)
        else:
            reason = "timeout" if isinstance(last, TimeoutError) else "error"
            self.fail(reason)
            raise LLMFailure(reason, f"{type(last).__name__}: {last}"[:300])
        usage = getattr(reply, "usage_metadata", None) or {}
        self.stats.prompt_tokens += int(usage.get("input_tokens", 0) or 0)
        self.stats.completion_tokens += int(usage.get("output_tokens", 0) or 0)
        return reply

    async def acall(self, messages: Sequence[BaseMessage]) -> str:
        """One reply text (cached). Transient errors are retried; then ``LLMFailure``."""
        key = self._key(messages)
        if self._cache and (hit := self._cache.get(key)) is not None:
            self.stats.cache_hits += 1
            return hit
        reply = await self._invoke(self.model, messages)
        text = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
        if self._cache:
            self._cache.put(key, text)
        return text

    async def atools(self, messages: Sequence[BaseMessage],
                     tools: Sequence[dict[str, Any]]) -> AIMessage:
        """One reply of a model given ``tools`` (OpenAI function schemas) through the
        provider's native tool calling: the message, with its ``tool_calls`` (cached like
        ``acall``, keyed by the tools and every message's calls and call ids too). A model
        class without native tool calling raises ``LLMFailure('no_native_tools')``."""
        key = "tools:" + hashlib.sha256(json.dumps(
            [self._key(messages), list(tools),
             [(getattr(m, "tool_calls", None), getattr(m, "tool_call_id", None))
              for m in messages]], sort_keys=True, default=str).encode()).hexdigest()
        from langchain_core.messages import AIMessage, message_to_dict, messages_from_dict
        if self._cache and (hit := self._cache.get(key)) is not None:
            self.stats.cache_hits += 1
            [cached] = messages_from_dict([json.loads(hit)])
            assert isinstance(cached, AIMessage)
            return cached
        try:
            bound = self.model.bind_tools(list(tools))
        except NotImplementedError as exc:
            raise LLMFailure("no_native_tools", f"{type(self.model).__name__} has no native "
                             "tool calling") from exc
        reply = await self._invoke(bound, messages)
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=reply.content)
        if self._cache:
            self._cache.put(key, json.dumps(message_to_dict(reply)))
        return reply

    async def astructured(self, prompt: str, parse: Callable[[Any], T], *,
                          system: str | None = None) -> T:
        """Ask, decode JSON, ``parse`` it (ValueError/ValidationError = unusable); one repair
        turn with the error; then ``LLMFailure('parse_error')``."""
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
        messages: list[BaseMessage] = [SystemMessage(system)] if system else []
        messages.append(HumanMessage(prompt))
        raw = await self.acall(messages)
        try:
            return parse(parse_json(raw))
        except (ValueError, ValidationError, KeyError, TypeError) as exc:
            first_error = exc
        self.stats.repairs += 1
        messages += [AIMessage(raw), HumanMessage(
            f"Your reply could not be used: {str(first_error)[:500]}. Reply again with only "
            "the JSON in the requested format, nothing else.")]
        raw2 = await self.acall(messages)
        try:
            return parse(parse_json(raw2))
        except (ValueError, ValidationError, KeyError, TypeError) as exc:
            self.fail("parse_error")
            raise LLMFailure("parse_error", str(exc)[:300], raw=raw2) from exc

    def structured(self, prompt: str, parse: Callable[[Any], T], *,
                   system: str | None = None) -> T:
        """Synchronous ``astructured`` for callers outside an event loop."""
        self._semaphore = None  # each asyncio.run is a new loop
        return asyncio.run(self.astructured(prompt, parse, system=system))
