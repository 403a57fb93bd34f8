"""Named Cypher queries, loaded from ``cypher/``.

A query's name is its path under ``cypher/`` without the suffix (``ingest/documents``).
No module builds Cypher text: it asks for a query by name and passes parameters.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from dwqa_graph.config import CYPHER_DIR
from dwqa_graph.errors import UnknownQueryError

# A Neo4j Browser command line that sets a parameter: ``:param name => value;``.
_PARAM_LINE = re.compile(r"^:param\s+([A-Za-z_]\w*)\s*=>\s*(.*?);?\s*$", re.MULTILINE)


@cache
def load_file(name: str, root: Path = CYPHER_DIR) -> str:
    """The query file as written (an exploration query with its Browser ``:param`` lines)."""
    path = root / f"{name}.cypher"
    if not path.is_file():
        known = ", ".join(sorted(available(root))) or "none"
        raise UnknownQueryError(f"no query {name!r} ({path} missing); known: {known}")
    return path.read_text(encoding="utf-8")


#: A query name inside a folder: path segments of letters, digits, '_' and '-' (no '..', no
#: absolute path, no backslash).
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*(/[A-Za-z0-9_][A-Za-z0-9_-]*)*")


def load_from(folder: str, name: str, root: Path | None = None) -> str:
    """Query ``name`` from ``root/folder`` only -- for names a user types (``dwqa query``):
    ``../../tmp/x`` or a symlink out of the folder is refused, not resolved."""
    root = root or CYPHER_DIR
    base = (root / folder).resolve()
    path = (base / f"{name}.cypher").resolve()
    if not _NAME.fullmatch(name) or not path.is_relative_to(base) or not path.is_file():
        known = ", ".join(n.removeprefix(f"{folder}/") for n in available(root, folder))
        raise UnknownQueryError(f"no query {name!r} in {folder}/; known: {known or 'none'}")
    return load(f"{folder}/{name}", root)


def load(name: str, root: Path | None = None) -> str:
    """The Cypher the driver runs: a file's Browser ``:param`` lines (see
    :func:`browser_script`) are not Cypher and are left out."""
    text = load_file(name, root or CYPHER_DIR)
    return browser_script(text)[1] if _PARAM_LINE.search(text) else text


def defaults(name: str, root: Path | None = None) -> dict[str, Any]:
    """The parameter defaults a query file sets with ``:param`` lines (for Neo4j Browser)."""
    return browser_script(load_file(name, root or CYPHER_DIR))[0]


def available(root: Path = CYPHER_DIR, under: str = "") -> list[str]:
    base = root / under if under else root
    return sorted(str(p.relative_to(root).with_suffix("")) for p in base.rglob("*.cypher"))


def statements(text: str) -> list[str]:
    """Split a script into statements on ``;`` at line ends, dropping ``//`` comment lines.

    Schema files hold several statements; a query file holds one.
    """
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return [s.strip() for s in body.split(";\n") if s.strip().rstrip(";").strip()]


def description(name: str, root: Path = CYPHER_DIR) -> str:
    """The leading ``//`` comment of a query file: what it is for."""
    lines = []
    for line in load(name, root).splitlines():
        if not line.startswith("//"):
            break
        lines.append(line.lstrip("/ ").rstrip())
    return " ".join(lines)


def browser_script(text: str) -> tuple[dict[str, Any], str]:
    """An exploration query written to run as pasted into Neo4j Browser: its leading
    ``:param name => value;`` lines (Browser commands that set the defaults) as a dict, and
    the Cypher statement without them or its final ``;``, for the driver."""
    params: dict[str, Any] = {}
    body = []
    for line in text.splitlines():
        m = _PARAM_LINE.match(line.strip())
        if m:
            value = m.group(2).strip()
            try:
                params[m.group(1)] = json.loads(value.replace("'", '"'))
            except json.JSONDecodeError:
                params[m.group(1)] = value
            continue
        body.append(line)
    return params, "\n".join(body).strip().rstrip(";").rstrip()
