"""The Neo4j store: the one module that owns the driver.

Everything else asks it to *write a batch* or *run a named query*. Writes are ``UNWIND``
batches over ``MERGE`` on constrained keys inside managed transactions (the driver retries
transient errors such as deadlocks and leader switches), values always travel as
parameters, and the schema is applied before the first write of a process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import neo4j
from neo4j import GraphDatabase, ManagedTransaction, Query
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConstraintError,
    DriverError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from dwqa_graph.config import Settings
from dwqa_graph.errors import ConflictError, DwqaError, StoreError, UsageError
from dwqa_graph.graph import queries, readonly

#: Rows per UNWIND: large enough to amortise round trips, small enough to keep
#: transaction state modest on a 2-core machine.
BATCH_ROWS = 2000

Rows = Sequence[dict[str, Any]]



@dataclass
class WriteStats:
    """Server-side counters summed over the batches of one write."""

    nodes_created: int = 0
    relationships_created: int = 0
    properties_set: int = 0
    batches: int = 0

    def add(self, counters: neo4j.SummaryCounters) -> None:
        self.nodes_created += counters.nodes_created
        self.relationships_created += counters.relationships_created
        self.properties_set += counters.properties_set

    def merge(self, other: WriteStats) -> None:
        self.nodes_created += other.nodes_created
        self.relationships_created += other.relationships_created
        self.properties_set += other.properties_set
        self.batches += other.batches

    def as_dict(self) -> dict[str, int]:
        return {
            "nodes_created": self.nodes_created,
            "relationships_created": self.relationships_created,
            "properties_set": self.properties_set,
            "batches": self.batches,
        }


class WritePlan:
    """Rows for named queries that must commit together, one UNWIND per query name.

    One plan = one transaction, so every record added to it is written whole or not at
    all. Rows for the same query are concatenated across records (that is what makes the
    batches large); queries run in ``order`` (nodes before the edges that MATCH them),
    names not listed there run after, in the order first added.
    """

    def __init__(self, order: Sequence[str] = ()) -> None:
        self._order = {name: i for i, name in enumerate(order)}
        self._rows: dict[str, list[dict[str, Any]]] = {}

    def add(self, name: str, rows: Iterable[dict[str, Any]]) -> None:
        rows = list(rows)
        if rows:
            self._rows.setdefault(name, []).extend(rows)

    @property
    def steps(self) -> list[tuple[str, list[dict[str, Any]]]]:
        last = len(self._order)
        return sorted(self._rows.items(), key=lambda kv: self._order.get(kv[0], last))

    @property
    def rows(self) -> int:
        return sum(len(r) for r in self._rows.values())


@dataclass(frozen=True)
class Guard:
    """A precondition checked inside a write's own transaction, before its steps: the
    statements of named query ``name`` run first (one may lock what the write depends on),
    then ``check`` gets the last statement's rows and raises to abort the whole transaction.
    Same transaction, so nothing the check saw can change before the write commits."""

    name: str
    params: dict[str, Any]
    check: Callable[[list[dict[str, Any]]], None]


def check_params(params: Any, where: str = "parameter", path: str = "") -> None:
    """Name what the driver could not encode (a lone surrogate such as "\\ud800", which
    JSON allows) in a UsageError, instead of the encoder's traceback. Called only after the
    driver failed: walking every row of every write up front would tax each ingest."""
    if isinstance(params, str):
        try:
            params.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise UsageError(f"{where} {path or '(value)'}: text the database cannot store "
                             f"(a lone surrogate at character {exc.start}); fix the "
                             "input") from None
    elif isinstance(params, dict):
        for k, v in params.items():
            check_params(v, where, f"{path}.{k}" if path else f"${k}")
    elif isinstance(params, (list, tuple)):
        for i, v in enumerate(params):
            check_params(v, where, f"{path}[{i}]")


class Store:
    """A connection to one Neo4j database."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._driver = GraphDatabase.driver(
            settings.uri,
            auth=(settings.user, settings.password),
            # A stalled server should surface as an error, not a hung CLI.
            connection_timeout=15,
            max_transaction_retry_time=30,
            # Planner hints such as "property key does not exist" (true of a fresh graph)
            # would otherwise be logged to stderr on every run.
            notifications_min_severity="OFF",
        )
        self._schema_applied = False

    # -- lifecycle -------------------------------------------------------------------
    def close(self) -> None:
        self._driver.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def verify(self) -> None:
        try:
            self._driver.verify_connectivity()
        except (DriverError, ClientError, OSError) as exc:
            raise self.explain(exc) from exc

    def explain(self, exc: BaseException) -> DwqaError:
        """The driver's exception as one line a user can act on: which server, where the
        password came from, and the fix. (Any other exception is returned as a StoreError
        with the server's own code and message.)"""
        s = self.settings
        where = ("NEO4J_PASSWORD" if s.password_env is not None
                 else "the default for NEO4J_URI servers (set NEO4J_PASSWORD)"
                 if s.uri_explicit else str(s.password_file))
        if isinstance(exc, AuthError):
            fix = ("set NEO4J_PASSWORD to that server's password, or unset NEO4J_URI to use "
                   "the project's own server" if s.uri_explicit else
                   f"the server on port {s.bolt_port} is not the one dwqa started for "
                   f"{s.home} (another project's Neo4j?): stop it, or run dwqa with a free "
                   "port (DWQA_BOLT_PORT=7690 DWQA_HTTP_PORT=7477) and `dwqa db up`")
            return StoreError(f"Neo4j at {s.uri} refused user {s.user!r} with the password "
                              f"from {where} ({exc.code}). Fix: {fix}.")
        if isinstance(exc, (ServiceUnavailable, SessionExpired, OSError)):
            fix = ("check NEO4J_URI and that the server runs" if s.uri_explicit
                   else "start the project's server with `dwqa db up`")
            said = " ".join(str(exc).split())  # the driver's message spans lines
            return StoreError(f"Neo4j is not reachable at {s.uri}: {said}. Fix: {fix}.")
        if isinstance(exc, ClientError) and exc.code and "DatabaseNotFound" in exc.code:
            return StoreError(f"Neo4j at {s.uri} has no database {s.database!r}. Fix: set "
                              "NEO4J_DATABASE to one it has (`SHOW DATABASES` in Browser), or "
                              "unset it for the default 'neo4j'.")
        if isinstance(exc, TransientError):
            hint = (" The server ran out of transaction memory: give it more with "
                    "DWQA_NEO4J_HEAP (the local server) or dbms.memory.transaction.total.max "
                    "(your own), or run fewer commands at once."
                    if "Memory" in (exc.code or "") or "memory" in (exc.message or "") else
                    " Run the command again; if it persists, run fewer commands at once.")
            return StoreError(f"Neo4j at {s.uri} kept failing after the driver's retries "
                              f"({exc.code}: {exc.message}).{hint}")
        if isinstance(exc, ClientError):
            return StoreError(f"{exc.code}: {exc.message}")
        return StoreError(f"Neo4j at {s.uri}: {' '.join(str(exc).split())}")

    @contextmanager
    def _session(self, read: bool) -> Iterator[neo4j.Session]:
        """A session whose connection, login and transient failures surface as one
        explained StoreError (see ``explain``); the caller's own errors pass through."""
        mode = neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS
        try:
            with self._driver.session(database=self.settings.database,
                                      default_access_mode=mode) as s:
                yield s
        except (AuthError, DriverError, TransientError) as exc:
            raise self.explain(exc) from exc
        except ClientError as exc:
            if exc.code and ("DatabaseNotFound" in exc.code or "Security" in exc.code):
                raise self.explain(exc) from exc
            raise

    # -- schema ----------------------------------------------------------------------
    def apply_schema(self) -> list[str]:
        """Apply every ``cypher/schema/*.cypher`` file in order; idempotent."""
        applied = []
        with self._session(read=False) as session:
            for name in queries.available(under="schema"):
                for stmt in queries.statements(queries.load(name)):
                    # Schema commands cannot run in an explicit transaction with data writes,
                    # so each goes in its own auto-commit transaction.
                    session.run(Query(stmt)).consume()  # type: ignore[arg-type]
                session.run(
                    "MERGE (v:DwqaSchema {name: $name}) "
                    "ON CREATE SET v.applied_at = datetime()",
                    name=name,
                ).consume()
                applied.append(name)
            session.run("CALL db.awaitIndexes(300)").consume()
        self._schema_applied = True
        return applied

    def ensure_schema(self) -> None:
        if not self._schema_applied:
            self.apply_schema()

    # -- writes ----------------------------------------------------------------------
    def write(self, name: str, rows: Rows, *, batch_rows: int = BATCH_ROWS) -> WriteStats:
        """Run named query ``name`` (which reads ``$rows``) over ``rows`` in batches."""
        stats = WriteStats()
        for start in range(0, len(rows), batch_rows):
            plan = WritePlan()
            plan.add(name, rows[start : start + batch_rows])
            stats.merge(self.write_plan(plan))
        return stats

    def write_plan(self, plan: WritePlan, *, guard: Guard | None = None) -> WriteStats:
        """Commit all steps of ``plan`` in one managed (retried) transaction, after
        ``guard`` (if any) passed in that same transaction."""
        self.ensure_schema()
        stats = WriteStats()
        if not plan.steps and guard is None:
            return stats
        texts = [(queries.load(name), rows) for name, rows in plan.steps]
        checks = queries.statements(queries.load(guard.name)) if guard else []

        def work(tx: ManagedTransaction) -> list[neo4j.SummaryCounters]:
            if guard is not None:
                for stmt in checks[:-1]:
                    tx.run(stmt, guard.params).consume()
                guard.check([r.data() for r in tx.run(checks[-1], guard.params)])
            return [tx.run(text, rows=rows).consume().counters for text, rows in texts]

        with self._session(read=False) as session:
            try:
                done = session.execute_write(work)
            except UnicodeEncodeError as exc:
                for name, rows in plan.steps:
                    check_params({"rows": rows}, where=name)
                raise UsageError(f"text the database cannot store: {exc}") from exc
            for counters in done:
                stats.add(counters)
        stats.batches = 1
        return stats

    def run_write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run one named write query with scalar parameters; returns its rows."""
        self.ensure_schema()
        text = queries.load(name)

        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            return [r.data() for r in tx.run(text, params)]

        with self._session(read=False) as session:
            try:
                return session.execute_write(work)
            except UnicodeEncodeError as exc:
                check_params(params, where=name)
                raise UsageError(f"{name}: text the database cannot store: {exc}") from exc
            except ConstraintError as exc:  # e.g. a uniqueness constraint: a concurrent writer
                raise ConflictError(f"{name}: {exc.message}") from exc

    # -- reads -----------------------------------------------------------------------
    def query(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run named read query ``name``. Named queries return plain values (maps, lists,
        scalars), so records become dicts directly: ``Record.data()``'s recursive walk for
        nodes and paths costs about as much as the query on large results."""
        return self._read(queries.load(name), params, dict)

    def read(self, text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run ad-hoc Cypher ``text`` (``dwqa cypher``, ``dwqa query``) if it is a plain read:
        allow-listed clauses and procedures (``readonly.check_text``), a plan without
        updating, administrative or LOAD CSV operators (``readonly.check_plan``, in the same
        transaction), and a READ transaction, in which the server refuses any write.
        Nodes, relationships and paths in the result become plain dicts."""
        readonly.check_text(text)
        return self._read(text, params or {}, neo4j.Record.data, explain_first=True)

    def _read(self, text: str, params: dict[str, Any],
              convert: Callable[[neo4j.Record], dict[str, Any]],
              explain_first: bool = False) -> list[dict[str, Any]]:
        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            if explain_first:
                # EXPLAIN plans without running; a parse error surfaces here as a ClientError.
                explained = "EXPLAIN " + text
                readonly.check_plan(tx.run(explained, params).consume().plan)
            return [convert(r) for r in tx.run(text, params)]

        with self._session(read=True) as session:
            try:
                return session.execute_read(work)
            except UnicodeEncodeError as exc:
                check_params(params)
                raise UsageError(f"a parameter holds text the database cannot store: {exc}")\
                    from exc
            except AuthError:
                raise  # _session explains it
            except ClientError as exc:
                if exc.code and "DatabaseNotFound" in exc.code:
                    raise
                raise StoreError(f"{exc.code}: {exc.message}") from exc

    def wipe(self) -> None:
        """Delete all data. Only the test suite calls this, on its own server."""
        with self._session(read=False) as session:
            session.run(Query(queries.load("admin/wipe"))).consume()  # type: ignore[arg-type]

    def counts(self) -> dict[str, int]:
        """Node counts per label (labels with no nodes are omitted)."""
        rows = self.query("admin/label_counts")
        return {r["label"]: r["count"] for r in rows if r["count"]}

    def server_info(self) -> dict[str, Any]:
        rows = self.query("admin/components")
        return rows[0] if rows else {}
