"""CREATE SCHEMA / DROP SCHEMA and schema-qualified names (issue 12 item 6,
issue 14 item 1), against PostgreSQL 15 and, on a `--db` database, against
pyiceberg's SqlCatalog (a schema is an Iceberg namespace).

The PostgreSQL cases run through test_dml_pg.py's harness: the same
statements on both, the rows of each, the SQLSTATEs of the failing ones in
order, and the final rows of `tab`. (PostgreSQL runs them with search_path
= s, Quiver in public: unqualified `tab` is each one's own table; the
schemas the cases create are dropped first, as the cluster is shared.)
"""

import json
import subprocess

import pytest

import pg_oracle
from test_dml_pg import FINAL, _marker, _split, assert_same, run_postgres
from test_iceberg_db import catalog, quiver_arrow, quiver_sql, rows

KV = "CREATE TABLE tab (k int PRIMARY KEY, v text)"
FILL = "INSERT INTO tab VALUES (1, 'a'), (2, 'b'), (3, 'c')"
RESET = ["DROP SCHEMA IF EXISTS sa CASCADE", "DROP SCHEMA IF EXISTS sb CASCADE"]

CASES = {
    "create_and_use": RESET + [
        KV, FILL, "CREATE SCHEMA sa", "CREATE TABLE sa.tab (k int, w text)",
        "INSERT INTO sa.tab VALUES (1, 'x'), (2, 'y'), (9, 'z')", "SELECT * FROM sa.tab",
        "SELECT t.k, t.v, u.w FROM tab t JOIN sa.tab u USING (k)",
        "SELECT tab.w FROM sa.tab WHERE tab.k = 9",
        "UPDATE sa.tab SET w = 'q' WHERE k = 2", "DELETE FROM sa.tab WHERE k = 1",
        "INSERT INTO sa.tab SELECT k + 10, v FROM tab RETURNING k, w",
        "UPDATE sa.tab AS u SET w = t.v FROM tab t WHERE t.k = u.k",
        "SELECT * FROM sa.tab", "SELECT count(*) FROM tab", "DROP TABLE sa.tab",
        "SELECT * FROM sa.tab", "DROP SCHEMA sa"],
    "duplicate_schema": RESET + [
        "CREATE SCHEMA sa", "CREATE SCHEMA sa", "CREATE SCHEMA IF NOT EXISTS sa", "CREATE SCHEMA public",
        "DROP SCHEMA sa"],
    "drop_missing_schema": ["DROP SCHEMA nosuch", "DROP SCHEMA IF EXISTS nosuch"],
    "reserved_name": ["CREATE SCHEMA pg_mine"],
    "drop_not_empty": RESET + [
        "CREATE SCHEMA sa", "CREATE TABLE sa.t1 (a int)", "INSERT INTO sa.t1 VALUES (1)",
        "DROP SCHEMA sa", "DROP SCHEMA sa RESTRICT", "SELECT count(*) FROM sa.t1",
        "DROP SCHEMA sa CASCADE", "SELECT * FROM sa.t1", "CREATE TABLE sa.t1 (a int)",
        "INSERT INTO sa.t1 VALUES (1)"],
    "view_in_schema": RESET + [
        KV, FILL, "CREATE SCHEMA sa", "CREATE VIEW sa.v AS SELECT k * 2 AS d FROM tab",
        "SELECT * FROM sa.v", "SELECT v.d FROM sa.v WHERE d > 2", "DROP SCHEMA sa",
        "DROP VIEW sa.v", "DROP SCHEMA sa", "SELECT * FROM sa.v"],
    "view_over_schema_table": RESET + [
        "CREATE SCHEMA sa", "CREATE TABLE sa.t (a int)", "INSERT INTO sa.t VALUES (1), (2)",
        "CREATE SCHEMA sb", "CREATE VIEW sb.v AS SELECT sum(a) AS s FROM sa.t", "SELECT * FROM sb.v",
        "INSERT INTO sa.t VALUES (3)", "SELECT * FROM sb.v", "DROP SCHEMA sb CASCADE",
        "DROP SCHEMA sa CASCADE"],
    "same_name_in_two_schemas": RESET + [
        KV, FILL, "CREATE SCHEMA sa", "CREATE TABLE sa.tab (k int)", "INSERT INTO sa.tab VALUES (100)",
        "SELECT * FROM sa.tab", "SELECT count(*) FROM tab", "DROP TABLE sa.tab",
        "SELECT count(*) FROM tab", "DROP SCHEMA sa"],
    "ctas_alter_truncate": RESET + [
        KV, FILL, "CREATE SCHEMA sa", "CREATE TABLE sa.c AS SELECT k, v FROM tab WHERE k > 1",
        "SELECT * FROM sa.c", "ALTER TABLE sa.c ADD COLUMN n int", "ALTER TABLE sa.c RENAME COLUMN v TO label",
        "ALTER TABLE sa.c RENAME TO d", "SELECT * FROM sa.d", "SELECT * FROM sa.c", "SELECT * FROM d",
        "TRUNCATE sa.d", "SELECT count(*) FROM sa.d", "CREATE INDEX d_k ON sa.d (k)",
        "DROP SCHEMA sa CASCADE"],
    "missing_schema_ddl": [
        "CREATE TABLE nosuch.t (a int)", "CREATE VIEW nosuch.v AS SELECT 1", "DROP TABLE nosuch.t",
        "DROP TABLE IF EXISTS nosuch.t", "ALTER TABLE nosuch.t ADD COLUMN b int",
        "ALTER TABLE IF EXISTS nosuch.t ADD COLUMN b int", "TRUNCATE nosuch.t",
        "INSERT INTO nosuch.t VALUES (1)", "SELECT * FROM nosuch.t"],
    # (PostgreSQL's unqualified names are schema s's here: only qualified ones.)
    "public_qualified": [
        "DROP TABLE IF EXISTS public.pq", "CREATE TABLE public.pq (a int)",
        "INSERT INTO public.pq VALUES (1), (2)", "UPDATE public.pq SET a = 3 WHERE a = 2",
        "SELECT pq.a FROM public.pq", "CREATE TABLE public.pq (a int)", "DROP TABLE public.pq",
        "SELECT * FROM public.pq"],
    "catalog_views": RESET + [
        "CREATE SCHEMA sa", "CREATE SCHEMA sb", "CREATE TABLE sa.t1 (a int, b text)",
        "CREATE TABLE sb.t1 (c numeric(10,2))", "CREATE VIEW sa.v AS SELECT a FROM sa.t1",
        "SELECT table_schema, table_name, table_type FROM information_schema.tables "
        "WHERE table_schema IN ('sa', 'sb') ORDER BY 1, 2",
        "SELECT table_schema, table_name, column_name, ordinal_position, data_type "
        "FROM information_schema.columns WHERE table_schema IN ('sa', 'sb') AND table_name = 't1' "
        "ORDER BY 1, 2, 4",
        "SELECT schema_name FROM information_schema.schemata "
        "WHERE schema_name IN ('sa', 'sb', 'public', 'nosuch') ORDER BY 1",
        "SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname IN ('sa', 'sb') ORDER BY 1, 2",
        "DROP SCHEMA sa CASCADE", "DROP SCHEMA sb CASCADE",
        "SELECT count(*) FROM information_schema.tables WHERE table_schema IN ('sa', 'sb')"],
    "transaction_rollback": RESET + [
        "BEGIN", "CREATE SCHEMA sa", "CREATE TABLE sa.t (a int)", "INSERT INTO sa.t VALUES (1)",
        "SELECT * FROM sa.t", "ROLLBACK", "SELECT * FROM sa.t", "CREATE TABLE sa.t (a int)"],
    "transaction_commit": RESET + [
        "BEGIN", "CREATE SCHEMA sa", "CREATE TABLE sa.t (a int)", "INSERT INTO sa.t VALUES (1)",
        "COMMIT", "SELECT * FROM sa.t", "BEGIN", "DROP SCHEMA sa CASCADE", "ROLLBACK",
        "SELECT * FROM sa.t", "DROP SCHEMA sa CASCADE"],
}


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("name", sorted(CASES))
def test_schemas_match_postgres(pg, quiver_bin, name):
    assert_same(pg, quiver_bin, CASES[name])


def sqlstates(proc):
    return [json.loads(l)["sqlstate"] for l in proc.stderr.splitlines() if l.startswith("{")]


def test_search_path_outside_public_refused(quiver_bin):
    """Names outside public must be qualified: SET search_path to another
    schema is refused (0A000) rather than ignored; public is accepted."""
    for sql, expected in [("CREATE SCHEMA sa; SET search_path = sa", ["0A000"]),
                          ("SET search_path TO public", []),
                          ('SET search_path = "$user", public', [])]:
        proc = subprocess.run([str(quiver_bin), "sql", "--format", "json", sql],
                              capture_output=True, text=True, timeout=60)
        assert sqlstates(proc) == expected, (sql, proc.stderr)


def run_quiver_db(quiver_bin, db, statements):
    parts = []
    for i, stmt in enumerate(statements + [FINAL]):
        parts += [stmt, _marker(i)]
    proc = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--keep-going", "--format", "json",
                           ";\n".join(parts) + ";"],
                          capture_output=True, text=True, timeout=300)
    out = [list(json.loads(line).values()) for line in proc.stdout.splitlines()
           if line.strip().startswith("{")]
    return sqlstates(proc), _split(out, len(statements) + 1)


# Cases without transaction blocks (refused on --db) also run on a database
# directory, and give PostgreSQL's answers there too.
@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("transaction")))
def test_schemas_on_db_match_postgres(pg, quiver_bin, tmp_path, name):
    statements = CASES[name]
    pg_errors, pg_rows = run_postgres(pg, statements)
    q_errors, q_rows = run_quiver_db(quiver_bin, tmp_path / "db", statements)
    script = "\n".join(statements)
    assert q_errors == pg_errors, f"{script}\nquiver {q_errors}\npostgres {pg_errors}"
    for stmt, ours, theirs in zip(statements + [FINAL], q_rows, pg_rows):
        pg_oracle.assert_same_rows(ours, theirs, f"{script}\n-- at: {stmt}")


def test_schemas_are_iceberg_namespaces(quiver_bin, tmp_path):
    """A schema is a namespace of the JDBC catalog: pyiceberg lists it and
    its tables and reads them equal to Quiver; a namespace and table
    pyiceberg makes are Quiver's schema and table; schemas, their tables
    and views survive a restart; DROP SCHEMA ... CASCADE removes them for
    pyiceberg too."""
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType

    db = tmp_path / "db"
    quiver_sql(quiver_bin, db,
               "CREATE SCHEMA sales; CREATE SCHEMA empty_one; "
               "CREATE TABLE sales.orders (id int NOT NULL, item text); "
               "INSERT INTO sales.orders VALUES (1, 'a'), (2, 'b'), (3, NULL); "
               "CREATE TABLE orders (id int); INSERT INTO orders VALUES (100); "
               "CREATE VIEW sales.big AS SELECT id FROM sales.orders WHERE id > 1")
    cat = catalog(db)
    assert {("sales",), ("empty_one",), ("public",)} <= set(cat.list_namespaces())
    assert cat.list_tables("sales") == [("sales", "orders")]
    assert cat.list_tables("public") == [("public", "orders")]
    theirs = cat.load_table("sales.orders").scan().to_arrow()
    ours = quiver_arrow(quiver_bin, db, "SELECT * FROM sales.orders")
    assert rows(ours, "id") == rows(theirs, "id") == [
        {"id": 1, "item": "a"}, {"id": 2, "item": "b"}, {"id": 3, "item": None}]
    assert "/sales.db/orders-" in cat.load_table("sales.orders").metadata.location
    # Restarted: the schemas (the empty one too), the table and the view.
    out = quiver_arrow(quiver_bin, db, "SELECT * FROM sales.big ORDER BY id")
    assert out.to_pydict() == {"id": [2, 3]}
    r = quiver_sql(quiver_bin, db, "CREATE SCHEMA empty_one", check=False)
    assert r.returncode != 0 and 'schema "empty_one" already exists' in r.stderr, r.stderr
    # pyiceberg's namespace and table.
    cat.create_namespace("made_by_pyiceberg")
    t = cat.create_table("made_by_pyiceberg.events", Schema(
        NestedField(1, "n", LongType(), required=False), NestedField(2, "s", StringType(), required=False)))
    t.append(pa.table({"n": pa.array([5, 6], pa.int64()), "s": ["x", "y"]}))
    out = quiver_arrow(quiver_bin, db, "SELECT n, s FROM made_by_pyiceberg.events ORDER BY n")
    assert out.to_pydict() == {"n": [5, 6], "s": ["x", "y"]}
    quiver_sql(quiver_bin, db, "INSERT INTO made_by_pyiceberg.events VALUES (7, 'z')")
    assert sorted(cat.load_table("made_by_pyiceberg.events").scan().to_arrow()["n"].to_pylist()) == [5, 6, 7]
    out = quiver_arrow(quiver_bin, db,
                       "SELECT table_schema, table_name FROM information_schema.tables "
                       "WHERE table_schema <> 'public' ORDER BY 1, 2")
    assert out.to_pydict() == {"table_schema": ["made_by_pyiceberg", "sales", "sales"],
                               "table_name": ["events", "big", "orders"]}
    # RESTRICT refuses; CASCADE removes the namespace and its tables.
    r = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--format", "json", "DROP SCHEMA sales"],
                       capture_output=True, text=True, timeout=60)
    assert sqlstates(r) == ["2BP01"], r.stderr
    quiver_sql(quiver_bin, db, "DROP SCHEMA sales CASCADE; DROP SCHEMA empty_one")
    cat = catalog(db)
    assert ("sales",) not in cat.list_namespaces() and ("empty_one",) not in cat.list_namespaces()
    assert not cat.table_exists("sales.orders")
    assert quiver_arrow(quiver_bin, db, "SELECT * FROM orders").to_pydict() == {"id": [100]}
    r = quiver_sql(quiver_bin, db, "SELECT * FROM sales.orders", check=False)
    assert r.returncode != 0 and 'relation "sales.orders" does not exist' in r.stderr
