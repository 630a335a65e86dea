"""pg_catalog's tables that tools read for a table list (pg_namespace, pg_class,
pg_attribute, pg_type), answered as PostgreSQL 15 answers the same queries over
the same tables. Oids differ between the two systems, so the queries join on
them and compare names."""

import subprocess

import pyarrow as pa
import pyarrow.ipc as ipc
import pytest

import pg_oracle
from pg_oracle import assert_same_rows, quiver_rows

SETUP = """
CREATE TABLE events (id bigint NOT NULL, kind text, amount numeric(12,3), at timestamp,
                     atz timestamptz, d date, ok boolean, f double precision, r real,
                     s smallint, i integer, iv interval, raw bytea, doc jsonb, j json);
CREATE TABLE tiny (k int PRIMARY KEY);
CREATE VIEW recent AS SELECT id, kind FROM events;
"""

QUERIES = [
    "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'f') ORDER BY 1",
    "SELECT c.relname, a.attname, t.typname, a.attnum, a.attnotnull, a.atttypmod "
    "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid "
    "JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 4",
    "SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname IN ('public', 'pg_catalog') ORDER BY 1",
    "SELECT typname, typlen FROM pg_type WHERE typname IN ('int4', 'int8', 'text', 'numeric', 'date', "
    "'timestamptz', 'bool', 'jsonb') ORDER BY 1",
    "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON c.relnamespace = n.oid "
    "WHERE n.nspname = 'public' AND relname = 'events' AND relpersistence = 'p'",
]


@pytest.fixture(scope="module")
def pg():
    if not pg_oracle.available():
        pytest.skip("PostgreSQL 15 is not installed")
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_pg_catalog_answers_as_postgresql(quiver_bin, pg, sql):
    assert_same_rows(quiver_rows(quiver_bin, SETUP + sql), pg.query(sql), sql, ordered=True)


def test_foreign_tables_are_relkind_f_and_unknown_names_fail(quiver_bin, tmp_path):
    with ipc.new_file(tmp_path / "a.arrow", pa.schema([("x", pa.int32())])) as w:
        w.write_table(pa.table({"x": pa.array([1, 2], pa.int32())}))
    rows = quiver_rows(quiver_bin, f"CREATE FOREIGN TABLE ft (x int) SERVER arrow_fdw OPTIONS (file '{tmp_path}/a.arrow');"
                                   "SELECT relname, relkind, reltuples FROM pg_class")
    assert rows == [["ft", "f", 2.0]], rows
    proc = subprocess.run([str(quiver_bin), "sql", "SELECT * FROM pg_catalog.pg_nothing"], capture_output=True, text=True)
    assert proc.returncode != 0 and 'relation "pg_catalog.pg_nothing" does not exist' in proc.stderr, proc.stderr
