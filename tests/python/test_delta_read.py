"""read_delta(): Delta Lake tables another engine wrote (issue 14, item 5).

delta-rs (the `deltalake` package) writes tables: appends, overwrites,
partitioned tables, schema evolution (schema_mode="merge"), deletes and
updates (rewritten files: delta-rs writes no deletion vectors), checkpoints.
Quiver's read_delta over the directory, at the newest version and at older
ones (version => n), must equal DeltaTable(path, version=n).to_pyarrow_table()
row for row. Column mapping, multi-part checkpoints and deletion vectors,
which delta-rs does not write, are made by hand from its tables. Broken logs
give errors naming the file, never a crash.
"""

import datetime
import decimal
import json
import os
import random
import re
import shutil
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

deltalake = pytest.importorskip("deltalake")
from deltalake import DeltaTable, write_deltalake  # noqa: E402

UTC = datetime.timezone.utc


def run(quiver_bin, sql, fmt="arrow"):
    return subprocess.run([str(quiver_bin), "sql", "--format", fmt, sql],
                          capture_output=True, timeout=120)


def quiver_arrow(quiver_bin, sql):
    proc = run(quiver_bin, sql)
    if proc.returncode != 0:
        pytest.fail(f"quiver sql failed: {sql}\n{proc.stderr.decode()}", pytrace=False)
    return pa.ipc.open_stream(proc.stdout).read_all()


def quiver_error(quiver_bin, sql):
    """The error (message, sqlstate) of `sql`, which must fail cleanly."""
    proc = run(quiver_bin, sql, fmt="json")
    assert proc.returncode != 0, f"expected an error: {sql}"
    assert 0 < proc.returncode < 128, f"crashed: {sql}\n{proc.stderr.decode()}"
    last = proc.stderr.decode().strip().splitlines()[-1]
    if not last.startswith("{"):
        return last, None  # raised while rows streamed: "quiver: error: ..."
    err = json.loads(last)
    return err["error"], err["sqlstate"]


def norm(v):
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC).replace(tzinfo=None)
    if isinstance(v, dict):
        return tuple(sorted((k, norm(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(norm(x) for x in v)
    if isinstance(v, tuple):
        return tuple(norm(x) for x in v)
    return v


def rows(t):
    return sorted((tuple(norm(v) for v in r.values()) for r in t.to_pylist()), key=repr)


def read(quiver_bin, path, version=None, where=""):
    opt = f", version => {version}" if version is not None else ""
    return quiver_arrow(quiver_bin, f"SELECT * FROM read_delta('{path}'{opt}) {where}")


def assert_same(quiver_bin, path, version=None):
    ours = read(quiver_bin, path, version)
    theirs = DeltaTable(str(path), version=version).to_pyarrow_table()
    assert ours.column_names == theirs.column_names
    assert rows(ours) == rows(theirs)
    return ours


def scan_counts(quiver_bin, sql):
    """(files, files_pruned) of the SCAN line of EXPLAIN ANALYZE `sql`."""
    proc = run(quiver_bin, "EXPLAIN ANALYZE " + sql, fmt="table")
    assert proc.returncode == 0, proc.stderr.decode()
    line = next(ln for ln in proc.stdout.decode().splitlines() if "SCAN" in ln)
    return (int(re.search(r"\bfiles=(\d+)", line).group(1)),
            int(re.search(r"\bfiles_pruned=(\d+)", line).group(1)))


ALL_TYPES = pa.table({
    "b": pa.array([True, False, None], pa.bool_()),
    "i8": pa.array([-128, 127, None], pa.int8()),
    "i16": pa.array([-32768, 7, None], pa.int16()),
    "i32": pa.array([1, -2, None], pa.int32()),
    "i64": pa.array([10**15, -1, None], pa.int64()),
    "f32": pa.array([1.5, -0.25, None], pa.float32()),
    "f64": pa.array([1e300, float("nan"), None], pa.float64()),
    "s": pa.array(["x", "três", None], pa.string()),
    "bin": pa.array([b"\x00\x01", b"", None], pa.binary()),
    "d": pa.array([datetime.date(2024, 2, 29), datetime.date(1969, 12, 31), None], pa.date32()),
    "ts": pa.array([datetime.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=UTC),
                    datetime.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC), None],
                   pa.timestamp("us", tz="UTC")),
    "ntz": pa.array([datetime.datetime(2024, 1, 1, 10, 0, 0, 5), datetime.datetime(2000, 1, 1),
                     None], pa.timestamp("us")),
    "dec": pa.array([decimal.Decimal("1.25"), decimal.Decimal("-99999999.99"), None],
                    pa.decimal128(10, 2)),
    "wide": pa.array([decimal.Decimal("12345678901234567890.123456789"), None, None],
                     pa.decimal128(38, 9)),
    "st": pa.array([{"u": 1, "v": "q"}, None, {"u": None, "v": None}],
                   pa.struct([("u", pa.int64()), ("v", pa.string())])),
    "arr": pa.array([[1, 2, None], [], None], pa.list_(pa.int64())),
    "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int32())),
})


def test_every_type_and_nulls(quiver_bin, tmp_path):
    path = tmp_path / "types"
    write_deltalake(str(path), ALL_TYPES)
    ours = quiver_arrow(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    theirs = DeltaTable(str(path)).to_pyarrow_table()
    assert ours.column_names == theirs.column_names
    # NaN != NaN: compare f64 apart.
    assert [repr(x) for x in ours.column("f64").to_pylist()] == \
        [repr(x) for x in theirs.column("f64").to_pylist()]
    assert rows(ours.drop_columns(["f64"])) == rows(theirs.drop_columns(["f64"]))
    types = dict(zip(ours.column_names, ours.schema.types))
    assert types["i8"] == pa.int16() and types["i16"] == pa.int16()
    assert types["ts"] == pa.timestamp("us", tz="UTC") and types["ntz"] == pa.timestamp("us")
    assert types["dec"] == pa.decimal128(10, 2)
    # SQL over the columns: nested values, filters on typed columns.
    got = quiver_arrow(quiver_bin, f"SELECT i32, (st).u AS u, arr[1] AS a1 FROM read_delta('{path}') "
                                   "WHERE d < DATE '2000-01-01'").to_pylist()
    assert got == [{"i32": -2, "u": None, "a1": None}]


def test_append_overwrite_delete_update_and_versions(quiver_bin, tmp_path):
    path = str(tmp_path / "t")
    t = pa.table({"id": pa.array(range(10), pa.int64()), "v": [f"v{i}" for i in range(10)]})
    write_deltalake(path, t)                                             # 0
    write_deltalake(path, t.slice(0, 3).set_column(0, "id", pa.array([10, 11, 12], pa.int64())),
                    mode="append")                                       # 1
    write_deltalake(path, t.slice(5, 5), mode="overwrite")               # 2
    write_deltalake(path, t.slice(0, 5), mode="append")                  # 3
    dt = DeltaTable(path)
    dt.delete("id < 2")                                                  # 4
    dt.update(predicate="id = 7", updates={"v": "'seven'"})              # 5
    assert DeltaTable(path).version() == 5
    # delta-rs rewrites files for DELETE / UPDATE (no deletion vectors).
    assert "deletionVectors" not in (DeltaTable(path).protocol().reader_features or [])
    for v in [None, 0, 1, 2, 3, 4, 5]:
        assert_same(quiver_bin, path, v)
    assert read(quiver_bin, path, 0).num_rows == 10
    assert read(quiver_bin, path, 2).num_rows == 5
    assert read(quiver_bin, path).num_rows == 8
    got = quiver_arrow(quiver_bin, f"SELECT v FROM read_delta('{path}') WHERE id = 7").to_pylist()
    assert got == [{"v": "seven"}]
    # A version past the newest, a bad option: clear errors.
    msg, state = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}', version => 9)")
    assert "no version 9" in msg and state == "22023"
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}', snapshot => 1)")
    assert "no option" in msg
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}', version => 'x')")
    assert "integer" in msg


def test_partitioned_table_reads_and_prunes(quiver_bin, tmp_path):
    path = str(tmp_path / "p")
    n = 60
    t = pa.table({
        "k": pa.array(range(n), pa.int64()),
        "grp": pa.array([None if i % 6 == 5 else f"g{i % 6}" for i in range(n)]),
        "day": pa.array([datetime.date(2024, 1, 1 + (i // 6) % 3) for i in range(n)], pa.date32()),
        "n": pa.array([i % 4 for i in range(n)], pa.int32()),
        "x": pa.array([i * 0.5 for i in range(n)], pa.float64()),
    })
    write_deltalake(path, t, partition_by=["grp", "day"])
    ours = assert_same(quiver_bin, path)
    assert ours.column_names == ["k", "grp", "day", "n", "x"]
    total = len(DeltaTable(path).file_uris())
    assert total == 18  # 6 groups (one NULL) x 3 days
    cases = [
        ("grp = 'g1'", 3),
        ("grp IS NULL", 3),
        ("grp = 'g1' AND day = DATE '2024-01-02'", 1),
        ("day > DATE '2024-01-02'", 6),
        ("grp IN ('g0', 'g2')", 6),
        ("k < 0", 0),  # add.stats: no file holds a negative k
    ]
    for where, kept in cases:
        sql = f"SELECT count(*) AS c, sum(k) AS s FROM read_delta('{path}') WHERE {where}"
        files, pruned = scan_counts(quiver_bin, sql)
        assert (files, files - pruned) == (total, kept), where
        expected = [r for r in t.to_pylist()
                    if eval_where(where, r)]  # noqa: S307 (fixed test strings)
        got = quiver_arrow(quiver_bin, sql).to_pylist()[0]
        assert got["c"] == len(expected), where
        assert got["s"] == (sum(r["k"] for r in expected) if expected else None), where


def eval_where(where, r):
    """The few predicates of test_partitioned_table_reads_and_prunes in Python."""
    d2 = datetime.date(2024, 1, 2)
    return {
        "grp = 'g1'": r["grp"] == "g1",
        "grp IS NULL": r["grp"] is None,
        "grp = 'g1' AND day = DATE '2024-01-02'": r["grp"] == "g1" and r["day"] == d2,
        "day > DATE '2024-01-02'": r["day"] > d2,
        "grp IN ('g0', 'g2')": r["grp"] in ("g0", "g2"),
        "k < 0": r["k"] < 0,
    }[where]


def test_partition_columns_of_every_type(quiver_bin, tmp_path):
    path = str(tmp_path / "typed")
    t = pa.table({
        "k": pa.array([1, 2, 3, 4], pa.int64()),
        "ts": pa.array([datetime.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=UTC),
                        datetime.datetime(1969, 12, 31, 23, 0, tzinfo=UTC), None,
                        datetime.datetime(2024, 1, 1, 10, 0, 0, 123456, tzinfo=UTC)],
                       pa.timestamp("us", tz="UTC")),
        "ntz": pa.array([datetime.datetime(2024, 1, 1, 10, 0, 0, 5), None,
                         datetime.datetime(2000, 1, 1), datetime.datetime(2000, 1, 1)],
                        pa.timestamp("us")),
        "s": ["a b/c", "x%y", "", None],  # '' is NULL as a partition value
        "bo": [True, False, None, True],
        "de": pa.array([decimal.Decimal("1.5"), decimal.Decimal("-2.0"), None,
                        decimal.Decimal("3.0")], pa.decimal128(5, 1)),
        "i": pa.array([-1, 2, None, 2], pa.int16()),
        "d": pa.array([datetime.date(2024, 2, 29), None, datetime.date(1970, 1, 1),
                       datetime.date(1970, 1, 1)], pa.date32()),
        "bi": pa.array([b"\x01\x02", b"", None, b"z"]),
    })
    write_deltalake(path, t, partition_by=["ts", "ntz", "s", "bo", "de", "i", "d", "bi"])
    theirs = DeltaTable(path).to_pyarrow_table()
    ours = read(quiver_bin, path)
    assert ours.column_names == theirs.column_names
    # delta-rs writes a binary partition value as \uXXXX escapes (the
    # protocol's "string of escaped binary values") and its reader returns
    # the escapes themselves; Quiver decodes them. Empty binary, like an
    # empty string, is a NULL partition value.
    assert rows(ours.drop_columns(["bi"])) == rows(theirs.drop_columns(["bi"]))
    expected_bi = {1: b"\x01\x02", 2: None, 3: None, 4: b"z"}
    assert {r["k"]: r["bi"] for r in ours.to_pylist()} == expected_bi
    for where, kept in [("ts = TIMESTAMPTZ '2024-01-01 10:00:00.123456+00'", 2),
                        ("ntz < TIMESTAMP '2001-01-01'", 2), ("s = 'a b/c'", 1),
                        ("bo IS NULL", 1), ("de > 1.5", 1), ("i = 2::smallint", 2), ("bi = '\\x7a'::bytea", 1),
                        ("d IS NULL", 1)]:
        sql = f"SELECT k FROM read_delta('{path}') WHERE {where}"
        files, pruned = scan_counts(quiver_bin, sql)
        assert (files, files - pruned) == (4, kept), where
        assert len(quiver_arrow(quiver_bin, sql)) == kept, where


def test_statistics_prune_files(quiver_bin, tmp_path):
    path = str(tmp_path / "s")
    for i in range(5):
        lo = i * 100
        write_deltalake(path, pa.table({
            "k": pa.array(range(lo, lo + 100), pa.int64()),
            "ts": pa.array([datetime.datetime(2024, 1, 1 + i, 0, 0, 0, 999, tzinfo=UTC)] * 100,
                           pa.timestamp("us", tz="UTC")),
            "note": pa.array([None] * 100 if i == 4 else ["n"] * 100, pa.string()),
        }), mode="append")
    assert_same(quiver_bin, path)
    for where, kept, count in [
        ("k BETWEEN 150 AND 249", 2, 100),
        ("k = 420", 1, 1),
        ("note IS NULL", 1, 100),
        ("note IS NOT NULL AND k >= 350", 1, 50),
        # Timestamps are truncated to milliseconds in add.stats: the row at
        # .000999 must still be found.
        ("ts = TIMESTAMPTZ '2024-01-03 00:00:00.000999+00'", 1, 100),
        ("ts > TIMESTAMPTZ '2024-01-03 00:00:00.000999+00'", 2, 200),
    ]:
        sql = f"SELECT count(*) AS c FROM read_delta('{path}') WHERE {where}"
        files, pruned = scan_counts(quiver_bin, sql)
        assert (files, files - pruned) == (5, kept), where
        assert quiver_arrow(quiver_bin, sql).to_pylist() == [{"c": count}], where


def test_schema_evolution_reads_missing_columns_as_null(quiver_bin, tmp_path):
    path = str(tmp_path / "e")
    write_deltalake(path, pa.table({"id": pa.array([1, 2], pa.int64())}))
    write_deltalake(path, pa.table({"id": pa.array([3], pa.int64()), "extra": ["x"]}),
                    mode="append", schema_mode="merge")
    ours = assert_same(quiver_bin, path)
    assert sorted(ours.to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "extra": None}, {"id": 2, "extra": None}, {"id": 3, "extra": "x"}]
    assert_same(quiver_bin, path, 0)
    assert read(quiver_bin, path, 0).column_names == ["id"]
    # A filter on the new column only: the old file holds none of the
    # columns read, its rows count still.
    for sql, want in [(f"SELECT count(*) AS c FROM read_delta('{path}') WHERE extra = 'x'", 1),
                      (f"SELECT count(*) AS c FROM read_delta('{path}') WHERE extra IS NULL", 2),
                      (f"SELECT count(extra) AS c FROM read_delta('{path}')", 1)]:
        assert quiver_arrow(quiver_bin, sql).to_pylist() == [{"c": want}], sql


def test_schema_evolution_of_struct_fields(quiver_bin, tmp_path):
    # Fields added to a struct (and to a struct within it): older files
    # read them as NULL, the struct itself keeps its nulls.
    path = str(tmp_path / "se")
    inner1 = pa.struct([("x", pa.int32())])
    inner2 = pa.struct([("x", pa.int32()), ("y", pa.string())])
    write_deltalake(path, pa.table({"id": pa.array([1, 2], pa.int64()),
                                    "s": pa.array([{"a": 1, "n": {"x": 1}}, None],
                                                  pa.struct([("a", pa.int64()), ("n", inner1)]))}))
    write_deltalake(path, pa.table({
        "id": pa.array([3], pa.int64()),
        "s": pa.array([{"a": 3, "n": {"x": 3, "y": "q"}, "b": "x"}],
                      pa.struct([("a", pa.int64()), ("n", inner2), ("b", pa.string())]))}),
        mode="append", schema_mode="merge")
    ours = assert_same(quiver_bin, path)
    assert sorted(ours.to_pylist(), key=lambda r: r["id"])[1]["s"] is None
    got = quiver_arrow(quiver_bin, f"SELECT id, (s).b AS b FROM read_delta('{path}') ORDER BY id")
    assert got.to_pylist() == [{"id": 1, "b": None}, {"id": 2, "b": None}, {"id": 3, "b": "x"}]


def test_checkpoints_single_and_multi_part(quiver_bin, tmp_path):
    path = tmp_path / "c"
    for i in range(4):
        write_deltalake(str(path), pa.table({"k": pa.array([i * 10 + j for j in range(3)],
                                                           pa.int64())}), mode="append")
    dt = DeltaTable(str(path))
    dt.delete("k = 11")
    dt.create_checkpoint()                                                   # at version 4
    write_deltalake(str(path), pa.table({"k": pa.array([100], pa.int64())}), mode="append")  # 5
    log = path / "_delta_log"
    assert (log / "00000000000000000004.checkpoint.parquet").exists()
    assert json.loads((log / "_last_checkpoint").read_text())["version"] == 4
    for v in [None, 2, 4, 5]:
        assert_same(quiver_bin, path, v)
    # Metadata cleanup: the commits the checkpoint replaces are gone; the
    # checkpoint alone gives versions 4 and later.
    expected = {v: rows(DeltaTable(str(path), version=v).to_pyarrow_table()) for v in (4, 5)}
    for v in range(4):
        (log / f"{v:020d}.json").unlink()
    for v in (4, 5):
        assert rows(read(quiver_bin, path, v)) == expected[v]
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}', version => 2)")
    assert "00000000000000000000.json is missing" in msg
    # The same checkpoint in three parts (N.checkpoint.K.M.parquet).
    single = log / "00000000000000000004.checkpoint.parquet"
    cp = pq.read_table(single)
    step = (cp.num_rows + 2) // 3
    for k in range(3):
        pq.write_table(cp.slice(k * step, step),
                       log / f"00000000000000000004.checkpoint.{k + 1:010d}.0000000003.parquet")
    single.unlink()
    last = json.loads((log / "_last_checkpoint").read_text())
    last["parts"] = 3
    (log / "_last_checkpoint").write_text(json.dumps(last))
    for v in (4, 5):
        assert rows(read(quiver_bin, path, v)) == expected[v]
    # A part missing: _last_checkpoint names files that are not there.
    (log / "00000000000000000004.checkpoint.0000000002.0000000003.parquet").unlink()
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    assert "_last_checkpoint" in msg and "missing" in msg


def remap_table(src, dst, mode):
    """A copy of the delta-rs table `src` using column mapping `mode`: data
    files whose columns carry physical names (and field ids), the log's
    schema naming them, statistics and partition values by physical name."""
    os.makedirs(dst / "_delta_log")
    entries = [json.loads(ln) for ln in open(src / "_delta_log" / "00000000000000000000.json")]
    meta = next(e["metaData"] for e in entries if "metaData" in e)
    schema = json.loads(meta["schemaString"])
    physical = {}
    for i, f in enumerate(schema["fields"]):
        physical[f["name"]] = f"col-{i}-{f['name']}"
        f["metadata"] = {"delta.columnMapping.id": 100 + i,
                         "delta.columnMapping.physicalName": physical[f["name"]]}
    meta["schemaString"] = json.dumps(schema)
    meta["configuration"] = {"delta.columnMapping.mode": mode,
                             "delta.columnMapping.maxColumnId": str(100 + len(physical))}
    ids = {f["name"]: 100 + i for i, f in enumerate(schema["fields"])}
    out = [{"protocol": {"minReaderVersion": 2, "minWriterVersion": 5}}, {"metaData": meta}]
    for e in entries:
        if "add" not in e:
            continue
        add = e["add"]
        data = pq.read_table(src / add["path"].replace("%3D", "="))
        # In name mode the ids are left out, in id mode the names are
        # scrambled: each mode must find columns its own way.
        fields = []
        for f in data.schema:
            name = physical[f.name] if mode == "name" else f"zz-{f.name}"
            md = {b"PARQUET:field_id": str(ids[f.name]).encode()} if mode == "id" else None
            fields.append(pa.field(name, f.type, metadata=md))
        new = os.path.basename(add["path"])
        pq.write_table(pa.Table.from_arrays(data.columns, schema=pa.schema(fields)), dst / new)
        add["path"] = new
        add["partitionValues"] = {physical[k]: v for k, v in add["partitionValues"].items()}
        stats = json.loads(add["stats"])
        for key in ("minValues", "maxValues", "nullCount"):
            stats[key] = {physical[k]: v for k, v in stats.get(key, {}).items()}
        add["stats"] = json.dumps(stats)
        out.append({"add": add})
    (dst / "_delta_log" / "00000000000000000000.json").write_text(
        "\n".join(json.dumps(e) for e in out) + "\n")


@pytest.mark.parametrize("mode", ["name", "id"])
def test_column_mapping(quiver_bin, tmp_path, mode):
    src = tmp_path / "src"
    t = pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()), "name": ["a", "b", None, "d"],
                  "part": ["x", "x", "y", None]})
    write_deltalake(str(src), t, partition_by=["part"])
    dst = tmp_path / mode
    remap_table(src, dst, mode)
    ours = quiver_arrow(quiver_bin, f"SELECT * FROM read_delta('{dst}')")
    assert ours.column_names == ["id", "name", "part"]
    assert rows(ours) == rows(t)
    files, pruned = scan_counts(quiver_bin, f"SELECT * FROM read_delta('{dst}') WHERE id = 3")
    assert (files, files - pruned) == (3, 1)
    got = quiver_arrow(quiver_bin, f"SELECT name FROM read_delta('{dst}') WHERE part = 'x' "
                                   "ORDER BY id").to_pylist()
    assert got == [{"name": "a"}, {"name": "b"}]


def test_column_mapping_property_without_the_feature(quiver_bin, tmp_path):
    # delta-rs records delta.columnMapping.mode (and physical names in the
    # schema) but writes logical names and no columnMapping reader feature:
    # the protocol says the mode does not apply then. (delta-rs's own reader
    # looks the physical names up and answers NULLs: not the oracle here.)
    path = str(tmp_path / "cm")
    t = pa.table({"id": pa.array([1, 2], pa.int32()), "s": ["a", None]})
    write_deltalake(path, t, configuration={"delta.columnMapping.mode": "name"})
    assert "columnMapping" not in (DeltaTable(path).protocol().reader_features or [])
    ours = read(quiver_bin, path)
    assert rows(ours) == rows(t)


def rewrite_commit(path, version, edit):
    f = path / "_delta_log" / f"{version:020d}.json"
    entries = [json.loads(ln) for ln in f.read_text().splitlines() if ln.strip()]
    f.write_text("\n".join(json.dumps(e) for e in edit(entries)) + "\n")


def with_features(features, reader=3):
    """A rewrite_commit edit: the protocol action with these reader features."""
    def edit(entries):
        for e in entries:
            if "protocol" in e:
                e["protocol"] = {"minReaderVersion": reader, "minWriterVersion": 7,
                                 "readerFeatures": features, "writerFeatures": features}
        return entries
    return edit


def test_unknown_reader_features_are_refused(quiver_bin, tmp_path):
    path = tmp_path / "f"
    write_deltalake(str(path), pa.table({"id": pa.array([1, 2, 3], pa.int64())}))
    for feature in ["v2Checkpoint", "typeWidening", "variantType"]:
        rewrite_commit(path, 0, with_features([feature]))
        msg, state = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
        assert state == "0A000" and feature in msg and str(path) in msg, msg
    rewrite_commit(path, 0, with_features(["timestampNtz"]))
    assert_same(quiver_bin, path)
    rewrite_commit(path, 0, with_features(["timestampNtz", "vacuumProtocolCheck"]))
    assert read(quiver_bin, path).column("id").to_pylist() == [1, 2, 3]
    rewrite_commit(path, 0, with_features([], reader=4))
    msg, state = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    assert state == "0A000" and "reader version 4" in msg, msg


Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"


def z85(data):
    """ZeroMQ's Base85 (RFC 32), the encoding the Delta protocol names."""
    data = data + b"\0" * (-len(data) % 4)
    out = []
    for i in range(0, len(data), 4):
        v = int.from_bytes(data[i:i + 4], "big")
        out.append("".join(Z85[v // 85 ** k % 85] for k in range(4, -1, -1)))
    return "".join(out)


def dv_bytes(positions):
    """A deletion vector: the magic number, then pyroaring's 64-bit
    portable RoaringBitmap (run containers where they are smaller)."""
    from pyroaring import BitMap64
    bm = BitMap64(positions)
    bm.run_optimize()
    return (1681511377).to_bytes(4, "little") + bm.serialize()


def test_deletion_vectors(quiver_bin, tmp_path):
    # delta-rs neither writes nor reads deletion vectors: they are added by
    # hand, serialized by pyroaring as the protocol lays them out, inline
    # (Z85) and in a file ('u': <prefix><Z85 UUID> -> prefix/deletion_vector_<uuid>.bin).
    import uuid
    import zlib

    pytest.importorskip("pyroaring")
    path = tmp_path / "dv"
    write_deltalake(str(path), pa.table({"k": pa.array(range(0, 10), pa.int64())}))   # 0
    write_deltalake(str(path), pa.table({"k": pa.array(range(10, 6010), pa.int64())}),
                    mode="append")                                                     # 1
    rewrite_commit(path, 0, with_features(["deletionVectors"]))
    adds = {}
    for v in (0, 1):
        for e in rewrite_log_entries(path, v):
            if "add" in e:
                adds[v] = e["add"]
    inline = dv_bytes([0, 3, 9])
    u = uuid.uuid4()
    many = list(range(2, 8)) + list(range(100, 5100, 2))  # a run, a bitmap container
    ondisk = dv_bytes(many)
    (path / "ab").mkdir()
    blob = b"\x01" + len(ondisk).to_bytes(4, "big") + ondisk + \
        zlib.crc32(ondisk).to_bytes(4, "big")
    (path / "ab" / f"deletion_vector_{u}.bin").write_bytes(blob)
    dvs = {0: {"storageType": "i", "pathOrInlineDv": z85(inline), "sizeInBytes": len(inline),
               "cardinality": 3},
           1: {"storageType": "u", "pathOrInlineDv": "ab" + z85(u.bytes), "offset": 1,
               "sizeInBytes": len(ondisk), "cardinality": len(many)}}
    # Commit 2 deletes rows: each file removed and added again with its vector.
    actions = []
    for v in (0, 1):
        actions.append({"remove": {"path": adds[v]["path"], "dataChange": True,
                                   "deletionTimestamp": 0}})
        actions.append({"add": dict(adds[v], deletionVector=dvs[v], dataChange=True)})
    (path / "_delta_log" / f"{2:020d}.json").write_text(
        "\n".join(json.dumps(a) for a in actions) + "\n")
    deleted = {0, 3, 9} | {10 + p for p in many}
    expected = [k for k in range(6010) if k not in deleted]
    got = read(quiver_bin, path).column("k").to_pylist()
    assert sorted(got) == expected
    assert read(quiver_bin, path, 1).num_rows == 6010  # before the deletes
    count = quiver_arrow(quiver_bin, f"SELECT count(*) AS c, sum(k) AS s FROM read_delta('{path}') "
                                     "WHERE k BETWEEN 5 AND 2000").to_pylist()
    keep = [k for k in expected if 5 <= k <= 2000]
    assert count == [{"c": len(keep), "s": sum(keep)}]
    # The same state as a checkpoint (the layout delta-rs gives its own
    # checkpoints, the vectors in add.deletionVector), the commits gone.
    other = tmp_path / "other"
    write_deltalake(str(other), pa.table({"k": pa.array([1], pa.int64())}))
    DeltaTable(str(other)).create_checkpoint()
    schema = pq.read_schema(other / "_delta_log" / f"{0:020d}.checkpoint.parquet")
    log0 = rewrite_log_entries(path, 0)
    cp_rows = [{"protocol": next(e["protocol"] for e in log0 if "protocol" in e)},
               {"metaData": next(e["metaData"] for e in log0 if "metaData" in e)}]
    cp_rows[1]["metaData"]["format"]["options"] = []
    cp_rows[1]["metaData"]["configuration"] = list(cp_rows[1]["metaData"]["configuration"].items())
    for a in actions:
        if "add" in a:
            add = dict(a["add"], partitionValues=list(a["add"]["partitionValues"].items()))
            cp_rows.append({"add": {k: v for k, v in add.items() if k in schema.field("add").type.names}})
    cp = path / "_delta_log" / f"{2:020d}.checkpoint.parquet"
    pq.write_table(pa.Table.from_pylist(cp_rows, schema=schema), cp)
    (path / "_delta_log" / "_last_checkpoint").write_text(json.dumps({"version": 2, "size": 4}))
    saved_log = {v: (path / "_delta_log" / f"{v:020d}.json").read_text() for v in (0, 1, 2)}
    for v in (0, 1, 2):
        (path / "_delta_log" / f"{v:020d}.json").unlink()
    assert sorted(read(quiver_bin, path).column("k").to_pylist()) == expected
    for v, text in saved_log.items():
        (path / "_delta_log" / f"{v:020d}.json").write_text(text)
    cp.unlink()
    (path / "_delta_log" / "_last_checkpoint").unlink()
    # Broken vectors are errors naming what is wrong, never wrong rows.
    for bad, what in [
        (dict(dvs[0], cardinality=4), "cardinality"),
        (dict(dvs[0], pathOrInlineDv=z85(inline[:-2])), "shorter than its sizeInBytes"),
        (dict(dvs[0], pathOrInlineDv=z85(inline[:-2]), sizeInBytes=len(inline) - 2), "truncated"),
        (dict(dvs[1], offset=2), "offset"),
        (dict(dvs[1], pathOrInlineDv="ab" + z85(uuid.uuid4().bytes)), "deletion_vector_"),
        (dict(dvs[0], pathOrInlineDv=z85(dv_bytes([0, 3, 99]))), "past the data file"),
    ]:
        def edit(entries, bad=bad):
            for e in entries:
                if "add" in e and e["add"]["path"] == adds[0]["path"]:
                    e["add"]["deletionVector"] = bad
            return entries
        saved = (path / "_delta_log" / f"{2:020d}.json").read_text()
        rewrite_commit(path, 2, edit)
        msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
        assert what in msg, (what, msg)
        (path / "_delta_log" / f"{2:020d}.json").write_text(saved)
    # A corrupt file: the checksum catches it.
    damaged = bytearray(blob)
    damaged[10] ^= 0xFF
    (path / "ab" / f"deletion_vector_{u}.bin").write_bytes(bytes(damaged))
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    assert "checksum" in msg or "RoaringBitmap" in msg, msg


def rewrite_log_entries(path, version):
    f = path / "_delta_log" / f"{version:020d}.json"
    return [json.loads(ln) for ln in f.read_text().splitlines() if ln.strip()]


def test_missing_and_malformed_logs(quiver_bin, tmp_path):
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{tmp_path}/nope')")
    assert "does not exist" in msg
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{tmp_path}')")
    assert "not a Delta table" in msg
    path = tmp_path / "m"
    for i in range(3):
        write_deltalake(str(path), pa.table({"k": pa.array([i], pa.int64())}), mode="append")
    log = path / "_delta_log"
    # A gap in the versions.
    c1 = log / "00000000000000000001.json"
    saved = c1.read_bytes()
    c1.unlink()
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    assert "00000000000000000001.json is missing" in msg
    # Bad JSON, naming the file and line.
    c1.write_bytes(b'{"add": {"path": "x.parquet",\n')
    msg, state = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    assert "00000000000000000001.json line 1" in msg and "not valid JSON" in msg, msg
    # A data file the log names that is not there.
    c1.write_bytes(saved)
    victim = next(p for p in path.iterdir() if p.suffix == ".parquet")
    victim.rename(tmp_path / "moved.parquet")
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    assert victim.name in msg, msg
    (tmp_path / "moved.parquet").rename(victim)
    assert read(quiver_bin, path).num_rows == 3
    # A garbage _last_checkpoint.
    (log / "_last_checkpoint").write_text("{not json")
    msg, _ = quiver_error(quiver_bin, f"SELECT * FROM read_delta('{path}')")
    assert "_last_checkpoint" in msg
    (log / "_last_checkpoint").unlink()


def test_fuzzed_logs_give_errors_not_crashes(quiver_bin, tmp_path):
    # Truncated and garbled commits and checkpoints: every read either
    # answers (the damage left valid JSON) or fails with a clear error.
    src = tmp_path / "src"
    write_deltalake(str(src), pa.table({"k": pa.array(range(5), pa.int64()), "s": list("abcde")}),
                    partition_by=["s"])
    write_deltalake(str(src), pa.table({"k": pa.array([9], pa.int64()), "s": ["z"]}),
                    mode="append")
    DeltaTable(str(src)).create_checkpoint()
    rng = random.Random(14)
    targets = ["00000000000000000000.json", "00000000000000000001.json",
               "00000000000000000001.checkpoint.parquet", "_last_checkpoint"]
    for trial in range(24):
        dst = tmp_path / f"f{trial}"
        shutil.copytree(src, dst)
        victim = dst / "_delta_log" / targets[trial % len(targets)]
        data = bytearray(victim.read_bytes())
        if trial % 3 == 0:
            data = data[: rng.randrange(len(data))]
        elif trial % 3 == 1:
            for _ in range(8):
                data[rng.randrange(len(data))] = rng.randrange(256)
        else:
            at = rng.randrange(len(data))
            data[at:at + 16] = b"\xff\x00garbage\"}{]["
        victim.write_bytes(bytes(data))
        proc = run(quiver_bin, f"SELECT count(*) FROM read_delta('{dst}')", fmt="json")
        assert 0 <= proc.returncode < 128, (trial, proc.stderr.decode())
        if proc.returncode != 0:
            assert proc.returncode > 0 and proc.stderr.decode().strip(), trial


def test_server_data_directories_confine_every_file(quiver_bin, tmp_path):
    # `quiver serve --data DIR`: read_delta may read a table under DIR; a
    # table outside, or one inside whose log names data files outside, is
    # refused (a log may name any absolute path).
    import pyarrow.flight as fl
    from flight_fixtures import Server

    outside = tmp_path / "outside"
    write_deltalake(str(outside), pa.table({"k": pa.array([1, 2], pa.int64())}))
    lake = tmp_path / "lake"
    inside = lake / "t"
    write_deltalake(str(inside), pa.table({"k": pa.array([1, 2, 3], pa.int64())}))
    sneaky = lake / "sneaky"
    shutil.copytree(inside, sneaky)
    data = next(p for p in outside.iterdir() if p.suffix == ".parquet")

    def absolute(entries):
        for e in entries:
            if "add" in e:
                e["add"]["path"] = "file://" + str(data)
        return entries

    rewrite_commit(sneaky, 0, absolute)
    server = Server(quiver_bin, "--data", lake)
    try:
        client = fl.FlightClient(server.uri)

        def query(sql):
            info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
            return client.do_get(info.endpoints[0].ticket).read_all()

        for path in [outside, sneaky]:
            with pytest.raises(fl.FlightUnauthorizedError, match="permission denied for file"):
                query(f"SELECT * FROM read_delta('{path}')")
        assert query(f"SELECT count(*) AS n FROM read_delta('{inside}')").to_pylist() == [{"n": 3}]
    finally:
        server.stop()
