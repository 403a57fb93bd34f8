"""What ``dwqa cypher`` and ``dwqa query`` may run: read clauses and read-only procedures.

A READ transaction alone is not enough: the server still lets it ``LOAD CSV`` (local files,
HTTP requests past ``ingest``'s SSRF guard), ``TERMINATE TRANSACTIONS`` of other sessions,
``SHOW TRANSACTIONS`` (other sessions' queries and parameters) and call procedures such as
``db.clearQueryCaches()`` or ``dbms.*``. So ad-hoc Cypher passes three checks:

1. :func:`check_text` -- the query's own tokens (strings, comments and backticked names
   excluded): every clause keyword must be a read clause, every ``CALL`` a subquery or a
   procedure on :data:`PROCEDURES`, every namespaced function call on :data:`FUNCTIONS`,
   one statement only;
2. :func:`check_plan` -- the server's own parse: the ``EXPLAIN`` plan may hold no updating,
   administrative or ``LOAD CSV`` operator, and procedure calls only from :data:`PROCEDURES`
   (so a trick the tokenizer misreads still fails here);
3. the READ transaction the store runs it in (the server refuses any write).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dwqa_graph.errors import UsageError


class NotReadOnlyError(UsageError):
    """Ad-hoc Cypher that is not a plain read; the message names the offending part."""


#: Read-only procedures a query may CALL (exact names; Neo4j's names are case-sensitive).
PROCEDURES = frozenset({
    "db.labels", "db.relationshipTypes", "db.propertyKeys",
    "db.schema.visualization", "db.schema.nodeTypeProperties", "db.schema.relTypeProperties",
    "db.index.fulltext.queryNodes", "db.index.fulltext.queryRelationships",
})

#: Namespaced functions a query may call: Neo4j's built-in temporal, spatial and vector
#: families. Anything else namespaced is a plugin (apoc.*, gds.*...) that may do I/O.
FUNCTION_NAMESPACES = frozenset({
    "date", "datetime", "localdatetime", "localtime", "time", "duration", "point", "vector",
})
FUNCTIONS = frozenset({"db.nameFromElementId"})

#: Clause keywords that read. Any other clause keyword (below) refuses the query.
READ_CLAUSES = frozenset({
    "MATCH", "OPTIONAL", "WHERE", "WITH", "RETURN", "UNWIND", "ORDER", "SKIP", "OFFSET",
    "LIMIT", "UNION", "CALL", "YIELD", "FINISH", "FILTER", "LET",
})
#: Every other clause keyword of Cypher 5/25: writes, imports, and the commands that may
#: follow other clauses (SHOW ... YIELD ... TERMINATE, CALL { USE ... }). Matched
#: case-insensitively as whole words in keyword position, anywhere in the query.
OTHER_CLAUSES = frozenset({
    "CREATE", "MERGE", "SET", "REMOVE", "DELETE", "DETACH", "NODETACH", "FOREACH", "LOAD",
    "INSERT", "USE", "SHOW", "TERMINATE", "TRANSACTIONS", "PERIODIC",
})
#: Administration commands and query prefixes: they can only start a statement, so they
#: are refused there (and not elsewhere, where `start`, `stop`, `drop` are common aliases).
STATEMENT_STARTS = frozenset({
    "START", "STOP", "ENABLE", "ALTER", "DROP", "RENAME", "GRANT", "DENY", "REVOKE",
    "DEALLOCATE", "REALLOCATE", "DRYRUN", "EXPLAIN", "PROFILE", "CYPHER",
})

#: Plan operators (name without ``@database``) that are never a plain read.
_PLAN_DENY = re.compile(
    r"^(Create|Merge|LockingMerge|Delete|DetachDelete|Set|Remove|Foreach|LoadCSV|Transaction"
    r"|Terminate|Show|AdministrationCommand|DoNothingIfExists|Drop|SystemProcedureCall"
    r"|RunQueryAt|Lock|Assert.*Constraint)")


@dataclass(frozen=True)
class Token:
    kind: str  # word | name (backticked) | string | number | param | punct
    text: str
    pos: int


_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<block_comment>/\*.*?\*/)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<name>`(?:[^`]|``)*`)
  | (?P<param>\$(?:[^\W\d]\w*|\d+|`(?:[^`]|``)*`))
  | (?P<number>\d[\w.]*)
  | (?P<word>[^\W\d]\w*)
  | (?P<punct>\S)
""", re.VERBOSE | re.DOTALL)


def tokens(text: str) -> Iterator[Token]:
    """Cypher's lexical tokens, without whitespace and comments."""
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or (m.lastgroup == "punct" and m.group() in "'\"`"):
            raise NotReadOnlyError(f"unterminated string, comment or name at offset {pos}")
        if m.lastgroup == "punct" and text.startswith("/*", pos):
            raise NotReadOnlyError(f"unterminated comment at offset {pos}")
        pos = m.end()
        kind = m.lastgroup or "punct"
        if kind not in ("ws", "line_comment", "block_comment"):
            yield Token(kind, m.group(), m.start())


def _refuse(what: str, tok: Token | None = None) -> NotReadOnlyError:
    where = f" (offset {tok.pos})" if tok else ""
    return NotReadOnlyError(
        f"not a read-only query: {what}{where}. dwqa cypher/query run read clauses "
        "(MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN, ORDER BY, SKIP, LIMIT, UNION, "
        "CALL {subquery}) and the procedures " + ", ".join(sorted(PROCEDURES)) + "; "
        "a variable named like a keyword needs backticks")


def _dotted(toks: list[Token], i: int) -> tuple[str, int]:
    """The dotted name starting at ``toks[i]`` and the index after it."""
    parts = []
    while i < len(toks) and toks[i].kind in ("word", "name"):
        t = toks[i].text
        parts.append(t[1:-1].replace("``", "`") if toks[i].kind == "name" else t)
        if i + 2 < len(toks) and toks[i + 1].text == "." and toks[i + 2].kind in ("word", "name"):
            i += 2
        else:
            i += 1
            break
    return ".".join(parts), i


def check_text(text: str) -> None:
    """Refuse ``text`` unless its clauses, procedure calls and namespaced functions are all
    on the read allow-lists (raises :class:`NotReadOnlyError`)."""
    toks = list(tokens(text))
    if not toks:
        raise _refuse("empty query")
    if toks[0].kind == "word" and toks[0].text.upper() in STATEMENT_STARTS:
        raise _refuse(f"{toks[0].text.upper()} is not a read clause", toks[0])
    for i, tok in enumerate(toks):
        if tok.text == ";" and i != len(toks) - 1:
            raise _refuse("more than one statement", tok)
        if tok.kind not in ("word", "name"):
            continue
        prev = toks[i - 1].text if i else ""
        nxt = toks[i + 1].text if i + 1 < len(toks) else ""
        # A word after '.' is a property key, after ':' a label/type or a map value, after
        # AS an alias; a word before ':' a map key or label variable: none is a clause.
        if tok.kind == "word" and prev not in (".", ":") and prev.upper() != "AS" \
                and nxt != ":":
            word = tok.text.upper()
            if word in OTHER_CLAUSES:
                raise _refuse(f"{word} is not a read clause", tok)
            if word == "CALL":
                if nxt in ("{", "("):  # CALL { ... } / CALL (x) { ... }: a subquery
                    continue
                name, _ = _dotted(toks, i + 1)
                if name not in PROCEDURES:
                    raise _refuse(f"procedure {name or nxt!r} is not on the allow-list", tok)
                continue
        # A dotted name called like a function (a.b(...)), not a property access.
        if prev != "." and nxt == ".":
            name, j = _dotted(toks, i)
            called = j < len(toks) and toks[j].text == "("
            behind_call = i >= 1 and toks[i - 1].text.upper() == "CALL"
            if called and not behind_call and name not in FUNCTIONS \
                    and name.split(".")[0].lower() not in FUNCTION_NAMESPACES:
                raise _refuse(f"function {name!r} is not on the allow-list", tok)


def _operators(plan: dict[str, Any]) -> Iterator[tuple[str, str]]:
    yield str(plan.get("operatorType", "")).split("@")[0], str(
        plan.get("args", {}).get("Details", ""))
    for child in plan.get("children", []):
        yield from _operators(child)


def check_plan(plan: dict[str, Any] | None) -> None:
    """Refuse an ``EXPLAIN`` plan holding a non-read operator or a procedure call outside
    :data:`PROCEDURES` (the server's own reading of the query)."""
    if not plan:
        raise _refuse("the server returned no plan for it")
    for op, details in _operators(plan):
        if _PLAN_DENY.match(op):
            raise _refuse(f"the server plans it with operator {op}")
        if op == "ProcedureCall":
            name = details.split("(")[0].strip()
            if name not in PROCEDURES:
                raise _refuse(f"procedure {name!r} is not on the allow-list")
