"""Partitioned `--db` tables (issue 14 item 3): CREATE TABLE ... PARTITION BY
LIST (col) / RANGE (date_trunc('month', ts)) become Iceberg partition specs
(identity, month, ...); every write lays rows out one data file per
partition value with the partition tuple in the manifests; scans skip the
files whose partition values rule a predicate out.

Oracles: pyiceberg's SqlCatalog (the spec, each file's partition tuple, the
table's content), pyarrow (the rows of each data file, read directly),
fastavro (the manifest list's partition summaries), DuckDB (query answers
over pyiceberg's scan) and PostgreSQL (the SQLSTATEs of partition keys it
refuses too).
"""

import datetime
import json
import re
import struct
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pyiceberg_sql = pytest.importorskip("pyiceberg.catalog.sql")
fastavro = pytest.importorskip("fastavro")

import pg_oracle  # noqa: E402
from test_iceberg_db import assert_same, catalog, quiver_arrow  # noqa: E402


def quiver(quiver_bin, db, sql, check=True):
    args = [str(quiver_bin), "sql"] + (["--db", str(db)] if db is not None else [])
    proc = subprocess.run(args + ["--format", "json", sql], capture_output=True, text=True,
                          timeout=300)
    if check and proc.returncode != 0:
        pytest.fail(f"quiver sql failed ({proc.returncode}): {sql}\n{proc.stderr}", pytrace=False)
    return proc


def quiver_error(quiver_bin, db, sql):
    proc = quiver(quiver_bin, db, sql, check=False)
    assert proc.returncode == 1, (sql, proc.stdout, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("{")]
    assert len(lines) == 1, proc.stderr
    return json.loads(lines[0])


def explain_counts(quiver_bin, db, sql):
    """(files, files_pruned) of the SCAN line of EXPLAIN ANALYZE `sql`."""
    proc = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "EXPLAIN ANALYZE " + sql],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    line = next(ln for ln in proc.stdout.splitlines() if "SCAN" in ln)
    return (int(re.search(r"\bfiles=(\d+)", line).group(1)),
            int(re.search(r"\bfiles_pruned=(\d+)", line).group(1)))


def files_and_partitions(table):
    """[(data file path, partition tuple as a list)] of the current snapshot,
    by pyiceberg's planning."""
    return [(task.file.file_path.removeprefix("file://"), list(task.file.partition))
            for task in table.scan().plan_files()]


def month_of(ts):
    return (ts.year - 1970) * 12 + ts.month - 1


def summaries(table):
    """The manifest list's partition field summaries of each data manifest,
    read with fastavro."""
    snap = table.current_snapshot()
    with open(snap.manifest_list.removeprefix("file://"), "rb") as f:
        return [m["partitions"] for m in fastavro.reader(f) if m["content"] == 0]


def test_list_partitioned_table(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver(quiver_bin, db,
           "CREATE TABLE sales (id int NOT NULL, region text, amount numeric(10,2), "
           "sold date) PARTITION BY LIST (region)")
    quiver(quiver_bin, db,
           "INSERT INTO sales SELECT g, (ARRAY['eu', 'us', 'apac', NULL])[g % 4 + 1], g * 1.25, "
           "DATE '2024-01-01' + g FROM generate_series(1, 400) g")
    quiver(quiver_bin, db, "INSERT INTO sales VALUES (1000, 'eu', 1, NULL), (1001, 'latam', 2, NULL)")

    table = catalog(db).load_table("public.sales")
    # The spec: identity of region, field id 1000, in the metadata file too.
    (field,) = table.spec().fields
    assert (field.source_id, field.field_id, field.name, str(field.transform)) == \
        (table.schema().find_field("region").field_id, 1000, "region", "identity")
    meta = json.load(open(table.metadata_location.removeprefix("file://")))
    assert meta["default-spec-id"] == 0 and meta["last-partition-id"] == 1000
    # One file per region per INSERT: 4 + 2.
    layout = [(path, part) for path, part in files_and_partitions(table)]
    assert sorted(map(repr, (p for _, p in layout))) == \
        sorted(map(repr, [["eu"], ["us"], ["apac"], [None], ["eu"], ["latam"]]))
    for path, part in layout:
        regions = pq.read_table(path, columns=["region"]).column(0).to_pylist()
        assert set(regions) == {part[0]}, path
    # The manifest list's summaries (field 508) per manifest.
    got = sorted(summaries(table), key=lambda s: s[0]["lower_bound"])
    assert [(s[0]["contains_null"], s[0]["lower_bound"], s[0]["upper_bound"]) for s in got] == \
        [(True, b"apac", b"us"), (False, b"eu", b"latam")]
    theirs = assert_same(quiver_bin, db, "sales", "id", pyiceberg=True)
    assert theirs.num_rows == 402

    # Pruning by the partition values, answers as DuckDB's over pyiceberg's scan.
    for where, kept in [("region = 'eu'", 2), ("region IN ('us', 'latam')", 2),
                        ("region IS NULL", 1), ("region > 'm'", 1), ("region = 'none'", 0)]:
        sql = f"SELECT count(*) AS n, sum(amount) AS s, min(id) AS lo FROM sales WHERE {where}"
        files, pruned = explain_counts(quiver_bin, db, sql)
        assert (files, files - pruned) == (6, kept), where
        ours = quiver_arrow(quiver_bin, db, sql).to_pylist()
        expected = duckdb.sql(sql.replace("FROM sales", "FROM theirs")).to_arrow_table().to_pylist()
        assert ours == expected, where

    # UPDATE moves rows between partitions, DELETE empties one: the rewrite
    # lays every row out by partition again.
    quiver(quiver_bin, db, "UPDATE sales SET region = 'eu' WHERE region = 'us'; "
                           "DELETE FROM sales WHERE region = 'latam' OR id % 10 = 0")
    table = catalog(db).load_table("public.sales")
    layout = files_and_partitions(table)
    assert sorted(map(repr, (p for _, p in layout))) == sorted(map(repr, [["eu"], ["apac"], [None]]))
    for path, part in layout:
        assert set(pq.read_table(path, columns=["region"]).column(0).to_pylist()) == {part[0]}
    theirs = assert_same(quiver_bin, db, "sales", "id", pyiceberg=True)
    assert theirs.num_rows == 402 - 42
    assert set(theirs.column("region").to_pylist()) == {"eu", "apac", None}

    # Appends then VACUUM: small files merge within their partition only.
    for i in range(3):
        quiver(quiver_bin, db, f"INSERT INTO sales VALUES ({2000 + i}, 'apac', {i}, NULL), "
                               f"({3000 + i}, 'eu', {i}, NULL)")
    assert len(files_and_partitions(catalog(db).load_table("public.sales"))) == 3 + 6
    quiver(quiver_bin, db, "VACUUM sales")
    table = catalog(db).load_table("public.sales")
    layout = files_and_partitions(table)
    assert sorted(map(repr, (p for _, p in layout))) == sorted(map(repr, [["eu"], ["apac"], [None]]))
    for path, part in layout:
        assert set(pq.read_table(path, columns=["region"]).column(0).to_pylist()) == {part[0]}
    assert assert_same(quiver_bin, db, "sales", "id", pyiceberg=True).num_rows == 402 - 42 + 6
    assert explain_counts(quiver_bin, db, "SELECT count(*) FROM sales WHERE region = 'apac'") == (3, 2)


def test_range_month_partitioned_table(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver(quiver_bin, db,
           "CREATE TABLE ev (id bigint, ts timestamp, v double precision, note text) "
           "PARTITION BY RANGE (date_trunc('month', ts))")
    # Six months of 2024, a row just before 1970 (month -1) and a NULL ts.
    quiver(quiver_bin, db,
           "INSERT INTO ev SELECT g, TIMESTAMP '2024-01-01 00:00:00' + g * INTERVAL '7 hours', "
           "g * 0.5, 'n' || g FROM generate_series(0, 600) g")
    quiver(quiver_bin, db, "INSERT INTO ev VALUES (-1, TIMESTAMP '1969-12-31 23:59:59.999999', 1, NULL), "
                           "(-2, NULL, 2, 'null ts')")
    table = catalog(db).load_table("public.ev")
    (field,) = table.spec().fields
    assert (field.source_id, field.field_id, field.name, str(field.transform)) == \
        (table.schema().find_field("ts").field_id, 1000, "ts_month", "month")
    expected_months = {month_of(datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=7 * g))
                       for g in range(601)} | {-1, None}
    layout = files_and_partitions(table)
    assert sorted((p[0] for _, p in layout), key=lambda m: (m is None, m)) == \
        sorted(expected_months, key=lambda m: (m is None, m))
    for path, (month,) in layout:
        ts = pq.read_table(path, columns=["ts"]).column(0).to_pylist()
        assert {None if t is None else month_of(t) for t in ts} == {month}, path
    # The manifest list's summaries: each INSERT's manifest, months as 4-byte ints.
    months = sorted(m for m in expected_months if m is not None and m >= 0)
    assert summaries(table) == [
        [{"contains_null": False, "contains_nan": False,
          "lower_bound": struct.pack("<i", months[0]), "upper_bound": struct.pack("<i", months[-1])}],
        [{"contains_null": True, "contains_nan": False,
          "lower_bound": struct.pack("<i", -1), "upper_bound": struct.pack("<i", -1)}],
    ]
    theirs = assert_same(quiver_bin, db, "ev", "id", pyiceberg=True)
    assert theirs.num_rows == 603
    nfiles = len(layout)

    queries = [
        ("ts >= TIMESTAMP '2024-03-01' AND ts < TIMESTAMP '2024-04-01'", 1),
        ("ts BETWEEN TIMESTAMP '2024-02-15' AND TIMESTAMP '2024-04-02'", 3),
        ("ts < TIMESTAMP '2024-01-01'", 1),
        ("ts IS NULL", 1),
        ("ts > TIMESTAMP '2030-01-01'", 0),
    ]
    for where, kept in queries:
        sql = f"SELECT count(*) AS n, sum(v) AS s, count(note) AS c, max(id) AS hi FROM ev WHERE {where}"
        files, pruned = explain_counts(quiver_bin, db, sql)
        assert (files, files - pruned) == (nfiles, kept), where
        ours = quiver_arrow(quiver_bin, db, sql).to_pylist()
        expected = duckdb.sql(sql.replace("FROM ev", "FROM theirs")).to_arrow_table().to_pylist()
        assert ours == expected, where

    quiver(quiver_bin, db, "UPDATE ev SET ts = ts + INTERVAL '1 month' WHERE id % 5 = 0; "
                           "DELETE FROM ev WHERE ts >= TIMESTAMP '2024-06-01'")
    table = catalog(db).load_table("public.ev")
    for path, (month,) in files_and_partitions(table):
        ts = pq.read_table(path, columns=["ts"]).column(0).to_pylist()
        assert {None if t is None else month_of(t) for t in ts} == {month}, path
    theirs = assert_same(quiver_bin, db, "ev", "id", pyiceberg=True)
    assert max(t for t in theirs.column("ts").to_pylist() if t is not None) < \
        datetime.datetime(2024, 6, 1)


def test_range_over_several_keys(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver(quiver_bin, db,
           "CREATE TABLE m (k int, grp text, d date, tz timestamptz) "
           "PARTITION BY RANGE (grp, date_trunc('day', d), date_trunc('year', tz))")
    quiver(quiver_bin, db,
           "INSERT INTO m SELECT g, 'g' || (g % 2), DATE '2023-12-30' + (g % 3), "
           "TIMESTAMPTZ '2023-12-31 20:00:00+00' + g * INTERVAL '1 hour' "
           "FROM generate_series(1, 12) g")
    table = catalog(db).load_table("public.m")
    assert [(f.name, str(f.transform), f.field_id) for f in table.spec().fields] == \
        [("grp", "identity", 1000), ("d_day", "day", 1001), ("tz_year", "year", 1002)]
    epoch = datetime.date(1970, 1, 1)
    for path, (grp, day, year) in files_and_partitions(table):
        data = pq.read_table(path).to_pylist()
        day = day if isinstance(day, int) else (day - epoch).days
        assert {r["grp"] for r in data} == {grp}
        assert {(r["d"] - epoch).days for r in data} == {day}
        assert {r["tz"].year - 1970 for r in data} == {year}
    theirs = assert_same(quiver_bin, db, "m", "k", pyiceberg=True)
    sql = ("SELECT count(*) AS n, sum(k) AS s FROM m WHERE grp = 'g1' AND d = DATE '2023-12-31' "
           "AND tz >= TIMESTAMPTZ '2024-01-01 00:00:00+00'")
    files, pruned = explain_counts(quiver_bin, db, sql)
    # g = 1..3 in 2023, 4..12 in 2024: 6 (grp, day) pairs in 2024, 3 in 2023.
    assert (files, files - pruned) == (len(files_and_partitions(table)), 1) and files == 9
    assert quiver_arrow(quiver_bin, db, sql).to_pylist() == \
        duckdb.sql(sql.replace("FROM m", "FROM theirs")).to_arrow_table().to_pylist()


def test_pyiceberg_partitioned_table_reads_equal_and_prunes(quiver_bin, tmp_path):
    """A table pyiceberg creates and appends to in Quiver's catalog, identity
    partitioned, without column bounds (metrics mode none): Quiver reads it
    equal to pyiceberg's scan, prunes by the partition values alone, and
    appends to it by the same spec."""
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import LongType, NestedField, StringType

    db = tmp_path / "db"
    quiver(quiver_bin, db, "CREATE TABLE seed (x int)")  # makes the catalog
    cat = catalog(db)
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "cat", StringType(), required=False))
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000,
                                        transform=IdentityTransform(), name="cat"))
    t = cat.create_table("public.p", schema=schema, partition_spec=spec,
                         properties={"write.metadata.metrics.default": "none"})
    t.append(pa.table({"id": pa.array(range(30), pa.int64()),
                       "cat": [f"c{i % 3}" for i in range(30)]}))
    assert not any(task.file.lower_bounds for task in t.scan().plan_files())
    theirs = assert_same(quiver_bin, db, "p", "id", pyiceberg=True)
    sql = "SELECT count(*) AS n, sum(id) AS s FROM p WHERE cat = 'c1'"
    assert explain_counts(quiver_bin, db, sql) == (3, 2)
    assert quiver_arrow(quiver_bin, db, sql).to_pylist() == \
        duckdb.sql(sql.replace("FROM p", "FROM theirs")).to_arrow_table().to_pylist()
    # read_iceberg over its location prunes the same way.
    location = t.metadata.location.removeprefix("file://")
    assert explain_counts(quiver_bin, db,
                          f"SELECT count(*) FROM read_iceberg('{location}') WHERE cat = 'c2'") == (3, 2)
    # Quiver's append follows pyiceberg's spec.
    quiver(quiver_bin, db, "INSERT INTO p VALUES (100, 'c1'), (101, 'c9')")
    t = catalog(db).load_table("public.p")
    parts = sorted(p[0] for _, p in files_and_partitions(t))
    assert parts == ["c0", "c1", "c1", "c2", "c9"]
    assert assert_same(quiver_bin, db, "p", "id", pyiceberg=True).num_rows == 32


def test_refused_partitionings(quiver_bin, tmp_path):
    db = tmp_path / "db"
    cols = "(a int, b text, ts timestamp, d date, x double precision)"
    for sql, what in [
        (f"CREATE TABLE t {cols} PARTITION BY HASH (a)", "HASH"),
        (f"CREATE TABLE t {cols} PARTITION BY RANGE ((a + 1))", "partition keys"),
        (f"CREATE TABLE t {cols} PARTITION BY RANGE (date_trunc('week', ts))", "week"),
        (f"CREATE TABLE t {cols} PARTITION BY RANGE (date_trunc('hour', d))", "hour"),
        (f"CREATE TABLE t {cols} PARTITION BY LIST (x)", 'column "x"'),
        ("CREATE TABLE c PARTITION OF p FOR VALUES IN (1)", "PARTITION OF"),
        # PostgreSQL takes a repeated key; an Iceberg spec cannot.
        (f"CREATE TABLE t {cols} PARTITION BY RANGE (a, a)", "repeated"),
    ]:
        err = quiver_error(quiver_bin, db, sql)
        assert err["sqlstate"] == "0A000" and what in err["error"], (sql, err)
    # Nothing was created.
    assert quiver_error(quiver_bin, db, "SELECT * FROM t")["sqlstate"] == "42P01"


def test_alter_partitioned_table(quiver_bin, tmp_path):
    """Schema evolution keeps the spec (by field id): a partition source
    column cannot be dropped (as in Iceberg), others can; rows keep being
    laid out by partition."""
    db = tmp_path / "db"
    quiver(quiver_bin, db, "CREATE TABLE t (id int, ts timestamp, x text) "
                           "PARTITION BY RANGE (date_trunc('day', ts)); "
                           "INSERT INTO t VALUES (1, TIMESTAMP '2024-05-01 10:00', 'a')")
    err = quiver_error(quiver_bin, db, "ALTER TABLE t DROP COLUMN ts")
    assert err["sqlstate"] == "0A000" and "partitioned by it" in err["error"], err
    quiver(quiver_bin, db, "ALTER TABLE t DROP COLUMN x; ALTER TABLE t ADD COLUMN y int; "
                           "INSERT INTO t VALUES (2, TIMESTAMP '2024-05-02 10:00', 7), "
                           "(3, TIMESTAMP '2024-05-01 11:00', 8)")
    table = catalog(db).load_table("public.t")
    assert [str(f.transform) for f in table.spec().fields] == ["day"]
    assert len(files_and_partitions(table)) == 3
    assert assert_same(quiver_bin, db, "t", "id", pyiceberg=True).num_rows == 3
    assert explain_counts(quiver_bin, db,
                          "SELECT * FROM t WHERE ts < TIMESTAMP '2024-05-02'") == (3, 1)


@pytest.fixture(scope="module")
def pg():
    if not pg_oracle.available():
        pytest.skip("PostgreSQL 15 is not installed")
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("key", ["LIST (a, b)", "LIST (nope)", "RANGE (date_trunc('month', a))"])
def test_partition_key_errors_match_postgres(quiver_bin, pg, tmp_path, key):
    sql = f"CREATE TABLE t (a int, b text, ts timestamp) PARTITION BY {key}"
    code = pg.sqlstate(sql)
    assert code is not None
    for db in (tmp_path / "db", None):
        assert quiver_error(quiver_bin, db, sql)["sqlstate"] == code, (sql, db)


def test_in_memory_partitioned_table_is_a_plain_table(quiver_bin, tmp_path):
    """Without --db PARTITION BY is checked and lays nothing out: the table
    takes rows directly (PostgreSQL would want PARTITION OF tables first)."""
    sql = ("CREATE TABLE t (id int, ts timestamp) PARTITION BY RANGE (date_trunc('month', ts)); "
           "INSERT INTO t VALUES (1, TIMESTAMP '2024-01-05'), (2, TIMESTAMP '2024-02-05'), (3, NULL); "
           "UPDATE t SET ts = ts + INTERVAL '1 month' WHERE id = 1; DELETE FROM t WHERE id = 2; "
           "SELECT id, ts FROM t ORDER BY id")
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "arrow", sql], capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = pa.ipc.open_stream(proc.stdout).read_all().to_pylist()
    assert got == [{"id": 1, "ts": datetime.datetime(2024, 2, 5)}, {"id": 3, "ts": None}]
