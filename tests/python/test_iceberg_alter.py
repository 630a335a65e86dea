"""ALTER TABLE on `--db` tables as Iceberg schema evolution (issue 14 item 2,
issue 12 item 6).

ADD / DROP / RENAME COLUMN and RENAME TO on a stored table commit a new
Iceberg schema (a new schema-id; kept columns keep their field ids, added
ones take ids after last-column-id) and rewrite no data file. Three
independent oracles:
  - PostgreSQL 15 runs the same statements on an equivalent table: the rows
    of every statement, the SQLSTATEs of the failing ones and the final rows
    (test_dml_pg.py's harness), also after the database is opened again;
  - pyiceberg's SqlCatalog reads the altered table with the new schema and
    the same content as Quiver;
  - a table evolved by pyiceberg (update_schema) reads in Quiver equal to
    pyiceberg's own scan.
"""

import json
import subprocess

import pyarrow as pa
import pytest

import pg_oracle
from test_dml_pg import FINAL, _marker, _split, run_postgres
from test_iceberg_db import catalog, quiver_arrow, quiver_sql, rows

KV = "CREATE TABLE tab (k int PRIMARY KEY, v text, n int)"
FILL = "INSERT INTO tab VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)"

# Each case on a --db database; PostgreSQL gives the expected rows and errors.
ALTER = {
    "add_column": [KV, FILL, "ALTER TABLE tab ADD COLUMN extra text", "SELECT k, extra FROM tab",
                   "INSERT INTO tab VALUES (4, 'd', 40, 'e')", "UPDATE tab SET extra = v WHERE k < 3"],
    "add_column_default_null": [KV, FILL, "ALTER TABLE tab ADD COLUMN d int DEFAULT NULL",
                                "INSERT INTO tab (k) VALUES (9)"],
    "add_column_not_null_over_rows": [KV, FILL, "ALTER TABLE tab ADD COLUMN d int NOT NULL"],
    "add_column_not_null_empty": [KV, "ALTER TABLE tab ADD COLUMN d int NOT NULL",
                                  "INSERT INTO tab (k, d) VALUES (1, 2)",
                                  "INSERT INTO tab (k) VALUES (2)"],
    "add_column_exists": [KV, FILL, "ALTER TABLE tab ADD COLUMN v text"],
    "add_column_if_not_exists": [KV, FILL, "ALTER TABLE tab ADD COLUMN IF NOT EXISTS v int"],
    "add_column_types": [KV, FILL, "ALTER TABLE tab ADD COLUMN big bigint",
                         "ALTER TABLE tab ADD COLUMN price numeric(10,2)",
                         "ALTER TABLE tab ADD COLUMN ts timestamp",
                         "INSERT INTO tab VALUES (4, 'd', 40, 10000000000, 1.25, "
                         "TIMESTAMP '2024-02-29 12:00:00')"],
    "drop_column": [KV, FILL, "ALTER TABLE tab DROP COLUMN v", "INSERT INTO tab VALUES (4, 40)"],
    "drop_column_missing": [KV, FILL, "ALTER TABLE tab DROP COLUMN nope"],
    "drop_column_if_exists": [KV, FILL, "ALTER TABLE tab DROP COLUMN IF EXISTS nope"],
    "drop_key_column_drops_key": [KV, FILL, "ALTER TABLE tab DROP COLUMN k",
                                  "INSERT INTO tab VALUES ('a', 10)"],
    # The new v is a new field id: the old values stay behind, NULL is read.
    "drop_then_add_same_name": [KV, FILL, "ALTER TABLE tab DROP COLUMN v",
                                "ALTER TABLE tab ADD COLUMN v text", "SELECT k, v FROM tab",
                                "INSERT INTO tab VALUES (5, 50, 'new')"],
    "rename_column": [KV, FILL, "ALTER TABLE tab RENAME COLUMN v TO label",
                      "SELECT label FROM tab WHERE k = 1", "SELECT v FROM tab",
                      "INSERT INTO tab (k, label) VALUES (7, 'seven')"],
    "rename_column_taken": [KV, FILL, "ALTER TABLE tab RENAME COLUMN v TO n"],
    "rename_key_column_keeps_key": [KV, FILL, "ALTER TABLE tab RENAME k TO id",
                                    "INSERT INTO tab (id) VALUES (1)", "INSERT INTO tab (id) VALUES (8)"],
    # Swapped names: each field id keeps its values.
    "rename_swap": [KV, FILL, "ALTER TABLE tab RENAME COLUMN v TO tmp",
                    "ALTER TABLE tab RENAME COLUMN n TO v", "ALTER TABLE tab RENAME COLUMN tmp TO n",
                    "SELECT k, v, n FROM tab WHERE k = 2"],
    "rename_table": [KV, FILL, "ALTER TABLE tab RENAME TO other", "SELECT count(*) FROM other",
                     "SELECT * FROM tab", "INSERT INTO other VALUES (4, 'd', 40)",
                     "ALTER TABLE other RENAME TO tab"],
    "rename_table_taken": [KV, FILL, "CREATE TABLE other (x int)", "ALTER TABLE tab RENAME TO other"],
    "alter_missing_table": ["ALTER TABLE nope ADD COLUMN x int"],
    "sequence": [KV, FILL, "ALTER TABLE tab ADD COLUMN a text", "INSERT INTO tab VALUES (4, 'd', 40, 'x')",
                 "ALTER TABLE tab DROP COLUMN n", "ALTER TABLE tab RENAME COLUMN a TO b",
                 "UPDATE tab SET b = 'y' WHERE k = 1", "DELETE FROM tab WHERE k = 2",
                 "ALTER TABLE tab ADD COLUMN n int", "INSERT INTO tab VALUES (5, 'e', 'z', 5)",
                 "SELECT k, v, b, n FROM tab WHERE n IS NULL"],
}


def run_quiver_db(quiver_bin, db, statements):
    """test_dml_pg.run_quiver on the database in `db`."""
    parts = []
    for i, stmt in enumerate(statements + [FINAL]):
        parts += [stmt, _marker(i)]
    proc = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--keep-going", "--format", "json",
                           ";\n".join(parts) + ";"],
                          capture_output=True, text=True, timeout=300)
    errors = [json.loads(line)["sqlstate"] for line in proc.stderr.splitlines()
              if line.strip().startswith("{")]
    out = [list(json.loads(line).values()) for line in proc.stdout.splitlines()
           if line.strip().startswith("{")]
    return errors, _split(out, len(statements) + 1)


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


def final_table(statements):
    """The name the case's table has at its end."""
    name = "tab"
    for s in statements:
        if s.startswith("ALTER TABLE") and " RENAME TO " in s:
            old, new = s.split()[2], s.split()[-1]
            if old == name:
                name = new
    return name


@pytest.mark.parametrize("name", sorted(ALTER))
def test_alter_db_table_matches_postgres(pg, quiver_bin, tmp_path, name):
    statements = ALTER[name]
    pg_errors, pg_rows = run_postgres(pg, statements)
    db = tmp_path / "db"
    q_errors, q_rows = run_quiver_db(quiver_bin, db, statements)
    script = "\n".join(statements)
    assert q_errors == pg_errors, f"{script}\nquiver {q_errors}\npostgres {pg_errors}"
    for stmt, ours, theirs in zip(statements + [FINAL], q_rows, pg_rows):
        pg_oracle.assert_same_rows(ours, theirs, f"{script}\n-- at: {stmt}")
    # Opened again: the altered table as PostgreSQL has it.
    errors, again = run_quiver_db(quiver_bin, db, [])
    assert errors == (["42P01"] if name == "alter_missing_table" else []), errors
    if name != "alter_missing_table":
        pg_oracle.assert_same_rows(again[0], pg_rows[-1], f"{script}\n-- reopened")
        # pyiceberg reads the table with the new columns and the same rows.
        table = final_table(statements)
        ours = quiver_arrow(quiver_bin, db, f"SELECT * FROM {table}")
        theirs = catalog(db).load_table(f"public.{table}").scan().to_arrow()
        assert ours.column_names == theirs.column_names
        key = ours.column_names[0]
        assert rows(ours, key) == rows(theirs, key)


def test_add_column_default_refused(quiver_bin, tmp_path):
    """Iceberg v2 has no column defaults: a DEFAULT is refused (0A000) and the
    stored table is left as it was."""
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, f"{KV}; {FILL}")
    for sql in ["ALTER TABLE tab ADD COLUMN d int DEFAULT 7",
                "ALTER TABLE tab ADD COLUMN d int NOT NULL DEFAULT 0",
                "ALTER TABLE tab ADD COLUMN d serial"]:
        r = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--format", "json", sql],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode != 0
        errors = [json.loads(l) for l in r.stderr.splitlines() if l.startswith("{")]
        assert [e["sqlstate"] for e in errors] == ["0A000"], (sql, r.stderr)
    table = catalog(db).load_table("public.tab")
    assert table.schema().column_names == ["k", "v", "n"]
    assert len(table.metadata.schemas) == 1


def test_schema_evolution_metadata(quiver_bin, tmp_path):
    """The commits pyiceberg sees: one new schema per ALTER, field ids kept
    for kept columns and new after last-column-id, the older schemas kept,
    the snapshot and its data files untouched (no rewrite)."""
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, f"{KV}; {FILL}")
    before = catalog(db).load_table("public.tab")
    files_before = sorted(t.file.file_path for t in before.scan().plan_files())
    snapshot_before = before.metadata.current_snapshot_id
    quiver_sql(quiver_bin, db, "ALTER TABLE tab ADD COLUMN extra text")
    quiver_sql(quiver_bin, db, "ALTER TABLE tab DROP COLUMN v")
    quiver_sql(quiver_bin, db, "ALTER TABLE tab RENAME COLUMN n TO amount")
    table = catalog(db).load_table("public.tab")
    m = table.metadata
    assert [(f.field_id, f.name) for f in table.schema().fields] == [(1, "k"), (3, "amount"), (4, "extra")]
    assert m.last_column_id == 4
    assert m.current_schema_id == 3
    assert [s.schema_id for s in m.schemas] == [0, 1, 2, 3]
    assert [f.name for f in m.schemas[0].fields] == ["k", "v", "n"]
    assert m.current_snapshot_id == snapshot_before
    assert len(m.snapshots) == 1
    assert sorted(t.file.file_path for t in table.scan().plan_files()) == files_before
    assert table.schema().find_field("k").required
    assert table.scan().to_arrow().sort_by("k").to_pydict() == {
        "k": [1, 2, 3], "amount": [10, 20, 30], "extra": [None, None, None]}
    # The primary key follows its field id through a rename.
    quiver_sql(quiver_bin, db, "ALTER TABLE tab RENAME COLUMN k TO id")
    r = quiver_sql(quiver_bin, db, "INSERT INTO tab VALUES (1, 5, 'x')", check=False)
    assert r.returncode != 0 and "tab_pkey" in r.stderr, r.stderr
    # A snapshot written after the change names the new schema.
    quiver_sql(quiver_bin, db, "INSERT INTO tab VALUES (4, 40, 'x')")
    table = catalog(db).load_table("public.tab")
    assert table.current_snapshot().schema_id == table.metadata.current_schema_id == 4
    # pyiceberg reads the older snapshot with its own schema.
    old = table.scan(snapshot_id=snapshot_before).to_arrow()
    assert old.num_rows == 3


def test_table_evolved_by_pyiceberg(quiver_bin, tmp_path):
    """pyiceberg's update_schema (add, rename, delete, widen int -> long) on a
    Quiver table, with appends between: Quiver reads what pyiceberg reads,
    and after Quiver's own INSERT and ALTER pyiceberg still agrees."""
    from pyiceberg.types import LongType, StringType

    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE w (id int, s text, x int); "
                               "INSERT INTO w VALUES (1, 'q', 10), (2, NULL, 20)")
    table = catalog(db).load_table("public.w")
    with table.update_schema() as u:
        u.add_column("note", StringType())
        u.rename_column("s", "label")
        u.update_column("x", field_type=LongType())
    table = catalog(db).load_table("public.w")
    table.append(pa.table({"id": pa.array([3], pa.int32()), "label": ["r"],
                           "x": pa.array([30_000_000_000], pa.int64()), "note": ["n3"]}))
    table = catalog(db).load_table("public.w")
    with table.update_schema() as u:
        u.delete_column("label")

    def same():
        ours = quiver_arrow(quiver_bin, db, "SELECT * FROM w")
        theirs = catalog(db).load_table("public.w").scan().to_arrow()
        assert ours.column_names == theirs.column_names
        assert rows(ours, "id") == rows(theirs, "id")
        return ours

    ours = same()
    assert ours.column_names == ["id", "x", "note"]
    assert ours.schema.field("x").type == pa.int64()
    assert rows(ours, "id") == [{"id": 1, "x": 10, "note": None}, {"id": 2, "x": 20, "note": None},
                                {"id": 3, "x": 30_000_000_000, "note": "n3"}]
    quiver_sql(quiver_bin, db, "INSERT INTO w VALUES (4, 40, 'n4'); ALTER TABLE w ADD COLUMN label text")
    quiver_sql(quiver_bin, db, "UPDATE w SET label = 'l' || id WHERE id > 2")
    ours = same()
    assert [r["label"] for r in rows(ours, "id")] == [None, None, "l3", "l4"]
    # The new label is a new field id (pyiceberg's dropped label was id 2).
    ids = {f.name: f.field_id for f in catalog(db).load_table("public.w").schema().fields}
    assert ids["label"] == 5 and ids["id"] == 1


def test_alter_column_type_refused(quiver_bin, tmp_path):
    """ALTER COLUMN ... TYPE is not done: refused with 0A000, on --db tables too."""
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE t (a int); INSERT INTO t VALUES (1)")
    r = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--format", "json",
                        "ALTER TABLE t ALTER COLUMN a TYPE bigint"],
                       capture_output=True, text=True, timeout=60)
    errors = [json.loads(l)["sqlstate"] for l in r.stderr.splitlines() if l.startswith("{")]
    assert r.returncode != 0 and errors == ["0A000"], r.stderr
    assert str(catalog(db).load_table("public.t").schema().find_field("a").field_type) == "int"


def test_filter_on_an_added_column_only(quiver_bin, tmp_path):
    # The older data file holds none of the columns the scan reads (count(*)
    # WHERE b ...): it is still planned, its rows NULL in b (this crashed:
    # FileTable planned an empty projection).
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2); "
                               "ALTER TABLE t ADD COLUMN b text; INSERT INTO t VALUES (3, 'x')")
    for sql, n in [("SELECT count(*) AS n FROM t WHERE b = 'x'", 1),
                   ("SELECT count(*) AS n FROM t WHERE b IS NULL", 2),
                   ("SELECT count(b) AS n FROM t", 1)]:
        assert quiver_arrow(quiver_bin, db, sql).to_pylist() == [{"n": n}], sql
