"""`quiver sql --db DIR`: tables kept as Iceberg v2 tables in a SQLite catalog
with the layout of Iceberg's JDBC / SQL catalog (issue 14, items 1-2).

pyiceberg's SqlCatalog opens the same directory and must read every table
equal to Quiver's own answer; tables pyiceberg appends to are read back by
Quiver; tables survive a restart; a second process is refused.
"""

import subprocess
import time

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

pyiceberg_sql = pytest.importorskip("pyiceberg.catalog.sql")


def quiver_sql(quiver_bin, db, sql, check=True):
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--db", str(db), sql],
        capture_output=True, text=True, timeout=120,
    )
    if check and proc.returncode != 0:
        pytest.fail(f"quiver sql failed ({proc.returncode}): {sql}\n{proc.stderr}", pytrace=False)
    return proc


def quiver_arrow(quiver_bin, db, sql):
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--db", str(db), "--format", "arrow", sql],
        capture_output=True, timeout=120,
    )
    if proc.returncode != 0:
        pytest.fail(f"quiver sql failed: {sql}\n{proc.stderr.decode()}", pytrace=False)
    return pa.ipc.open_stream(proc.stdout).read_all()


def catalog(db):
    return pyiceberg_sql.SqlCatalog(
        "quiver", uri=f"sqlite:///{db}/catalog.db", warehouse=f"file://{db}"
    )


def rows(table, key):
    """The rows of an Arrow table as dicts, sorted by `key` (row order
    without ORDER BY is unspecified)."""
    return sorted(table.to_pylist(), key=lambda r: (r[key] is None, r[key]))


def assert_same(quiver_bin, db, name, key, pyiceberg=False):
    """Quiver's rows of `name` equal pyiceberg's scan of it; returns Quiver's
    table (pyiceberg's with `pyiceberg`)."""
    ours = quiver_arrow(quiver_bin, db, f"SELECT * FROM {name}")
    theirs = catalog(db).load_table(f"public.{name}").scan().to_arrow()
    assert ours.column_names == theirs.column_names
    assert rows(ours, key) == rows(theirs, key)
    return theirs if pyiceberg else ours


TYPES_DDL = (
    "CREATE TABLE t (id integer NOT NULL, name text, price numeric(10,2), d date, "
    "ts timestamp, tz timestamptz, flag boolean, big bigint, x double precision, r real)"
)
TYPES_ROWS = (
    "INSERT INTO t VALUES "
    "(1, 'one', 1.50, DATE '2024-01-31', TIMESTAMP '2024-01-31 10:00:00', "
    "TIMESTAMPTZ '2024-01-31 10:00:00+00', true, 10000000000, 0.5, 1.25), "
    "(2, NULL, -3.25, NULL, NULL, NULL, false, -1, NULL, NULL), "
    "(3, 'três', NULL, DATE '1970-01-01', TIMESTAMP '1969-12-31 23:59:59.5', "
    "TIMESTAMPTZ '2000-02-29 12:00:00+02', NULL, NULL, -1e300, 3)"
)


def test_create_insert_read_by_pyiceberg(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, f"{TYPES_DDL}; {TYPES_ROWS}")
    ours = assert_same(quiver_bin, db, "t", "id")
    assert ours.num_rows == 3
    # A second statement is a second snapshot; pyiceberg sees both inserts.
    quiver_sql(quiver_bin, db, "INSERT INTO t (id, name) VALUES (4, 'four'), (5, 'five')")
    assert_same(quiver_bin, db, "t", "id")
    table = catalog(db).load_table("public.t")
    assert len(table.metadata.snapshots) == 2  # one per INSERT (CREATE makes none)
    assert table.metadata.format_version == 2
    # Field ids: the schema's, in the data files too (pyiceberg projects by id).
    assert [f.field_id for f in table.schema().fields] == list(range(1, 11))
    assert table.schema().find_field("id").required
    files = list(table.scan().plan_files())
    assert len(files) == 2
    for task in files:
        df = task.file
        assert df.record_count in (3, 2)
        assert df.value_counts[1] == df.record_count
        assert 1 in df.lower_bounds and 1 in df.upper_bounds


def test_ctas_copy_truncate_drop(quiver_bin, tmp_path):
    db = tmp_path / "db"
    csv = tmp_path / "in.csv"
    pacsv.write_csv(pa.table({"k": [1, 2, 3, 4], "v": ["a", "b", None, "d"]}), csv)
    quiver_sql(
        quiver_bin, db,
        f"CREATE TABLE c (k bigint, v text); COPY c FROM '{csv}' (FORMAT csv, HEADER true); "
        "CREATE TABLE s AS SELECT k * 10 AS k10, upper(v) AS v FROM c WHERE k > 1",
    )
    assert_same(quiver_bin, db, "c", "k")
    ours = assert_same(quiver_bin, db, "s", "k10")
    assert sorted(ours.column("k10").to_pylist()) == [20, 30, 40]
    quiver_sql(quiver_bin, db, "TRUNCATE c")
    assert catalog(db).load_table("public.c").scan().to_arrow().num_rows == 0
    assert quiver_arrow(quiver_bin, db, "SELECT count(*) AS n FROM c").column("n")[0].as_py() == 0
    quiver_sql(quiver_bin, db, "DROP TABLE s")
    assert not catalog(db).table_exists("public.s")
    assert catalog(db).table_exists("public.c")
    r = quiver_sql(quiver_bin, db, "SELECT * FROM s", check=False)
    assert r.returncode != 0 and 'relation "s" does not exist' in r.stderr
    # The name can be used again: the new table has files of its own.
    quiver_sql(quiver_bin, db, "CREATE TABLE s (a int); INSERT INTO s VALUES (7)")
    assert_same(quiver_bin, db, "s", "a")


def test_update_delete_copy_on_write(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(
        quiver_bin, db,
        "CREATE TABLE u (k int, v text); "
        "INSERT INTO u SELECT g, 'v' || g FROM generate_series(1, 1000) AS g",
    )
    quiver_sql(quiver_bin, db, "UPDATE u SET v = 'changed' WHERE k % 10 = 0")
    quiver_sql(quiver_bin, db, "DELETE FROM u WHERE k > 900")
    ours = assert_same(quiver_bin, db, "u", "k")
    assert ours.num_rows == 900
    assert sum(1 for v in ours.column("v").to_pylist() if v == "changed") == 90


def test_returning_update_from_delete_using_are_stored(quiver_bin, tmp_path):
    """RETURNING, UPDATE ... FROM and DELETE ... USING commit through the
    storage like the plain statements: after a restart Quiver and pyiceberg
    read the same rows; a failing UPDATE ... FROM (duplicate key) stores
    nothing."""
    db = tmp_path / "db"
    quiver_sql(
        quiver_bin, db,
        "CREATE TABLE u (k int PRIMARY KEY, v text, n int); "
        "INSERT INTO u SELECT g, 'v' || g, g FROM generate_series(1, 2000) AS g; "
        "CREATE TABLE s (k int, w text); "
        "INSERT INTO s SELECT g, 'w' || g FROM generate_series(1, 2000, 7) AS g",
    )
    out = quiver_arrow(quiver_bin, db, "INSERT INTO u VALUES (5000, 'new', 1) RETURNING k, v")
    assert out.to_pydict() == {"k": [5000], "v": ["new"]}
    out = quiver_arrow(quiver_bin, db,
                       "UPDATE u SET v = s.w, n = u.n * 10 FROM s WHERE s.k = u.k RETURNING u.k")
    assert sorted(out.column("k").to_pylist()) == list(range(1, 2001, 7))
    proc = quiver_sql(quiver_bin, db, "UPDATE u SET k = 1 FROM s WHERE s.k = u.k AND s.k > 1",
                      check=False)
    assert proc.returncode != 0 and "duplicate key" in proc.stderr
    out = quiver_arrow(quiver_bin, db,
                       "DELETE FROM u USING s WHERE s.k = u.k + 1 RETURNING u.k, s.w")
    assert sorted(out.column("k").to_pylist()) == [k - 1 for k in range(8, 2001, 7)]
    ours = assert_same(quiver_bin, db, "u", "k")
    assert ours.num_rows == 2001 - len(range(8, 2001, 7))
    by_k = {r["k"]: r for r in ours.to_pylist()}
    assert by_k[8]["v"] == "w8" and by_k[8]["n"] == 80
    assert by_k[9]["v"] == "v9" and by_k[9]["n"] == 9
    assert 7 not in by_k and by_k[5000]["v"] == "new"


def test_restart_keeps_tables(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE p (a int, b text)")
    for i in range(3):
        quiver_sql(quiver_bin, db, f"INSERT INTO p VALUES ({i}, 'x{i}')")
    out = quiver_arrow(quiver_bin, db, "SELECT a, b FROM p ORDER BY a")
    assert out.to_pydict() == {"a": [0, 1, 2], "b": ["x0", "x1", "x2"]}
    # QUIVER_DB names the directory too.
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--format", "csv", "SELECT count(*) FROM p"],
        capture_output=True, text=True, timeout=60, env={"QUIVER_DB": str(db), "PATH": "/usr/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "3"


def test_pruning_by_statistics(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE r (k int)")
    for lo in (0, 1000, 2000):
        quiver_sql(
            quiver_bin, db,
            f"INSERT INTO r SELECT g FROM generate_series({lo}, {lo + 999}) AS g",
        )
    # After a restart the manifests' bounds skip two of the three files unopened.
    out = quiver_sql(quiver_bin, db, "EXPLAIN ANALYZE SELECT count(*) FROM r WHERE k >= 2500").stdout
    assert "files=3 units=1 pruned=0" in out and "files_pruned=2" in out, out
    n = quiver_arrow(quiver_bin, db, "SELECT count(*) AS n FROM r WHERE k >= 2500")
    assert n.column("n")[0].as_py() == 500


def test_second_process_is_refused(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE l (a int)")
    server = subprocess.Popen(
        [str(quiver_bin), "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        # The banner is printed once the database is open.
        deadline = time.time() + 60
        line = ""
        while time.time() < deadline and not line:
            line = server.stdout.readline()
        assert line, server.stderr.read()
        r = quiver_sql(quiver_bin, db, "SELECT * FROM l", check=False)
        assert r.returncode != 0
        assert "in use by another Quiver process" in r.stderr
        assert f"pid {server.pid}" in r.stderr
    finally:
        server.terminate()
        server.wait(timeout=30)
    # Free again once the holder is gone.
    quiver_sql(quiver_bin, db, "SELECT * FROM l")


def test_refused_on_db_tables(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE z (a int)")
    for sql, message in [
        ("BEGIN", "transaction blocks"),
        ("CREATE FOREIGN TABLE f (a int) SERVER arrow_fdw OPTIONS (file '/nonexistent.arrow')",
         "foreign tables in a --db database"),
        ("CREATE TABLE sm (a smallint)", "columns of type"),
        # TEMP would be ignored: the table would be written to disk like any other
        ("CREATE TEMP TABLE tmp (a int)", "CREATE TEMPORARY TABLE in a --db database"),
        ("CREATE TEMPORARY TABLE tmp2 AS SELECT 1 AS a", "CREATE TEMPORARY TABLE in a --db database"),
    ]:
        r = quiver_sql(quiver_bin, db, sql, check=False)
        assert r.returncode != 0, sql
        assert message in r.stderr, (sql, r.stderr)
    # Nothing of the refused tables was stored.
    assert [t[1] for t in catalog(db).list_tables("public")] == ["z"]


def test_defaults_checks_and_sequences_are_kept(quiver_bin, tmp_path):
    """DEFAULTs and CHECKs (kept as SQL text) and serial / identity
    sequences (with their next values) survive restarts of a --db database:
    each statement below runs in a process of its own."""
    db = tmp_path / "db"
    quiver_sql(
        quiver_bin, db,
        "CREATE TABLE e (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'anon', "
        "qty int DEFAULT 1 + 1 CHECK (qty > 0), born date DEFAULT DATE '2026-01-02', "
        "code bigint GENERATED ALWAYS AS IDENTITY (START WITH 100 INCREMENT BY 10), "
        "note text DEFAULT upper('x' || 'y'), "
        "CONSTRAINT name_len CHECK (length(name) < 10 AND name <> 'it''s'))")
    quiver_sql(quiver_bin, db, "INSERT INTO e (name) VALUES ('a'), ('b')")
    quiver_sql(quiver_bin, db, "INSERT INTO e (name, qty) VALUES ('c', 5)")
    quiver_sql(quiver_bin, db, "INSERT INTO e DEFAULT VALUES")
    for sql, message in [
        ("INSERT INTO e (name, qty) VALUES ('d', 0)", 'violates check constraint "e_qty_check"'),
        ("INSERT INTO e (name) VALUES ('far too long')", 'violates check constraint "name_len"'),
        ("INSERT INTO e (name) VALUES ('it''s')", 'violates check constraint "name_len"'),
        ("UPDATE e SET qty = -1 WHERE name = 'a'", 'violates check constraint "e_qty_check"'),
        ("INSERT INTO e (name, code) VALUES ('f', 1)", 'cannot insert a non-DEFAULT value into column "code"'),
    ]:
        r = quiver_sql(quiver_bin, db, sql, check=False)
        assert r.returncode != 0 and message in r.stderr, (sql, r.stderr)
    quiver_sql(quiver_bin, db, "INSERT INTO e (name) VALUES ('g')")
    got = quiver_arrow(quiver_bin, db, "SELECT * FROM e ORDER BY id").to_pylist()
    assert [(r["name"], r["qty"], str(r["born"]), r["note"]) for r in got] == [
        ("a", 2, "2026-01-02", "XY"), ("b", 2, "2026-01-02", "XY"), ("c", 5, "2026-01-02", "XY"),
        ("anon", 2, "2026-01-02", "XY"), ("g", 2, "2026-01-02", "XY")]
    ids = [r["id"] for r in got]
    codes = [r["code"] for r in got]
    # Distinct and increasing across the restarts (a failed statement may
    # leave a gap, as in PostgreSQL).
    assert ids[:4] == [1, 2, 3, 4] and ids[4] > 4
    assert codes[:4] == [100, 110, 120, 130] and codes[4] > 130 and codes[4] % 10 == 0
    # The table properties other engines see (pyiceberg loads the table as usual).
    props = catalog(db).load_table("public.e").properties
    assert '"sql": "\'anon\'::text"' in props["quiver.column-defaults"] or \
        "'anon'" in props["quiver.column-defaults"], props
    assert "name_len" in props["quiver.check-constraints"]
    assert '"next"' in props["quiver.column-sequences"]
    assert_same(quiver_bin, db, "e", "id")
    # Dropping a column drops the CHECK that reads it, across a restart too.
    quiver_sql(quiver_bin, db, "ALTER TABLE e DROP COLUMN qty")
    quiver_sql(quiver_bin, db, "INSERT INTO e (name) VALUES ('h')")
    r = quiver_sql(quiver_bin, db, "INSERT INTO e (name) VALUES ('far too long')", check=False)
    assert r.returncode != 0 and 'violates check constraint "name_len"' in r.stderr
    got = quiver_arrow(quiver_bin, db, "SELECT name, note FROM e ORDER BY id").to_pylist()
    assert got[-1] == {"name": "h", "note": "XY"}
    assert "e_qty_check" not in catalog(db).load_table("public.e").properties["quiver.check-constraints"]
    # A read-only process loads the same definitions.
    proc = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--read-only", "--format", "csv",
                           "SELECT count(*) FROM e"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.splitlines()[1] == "6", proc.stderr


def test_malformed_constraint_property_is_a_clear_error(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE m (a int DEFAULT 1)")
    tbl = catalog(db).load_table("public.m")
    with tbl.transaction() as tx:
        tx.set_properties({"quiver.column-defaults": '[{"field-id": 1, "sql": "1 +"}]'})
    r = quiver_sql(quiver_bin, db, "SELECT * FROM m", check=False)
    assert r.returncode != 0
    assert 'table "m": malformed property quiver.column-defaults' in r.stderr, r.stderr


def test_primary_key_and_unique_are_kept(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(
        quiver_bin, db,
        "CREATE TABLE k (id int PRIMARY KEY, code text, n int, UNIQUE (code, n)); "
        "INSERT INTO k VALUES (1, 'a', 1), (2, 'a', 2)",
    )
    # After a restart the keys are enforced against the stored rows.
    r = quiver_sql(quiver_bin, db, "INSERT INTO k VALUES (1, 'b', 1)", check=False)
    assert r.returncode != 0 and "Key (id)=(1) already exists" in r.stderr, r.stderr
    r = quiver_sql(quiver_bin, db, "INSERT INTO k VALUES (3, 'a', 2)", check=False)
    assert r.returncode != 0 and "Key (code, n)=(a, 2) already exists" in r.stderr, r.stderr
    r = quiver_sql(quiver_bin, db, "INSERT INTO k VALUES (NULL, 'c', 3)", check=False)
    assert r.returncode != 0 and "violates not-null constraint" in r.stderr
    quiver_sql(quiver_bin, db, "INSERT INTO k VALUES (3, 'a', 3)")
    ours = assert_same(quiver_bin, db, "k", "id")
    assert sorted(ours.column("id").to_pylist()) == [1, 2, 3]
    props = catalog(db).load_table("public.k").properties
    assert "quiver.unique-constraints" in props


def test_unique_keys_across_commits_of_one_process(quiver_bin, tmp_path):
    """The key index a process builds is carried from one stored commit to the
    next (appends, an overwrite, expire_snapshots, failed statements between):
    every duplicate is still found, and what pyiceberg reads is the rows of
    the statements that succeeded."""
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE u (id int PRIMARY KEY, s text)")
    script = tmp_path / "u.sql"
    script.write_text(
        "INSERT INTO u VALUES (1, 'a');\n"
        "INSERT INTO u VALUES (2, 'b');\n"
        "INSERT INTO u VALUES (1, 'dup');\n"                 # fails
        "INSERT INTO u VALUES (3, 'c'), (4, 'd');\n"
        "INSERT INTO u VALUES (5, 'e'), (5, 'dup');\n"       # fails, nothing of it kept
        "INSERT INTO u VALUES (5, 'e');\n"
        "UPDATE u SET id = id + 10 WHERE id >= 4;\n"         # an overwrite: 14, 15
        "INSERT INTO u VALUES (15, 'dup');\n"                # fails
        "INSERT INTO u VALUES (4, 'd2');\n"
        "CALL expire_snapshots('u', older_than => now() + interval '1 day');\n"
        "INSERT INTO u VALUES (4, 'dup');\n"                 # fails
        "INSERT INTO u VALUES (6, 'f');\n"
    )
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--db", str(db), "--keep-going", "-f", str(script)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.stderr.count("duplicate key value violates unique constraint") == 4, proc.stderr
    for key in ["(id)=(1)", "(id)=(5)", "(id)=(15)", "(id)=(4)"]:
        assert f"Key {key} already exists" in proc.stderr, (key, proc.stderr)
    theirs = catalog(db).load_table("public.u").scan().to_arrow()
    assert rows(theirs, "id") == [
        {"id": 1, "s": "a"}, {"id": 2, "s": "b"}, {"id": 3, "s": "c"}, {"id": 4, "s": "d2"},
        {"id": 6, "s": "f"}, {"id": 14, "s": "d"}, {"id": 15, "s": "e"}]
    assert_same(quiver_bin, db, "u", "id")


def test_views_are_kept(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(
        quiver_bin, db,
        "CREATE TABLE base (k int, v text); INSERT INTO base VALUES (1, 'a'), (2, 'b'), (3, 'c'); "
        "CREATE VIEW big (key, val) AS SELECT k, v FROM base WHERE k > 1; "
        "CREATE VIEW \"Top\" AS SELECT max(key) AS m FROM big",
    )
    # After a restart: the views (the second over the first) and their renames.
    out = quiver_arrow(quiver_bin, db, 'SELECT (SELECT m FROM "Top") AS m, count(*) AS n FROM big')
    assert out.to_pydict() == {"m": [3], "n": [2]}
    assert quiver_arrow(quiver_bin, db, "SELECT key, val FROM big ORDER BY key").to_pydict() == {
        "key": [2, 3], "val": ["b", "c"]}
    quiver_sql(quiver_bin, db, "CREATE OR REPLACE VIEW big (key, val) AS SELECT k, v FROM base")
    assert quiver_arrow(quiver_bin, db, 'SELECT m FROM "Top"').to_pydict() == {"m": [3]}
    assert quiver_arrow(quiver_bin, db, "SELECT count(*) AS n FROM big").to_pydict() == {"n": [3]}
    # Rows of the JDBC catalog with iceberg_type VIEW: pyiceberg lists tables only.
    assert [t[1] for t in catalog(db).list_tables("public")] == ["base"]
    import sqlite3
    con = sqlite3.connect(db / "catalog.db")
    kinds = dict(con.execute("SELECT table_name, iceberg_type FROM iceberg_tables").fetchall())
    con.close()
    assert kinds == {"base": "TABLE", "big": "VIEW", "Top": "VIEW"}
    quiver_sql(quiver_bin, db, 'DROP VIEW "Top"')
    r = quiver_sql(quiver_bin, db, 'SELECT * FROM "Top"', check=False)
    assert r.returncode != 0 and 'relation "Top" does not exist' in r.stderr
    assert quiver_arrow(quiver_bin, db, "SELECT count(*) AS n FROM big").to_pydict() == {"n": [3]}


def test_table_written_by_pyiceberg(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE w (id bigint, s text); INSERT INTO w VALUES (1, 'q')")
    table = catalog(db).load_table("public.w")
    table.append(pa.table({"id": pa.array([2, 3], pa.int64()), "s": ["p", None]}))
    ours = assert_same(quiver_bin, db, "w", "id")
    assert ours.num_rows == 3
    # Quiver appends after pyiceberg's snapshot; pyiceberg reads all of it.
    quiver_sql(quiver_bin, db, "INSERT INTO w VALUES (4, 'r')")
    assert assert_same(quiver_bin, db, "w", "id").num_rows == 4


def test_commit_racing_another_writer_fails_cleanly(quiver_bin, tmp_path):
    """A commit whose base is no longer the catalog's current metadata (another
    program committed meanwhile) fails with 40001 and changes nothing."""
    from adbc_driver_flightsql import dbapi as flightsql
    from flight_fixtures import Server

    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE w (id bigint)")
    server = Server(quiver_bin, "--db", db)
    try:
        with flightsql.connect(server.uri) as conn:
            cur = conn.cursor()
            cur.execute("INSERT INTO w VALUES (1)")
            cur.fetchall()
            # pyiceberg does not know Quiver's lock: it commits through the catalog.
            catalog(db).load_table("public.w").append(pa.table({"id": pa.array([10], pa.int64())}))
            with pytest.raises(Exception, match="could not serialize access"):
                cur.execute("INSERT INTO w VALUES (2)")
                cur.fetchall()
            cur.close()
    finally:
        server.stop()
    assert sorted(catalog(db).load_table("public.w").scan().to_arrow().column("id").to_pylist()) == [1, 10]
    assert sorted(quiver_arrow(quiver_bin, db, "SELECT id FROM w").column("id").to_pylist()) == [1, 10]


def test_read_only_beside_a_writer(quiver_bin, tmp_path):
    from flight_fixtures import Server

    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2); "
               "CREATE VIEW v AS SELECT sum(a) AS s FROM t")
    server = Server(quiver_bin, "--db", db)
    try:
        proc = subprocess.run(
            [str(quiver_bin), "sql", "--db", str(db), "--read-only", "--format", "csv",
             "SELECT s FROM v"],
            capture_output=True, text=True, timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["s", "3"]
        for sql in ["INSERT INTO t VALUES (3)", "DROP TABLE t", "CREATE TABLE u (a int)",
                    "TRUNCATE t", "CREATE VIEW w AS SELECT 1"]:
            proc = subprocess.run(
                [str(quiver_bin), "sql", "--db", str(db), "--read-only", sql],
                capture_output=True, text=True, timeout=60,
            )
            assert proc.returncode != 0, sql
            assert "was opened read-only" in proc.stderr, (sql, proc.stderr)
    finally:
        server.stop()
    assert quiver_arrow(quiver_bin, db, "SELECT count(*) AS n FROM t").to_pydict() == {"n": [2]}
    proc = subprocess.run([str(quiver_bin), "sql", "--read-only", "SELECT 1"],
                          capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin"})
    assert proc.returncode != 0 and "only with --db" in proc.stderr


def test_flight_sql_ingest_is_stored(quiver_bin, tmp_path):
    """adbc_ingest into `quiver serve --db`: created, appended and replaced
    tables are Iceberg tables that survive the server."""
    from adbc_driver_flightsql import dbapi as flightsql
    from flight_fixtures import Server

    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE seed (a int)")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "s": ["a", "b", None]})
    server = Server(quiver_bin, "--db", db)
    try:
        with flightsql.connect(server.uri) as conn:
            cur = conn.cursor()
            assert cur.adbc_ingest("ing", data, mode="create") == 3
            assert cur.adbc_ingest("ing", data, mode="append") == 3
            assert cur.adbc_ingest("rep", data, mode="create") == 3
            assert cur.adbc_ingest("rep", data.slice(0, 1), mode="replace") == 1
            with pytest.raises(Exception, match="columns of type"):
                cur.adbc_ingest("rep", pa.table({"x": pa.array([1], pa.int16())}), mode="replace")
            cur.close()
    finally:
        server.stop()
    assert assert_same(quiver_bin, db, "ing", "id").num_rows == 6
    assert assert_same(quiver_bin, db, "rep", "id").num_rows == 1


def test_manifest_bounds_and_null_counts(quiver_bin, tmp_path):
    """The column statistics a commit writes into the manifest (pyiceberg's
    readable_metrics) are the data's null counts and least / greatest
    values, for each type with a typed statistics loop and one without."""
    db = tmp_path / "db"
    quiver_sql(
        quiver_bin, db,
        "CREATE TABLE s (i int, b bigint, d date, ts timestamp, tz timestamptz, tm time, t text, "
        "n numeric(10, 2), f boolean); "
        "INSERT INTO s SELECT CASE WHEN g % 7 = 0 THEN NULL ELSE (g * 37) % 1000 - 500 END, "
        "CASE WHEN g % 5 = 0 THEN NULL ELSE g::bigint * 1000003 END, DATE '2020-01-01' + (g * 13) % 900, "
        "TIMESTAMP '2021-03-04 05:06:07' + g * INTERVAL '17 minutes', "
        "TIMESTAMPTZ '2021-03-04 05:06:07+00' - g * INTERVAL '1 hour', "
        "TIME '00:00:01' + (g % 3000) * INTERVAL '7 seconds', "
        "CASE WHEN g % 3 = 0 THEN NULL ELSE 'v' || (g * 7919 % 1009)::text END, "
        "(g % 400) / 4.0 - 20, g % 2 = 0 FROM generate_series(1, 20000) g")
    ours = quiver_arrow(quiver_bin, db, "SELECT * FROM s")
    metrics = catalog(db).load_table("public.s").inspect.files().to_pylist()[0]["readable_metrics"]
    import pyarrow.compute as pc
    for name in ours.column_names:
        col = ours[name]
        m = metrics[name]
        assert m["null_value_count"] == col.null_count, name
        lo, hi = pc.min_max(col).values()
        assert m["lower_bound"] == lo.as_py(), (name, m["lower_bound"], lo)
        assert m["upper_bound"] == hi.as_py(), (name, m["upper_bound"], hi)
