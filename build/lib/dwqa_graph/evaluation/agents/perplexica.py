"""Perplexica as an agent: its ``POST /api/search``."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx
from pydantic import BaseModel, ValidationError

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


class PerplexicaMetadata(BaseModel):
    title: str = ""
    url: str = ""


class PerplexicaSource(BaseModel):
    pageContent: str = ""  # Perplexica's spelling
    metadata: PerplexicaMetadata = PerplexicaMetadata()


class PerplexicaReply(BaseModel):
    """The parts of Perplexica's ``/api/search`` response an evaluation uses."""

    message: str
    sources: list[PerplexicaSource] = []


_CITATION = re.compile(r"\s*\[\d+(?:\s*[,–-]\s*\d+)*\]")
PERPLEXICA_OPTIONS = ("focusMode", "optimizationMode")


class PerplexicaAgent:
    """Perplexica's HTTP API: ``POST {url}/api/search``, answer and sources from the reply."""

    def __init__(self, spec: str, base_url: str, *, focus_mode: str = "webSearch",
                 optimization_mode: str = "speed", timeout: float = 60.0) -> None:
        self.spec = spec
        self.base_url = base_url.rstrip("/")
        self.focus_mode, self.optimization_mode = focus_mode, optimization_mode
        self.timeout = timeout
        self._client = httpx.Client(timeout=timeout, trust_env=False)  # thread-safe

    def close(self) -> None:
        self._client.close()

    def answer(self, question: str) -> AgentAnswer:
        body = {"query": question, "focusMode": self.focus_mode,
                "optimizationMode": self.optimization_mode, "history": []}
        url = f"{self.base_url}/api/search"
        steps = [f"POST {url} focusMode={self.focus_mode} "
                 f"optimizationMode={self.optimization_mode}"]
        try:
            resp = self._client.post(url, json=body)
        except httpx.TimeoutException:
            return failed(f"timeout: Perplexica at {url} did not answer within "
                           f"{self.timeout:g} s", steps=steps)
        except httpx.HTTPError as exc:
            return failed(f"connection error: Perplexica at {url}: {type(exc).__name__}: "
                           f"{exc}", steps=steps)
        if resp.status_code >= 400:
            return failed(f"HTTP {resp.status_code} from Perplexica at {url}: "
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
        retrieved = [RetrievedDoc(url=s.metadata.url, title=s.metadata.title,
                                  text=s.pageContent[:MAX_TRACE_CHARS], rank=i)
                     for i, s in enumerate(reply.sources, start=1)]
        steps.append(f"{len(retrieved)} sources")
        answer = " ".join(_CITATION.sub("", reply.message).split())
        return AgentAnswer(answer=re.sub(r"\s+([.,;:!?])", r"\1", answer),
                           retrieved=retrieved, steps=steps)


# -- closed book ------------------------------------------------------------------------------


@AGENTS.register("perplexica", arg="URL",
                 summary="Perplexica's POST /api/search at URL "
                         "(?focusMode=...&optimizationMode=...)")
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
    return PerplexicaAgent(spec, base, focus_mode=options.get("focusMode", "webSearch"),
                           optimization_mode=options.get("optimizationMode", "speed"),
                           timeout=timeout)


