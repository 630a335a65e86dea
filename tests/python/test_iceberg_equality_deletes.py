"""Iceberg equality delete files (issue 14, item 5): read_iceberg over tables
another engine wrote, and --db tables holding deletes another engine
committed.

pyiceberg 0.12 writes the tables but neither writes nor reads equality
deletes (its scan raises "PyIceberg does not yet support equality
deletes"). Each delete here is committed through pyiceberg's own
transaction API (fast_append: snapshot, summary, manifest list, catalog
commit), with the snapshot producer's manifest writer swapped for one that
writes a delete manifest (content 1); the delete file is Parquet written by
pyarrow, its columns carrying their Iceberg field ids.

The oracle is the Iceberg specification's semantics, computed in this file
over the rows written (each kept with the data sequence number and the
partition of the commit that wrote it): a row is deleted when an equality
delete file whose data sequence number is greater than the row's, and whose
partition spec is unpartitioned or whose (spec id, partition tuple) equals
the row's, holds a row equal to it in the delete columns, NULL equal to NULL
(Python tuple equality: None == None). Snapshots before any delete are also
compared with pyiceberg's own scan, and so are --db tables once a rewrite
(UPDATE, DELETE, VACUUM) has left no delete file.
"""

import datetime
import decimal
import json
import os
import re
import subprocess
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pyiceberg_sql = pytest.importorskip("pyiceberg.catalog.sql")
from pyiceberg.manifest import (DataFile, DataFileContent, FileFormat,  # noqa: E402
                                ManifestContent, ManifestWriterV2)
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.transforms import IdentityTransform  # noqa: E402
from pyiceberg.typedef import Record  # noqa: E402
from pyiceberg.types import (BooleanType, DateType, DecimalType, DoubleType,  # noqa: E402
                             IntegerType, LongType, NestedField, StringType, TimestampType,
                             TimestamptzType)


# ---- running Quiver ----

def run(quiver_bin, sql, db=None, extra=(), check=True, fmt="arrow"):
    args = [str(quiver_bin), "sql", *(["--format", fmt] if fmt else []), *extra]
    if db is not None:
        args += ["--db", str(db)]
    proc = subprocess.run(args + [sql], capture_output=True, timeout=300)
    if check and proc.returncode != 0:
        pytest.fail(f"quiver sql failed: {sql}\n{proc.stderr.decode()}", pytrace=False)
    return proc


def execute(quiver_bin, sql, db):
    return run(quiver_bin, sql, db, fmt=None)


def arrow(quiver_bin, sql, db=None):
    return pa.ipc.open_stream(run(quiver_bin, sql, db).stdout).read_all()


def error(quiver_bin, sql, db=None, extra=()):
    """The error of `sql`: "SQLSTATE: message" (--format json's error line)."""
    proc = run(quiver_bin, sql, db, extra, check=False, fmt="json")
    assert proc.returncode != 0, f"expected an error: {sql}"
    assert proc.returncode < 128, "crashed"
    err = json.loads(proc.stderr.decode().strip().splitlines()[-1])
    return f"{err['sqlstate']}: {err['error']}"


def norm(v):
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return v


def key(r):
    return tuple((v is None, v) for v in r)


def tuples(rows, columns):
    """Rows (dicts) as sorted tuples of `columns`."""
    return sorted((tuple(norm(r[c]) for c in columns) for r in rows), key=key)


def got(table):
    return tuples(table.to_pylist(), table.column_names)


def scan_counts(explain_text):
    """(files, files_pruned) of the SCAN line of EXPLAIN ANALYZE."""
    line = next(ln for ln in explain_text.splitlines() if "SCAN" in ln)
    return (int(re.search(r"\bfiles=(\d+)", line).group(1)),
            int(re.search(r"\bfiles_pruned=(\d+)", line).group(1)))


def explain(quiver_bin, sql, db=None):
    args = [str(quiver_bin), "sql"] + (["--db", str(db)] if db is not None else [])
    proc = subprocess.run(args + ["EXPLAIN ANALYZE " + sql], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ---- the oracle ----

class Model:
    """The rows written and the equality deletes committed, with their data
    sequence numbers and partitions; live() applies the specification's
    rule."""

    def __init__(self):
        self.rows = []     # (row dict, sequence number, (spec id, partition tuple))
        self.deletes = []  # (columns, set of key tuples, sequence number, scope or None: global)

    def add_rows(self, table, seq, scope=lambda r: (0, ())):
        for r in table.to_pylist():
            self.rows.append((r, seq, scope(r)))

    def add_delete(self, columns, table, seq, scope=None):
        keys = {tuple(r[c] for c in columns) for r in table.to_pylist()}
        self.deletes.append((list(columns), keys, seq, scope))

    def deleted(self, row, seq, scope):
        return any(dseq > seq and (dscope is None or dscope == scope)
                   and tuple(row[c] for c in cols) in keys
                   for cols, keys, dseq, dscope in self.deletes)

    def live(self):
        return [r for r, seq, scope in self.rows if not self.deleted(r, seq, scope)]

    def remove(self, pred):
        """Rows a rewrite dropped (Quiver's DELETE): gone from the model."""
        self.rows = [(r, s, p) for r, s, p in self.rows if self.deleted(r, s, p) or not pred(r)]

    def rebase(self, seq, change=lambda r: r):
        """After a rewrite that applied every delete (and dropped the delete
        files): the live rows, changed by `change`, all at sequence number
        `seq`."""
        self.rows = [(change(dict(r)), seq, scope)
                     for r, s, scope in self.rows if not self.deleted(r, s, scope)]
        self.deletes = []

    def copy(self):
        m = Model()
        m.rows = list(self.rows)
        m.deletes = list(self.deletes)
        return m


# ---- committing with pyiceberg ----

class DeleteManifestWriter(ManifestWriterV2):
    """pyiceberg's v2 manifest writer, writing a delete manifest."""

    def content(self):
        return ManifestContent.DELETES

    @property
    def _meta(self):
        return {**super()._meta, "content": "deletes"}


def commit_delete_file(table, content, data, field_ids=None, spec_id=None, partition=()):
    """Commits one delete file (`data`: an Arrow table; for equality deletes
    its columns are those of `field_ids`, in order) in spec
    `spec_id` (default: the table's) and `partition`; returns the reloaded
    table and the new snapshot's sequence number."""
    loc = table.location().removeprefix("file://")
    path = f"{loc}/data/deletes-{uuid.uuid4()}.parquet"
    if content == DataFileContent.EQUALITY_DELETES:
        fields = [pa.field(data.column_names[k], data.schema.field(k).type, True,
                           {"PARQUET:field_id": str(i)}) for k, i in enumerate(field_ids)]
        data = data.cast(pa.schema(fields))
        extra = {"equality_ids": list(field_ids)}
    else:
        data = data.cast(pa.schema([
            pa.field("file_path", pa.string(), False, {"PARQUET:field_id": "2147483546"}),
            pa.field("pos", pa.int64(), False, {"PARQUET:field_id": "2147483545"})]))
        extra = {}
    pq.write_table(data, path)
    spec = table.specs()[spec_id if spec_id is not None else table.spec().spec_id]
    df = DataFile.from_args(content=content, file_path="file://" + path,
                            file_format=FileFormat.PARQUET, partition=Record(*partition),
                            record_count=data.num_rows, file_size_in_bytes=os.path.getsize(path),
                            **extra)
    df.spec_id = spec.spec_id
    with table.transaction() as tx:
        with tx.update_snapshot().fast_append() as fa:
            fa.new_manifest_writer = lambda *a, **k: DeleteManifestWriter(
                spec, tx.table_metadata.schema(), fa.new_manifest_output(), fa._snapshot_id,
                fa._compression)
            fa.append_data_file(df)
    table = table.refresh()
    return table, table.current_snapshot().sequence_number


def append(table, data):
    table.append(data)
    return table.current_snapshot().sequence_number


def location(table):
    return table.location().removeprefix("file://")


def data_files(table):
    return [e.data_file.file_path for m in table.current_snapshot().manifests(table.io)
            for e in m.fetch_manifest_entry(table.io) if e.data_file.content == DataFileContent.DATA]


@pytest.fixture
def cat(tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    c = pyiceberg_sql.SqlCatalog("test", uri=f"sqlite:///{tmp_path}/cat.db",
                                 warehouse=f"file://{wh}")
    c.create_namespace("ns")
    return c


# ---- read_iceberg ----

SCHEMA = Schema(NestedField(1, "id", LongType(), required=False),
                NestedField(2, "cat", StringType(), required=False),
                NestedField(3, "v", IntegerType(), required=False),
                NestedField(4, "note", StringType(), required=False))
COLUMNS = ["id", "cat", "v", "note"]


def rows_of(ids, cat=lambda i: "ab"[i % 2] if i % 5 else None):
    return pa.table({
        "id": pa.array(list(ids), pa.int64()),
        "cat": pa.array([cat(i) for i in ids], pa.string()),
        "v": pa.array([i * 3 for i in ids], pa.int32()),
        "note": pa.array([None if i % 4 == 0 else f"n{i % 10}" for i in ids], pa.string()),
    })


def test_sequence_numbers_partitions_and_global_deletes(quiver_bin, cat):
    t = cat.create_table("ns.t", schema=SCHEMA, properties={"format-version": "2"})
    m = Model()
    history = []  # (snapshot id, model then)

    def snap():
        history.append((t.current_snapshot().snapshot_id, m.copy()))

    a = rows_of(range(0, 20))
    m.add_rows(a, append(t, a))
    snap()
    # A global delete (unpartitioned spec) by id ...
    d1 = pa.table({"id": pa.array([1, 5, 100, 13], pa.int64())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d1, [1])
    m.add_delete(["id"], d1, seq)
    snap()
    # ... never reaches rows appended after it (the same ids again).
    b = rows_of(range(0, 10))
    m.add_rows(b, append(t, b))
    snap()
    # Two delete columns, NULL equal to NULL: (cat NULL, note NULL) is id 0,
    # 20, 40, ... of both appends; ('a', 'n3') matches none (3 is 'b').
    d2 = pa.table({"cat": pa.array([None, "a"], pa.string()),
                   "note": pa.array([None, "n3"], pa.string())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d2, [2, 4])
    m.add_delete(["cat", "note"], d2, seq)
    snap()
    # Partitioned by cat from now on (spec 1): one file per partition.
    with t.update_spec() as u:
        u.add_field("cat", IdentityTransform(), "cat")
    t = t.refresh()
    c = rows_of(range(100, 120), cat=lambda i: "ab"[i % 2])
    m.add_rows(c, append(t, c), scope=lambda r: (1, (r["cat"],)))
    snap()
    # A delete in partition cat='b' of spec 1: ids 101 and 103 go; 100 is in
    # 'a'; 3 and 9 are 'b' rows of spec 0's file, which it does not reach.
    d3 = pa.table({"id": pa.array([100, 101, 103, 3, 9], pa.int64())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d3, [1], spec_id=1,
                                partition=("b",))
    m.add_delete(["id"], d3, seq, scope=(1, ("b",)))
    # A global delete of spec 0 reaches every partition of spec 1 too.
    d4 = pa.table({"note": pa.array(["n7"], pa.string())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d4, [4], spec_id=0)
    m.add_delete(["note"], d4, seq)
    snap()

    loc = location(t)
    live = m.live()
    assert len(live) < len(m.rows)
    ours = arrow(quiver_bin, f"SELECT * FROM read_iceberg('{loc}')")
    assert ours.column_names == COLUMNS
    assert got(ours) == tuples(live, COLUMNS)
    # Spot checks of the rules, besides the whole answer.
    ids = [r["id"] for r in live]
    assert ids.count(1) == 1 and ids.count(5) == 1    # appended after d1
    assert 100 in ids and 101 not in ids and 3 in ids  # d3's partition only
    assert not any(r["note"] == "n7" for r in live)    # d4 everywhere
    assert arrow(quiver_bin, f"SELECT count(*) AS n FROM read_iceberg('{loc}')") \
        .column("n").to_pylist() == [len(live)]
    # A projection without the delete columns.
    assert got(arrow(quiver_bin, f"SELECT v FROM read_iceberg('{loc}')")) == tuples(live, ["v"])
    assert arrow(quiver_bin, f"SELECT count(v) AS n FROM read_iceberg('{loc}')") \
        .column("n").to_pylist() == [len(live)]
    # Predicates that prune files (their bounds, their partitions) keep the
    # deletes of the files left.
    for where, keep in [("id >= 100", lambda r: r["id"] >= 100),
                        ("cat = 'b'", lambda r: r["cat"] == "b"),
                        ("v BETWEEN 0 AND 30", lambda r: 0 <= r["v"] <= 30)]:
        sql = f"SELECT id, note FROM read_iceberg('{loc}') WHERE {where}"
        assert got(arrow(quiver_bin, sql)) == tuples([r for r in live if keep(r)], ["id", "note"]), where
    files, pruned = scan_counts(explain(quiver_bin, f"SELECT id FROM read_iceberg('{loc}') WHERE id >= 100"))
    assert pruned >= 2 and files - pruned == 2
    # Time travel: each snapshot with the deletes it had.
    for sid, then in history:
        ours = arrow(quiver_bin, f"SELECT * FROM read_iceberg('{loc}', snapshot_id => {sid})")
        assert got(ours) == tuples(then.live(), COLUMNS), sid
    # Before any delete pyiceberg reads the table too.
    first = history[0][0]
    assert got(arrow(quiver_bin, f"SELECT * FROM read_iceberg('{loc}', snapshot_id => {first})")) \
        == got(t.scan(snapshot_id=first).to_arrow())


def test_delete_column_types(quiver_bin, cat):
    schema = Schema(NestedField(1, "i", IntegerType(), required=False),
                    NestedField(2, "d", DateType(), required=False),
                    NestedField(3, "ts", TimestampType(), required=False),
                    NestedField(4, "tz", TimestamptzType(), required=False),
                    NestedField(5, "dec", DecimalType(10, 2), required=False),
                    NestedField(6, "s", StringType(), required=False),
                    NestedField(7, "flag", BooleanType(), required=False),
                    NestedField(8, "x", DoubleType(), required=False))
    t = cat.create_table("ns.types", schema=schema, properties={"format-version": "2"})
    n = 40
    utc = datetime.timezone.utc

    def nul(i, v):
        return None if i % 7 == 3 else v

    data = pa.table({
        "i": pa.array([nul(i, i % 13) for i in range(n)], pa.int32()),
        "d": pa.array([nul(i, datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 11))
                       for i in range(n)], pa.date32()),
        "ts": pa.array([nul(i, datetime.datetime(2024, 5, 1, 12) + datetime.timedelta(
            microseconds=1, hours=i % 9)) for i in range(n)], pa.timestamp("us")),
        "tz": pa.array([nul(i, datetime.datetime(2023, 1, 1, tzinfo=utc) + datetime.timedelta(
            minutes=i % 6)) for i in range(n)], pa.timestamp("us", tz="UTC")),
        "dec": pa.array([nul(i, decimal.Decimal(i % 8) / 4 - 1) for i in range(n)],
                        pa.decimal128(10, 2)),
        "s": pa.array([nul(i, "é" * (i % 5)) for i in range(n)], pa.string()),
        "flag": pa.array([nul(i, i % 3 == 0) for i in range(n)], pa.bool_()),
        "x": pa.array([i / 8 for i in range(n)], pa.float64()),
    })
    m = Model()
    m.add_rows(data, append(t, data))
    columns = data.column_names
    deletes = [
        (["i"], [1], pa.table({"i": pa.array([4, 100], pa.int32())})),
        (["d"], [2], pa.table({"d": pa.array([datetime.date(2024, 1, 3)], pa.date32())})),
        (["ts"], [3], pa.table({"ts": pa.array([datetime.datetime(2024, 5, 1, 14, 0, 0, 1)],
                                               pa.timestamp("us"))})),
        (["tz"], [4], pa.table({"tz": pa.array([datetime.datetime(2023, 1, 1, 0, 5, tzinfo=utc)],
                                               pa.timestamp("us", tz="UTC"))})),
        (["dec"], [5], pa.table({"dec": pa.array([decimal.Decimal("0.25")], pa.decimal128(10, 2))})),
        # Several columns, NULLs among them: the rows with every one NULL go.
        (["s", "flag"], [6, 7], pa.table({"s": pa.array(["éé", None], pa.string()),
                                          "flag": pa.array([False, None], pa.bool_())})),
    ]
    for cols, ids, rows in deletes:
        t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, rows, ids)
        m.add_delete(cols, rows, seq)
    live = m.live()
    assert 0 < len(live) < n
    ours = arrow(quiver_bin, f"SELECT * FROM read_iceberg('{location(t)}')")
    assert got(ours) == tuples(live, columns)
    # Float and double columns cannot be delete columns (the specification).
    t, _ = commit_delete_file(t, DataFileContent.EQUALITY_DELETES,
                              pa.table({"x": pa.array([0.5], pa.float64())}), [8])
    err = error(quiver_bin, f"SELECT * FROM read_iceberg('{location(t)}')")
    assert err.startswith("0A000: ") and "equality delete file" in err and '"x"' in err \
        and "double" in err, err


def test_equality_and_position_deletes_on_one_file(quiver_bin, cat):
    t = cat.create_table("ns.both", schema=SCHEMA, properties={"format-version": "2"})
    data = rows_of(range(0, 50))
    m = Model()
    m.add_rows(data, append(t, data))
    (path,) = data_files(t)
    # Rows 0, 3, 10 and 30 by position; then ids 3 (already gone), 4, 11 and
    # 31 by value.
    positions = [0, 3, 10, 30]
    t, _ = commit_delete_file(t, DataFileContent.POSITION_DELETES,
                              pa.table({"file_path": [path] * len(positions), "pos": positions}))
    m.remove(lambda r: r["id"] in positions)  # one file, rows in id order
    eq = pa.table({"id": pa.array([3, 4, 11, 31], pa.int64())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, eq, [1])
    m.add_delete(["id"], eq, seq)
    live = m.live()
    assert len(live) == 50 - 7
    loc = location(t)
    assert got(arrow(quiver_bin, f"SELECT * FROM read_iceberg('{loc}')")) == tuples(live, COLUMNS)
    assert arrow(quiver_bin, f"SELECT count(*) AS n FROM read_iceberg('{loc}')") \
        .column("n").to_pylist() == [43]
    assert got(arrow(quiver_bin, f"SELECT note FROM read_iceberg('{loc}') WHERE id < 20")) == \
        tuples([r for r in live if r["id"] < 20], ["note"])


def test_schema_evolution(quiver_bin, cat):
    """A delete column added after older data files reads NULL there (the
    specification's projection rule); one the schema dropped since is
    refused."""
    t = cat.create_table("ns.evo", schema=SCHEMA, properties={"format-version": "2"})
    m = Model()
    old = rows_of(range(0, 6))
    m.add_rows(old.append_column("w", pa.array([None] * 6, pa.string())), append(t, old))
    with t.update_schema() as u:
        u.add_column("w", StringType())
    t = t.refresh()
    new = rows_of(range(6, 10)).append_column("w", pa.array(["x", None, "y", "x"], pa.string()))
    m.add_rows(new, append(t, new))
    # Only a column the older file lacks (a scan of it reads another column
    # to count its rows by).
    before = t.current_snapshot().snapshot_id
    assert got(arrow(quiver_bin, f"SELECT w FROM read_iceberg('{location(t)}', snapshot_id => "
                     f"{before})")) == tuples(m.live(), ["w"])
    w_id = t.schema().find_field("w").field_id
    d = pa.table({"w": pa.array([None, "y"], pa.string())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d, [w_id])
    m.add_delete(["w"], d, seq)
    live = m.live()
    assert sorted(r["id"] for r in live) == [6, 9]
    ours = arrow(quiver_bin, f"SELECT * FROM read_iceberg('{location(t)}')")
    assert got(ours) == tuples(live, COLUMNS + ["w"])
    with t.update_schema() as u:
        u.delete_column("note")
    t = t.refresh()
    d = pa.table({"note": pa.array(["n1"], pa.string())})
    t, _ = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d, [4])
    err = error(quiver_bin, f"SELECT * FROM read_iceberg('{location(t)}')")
    assert err.startswith("0A000: ") and "field id 4" in err, err


def test_memory_limit_counts_the_delete_keys(quiver_bin, cat):
    t = cat.create_table("ns.mem", schema=SCHEMA, properties={"format-version": "2"})
    data = rows_of(range(0, 100))
    append(t, data)
    loc = location(t)
    q = f"SELECT count(*) FROM read_iceberg('{loc}')"
    run(quiver_bin, q, extra=["--memory-limit", "4MB"], fmt=None)
    keys = pa.table({"id": pa.array(range(1_000_000, 1_200_000), pa.int64())})
    keys = pa.concat_tables([keys, pa.table({"id": pa.array([7], pa.int64())})])
    t, _ = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, keys, [1])
    assert arrow(quiver_bin, f"SELECT count(*) AS n FROM read_iceberg('{loc}')") \
        .column("n").to_pylist() == [99]
    err = error(quiver_bin, f"SELECT count(*) FROM read_iceberg('{loc}') WHERE id >= 0",
                extra=["--memory-limit", "4MB"])
    assert err.startswith("53200: "), err


# ---- --db tables ----

def db_catalog(db):
    return pyiceberg_sql.SqlCatalog("quiver", uri=f"sqlite:///{db}/catalog.db",
                                    warehouse=f"file://{db}")


def test_db_table_with_equality_deletes(quiver_bin, tmp_path):
    db = tmp_path / "db"
    execute(quiver_bin, "CREATE TABLE t (id bigint, grp text, v integer); "
        "INSERT INTO t SELECT g, CASE WHEN g % 5 = 0 THEN NULL ELSE 'g' || (g % 3) END, g "
        "FROM generate_series(0, 29) g", db)
    execute(quiver_bin, "INSERT INTO t SELECT g, 'late', g FROM generate_series(30, 39) g", db)
    cols = ["id", "grp", "v"]
    m = Model()
    m.add_rows(pa.table({"id": list(range(30)),
                         "grp": [None if g % 5 == 0 else f"g{g % 3}" for g in range(30)],
                         "v": list(range(30))}), 1)
    m.add_rows(pa.table({"id": list(range(30, 40)), "grp": ["late"] * 10,
                         "v": list(range(30, 40))}), 2)

    def check(extra_sql=""):
        live = m.live()
        assert got(arrow(quiver_bin, "SELECT * FROM t", db)) == tuples(live, cols)
        assert arrow(quiver_bin, "SELECT count(*) AS n FROM t", db).column("n").to_pylist() == \
            [len(live)]
        return live

    t = db_catalog(db).load_table("public.t")
    d1 = pa.table({"id": pa.array([2, 31, 500], pa.int64())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d1, [1])
    m.add_delete(["id"], d1, seq)
    d2 = pa.table({"grp": pa.array([None], pa.string())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d2, [2])
    m.add_delete(["grp"], d2, seq)
    check()
    assert arrow(quiver_bin, "SELECT count(*) AS n FROM quiver_snapshots('t')", db) \
        .column("n").to_pylist() == [4]
    # An INSERT keeps the delete files; its rows are newer than they are,
    # in the process that wrote them and after a restart.
    out = arrow(quiver_bin, "INSERT INTO t VALUES (2, NULL, 1002), (31, 'x', 1031); "
                "SELECT count(*) AS n FROM t WHERE id IN (2, 31)", db)
    assert out.column("n").to_pylist() == [2]
    m.add_rows(pa.table({"id": [2, 31], "grp": [None, "x"], "v": [1002, 1031]}),
               t.refresh().metadata.last_sequence_number)
    check()
    # A column an equality delete keys on cannot be dropped while it does.
    err = error(quiver_bin, "ALTER TABLE t DROP COLUMN grp", db)
    assert "0A000" in err and "equality delete" in err, err
    # UPDATE rewrites the table: the deleted rows stay deleted.
    execute(quiver_bin, "UPDATE t SET v = v + 100 WHERE id < 10", db)
    t = t.refresh()
    m.rebase(t.metadata.last_sequence_number,
             lambda r: {**r, "v": r["v"] + 100 if r["id"] < 10 else r["v"]})
    live = check()
    assert got(t.scan().to_arrow()) == tuples(live, cols)  # no delete file left
    # New deletes, then DELETE.
    d3 = pa.table({"id": pa.array([7, 8], pa.int64()), "grp": pa.array(["g1", "g1"], pa.string())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d3, [1, 2])
    m.add_delete(["id", "grp"], d3, seq)
    check()
    execute(quiver_bin, "DELETE FROM t WHERE v = 13", db)
    t = t.refresh()
    m.rebase(t.metadata.last_sequence_number)
    m.remove(lambda r: r["v"] == 13)
    live = check()
    assert got(t.scan().to_arrow()) == tuples(live, cols)
    # VACUUM applies the deletes it drops: the one data file (small and
    # alone, so only its deletes make VACUUM rewrite it) is rewritten.
    d4 = pa.table({"v": pa.array([21, 22, 1102], pa.int32())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d4, [3])
    m.add_delete(["v"], d4, seq)
    live = check()
    ids = [r["id"] for r in live]
    assert 23 in ids and not {2, 21, 22} & set(ids)
    assert len(data_files(t)) == 1
    out = arrow(quiver_bin, "VACUUM t", db).to_pylist()
    assert out[0]["rewritten_data_files_count"] == 1, out
    check()
    t = t.refresh()
    assert got(t.scan().to_arrow()) == tuples(live, cols)
    ops = arrow(quiver_bin, "SELECT operation FROM quiver_snapshots('t') ORDER BY committed_at", db)
    assert ops.column("operation").to_pylist()[-1] == "replace"
    execute(quiver_bin, "INSERT INTO t VALUES (99, 'last', 21)", db)
    m.rebase(seq)
    m.add_rows(pa.table({"id": [99], "grp": ["last"], "v": [21]}), seq + 1)
    live = check()
    # With the delete files gone, the column can be dropped.
    execute(quiver_bin, "ALTER TABLE t DROP COLUMN grp", db)
    assert arrow(quiver_bin, "SELECT count(*) AS n FROM t", db).column("n").to_pylist() == [len(live)]
    # Expiring the snapshots that listed them removes the delete files.
    out = arrow(quiver_bin, "CALL expire_snapshots('t', older_than => now() + interval '1 day', "
                "retain_last => 1)", db).to_pylist()
    assert out[0]["deleted_equality_delete_files_count"] == 4, out  # d1 to d4


def test_db_partitioned_table_with_partition_deletes(quiver_bin, tmp_path):
    """A --db table partitioned by (region, d), deletes scoped to one
    partition: reads, INSERT, and VACUUM (which reads the deletes against
    the files it rewrites, their partition values converted from the
    manifest's Avro int to the spec's date)."""
    db = tmp_path / "db"
    day = datetime.date(2024, 1, 1)

    def rows(ids):
        return pa.table({"id": pa.array(ids, pa.int64()),
                         "region": ["eu" if g % 2 == 0 else "us" for g in ids],
                         "d": [day + datetime.timedelta(days=g % 3) for g in ids]})

    fill = ("INSERT INTO p SELECT g, CASE WHEN g % 2 = 0 THEN 'eu' ELSE 'us' END, "
            "DATE '2024-01-01' + (g % 3) FROM generate_series({}, {}) g")
    execute(quiver_bin, "CREATE TABLE p (id bigint, region text, d date) "
            "PARTITION BY RANGE (region, d); " + fill.format(0, 19), db)
    execute(quiver_bin, fill.format(20, 29), db)
    cols = ["id", "region", "d"]
    m = Model()
    scope = lambda r: (0, (r["region"], r["d"]))  # noqa: E731
    m.add_rows(rows(list(range(20))), 1, scope)
    m.add_rows(rows(list(range(20, 30))), 2, scope)
    t = db_catalog(db).load_table("public.p")
    assert t.spec().spec_id == 0 and len(t.spec().fields) == 2
    # Partition ('eu', Jan 2): ids 4, 10, 16, 22, 28. Of the ids deleted,
    # 4 and 22 are in it; 24 ('eu', Jan 1) and 5 ('us') are not.
    d = pa.table({"id": pa.array([4, 22, 24, 5], pa.int64())})
    jan2 = day + datetime.timedelta(days=1)
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d, [1],
                                partition=("eu", (jan2 - datetime.date(1970, 1, 1)).days))
    m.add_delete(["id"], d, seq, scope=(0, ("eu", jan2)))
    # By region in partition ('us', Jan 1): every row of it (3, 9, 15, 21, 27).
    d = pa.table({"region": pa.array(["us"], pa.string())})
    t, seq = commit_delete_file(t, DataFileContent.EQUALITY_DELETES, d, [2],
                                partition=("us", (day - datetime.date(1970, 1, 1)).days))
    m.add_delete(["region"], d, seq, scope=(0, ("us", day)))

    def check():
        live = m.live()
        assert got(arrow(quiver_bin, "SELECT * FROM p", db)) == tuples(live, cols)
        return live

    live = check()
    ids = {r["id"] for r in live}
    assert not {4, 22, 3, 9, 27} & ids and {24, 5, 10, 1} <= ids
    assert got(arrow(quiver_bin, "SELECT id FROM p WHERE region = 'us'", db)) == \
        tuples([r for r in live if r["region"] == "us"], ["id"])
    out = arrow(quiver_bin, "INSERT INTO p VALUES (4, 'eu', DATE '2024-01-02'); "
                "SELECT count(*) AS n FROM p WHERE id = 4", db)
    assert out.column("n").to_pylist() == [1]
    m.add_rows(rows([4]), seq + 1, scope)
    check()
    execute(quiver_bin, "VACUUM p", db)
    live = check()
    assert got(db_catalog(db).load_table("public.p").scan().to_arrow()) == tuples(live, cols)
