"""read_iceberg(): Iceberg tables another engine wrote (issue 14, item 5).

pyiceberg writes tables (appends, overwrites, deletes, schema evolution,
partitioned tables) through a SqlCatalog on SQLite; Quiver's read_iceberg
over the table directory or a metadata file must equal pyiceberg's own
scan().to_arrow(), for the current snapshot and for older ones
(snapshot_id => n, as_of => timestamp). Broken metadata gives errors, never
a crash.
"""

import datetime
import json
import subprocess

import pyarrow as pa
import pyarrow.compute  # noqa: F401
import pyarrow.parquet as pq
import pytest

pyiceberg_sql = pytest.importorskip("pyiceberg.catalog.sql")
from pyiceberg.expressions import EqualTo, GreaterThan  # noqa: E402
from pyiceberg.partitioning import PartitionField, PartitionSpec  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.transforms import DayTransform, IdentityTransform, MonthTransform  # noqa: E402
from pyiceberg.types import DateType, LongType, NestedField, StringType  # noqa: E402


def run(quiver_bin, sql, check=True):
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "arrow", sql],
                          capture_output=True, timeout=120)
    if check and proc.returncode != 0:
        pytest.fail(f"quiver sql failed: {sql}\n{proc.stderr.decode()}", pytrace=False)
    return proc


def quiver_arrow(quiver_bin, sql):
    return pa.ipc.open_stream(run(quiver_bin, sql).stdout).read_all()


def quiver_error(quiver_bin, sql):
    proc = run(quiver_bin, sql, check=False)
    assert proc.returncode != 0, f"expected an error: {sql}"
    assert proc.returncode < 128, "crashed"
    return proc.stderr.decode()


def make_catalog(tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    cat = pyiceberg_sql.SqlCatalog("test", uri=f"sqlite:///{tmp_path}/cat.db",
                                   warehouse=f"file://{wh}")
    cat.create_namespace("ns")
    return cat


def location(table):
    return table.metadata_location.rsplit("/metadata/", 1)[0].removeprefix("file://")


def norm(v):
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return v


def rows(t):
    return sorted((tuple(norm(v) for v in r.values()) for r in t.to_pylist()),
                  key=lambda r: tuple((v is None, v) for v in r))


def assert_same(quiver_bin, table, path=None, snapshot_id=None):
    path = path or location(table)
    opt = f", snapshot_id => {snapshot_id}" if snapshot_id is not None else ""
    ours = quiver_arrow(quiver_bin, f"SELECT * FROM read_iceberg('{path}'{opt})")
    scan = table.scan(snapshot_id=snapshot_id) if snapshot_id is not None else table.scan()
    theirs = scan.to_arrow()
    if snapshot_id is None:
        assert ours.column_names == theirs.column_names
    assert rows(ours) == rows(theirs)
    return ours


SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("x", pa.float64()),
                    ("d", pa.date32())])


def batch(ids):
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([None if i % 3 == 0 else f"n{i}" for i in ids], pa.string()),
        "x": pa.array([i / 4 for i in ids], pa.float64()),
        "d": pa.array([datetime.date(2024, 1 + i % 12, 1 + i % 28) for i in ids], pa.date32()),
    })


def test_appends_overwrite_delete_and_snapshots(quiver_bin, tmp_path):
    cat = make_catalog(tmp_path)
    t = cat.create_table("ns.t", schema=SCHEMA)
    t.append(batch(range(0, 10)))
    t.append(batch(range(10, 25)))
    t.delete(GreaterThan("id", 20))            # rewrites or deletes files
    t.delete(EqualTo("id", 3))
    t.append(batch(range(100, 103)))
    ours = assert_same(quiver_bin, t)
    assert ours.num_rows == 23
    # Every snapshot, by id; and the metadata file itself as the path.
    for s in t.metadata.snapshots:
        assert_same(quiver_bin, t, snapshot_id=s.snapshot_id)
    assert_same(quiver_bin, t, path=t.metadata_location.removeprefix("file://"))
    # as_of: the snapshot current at that time.
    first = t.metadata.snapshots[0]
    ts = datetime.datetime.fromtimestamp(first.timestamp_ms / 1000, datetime.timezone.utc)
    got = quiver_arrow(quiver_bin, "SELECT count(*) AS n FROM read_iceberg("
                       f"'{location(t)}', as_of => TIMESTAMPTZ '{ts.isoformat()}')")
    assert got.column("n").to_pylist() == [10]
    err = quiver_error(quiver_bin, f"SELECT * FROM read_iceberg('{location(t)}', "
                       "as_of => TIMESTAMPTZ '2000-01-01 00:00:00+00')")
    assert "no snapshot at or before" in err
    err = quiver_error(quiver_bin, f"SELECT * FROM read_iceberg('{location(t)}', snapshot_id => 42)")
    assert "has no snapshot 42" in err
    t.overwrite(batch(range(200, 204)))
    assert assert_same(quiver_bin, t).num_rows == 4
    # Queries over it: filters, aggregates.
    got = quiver_arrow(quiver_bin, f"SELECT sum(id) AS s FROM read_iceberg('{location(t)}') "
                       "WHERE id > 201")
    assert got.column("s").to_pylist() == [405]


def test_schema_evolution(quiver_bin, tmp_path):
    cat = make_catalog(tmp_path)
    t = cat.create_table("ns.t", schema=SCHEMA)
    t.append(batch(range(0, 5)))
    with t.update_schema() as u:
        u.add_column("extra", StringType())
    t = cat.load_table("ns.t")
    t.append(pa.table({"id": pa.array([5], pa.int64()), "name": ["five"], "x": [1.0],
                       "d": pa.array([datetime.date(2024, 5, 5)], pa.date32()),
                       "extra": ["e"]}))
    with t.update_schema() as u:
        u.rename_column("name", "label")
    t = cat.load_table("ns.t")
    with t.update_schema() as u:
        u.delete_column("x")
    t = cat.load_table("ns.t")
    ours = assert_same(quiver_bin, t)
    assert ours.column_names == ["id", "label", "d", "extra"]
    assert sorted(ours.column("extra").to_pylist(), key=lambda v: (v is None, v)) == \
        ["e", None, None, None, None, None]
    assert "n1" in ours.column("label").to_pylist()


def test_partitioned_tables(quiver_bin, tmp_path):
    cat = make_catalog(tmp_path)
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "cat", StringType(), required=False),
                    NestedField(3, "d", DateType(), required=False))
    data = pa.table({"id": pa.array(range(40), pa.int64()),
                     "cat": [f"c{i % 3}" for i in range(40)],
                     "d": pa.array([datetime.date(2024, 1 + i % 6, 1 + i % 27) for i in range(40)],
                                   pa.date32())})
    # Identity partitions written by pyiceberg's append.
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000,
                                        transform=IdentityTransform(), name="p"))
    t = cat.create_table("ns.ident", schema=schema, partition_spec=spec)
    t.append(data)
    t.delete(EqualTo("cat", "c1"))
    ours = assert_same(quiver_bin, t)
    assert ours.num_rows == len([i for i in range(40) if i % 3 != 1])
    # Day and month partitions (pyiceberg's append needs pyiceberg-core for
    # them): Parquet files of one month each, registered by add_files
    # (files without field ids: read by column name).
    paths = []
    for month in range(1, 7):
        part = data.filter(pa.compute.equal(pa.compute.month(data.column("d")), month))
        path = tmp_path / f"m{month}.parquet"
        pq.write_table(part, path)
        paths.append(str(path))
    for name, transform in [("day", DayTransform()), ("month", MonthTransform())]:
        spec = PartitionSpec(PartitionField(source_id=3, field_id=1000,
                                            transform=transform, name="p"))
        t = cat.create_table(f"ns.{name}", schema=schema, partition_spec=spec)
        if name == "month":
            t.add_files(paths)
        else:
            # One file per day.
            day_paths = []
            for i, day in enumerate(sorted(set(data.column("d").to_pylist()))):
                part = data.filter(pa.compute.equal(data.column("d"), pa.scalar(day, pa.date32())))
                path = tmp_path / f"d{i}.parquet"
                pq.write_table(part, path)
                day_paths.append(str(path))
            t.add_files(day_paths)
        assert assert_same(quiver_bin, t).num_rows == 40


def test_v1_table(quiver_bin, tmp_path):
    cat = make_catalog(tmp_path)
    t = cat.create_table("ns.v1", schema=SCHEMA, properties={"format-version": "1"})
    t.append(batch(range(0, 7)))
    t.append(batch(range(7, 9)))
    assert json.load(open(t.metadata_location.removeprefix("file://")))["format-version"] == 1
    assert assert_same(quiver_bin, t).num_rows == 9


def add_delete_snapshot(table, content, rows_table, schema):
    """A snapshot adding one delete file (pyiceberg 0.12 writes none: its
    deletes rewrite data files), built with pyiceberg's manifest writers and
    a new metadata file; returns the new metadata file's path."""
    import os
    import time
    import uuid
    from pyiceberg.manifest import (DataFile, DataFileContent, FileFormat, ManifestContent,
                                    ManifestEntry, ManifestEntryStatus, ManifestWriterV2,
                                    write_manifest_list)
    from pyiceberg.typedef import Record

    snap = table.current_snapshot()
    loc = location(table)
    dpath = f"{loc}/data/deletes-{uuid.uuid4()}.parquet"
    pq.write_table(rows_table.cast(schema), dpath)

    class DeleteWriter(ManifestWriterV2):
        def content(self):
            return ManifestContent.DELETES

    new_id = snap.snapshot_id + 1
    seq = table.metadata.last_sequence_number + 1
    extra = {"equality_ids": [1]} if content == DataFileContent.EQUALITY_DELETES else {}
    df = DataFile.from_args(content=content, file_path="file://" + dpath,
                            file_format=FileFormat.PARQUET, partition=Record(),
                            record_count=rows_table.num_rows,
                            file_size_in_bytes=os.path.getsize(dpath), **extra)
    mpath = f"file://{loc}/metadata/deletes-{new_id}-m0.avro"
    with DeleteWriter(table.spec(), table.schema(), table.io.new_output(mpath), new_id, "null") as w:
        w.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=new_id,
                                      data_file=df))
    lpath = f"file://{loc}/metadata/snap-{new_id}-deletes.avro"
    with write_manifest_list(2, table.io.new_output(lpath), new_id, snap.snapshot_id, seq,
                             "null") as lw:
        lw.add_manifests(list(snap.manifests(table.io)) + [w.to_manifest_file()])
    meta = json.load(open(table.metadata_location.removeprefix("file://")))
    now = int(time.time() * 1000)
    meta["snapshots"].append({"snapshot-id": new_id, "parent-snapshot-id": snap.snapshot_id,
                              "sequence-number": seq, "timestamp-ms": now, "manifest-list": lpath,
                              "summary": {"operation": "delete"}, "schema-id": 0})
    meta["current-snapshot-id"] = new_id
    meta["last-sequence-number"] = seq
    meta["snapshot-log"].append({"timestamp-ms": now, "snapshot-id": new_id})
    meta["refs"] = {"main": {"snapshot-id": new_id, "type": "branch"}}
    out = f"{loc}/metadata/99999-{uuid.uuid4()}.metadata.json"
    with open(out, "w") as f:
        json.dump(meta, f)
    return out


def test_position_and_equality_deletes(quiver_bin, tmp_path):
    from pyiceberg.manifest import DataFileContent
    from pyiceberg.table import StaticTable

    cat = make_catalog(tmp_path)
    t = cat.create_table("ns.t", schema=SCHEMA)
    t.append(batch(range(0, 10)))
    t.append(batch(range(10, 15)))
    files = [e.data_file.file_path for m in t.current_snapshot().manifests(t.io)
             for e in m.fetch_manifest_entry(t.io)]
    pos_schema = pa.schema([
        pa.field("file_path", pa.string(), False, {"PARQUET:field_id": "2147483546"}),
        pa.field("pos", pa.int64(), False, {"PARQUET:field_id": "2147483545"})])
    deletes = pa.table({"file_path": [files[0]] * 3 + [files[1]], "pos": [0, 3, 4, 1]})
    meta = add_delete_snapshot(t, DataFileContent.POSITION_DELETES, deletes, pos_schema)
    static = StaticTable.from_metadata("file://" + meta)
    # The highest-numbered metadata file is the one with the deletes.
    ours = assert_same(quiver_bin, static, path=location(t))
    assert ours.num_rows == 11
    assert_same(quiver_bin, static, path=meta)
    # Equality deletes apply (pyiceberg cannot read them; the cases are in
    # test_iceberg_equality_deletes.py).
    eq_schema = pa.schema([pa.field("id", pa.int64(), False, {"PARQUET:field_id": "1"})])
    t2 = cat.create_table("ns.e", schema=SCHEMA)
    t2.append(batch(range(0, 5)))
    add_delete_snapshot(t2, DataFileContent.EQUALITY_DELETES, pa.table({"id": [1]}), eq_schema)
    ours = quiver_arrow(quiver_bin, f"SELECT id FROM read_iceberg('{location(t2)}')")
    assert sorted(ours.column("id").to_pylist()) == [0, 2, 3, 4]


def test_broken_metadata_errors(quiver_bin, tmp_path):
    cat = make_catalog(tmp_path)
    t = cat.create_table("ns.t", schema=SCHEMA)
    t.append(batch(range(0, 3)))
    loc = location(t)
    err = quiver_error(quiver_bin, f"SELECT * FROM read_iceberg('{tmp_path}/nope')")
    assert "does not exist" in err
    meta = t.metadata_location.removeprefix("file://")
    text = open(meta).read()
    # Format version 3 is refused, naming it and the file.
    j = json.loads(text)
    j["format-version"] = 3
    bad = tmp_path / "v3.metadata.json"
    bad.write_text(json.dumps(j))
    err = quiver_error(quiver_bin, f"SELECT * FROM read_iceberg('{bad}')")
    assert "format version 3" in err and "v3.metadata.json" in err
    # Not JSON; truncated.
    bad.write_text(text[: len(text) // 2])
    assert "not a JSON object" in quiver_error(quiver_bin, f"SELECT * FROM read_iceberg('{bad}')")
    # A manifest list that is garbage.
    snap = j["snapshots"][-1]["manifest-list"].removeprefix("file://")
    with open(snap, "r+b") as f:
        f.seek(0)
        f.write(b"garbage!")
    err = quiver_error(quiver_bin, f"SELECT * FROM read_iceberg('{loc}')")
    assert err.strip()


def db_arrow(quiver_bin, db, sql):
    proc = subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--format", "arrow", sql],
                          capture_output=True, timeout=120)
    if proc.returncode != 0:
        pytest.fail(f"quiver sql failed: {sql}\n{proc.stderr.decode()}", pytrace=False)
    return pa.ipc.open_stream(proc.stdout).read_all()


def test_snapshots_of_a_db_table(quiver_bin, tmp_path):
    db = tmp_path / "db"
    for sql in ["CREATE TABLE t (id bigint, s text)",
                "INSERT INTO t SELECT g, 'r' || g FROM generate_series(1, 10) g",
                "INSERT INTO t VALUES (11, 'eleven'), (12, NULL)",
                "DELETE FROM t WHERE id % 4 = 0",
                "UPDATE t SET s = 'changed' WHERE id = 1",
                "INSERT INTO t VALUES (13, 'thirteen')"]:
        subprocess.run([str(quiver_bin), "sql", "--db", str(db), sql], check=True,
                       capture_output=True, timeout=120)
    snaps = db_arrow(quiver_bin, db, "SELECT * FROM quiver_snapshots('t') ORDER BY committed_at")
    assert snaps.column_names == ["committed_at", "snapshot_id", "parent_id", "operation",
                                  "manifest_list", "summary", "is_current"]
    table = pyiceberg_sql.SqlCatalog("quiver", uri=f"sqlite:///{db}/catalog.db",
                                     warehouse=f"file://{db}").load_table("public.t")
    theirs = [(s.snapshot_id, s.parent_snapshot_id, s.summary.operation.value)
              for s in sorted(table.metadata.snapshots, key=lambda s: s.timestamp_ms)]
    ours = list(zip(snaps.column("snapshot_id").to_pylist(), snaps.column("parent_id").to_pylist(),
                    snaps.column("operation").to_pylist()))
    assert ours == theirs
    assert len(ours) == 5
    assert snaps.column("is_current").to_pylist() == [False] * 4 + [True]
    assert json.loads(snaps.column("summary").to_pylist()[1])["added-records"] == "2"
    counts = []
    for sid in snaps.column("snapshot_id").to_pylist():
        ours = db_arrow(quiver_bin, db, f"SELECT * FROM read_iceberg('t', snapshot_id => {sid})")
        theirs = table.scan(snapshot_id=sid).to_arrow()
        assert rows(ours) == rows(theirs)
        counts.append(ours.num_rows)
    assert counts == [10, 12, 9, 9, 10]
    # The current snapshot, by name and by path, equals the table itself.
    now = db_arrow(quiver_bin, db, "SELECT * FROM t")
    assert rows(db_arrow(quiver_bin, db, "SELECT * FROM read_iceberg('t')")) == rows(now)
    assert rows(quiver_arrow(quiver_bin, f"SELECT * FROM read_iceberg('{location(table)}')")) == \
        rows(now)
    # as_of: the snapshot committed at that time.
    second = snaps.column("committed_at").to_pylist()[1]
    got = db_arrow(quiver_bin, db, "SELECT count(*) AS n FROM read_iceberg('t', as_of => "
                   f"TIMESTAMPTZ '{second.isoformat()}')")
    assert got.column("n").to_pylist() == [12]
    err = subprocess.run([str(quiver_bin), "sql", "--db", str(db),
                          "SELECT * FROM read_iceberg('t', snapshot_id => 7)"],
                         capture_output=True, text=True, timeout=120)
    assert err.returncode == 1 and "has no snapshot 7" in err.stderr
    # A table in memory (no --db) has no snapshots to list.
    err = subprocess.run([str(quiver_bin), "sql",
                          "CREATE TABLE m (a int); SELECT * FROM quiver_snapshots('m')"],
                         capture_output=True, text=True, timeout=120)
    assert err.returncode == 1 and "is not a table of a --db database" in err.stderr


def test_server_data_directories_confine_every_file(quiver_bin, tmp_path):
    # `quiver serve --data DIR`: read_iceberg may read a table under DIR;
    # a table outside, or a metadata file inside naming manifests and data
    # files outside, is refused (the metadata may name any path).
    import shutil

    import pyarrow.flight as fl
    from flight_fixtures import Server

    cat = make_catalog(tmp_path)
    t = cat.create_table("ns.t", schema=SCHEMA)
    t.append(batch(range(0, 4)))
    lake = tmp_path / "lake"
    lake.mkdir()
    inside = lake / "tables"
    shutil.copytree(location(t), inside / "t")
    pq.write_table(pa.table({"a": [1]}), lake / "one.parquet")
    # The copy's metadata still names the original files (outside the lake).
    (lake / "meta").mkdir()
    shutil.copy(t.metadata_location.removeprefix("file://"), lake / "meta" / "v1.metadata.json")
    # A table wholly inside the lake.
    (lake / "wh").mkdir()
    cat2 = pyiceberg_sql.SqlCatalog("in", uri=f"sqlite:///{tmp_path}/cat2.db",
                                    warehouse=f"file://{lake}/wh")
    cat2.create_namespace("ns")
    t2 = cat2.create_table("ns.t", schema=SCHEMA)
    t2.append(batch(range(0, 6)))
    server = Server(quiver_bin, "--data", lake)
    try:
        client = fl.FlightClient(server.uri)

        def query(sql):
            info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
            return client.do_get(info.endpoints[0].ticket).read_all()

        for sql in [f"SELECT * FROM read_iceberg('{location(t)}')",
                    f"SELECT * FROM quiver_snapshots('{location(t)}')",
                    f"SELECT * FROM read_iceberg('{lake}/meta/v1.metadata.json')",
                    f"SELECT * FROM read_iceberg('{inside}/t')"]:
            with pytest.raises(fl.FlightUnauthorizedError, match="permission denied for file"):
                query(sql)
        assert query(f"SELECT count(*) AS n FROM read_iceberg('{location(t2)}')"
                     ).to_pylist() == [{"n": 6}]
        # Its snapshots list reads only the metadata file, inside.
        assert query(f"SELECT count(*) AS n FROM quiver_snapshots('{lake}/meta/v1.metadata.json')"
                     ).to_pylist() == [{"n": 1}]
    finally:
        server.stop()
