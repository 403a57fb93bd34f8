"""`dwqa cypher` / `dwqa query` run plain reads only: an allow-list of read clauses and
read-only procedures, the server's EXPLAIN plan checked as a second line, and a READ
transaction as the third; named queries come from cypher/explore only."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import neo4j
import pytest
from click.testing import CliRunner, Result

from dwqa_graph.cli.main import main
from dwqa_graph.config import CYPHER_DIR, Settings
from dwqa_graph.errors import StoreError, UnknownQueryError
from dwqa_graph.graph import queries, readonly
from dwqa_graph.graph.readonly import NotReadOnlyError
from dwqa_graph.graph.store import Store

#: Each was run by `dwqa cypher` before the allow-list (issue 12, item 10), or is the same
#: attack spelled differently (case, comments, backticks, subqueries, a second statement).
ATTACKS = [
    'LOAD CSV FROM "file:///etc/passwd" AS line RETURN line',
    "load csv from 'file:///etc/passwd' as l return l",
    "LOAD/* c */CSV FROM 'http://127.0.0.1:9/x' AS l RETURN l",
    "CALL { LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l } RETURN l",
    "MATCH (n) CALL (n) { LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l } RETURN l",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "SHOW TRANSACTIONS YIELD transactionId TERMINATE TRANSACTIONS transactionId",
    "SHOW TRANSACTIONS",
    "CALL db.clearQueryCaches()",
    "CALL `db`.`clearQueryCaches`()",
    "CALL db.clearQueryCaches() YIELD value RETURN value",
    "CALL dbms.components()",
    "CALL dbms.listConfig()",
    "CALL dbms.killQueries(['query-1'])",
    "CALL db.createLabel('X')",
    "CALL apoc.load.json('file:///etc/passwd')",
    "RETURN apoc.util.sleep(1000)",
    "USE system SHOW USERS",
    "MATCH (n) RETURN n; CREATE (:Intruder)",
    "CREATE (:Intruder) RETURN 1",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n) SET n.x = 1",
    "MERGE (:Intruder)",
    "UNWIND [1] AS x FOREACH (y IN [x] | CREATE (:Intruder))",
    "MATCH (n) REMOVE n:Query",
    "CALL { CREATE (:Intruder) } IN TRANSACTIONS",
    "WITH 1 AS set MATCH (n) SET n.x = 1",  # an alias named set does not hide the clause
    "EXPLAIN LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
    "CYPHER runtime=slotted LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l",
    "DROP INDEX query_text",
    "ALTER USER neo4j SET PASSWORD 'x'",
    "START DATABASE neo4j",
    "stop database neo4j",
    "GRANT ROLE admin TO intruder",
    "PROFILE MATCH (n) RETURN n",
]

#: Read queries that must keep working (positive controls), including keywords inside
#: strings, comments, property keys, labels, map keys and backticked names.
READS = [
    "MATCH (n) RETURN count(n) AS n",
    "MATCH (q:Query) WHERE q.text CONTAINS 'LOAD CSV' RETURN q.id",
    "// CREATE nothing\nMATCH (n) RETURN n.set AS s, n.`delete` AS d LIMIT 1",
    "RETURN {set: 1, create: 2} AS m, 'TERMINATE TRANSACTIONS' AS s, `LOAD` AS x",
    "MATCH (n:`Create`) RETURN n",
    "CALL db.labels() YIELD label RETURN label ORDER BY label",
    "CALL db.relationshipTypes()",
    "CALL db.propertyKeys()",
    "CALL db.schema.visualization()",
    "CALL { MATCH (n) RETURN n } RETURN count(n) AS c",
    "MATCH (n) CALL (n) { RETURN labels(n) AS l } RETURN l LIMIT 1",
    "RETURN date('2024-01-01') AS d, datetime.fromepoch(0) AS e, duration.between("
    "date('2024-01-01'), date('2024-02-01')) AS p",
    "MATCH (n) RETURN n UNION ALL MATCH (n) RETURN n",
    "MATCH (n) RETURN n;",
    "MATCH (c:Claim) RETURN c.start AS start, c.end AS end, 1 AS stop, 2 AS drop LIMIT 1",
    "MATCH (s:StaticSet) RETURN s.name AS set, 1 AS create ORDER BY `set`",
]


def _error(result: Result) -> str:
    """The message of a failed `--json` command (one JSON document on stdout)."""
    return str(json.loads(result.stdout)["error"]["message"])


@pytest.mark.parametrize("text", ATTACKS)
def test_attack_refused_by_the_text_check(text: str) -> None:
    with pytest.raises(NotReadOnlyError, match="not a read-only query"):
        readonly.check_text(text)


@pytest.mark.parametrize("text", READS)
def test_reads_pass_the_text_check(text: str) -> None:
    readonly.check_text(text)


def test_every_query_file_of_the_package_is_classified() -> None:
    """The repo's own queries: every exploration query passes; every file that writes
    (schema, ingest, rounds...) is refused -- a broad positive control of the check."""
    for name in queries.available():
        text = queries.load(name)
        writes = any(w in text for w in ("MERGE", "CREATE", "SET ", "DELETE"))
        if writes:
            with pytest.raises(NotReadOnlyError):
                readonly.check_text(text)
        elif name.startswith("explore/"):
            readonly.check_text(text)


PLAN_ATTACKS = [
    ("LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l", "LoadCSV"),
    ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "TerminateTransactions"),
    ("SHOW TRANSACTIONS", "ShowTransactions"),
    ("CALL db.clearQueryCaches()", "db.clearQueryCaches"),
    ("CALL dbms.components()", "dbms.components"),
    ("CREATE (:Intruder)", "Create"),
]


@pytest.mark.parametrize(("text", "what"), PLAN_ATTACKS)
def test_plan_check_is_a_second_line(store: Store, text: str, what: str) -> None:
    """Skip the text check: the server's own plan still refuses each attack."""
    with pytest.raises(NotReadOnlyError, match=what):
        store._read(text, {}, dict, explain_first=True)
    # positive control: the same path runs a read
    assert store._read("RETURN 1 AS x", {}, dict, explain_first=True) == [{"x": 1}]


def test_read_transaction_is_a_third_line(store: Store) -> None:
    with pytest.raises(StoreError, match="read access mode|not allowed"):
        store._read("CREATE (:Intruder) RETURN 1", {}, dict)
    assert "Intruder" not in store.counts()


def test_load_csv_file_url_fails_at_every_entry_point(store: Store, settings: Settings,
                                                      env: dict[str, str]) -> None:
    text = 'LOAD CSV FROM "file:///etc/passwd" AS line RETURN line'
    # the store
    with pytest.raises(NotReadOnlyError):
        store.read(text)
    # dwqa cypher
    result = CliRunner().invoke(main, ["cypher", text, "--json"], env=env)
    assert result.exit_code != 0 and "root:" not in result.output
    assert "not a read-only query" in _error(result)
    # the server itself, with full credentials in a WRITE transaction (what the HTTP API or
    # Browser would run): file URLs are off
    with (neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as d,
          d.session(database=settings.database) as session):
        with pytest.raises(neo4j.exceptions.ClientError, match="allow_csv_import_from_file_urls"):
            session.run(text).consume()
        # positive control: LOAD CSV itself works on this server (from a loopback HTTP URL)
        with _csv_server() as url:
            rows = session.run("LOAD CSV FROM $url AS l RETURN l", url=url).data()
        assert rows == [{"l": ["a", "b"]}]


@contextmanager
def _csv_server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            body = b"a,b\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/x.csv"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_load_csv_refused_through_dwqa_query(store: Store, env: dict[str, str], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A named query that LOAD CSVs (say someone drops one into cypher/explore) is refused
    by the same checks."""
    explore = tmp_path / "explore"
    explore.mkdir()
    (explore / "leak.cypher").write_text("// leak\nLOAD CSV FROM 'file:///etc/passwd' AS l "
                                         "RETURN l\n")
    (explore / "fine.cypher").write_text("// fine\nRETURN 42 AS answer\n")
    monkeypatch.setattr(queries, "CYPHER_DIR", tmp_path)
    result = CliRunner().invoke(main, ["query", "leak", "--json"], env=env)
    assert result.exit_code != 0 and "root:" not in result.output
    assert "LOAD is not a read clause" in _error(result)
    ok = CliRunner().invoke(main, ["query", "fine", "--json"], env=env)  # positive control
    assert ok.exit_code == 0 and json.loads(ok.stdout) == [{"answer": 42}]


def test_cypher_cli_refuses_each_attack(store: Store, env: dict[str, str]) -> None:
    for text in ATTACKS:
        result = CliRunner().invoke(main, ["cypher", text, "--json"], env=env)
        assert result.exit_code != 0, text
        assert "not a read-only query" in _error(result), text
    assert "Intruder" not in store.counts()
    ok = CliRunner().invoke(main, ["cypher", "CALL db.labels()", "--json"], env=env)
    assert ok.exit_code == 0, ok.output


def test_terminate_cannot_kill_another_session(store: Store, settings: Settings,
                                               env: dict[str, str]) -> None:
    """Another session's open write transaction survives `dwqa cypher TERMINATE ...`."""
    with (neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as d,
          d.session(database=settings.database) as session):
        tx = session.begin_transaction()
        tx.run("CREATE (:Survivor)").consume()
        ids = [r["id"] for r in tx.run(
            "SHOW TRANSACTIONS YIELD transactionId AS id, currentQuery "
            "WHERE currentQuery STARTS WITH 'SHOW' RETURN id")]
        assert len(ids) == 1
        for text in (f"TERMINATE TRANSACTIONS '{ids[0]}'",
                     "SHOW TRANSACTIONS YIELD transactionId AS t TERMINATE TRANSACTIONS t"):
            result = CliRunner().invoke(main, ["cypher", text, "--json"], env=env)
            assert result.exit_code != 0
        tx.commit()  # would raise if the transaction had been terminated
    assert store.counts().get("Survivor") == 1


def test_query_names_stay_in_the_explore_folder(store: Store, env: dict[str, str],
                                                tmp_path: Path) -> None:
    target = tmp_path / "x.cypher"
    target.write_text("RETURN 'outside' AS pwned\n")
    explore = CYPHER_DIR / "explore"
    rel = os.path.relpath(target.with_suffix(""), explore)
    assert rel.startswith("..")
    for name in (rel, str(target.with_suffix("")), "../admin/wipe", "..\\admin\\wipe",
                 "./evidence_chain", "evidence_chain/../../admin/components"):
        result = CliRunner().invoke(main, ["query", name, "--json"], env=env)
        assert result.exit_code != 0, name
        assert "pwned" not in result.output
        assert "no query" in _error(result), name
    ok = CliRunner().invoke(main, ["query", "seed_graphs", "--json"], env=env)
    assert ok.exit_code == 0, ok.output  # positive control


def test_query_name_symlink_out_of_the_folder_refused(tmp_path: Path) -> None:
    root = tmp_path / "cypher"
    (root / "explore").mkdir(parents=True)
    outside = tmp_path / "secret.cypher"
    outside.write_text("RETURN 1")
    (root / "explore" / "link.cypher").symlink_to(outside)
    (root / "explore" / "real.cypher").write_text("RETURN 2")
    with pytest.raises(UnknownQueryError):
        queries.load_from("explore", "link", root)
    assert queries.load_from("explore", "real", root) == "RETURN 2"
