"""Perplexica as an agent: its ``POST /api/search``, in each API version's shape.

Perplexica changed its search API twice (shapes from its ``docs/API/SEARCH.md`` and
``src/app/api/search/route.ts`` at each release):

========  ==================================  =============================================
version   request                             reply sources
========  ==================================  =============================================
v1.10     ``focusMode``; optional ``chatModel``  ``pageContent`` + ``metadata.title/url``
          / ``embeddingModel`` as
          ``{provider, name}``
v1.11     ``focusMode``; ``chatModel`` and       ``pageContent`` (a missing model is an HTTP
          ``embeddingModel`` as                500: the route reads ``chatModel.providerId``)
          ``{providerId, key}``, required
v1.12     ``sources`` (``["web"]`` ...) instead  ``content`` + ``metadata.title/url``
          of ``focusMode`` (HTTP 400 without);
          models as in v1.11
========  ==================================  =============================================

``GET /api/providers`` exists from v1.11 on and lists the configured providers (``id``,
``name``, ``chatModels`` / ``embeddingModels`` with ``key``). With ``api=auto`` (the default)
the agent asks it once: no such endpoint means v1.10; otherwise it sends the v1.12 shape and
falls back to v1.11 when the server answers HTTP 400 "Missing focus mode". Models not given
in the spec default to the first chat and embedding model the server lists.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ValidationError, model_validator

from dwqa_graph.errors import AgentError
from dwqa_graph.evaluation.agents.base import (
    MAX_TRACE_CHARS,
    AgentAnswer,
    AgentContext,
    RetrievedDoc,
    failed,
    http_url,
)
from dwqa_graph.registry import AGENTS

ApiVersion = Literal["1.10", "1.11", "1.12"]
API_VERSIONS: tuple[str, ...] = ("auto", "1.10", "1.11", "1.12")


class PerplexicaMetadata(BaseModel):
    title: str | None = ""
    url: str | None = ""


class PerplexicaSource(BaseModel):
    """One source: its text is ``content`` from v1.12 on, ``pageContent`` before."""

    text: str = ""
    metadata: PerplexicaMetadata = PerplexicaMetadata()

    @model_validator(mode="before")
    @classmethod
    def _text(cls, data: Any) -> Any:
        if isinstance(data, dict):
            text = data.get("content")
            if not isinstance(text, str) or not text:
                text = data.get("pageContent")
            return {"text": text if isinstance(text, str) else "",
                    "metadata": data.get("metadata") or {}}
        return data


class PerplexicaReply(BaseModel):
    """The parts of Perplexica's ``/api/search`` response an evaluation uses."""

    message: str
    sources: list[PerplexicaSource] = []


class ModelRef(BaseModel):
    """A model named in a spec as ``PROVIDER/KEY``: the provider's id or name (v1.11+) or
    provider key (v1.10, e.g. ``openai``), then the model key (which may contain ``/``)."""

    provider: str
    key: str

    @classmethod
    def parse(cls, text: str, option: str) -> ModelRef:
        provider, sep, key = text.partition("/")
        if not sep or not provider.strip() or not key.strip():
            raise AgentError(f"perplexica: {option}={text!r}: expected PROVIDER/KEY, e.g. "
                             f"{option}=openai/gpt-4o-mini")
        return cls(provider=provider.strip(), key=key.strip())


_CITATION = re.compile(r"\s*\[\d+(?:\s*[,–-]\s*\d+)*\]")
PERPLEXICA_OPTIONS = ("api", "focusMode", "sources", "optimizationMode", "chatModel",
                      "embeddingModel", "systemInstructions")
_NEEDS_FOCUS = re.compile(r"focus\s*mode", re.IGNORECASE)


class PerplexicaAgent:
    """Perplexica's HTTP API: ``POST {url}/api/search``, answer and sources from the reply."""

    def __init__(self, spec: str, base_url: str, *, api: str = "auto",
                 focus_mode: str = "webSearch", sources: tuple[str, ...] = ("web",),
                 optimization_mode: str = "speed", chat_model: ModelRef | None = None,
                 embedding_model: ModelRef | None = None, system_instructions: str = "",
                 timeout: float = 60.0) -> None:
        if api not in API_VERSIONS:
            raise AgentError(f"perplexica: api={api!r}; choose from {', '.join(API_VERSIONS)}")
        self.spec = spec
        self.base_url = base_url.rstrip("/")
        self.focus_mode, self.sources = focus_mode, list(sources)
        self.optimization_mode = optimization_mode
        self.chat_model, self.embedding_model = chat_model, embedding_model
        self.system_instructions = system_instructions
        self.timeout = timeout
        self._client = httpx.Client(timeout=timeout, trust_env=False)  # thread-safe
        self._lock = threading.Lock()
        self.api: ApiVersion | None = None if api == "auto" else api  # type: ignore[assignment]
        self._auto = api == "auto"
        self._models: dict[str, dict[str, str]] | None = None

    def close(self) -> None:
        self._client.close()

    # -- what the server speaks ----------------------------------------------------------
    def _providers(self) -> list[dict[str, Any]] | None:
        """``GET /api/providers``' list, or None when the server has no such endpoint."""
        resp = self._client.get(f"{self.base_url}/api/providers")
        if resp.status_code in (404, 405, 501):
            return None
        resp.raise_for_status()
        data = resp.json()
        providers = data.get("providers") if isinstance(data, dict) else None
        if not isinstance(providers, list):
            raise ValueError("GET /api/providers: expected {'providers': [...]}")
        return [p for p in providers if isinstance(p, dict)]

    def _resolve(self, providers: list[dict[str, Any]], want: ModelRef | None,
                 kind: str) -> dict[str, str]:
        """``{providerId, key}`` for a v1.11+ request: the spec's model (its provider named by
        id or by name) or the first one the server lists."""
        field = "chatModels" if kind == "chatModel" else "embeddingModels"
        for p in providers:
            models = [m.get("key") for m in p.get(field) or [] if isinstance(m, dict)]
            if want is None:
                if models and isinstance(models[0], str):
                    return {"providerId": str(p.get("id")), "key": models[0]}
            elif want.provider in (str(p.get("id")), str(p.get("name"))) or (
                    want.provider.lower() == str(p.get("name", "")).lower()):
                return {"providerId": str(p.get("id")), "key": want.key}
        if want is None:
            raise AgentError(f"Perplexica at {self.base_url} lists no {kind} (GET "
                             f"/api/providers): configure a provider there or pass "
                             f"{kind}=PROVIDER/KEY in the agent spec")
        # An id the list does not show may still be valid (a hidden provider): pass it on.
        return {"providerId": want.provider, "key": want.key}

    def _setup(self) -> ApiVersion:
        """Find the API version (once) and, from v1.11 on, the models to request."""
        with self._lock:
            if self.api == "1.10" or (self.api is not None and self._models is not None):
                return self.api
            # Listed even when the spec names both models: it may name a provider by name.
            providers = self._providers()
            if providers is None:
                if self._auto:
                    self.api = "1.10"  # no /api/providers: the v1.10 API
                    return self.api
                providers = []  # a fixed v1.11+ without the list: the spec names the models
            if self.api is None:
                self.api = "1.12"  # the current release; a v1.11 server says so with a 400
            self._models = {
                "chatModel": self._resolve(providers, self.chat_model, "chatModel"),
                "embeddingModel": self._resolve(providers, self.embedding_model,
                                                "embeddingModel")}
            return self.api

    def request_body(self, question: str, api: ApiVersion) -> dict[str, Any]:
        """The ``/api/search`` body in ``api``'s shape."""
        body: dict[str, Any] = {"query": question, "optimizationMode": self.optimization_mode,
                                "history": [], "stream": False}
        if api == "1.12":
            body["sources"] = self.sources
        else:
            body["focusMode"] = self.focus_mode
        if api == "1.10":
            for name, ref in (("chatModel", self.chat_model),
                              ("embeddingModel", self.embedding_model)):
                if ref is not None:
                    body[name] = {"provider": ref.provider, "name": ref.key}
        else:
            assert self._models is not None
            body |= self._models
        if self.system_instructions:
            body["systemInstructions"] = self.system_instructions
        return body

    # -- answering -----------------------------------------------------------------------
    def answer(self, question: str) -> AgentAnswer:
        url = f"{self.base_url}/api/search"
        steps: list[str] = []
        try:
            api = self._setup()
        except AgentError as exc:
            return failed(str(exc), steps=steps)
        except httpx.TimeoutException:
            return failed(f"timeout: Perplexica at {self.base_url}/api/providers did not "
                          f"answer within {self.timeout:g} s", steps=steps)
        except (httpx.HTTPError, ValueError) as exc:
            return failed(f"connection error: Perplexica at {self.base_url}/api/providers: "
                          f"{type(exc).__name__}: {exc}", steps=steps)
        try:
            resp = self._post(url, question, api, steps)
            if (resp.status_code == 400 and api == "1.12" and self._auto
                    and _NEEDS_FOCUS.search(resp.text)):
                # A v1.11 server: it needs focusMode, not sources. Remember for every question.
                with self._lock:
                    self.api = api = "1.11"
                steps.append("HTTP 400 asks for a focus mode: the server speaks v1.11")
                resp = self._post(url, question, api, steps)
        except httpx.TimeoutException:
            return failed(f"timeout: Perplexica at {url} did not answer within "
                          f"{self.timeout:g} s", steps=steps)
        except httpx.HTTPError as exc:
            return failed(f"connection error: Perplexica at {url}: {type(exc).__name__}: "
                          f"{exc}", steps=steps)
        if resp.status_code >= 400:
            return failed(f"HTTP {resp.status_code} from Perplexica at {url} (API v{api}): "
                          f"{' '.join(resp.text.split())[:200]}", steps=steps)
        try:
            data = resp.json()
        except ValueError as exc:
            return failed(f"malformed JSON from Perplexica at {url}: {exc}; body starts "
                          f"{resp.text[:80]!r}", steps=steps)
        try:
            reply = PerplexicaReply.model_validate(data)
        except ValidationError as exc:
            return failed(f"malformed reply from Perplexica at {url} (expected 'message' and "
                          f"'sources'): {' '.join(str(exc).split())}", steps=steps)
        retrieved, no_url = [], 0
        for i, s in enumerate(reply.sources, start=1):
            if not s.metadata.url:
                no_url += 1  # nothing to cite or check for leakage; its rank stays taken
                continue
            retrieved.append(RetrievedDoc(url=s.metadata.url, title=s.metadata.title or "",
                                          text=s.text[:MAX_TRACE_CHARS], rank=i))
        steps.append(f"{len(retrieved)} sources" + (f" ({no_url} without a URL skipped)"
                                                    if no_url else ""))
        answer = " ".join(_CITATION.sub("", reply.message).split())
        return AgentAnswer(answer=re.sub(r"\s+([.,;:!?])", r"\1", answer),
                           retrieved=retrieved, steps=steps)

    def _post(self, url: str, question: str, api: ApiVersion,
              steps: list[str]) -> httpx.Response:
        body = self.request_body(question, api)
        shown = (f"sources={','.join(self.sources)}" if api == "1.12"
                 else f"focusMode={self.focus_mode}")
        model = body.get("chatModel")
        steps.append(f"POST {url} (API v{api}) {shown} optimizationMode="
                     f"{self.optimization_mode}"
                     + (f" chatModel={model.get('key') or model.get('name')}" if model else ""))
        return self._client.post(url, json=body)


@AGENTS.register("perplexica", arg="URL",
                 summary="Perplexica's POST /api/search at URL (?api=auto|1.10|1.11|1.12"
                         "&sources=web&focusMode=...&optimizationMode=..."
                         "&chatModel=PROVIDER/KEY&embeddingModel=PROVIDER/KEY"
                         "&systemInstructions=...)")
def perplexica_agent(arg: str | None, ctx: AgentContext) -> PerplexicaAgent:
    spec, url, timeout = f"perplexica:{arg}", arg or "", ctx.timeout
    parts = urlsplit(http_url("perplexica", url))
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - set(PERPLEXICA_OPTIONS))
    if unknown:
        raise AgentError(f"perplexica: unknown option(s) {', '.join(unknown)} in {spec!r}; "
                         f"allowed: {', '.join(PERPLEXICA_OPTIONS)}")
    if not all(options.values()):
        raise AgentError(f"perplexica: empty option value in {spec!r}")
    base = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    sources = tuple(s.strip() for s in options.get("sources", "web").split(",") if s.strip())
    if not sources:
        raise AgentError(f"perplexica: sources= names no source in {spec!r} (web, academic, "
                         "discussions)")
    return PerplexicaAgent(
        spec, base, api=options.get("api", "auto"),
        focus_mode=options.get("focusMode", "webSearch"), sources=sources,
        optimization_mode=options.get("optimizationMode", "speed"),
        chat_model=(ModelRef.parse(options["chatModel"], "chatModel")
                    if "chatModel" in options else None),
        embedding_model=(ModelRef.parse(options["embeddingModel"], "embeddingModel")
                         if "embeddingModel" in options else None),
        system_instructions=options.get("systemInstructions", ""), timeout=timeout)
