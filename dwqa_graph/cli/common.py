"""Helpers every ``dwqa`` command module shares: ``--json`` output, error handling, and
opening the store and models."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any, TypeVar

import click

from dwqa_graph.config import Settings
from dwqa_graph.errors import DwqaError, UsageError
from dwqa_graph.graph.store import Store
from dwqa_graph.llm import LLM, make_llm
from dwqa_graph.registry import Registry

F = TypeVar("F", bound=Callable[..., Any])

json_option = click.option("--json", "as_json", is_flag=True,
                           help="Print one machine-readable JSON summary on stdout.")


def emit(as_json: bool, payload: Any, human: Callable[[], object] | None = None) -> None:
    if as_json:
        click.echo(json.dumps(payload, indent=2, default=str, ensure_ascii=False))
    elif human:
        human()
    else:
        click.echo(json.dumps(payload, indent=2, default=str, ensure_ascii=False))


def echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)


def friendly_errors(fn: F) -> F:
    """A :class:`DwqaError` -> one clear line on stderr (with ``--json`` also one JSON
    document ``{"error": {"type", "message"}}`` on stdout) and exit 1. Anything else is a
    bug: it keeps its traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DwqaError as exc:
            click.echo(f"dwqa: error: {exc}", err=True)
            if kwargs.get("as_json"):  # scripts still get exactly one JSON document
                click.echo(json.dumps({"error": {"type": type(exc).__name__,
                                                 "message": str(exc)}}, ensure_ascii=False))
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def open_store(settings: Settings) -> Store:
    store = Store(settings)
    try:
        store.verify()
    except BaseException:
        store.close()  # a driver left open warns at exit, after the one-line error
        raise
    return store


llm_option = click.option(
    "--llm", "llm_spec", envvar="DWQA_LLM", metavar="SPEC",
    help="Chat model: openai:MODEL, anthropic:MODEL, bedrock:MODEL, ollama:MODEL, or an "
         "OpenAI-compatible base URL such as http://127.0.0.1:8799/v1 (also DWQA_LLM).")


def open_llm(spec: str | None, concurrency: int = 4) -> LLM | None:
    return LLM(make_llm(spec), concurrency=concurrency) if spec else None


#: Deepest nesting of lists and objects a ``--param`` value may have (Cypher parameters are
#: records, not trees; deeper JSON would overflow the parser's or the driver's stack).
MAX_PARAM_DEPTH = 32
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _text_error(text: str) -> str | None:
    """Why ``text`` cannot go to Neo4j (which stores UTF-8), or None. A lone surrogate comes
    from JSON ("\\ud800") or from a byte of the command line that is not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        what = (f"byte 0x{ord(bad) - 0xDC00:02x}, which is not UTF-8"
                if 0xDC80 <= ord(bad) <= 0xDCFF else f"a lone surrogate {bad!r}")
        return f"{what}, at character {exc.start}"
    return None


def _check_param(name: str, value: Any) -> None:
    """Refuse what the driver cannot send -- text that is not UTF-8 (a key of an object
    included, where the driver raises a bare TypeError), integers beyond 64 bits, nesting
    deeper than ``MAX_PARAM_DEPTH`` -- naming the parameter and the place in it."""
    todo: list[tuple[str, Any, int]] = [(f"${name}", value, 0)]
    while todo:  # a walk without recursion: depth is what is being checked
        where, v, depth = todo.pop()
        if isinstance(v, dict | list) and depth >= MAX_PARAM_DEPTH:  # level depth + 1
            raise UsageError(f"--param {where}: nested deeper than {MAX_PARAM_DEPTH} levels")
        if isinstance(v, str) and (why := _text_error(v)):
            raise UsageError(f"--param {where}: text the database cannot store ({why})")
        if isinstance(v, int) and not isinstance(v, bool) and not _INT64[0] <= v <= _INT64[1]:
            raise UsageError(f"--param {where}: integer out of Neo4j's 64-bit range")
        if isinstance(v, dict):
            for k, x in v.items():
                if why := _text_error(k):
                    raise UsageError(f"--param {where}: a key the database cannot store "
                                     f"({why})")
                todo.append((f"{where}.{k}", x, depth + 1))
        elif isinstance(v, list):
            todo.extend((f"{where}[{i}]", x, depth + 1) for i, x in enumerate(v))


def parse_params(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``k=v`` pairs; ``v`` is read as JSON when it parses (numbers, null, lists), else kept
    as text. What Neo4j cannot take is refused here, naming the parameter (``_check_param``)."""
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--param expects key=value, got {pair!r}")
        if why := _text_error(key):
            raise UsageError(f"--param {key!r}: a name the database cannot take ({why})")
        try:
            params[key] = json.loads(value)
        except RecursionError:
            raise UsageError(f"--param ${key}: nested deeper than {MAX_PARAM_DEPTH} "
                             "levels") from None
        except ValueError as exc:  # not JSON: text -- unless a number Python will not read
            if "digits" in str(exc):
                raise UsageError(f"--param ${key}: integer out of Neo4j's 64-bit range") \
                    from None
            params[key] = value
        _check_param(key, params[key])
    return params


class RegistryHelp(click.Option):
    """An option whose help ends with a registry's choices, read only when help is shown (so
    ``dwqa CMD`` does not import every agent module just to build its help text)."""

    def __init__(self, *args: Any, registry: Registry[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.registry = registry

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        base = self.help or ""
        self.help = f"{base} {self.registry.usage()}".strip()
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = base


def registry_option(*decls: str, registry: Registry[Any], **kwargs: Any) -> Callable[[F], F]:
    return click.option(*decls, cls=RegistryHelp, registry=registry, **kwargs)
