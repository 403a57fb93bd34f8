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
from neo4j.exceptions import ClientError, ConstraintError, ServiceUnavailable

from dwqa_graph.config import Settings
from dwqa_graph.errors import ConflictError, StoreError
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
        except (ServiceUnavailable, OSError) as exc:
            raise StoreError(
                f"Neo4j is not reachable at {self.settings.uri}: {exc}. "
                "Start the local server with `dwqa db up`, or set NEO4J_URI."
            ) from exc

    @contextmanager
    def _session(self, read: bool) -> Iterator[neo4j.Session]:
        mode = neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS
        with self._driver.session(database=self.settings.database, default_access_mode=mode) as s:
            yield s

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
            for counters in session.execute_write(work):
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
            except ClientError as exc:
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
