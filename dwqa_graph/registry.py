"""One registry for the pluggable parts: agents, generators, scorers, search clients, fact
extractors and LLM providers. Each is a name -> factory map, filled by the
``@REGISTRY.register(...)`` decorator in the module that implements the part, and extendable
from other packages through entry points (group ``dwqa_graph.<kind>``, e.g.
``dwqa_graph.agents``). The CLI builds its choices and help text from here, so adding an agent
or a scorer touches one file::

    # my_package/agents.py
    from dwqa_graph import AGENTS

    @AGENTS.register("echo", summary="answers with the question itself", arg="PREFIX?")
    def echo_agent(arg, ctx):
        ...

    # pyproject.toml of my_package
    [project.entry-points."dwqa_graph.agents"]
    echo = "my_package.agents:echo_agent"

Built-in parts live in the modules listed per registry and are imported on first lookup, so
``import dwqa_graph`` and ``dwqa --help`` stay cheap.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from dwqa_graph.errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered part. ``arg`` is the metavar of its spec argument (``NAME:ARG``):
    None when it takes none, with a trailing ``?`` when the argument is optional."""

    name: str
    factory: T
    summary: str
    arg: str | None = None

    @property
    def arg_optional(self) -> bool:
        return self.arg is None or self.arg.endswith("?")

    @property
    def usage(self) -> str:
        if self.arg is None:
            return self.name
        if self.arg.endswith("?"):
            return f"{self.name}[:{self.arg[:-1]}]"
        return f"{self.name}:{self.arg}"


class Registry(Generic[T]):
    """name -> factory for one kind of part."""

    def __init__(self, kind: str, builtins: tuple[str, ...]) -> None:
        self.kind = kind
        self.group = f"dwqa_graph.{kind}s"
        self._builtins = builtins
        self._entries: dict[str, Entry[T]] = {}
        self._loaded = False

    def register(self, name: str, *, summary: str, arg: str | None = None) -> Callable[[F], F]:
        """Decorator: register ``factory`` under ``name`` (a later registration replaces an
        earlier one, so a plugin can override a built-in deliberately)."""

        def deco(factory: F) -> F:
            self._entries[name] = Entry(name, factory, summary, arg)  # type: ignore[arg-type]
            return factory

        return deco

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True  # before importing: the modules register into this very registry
        for module in self._builtins:
            mod = importlib.import_module(module)
            # A package of parts (evaluation/agents/): each public submodule registers one.
            for info in pkgutil.iter_modules(getattr(mod, "__path__", [])):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{module}.{info.name}")
        for ep in entry_points(group=self.group):
            if ep.name in self._entries:
                continue  # an installed plugin never silently shadows a built-in
            factory = ep.load()
            entry = self._entries.get(ep.name)
            if entry is None:  # the plugin module did not register itself: do it here
                summary = (getattr(factory, "__doc__", None) or "").strip().split("\n")[0]
                # Without a registration we cannot know its argument: accept an optional one
                # (a factory may say otherwise with a ``dwqa_arg`` attribute, None for none).
                self._entries[ep.name] = Entry(ep.name, factory, summary or ep.value,
                                               getattr(factory, "dwqa_arg", "ARG?"))

    def get(self, name: str) -> Entry[T]:
        self._load()
        try:
            return self._entries[name]
        except KeyError:
            raise UsageError(f"unknown {self.kind} {name!r}; choose from "
                             f"{', '.join(self.names())}") from None

    def names(self) -> list[str]:
        self._load()
        return sorted(self._entries)

    def __iter__(self) -> Iterator[Entry[T]]:
        self._load()
        return iter(sorted(self._entries.values(), key=lambda e: e.name))

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def usage(self) -> str:
        """``a | b:ARG | c[:ARG]`` for help texts."""
        return " | ".join(e.usage for e in self)

    def split_spec(self, spec: str) -> tuple[Entry[T], str | None]:
        """``name[:arg]`` -> (entry, arg); the error names the spec and the choices."""
        spec = spec.strip()
        name, sep, rest = spec.partition(":")
        entry = self.get(name)
        arg = rest.strip() if sep else None
        if sep and not arg:
            raise UsageError(f"{self.kind} spec {spec!r}: nothing after '{name}:'; "
                             f"use {entry.usage}")
        if arg is not None and entry.arg is None:
            raise UsageError(f"{self.kind} {name!r} takes no argument (got {spec!r})")
        if arg is None and not entry.arg_optional:
            raise UsageError(f"{self.kind} {name!r} needs an argument: {entry.usage}")
        return entry, arg


#: Agents: ``factory(arg: str | None, ctx: AgentContext) -> Agent``.
AGENTS: Registry[Any] = Registry("agent", ("dwqa_graph.evaluation.agents",))
#: Answer scorers: ``factory(answer: str, golds: Sequence[str]) -> float`` in [0, 1].
SCORERS: Registry[Any] = Registry("scorer", ("dwqa_graph.evaluation.scoring",))
#: QA generators: ``factory(llm: LLM | None) -> Generator`` (``rounds/generate.py``).
GENERATORS: Registry[Any] = Registry("generator", ("dwqa_graph.rounds.path_generate",))
#: Search clients: ``factory(arg: str | None, store: Store | None) -> SearchClient``.
SEARCH_CLIENTS: Registry[Any] = Registry("search_client", ("dwqa_graph.web.search",))
#: Fact extractors: ``factory(*, nlp: CoreNLP | None, llm: LLM | None) -> FactExtractor``.
FACT_EXTRACTORS: Registry[Any] = Registry("fact_extractor", ("dwqa_graph.facts.extractors",))
#: LLM providers: ``factory(model: str, **settings) -> BaseChatModel``.
LLM_PROVIDERS: Registry[Any] = Registry("llm_provider", ("dwqa_graph.llm",))
