"""Avro object container files: Quiver against fastavro (the peer).

- Quiver reads what fastavro writes (every primitive and logical type,
  nullable unions, named references, nested records/arrays/maps, every
  codec) equal to fastavro's own reading; the nested columns through
  `quiver convert x.avro y.arrow` read back with pyarrow.
- fastavro reads what Quiver writes (`quiver convert`, `COPY ... TO` with
  FORMAT avro and each COMPRESSION) equal to the source values.
- The Avro files of arrow-testing read equal to fastavro's reading; codecs
  Quiver does not read (xz, bzip2) are refused by name.
- Truncated and corrupt files give an error naming the file and the block.
"""

import datetime
import decimal
import io
import math
import uuid

import fastavro
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from conftest import shared_testdata_dir

UTC = datetime.timezone.utc


def norm(v):
    """A value of fastavro's or pyarrow's to_pylist() in one comparable form."""
    if isinstance(v, dict):
        # An empty map: pyarrow renders it as an empty list.
        return {k: norm(x) for k, x in v.items()} if v else []
    if isinstance(v, list):
        # pyarrow renders a map as a list of (key, value) tuples.
        if v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
            return {k: norm(x) for k, x in v}
        return [norm(x) for x in v]
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC)
    return v


def fastavro_rows(path):
    with open(path, "rb") as f:
        return [norm(r) for r in fastavro.reader(f)]


def arrow_rows(table: pa.Table):
    # fastavro has no timestamp-nanos: compare those as their integers.
    cols = []
    for i, field in enumerate(table.schema):
        col = table.column(i)
        if pa.types.is_timestamp(field.type) and field.type.unit == "ns":
            col = col.cast(pa.int64())
        cols.append(col)
    table = pa.Table.from_arrays(cols, names=table.schema.names)
    return [norm(r) for r in table.to_pylist()]


def quiver_read(run_quiver, path, tmp_path) -> pa.Table:
    out = tmp_path / (path.name + ".arrow")
    run_quiver("convert", path, out)
    with ipc.open_file(out) as f:
        return f.read_all()


INNER = {
    "type": "record",
    "name": "Inner",
    "fields": [{"name": "x", "type": "int"}, {"name": "y", "type": ["null", "string"]}],
}

SCHEMA = {
    "type": "record",
    "name": "T",
    "namespace": "q.test",
    "fields": [
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "s", "type": "string"},
        {"name": "e", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
        {"name": "dt", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tu", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "ltm", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "ltu", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "decb", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 3}},
        {"name": "decf", "type": {"type": "fixed", "name": "D8", "size": 8, "logicalType": "decimal",
                                  "precision": 18, "scale": 2}},
        {"name": "u", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "ni", "type": ["null", "int"]},
        {"name": "ns", "type": ["string", "null"]},
        {"name": "nts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}]},
        {"name": "rec", "type": ["null", INNER]},
        {"name": "again", "type": "Inner"},
        {"name": "arr", "type": {"type": "array", "items": "long"}},
        {"name": "arrn", "type": {"type": "array", "items": ["null", "string"]}},
        {"name": "m", "type": {"type": "map", "values": "double"}},
        {"name": "nm", "type": ["null", {"type": "map", "values": {"type": "array", "items": "int"}}]},
    ],
}


def make_records(n=700):
    base = datetime.datetime(2024, 2, 29, 12, 34, 56, 123000, tzinfo=UTC)
    rows = []
    for k in range(n):
        null = k % 6 == 2
        rows.append({
            "b": k % 3 == 0,
            "i": (k * 7919) % 100000 - 50000,
            "l": (k - 350) * 10**15 + k,
            "f": float(k) / 4.0,
            "d": (k - 100) / 3.0 if k != 5 else float("nan"),
            "by": bytes([k % 256, (k * 3) % 256]) * (k % 4),
            "s": f"s{k}-\u00e9\u65e5" * (k % 3),
            "e": ["RED", "GREEN", "BLUE"][k % 3],
            "fx": (k * 1234567).to_bytes(8, "little", signed=True)[:4],
            "dt": datetime.date(1969, 12, 1) + datetime.timedelta(days=k * 13),
            "tm": datetime.time(k % 24, k % 60, (k * 7) % 60, (k % 1000) * 1000),
            "tu": datetime.time(k % 24, (k * 11) % 60, k % 60, (k * 991) % 1000000),
            "tsm": base + datetime.timedelta(milliseconds=k * 86_400_123 - 10**11),
            "tsu": base + datetime.timedelta(microseconds=k * 3_600_000_001),
            "ltm": (base + datetime.timedelta(milliseconds=k * 777)).replace(tzinfo=None),
            "ltu": (base - datetime.timedelta(microseconds=k * 999_999_937)).replace(tzinfo=None),
            "decb": decimal.Decimal(k * 1234567 - 400_000_000) / 1000,
            "decf": decimal.Decimal((k - 300) * 10**14 + k) / 100,
            "u": uuid.UUID(int=(k * 0x9E3779B97F4A7C15) % (1 << 128)),
            "ni": None if null else k,
            "ns": None if k % 4 == 1 else f"n{k}",
            "nts": None if null else base + datetime.timedelta(seconds=k),
            "rec": None if k % 5 == 0 else {"x": k, "y": None if k % 2 else f"y{k}"},
            "again": {"x": -k, "y": "again"},
            "arr": list(range(k % 5)),
            "arrn": [None if j % 2 else f"a{j}" for j in range(k % 4)],
            "m": {f"k{j}": j * 0.25 for j in range(k % 3)},
            "nm": None if k % 3 == 0 else {"z": [k, k + 1], "w": []},
        })
    return rows


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy", "zstandard"])
def test_reads_every_type_fastavro_writes(codec, run_quiver, tmp_path):
    path = tmp_path / f"t.{codec}.avro"
    with open(path, "wb") as f:
        # Small blocks: a file of many blocks, read in parallel.
        fastavro.writer(f, fastavro.parse_schema(SCHEMA), make_records(), codec=codec, sync_interval=2000)
    table = quiver_read(run_quiver, path, tmp_path)
    t = table.schema
    assert t.field("i").type == pa.int32() and not t.field("i").nullable
    assert t.field("e").type == pa.string()
    assert t.field("fx").type == pa.binary(4)
    assert t.field("dt").type == pa.date32()
    assert t.field("tm").type == pa.time32("ms")
    assert t.field("tu").type == pa.time64("us")
    assert t.field("tsm").type == pa.timestamp("ms", tz="UTC")
    assert t.field("ltu").type == pa.timestamp("us")
    assert t.field("decb").type == pa.decimal128(12, 3)
    assert t.field("decf").type == pa.decimal128(18, 2)
    assert t.field("ni").nullable and t.field("ni").type == pa.int32()
    assert pa.types.is_struct(t.field("rec").type)
    assert t.field("arr").type == pa.list_(pa.field("item", pa.int64(), nullable=False))
    assert pa.types.is_map(t.field("m").type)
    assert arrow_rows(table) == fastavro_rows(path)


def test_sql_reads_avro(run_quiver, tmp_path):
    path = tmp_path / "t.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(SCHEMA), make_records(), codec="deflate", sync_interval=1500)
    recs = make_records()
    exp_sum = sum(r["i"] for r in recs)
    exp_nulls = sum(1 for r in recs if r["ni"] is None)
    for src in (f"read_avro('{path}')", f"'{path}'"):
        proc = run_quiver(
            "sql", "--format", "csv",
            f"SELECT count(*), sum(i), count(*) - count(ni), min(dt), max(s) FROM {src}")
        got = proc.stdout.strip().splitlines()[-1].split(",")
        assert got[:3] == [str(len(recs)), str(exp_sum), str(exp_nulls)]
        assert got[3] == str(min(r["dt"] for r in recs))
        assert got[4] == max(r["s"] for r in recs)
    # A filtered projection reads only some columns (the others are skipped).
    proc = run_quiver("sql", "--format", "csv",
                      f"SELECT e, count(*) FROM read_avro('{path}') WHERE ni IS NOT NULL GROUP BY e ORDER BY e")
    lines = proc.stdout.strip().splitlines()[-3:]
    exp = {}
    for r in recs:
        if r["ni"] is not None:
            exp[r["e"]] = exp.get(r["e"], 0) + 1
    assert lines == [f"{k},{v}" for k, v in sorted(exp.items())]


def test_other_unions_and_codecs_are_refused(run_quiver, tmp_path):
    path = tmp_path / "u.avro"
    schema = {"type": "record", "name": "R", "fields": [{"name": "v", "type": ["int", "string"]}]}
    with open(path, "wb") as f:
        fastavro.writer(f, schema, [{"v": 1}, {"v": "x"}])
    proc = run_quiver("convert", path, tmp_path / "o.arrow", check=False)
    assert proc.returncode != 0
    assert "union of int, string" in proc.stderr and "u.avro" in proc.stderr
    bz = tmp_path / "b.avro"
    with open(bz, "wb") as f:
        fastavro.writer(f, schema | {"fields": [{"name": "v", "type": "int"}]}, [{"v": 1}], codec="bzip2")
    proc = run_quiver("convert", bz, tmp_path / "o.arrow", check=False)
    assert proc.returncode != 0 and "Avro codec 'bzip2'" in proc.stderr


def corpus_files():
    d = shared_testdata_dir() / "arrow-testing" / "data" / "avro"
    return sorted(d.glob("*.avro")) if d.is_dir() else []


def test_corpus_is_there():
    assert len(corpus_files()) >= 30


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name)
def test_reads_arrow_testing_files_like_fastavro(path, run_quiver, tmp_path):
    with open(path, "rb") as f:
        codec = fastavro.reader(f).codec
    if codec in ("xz", "bzip2"):
        proc = run_quiver("convert", path, tmp_path / "o.arrow", check=False)
        assert proc.returncode != 0
        assert f"Avro codec '{codec}'" in proc.stderr and path.name in proc.stderr
        return
    table = quiver_read(run_quiver, path, tmp_path)
    assert arrow_rows(table) == fastavro_rows(path)


def source_table(n=500):
    """A table of the types Quiver writes to Avro, with nulls."""
    def nulls(values, every=7):
        return [None if i % every == 3 else v for i, v in enumerate(values)]
    base = datetime.datetime(2023, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    return pa.table({
        "i8": pa.array(nulls([i % 128 - 64 for i in range(n)]), pa.int8()),
        "i16": pa.array(nulls([i * 61 - 9000 for i in range(n)]), pa.int16()),
        "i32": pa.array(nulls([i * 1_000_003 for i in range(n)]), pa.int32()),
        "i64": pa.array(nulls([(i - 250) * 10**16 for i in range(n)]), pa.int64()),
        "u32": pa.array(nulls([i * 8_000_000 for i in range(n)]), pa.uint32()),
        "f32": pa.array(nulls([i / 8 for i in range(n)]), pa.float32()),
        "f64": pa.array(nulls([(i - 3) / 7 for i in range(n)]), pa.float64()),
        "ok": pa.array(nulls([i % 3 == 0 for i in range(n)]), pa.bool_()),
        "s": pa.array(nulls([f"v{i}\u00fc" * (i % 3) for i in range(n)]), pa.string()),
        "bin": pa.array(nulls([bytes([i % 256]) * (i % 5) for i in range(n)]), pa.binary()),
        "fx": pa.array(nulls([i.to_bytes(3, "big") for i in range(n)]), pa.binary(3)),
        "d": pa.array(nulls([datetime.date(1960, 1, 1) + datetime.timedelta(days=i * 97) for i in range(n)]),
                      pa.date32()),
        "t": pa.array(nulls([datetime.time(i % 24, i % 60, i % 60, i * 1000 % 1000000) for i in range(n)]),
                      pa.time64("us")),
        "ts": pa.array(nulls([base + datetime.timedelta(seconds=i * 3607, microseconds=i) for i in range(n)]),
                       pa.timestamp("us", tz="UTC")),
        "tsl": pa.array(nulls([(base - datetime.timedelta(days=i)).replace(tzinfo=None) for i in range(n)]),
                        pa.timestamp("us")),
        "tsms": pa.array(nulls([base + datetime.timedelta(milliseconds=i * 11) for i in range(n)]),
                         pa.timestamp("ms", tz="UTC")),
        "dec": pa.array(nulls([decimal.Decimal(i * 98765 - 10**7).scaleb(-4) for i in range(n)]),
                        pa.decimal128(20, 4)),
        "lst": pa.array(nulls([list(range(i % 4)) for i in range(n)]), pa.list_(pa.int32())),
        "st": pa.array(nulls([{"a": i, "b": f"b{i}"} for i in range(n)]),
                       pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "mp": pa.array(nulls([[(f"k{j}", float(j)) for j in range(i % 3)] for i in range(n)]),
                       pa.map_(pa.string(), pa.float64())),
    })


def expected_rows(table):
    rows = []
    for r in table.to_pylist():
        # Avro has no 8/16-bit or unsigned types: they widen (equal values).
        rows.append(norm(r))
    return rows


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy", "zstd"])
def test_fastavro_reads_what_convert_writes(codec, run_quiver, tmp_path):
    table = source_table()
    src = tmp_path / "src.parquet"
    pq.write_table(table, src)
    out = tmp_path / "out.avro"
    run_quiver("convert", src, out, "--compression", codec)
    with open(out, "rb") as f:
        reader = fastavro.reader(f)
        assert reader.codec == ("zstandard" if codec == "zstd" else codec)
        schema = reader.writer_schema
    types = {f["name"]: f["type"] for f in schema["fields"]}
    assert types["ts"][1]["logicalType"] == "timestamp-micros"
    assert types["tsl"][1]["logicalType"] == "local-timestamp-micros"
    assert types["dec"][1] == {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 4}
    assert fastavro_rows(out) == expected_rows(table)
    # And Quiver reads its own file back to the same values.
    back = quiver_read(run_quiver, out, tmp_path)
    assert arrow_rows(back) == [
        {k: v for k, v in r.items()} for r in expected_rows(table)]


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy", "zstd"])
def test_copy_to_avro(codec, run_quiver, tmp_path):
    table = source_table().drop_columns(["lst", "st", "mp", "fx", "u32", "i8", "tsms"])
    src = tmp_path / "src.parquet"
    pq.write_table(table, src)
    out = tmp_path / "copy.avro"
    run_quiver("sql", f"COPY (SELECT * FROM read_parquet('{src}')) TO '{out}' (FORMAT avro, COMPRESSION '{codec}')")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.avro", "src.parquet"]
    got = fastavro_rows(out)
    exp = expected_rows(table)
    assert len(got) == len(exp)
    assert sorted(got, key=repr) == sorted(exp, key=repr)
    # By extension, with the default codec (null).
    out2 = tmp_path / "ext.avro"
    run_quiver("sql", f"COPY (SELECT i32 AS n, s FROM read_parquet('{src}') ORDER BY i32) TO '{out2}'")
    with open(out2, "rb") as f:
        assert fastavro.reader(f).codec == "null"


def test_copy_refusals(run_quiver, tmp_path):
    out = tmp_path / "x.avro"
    proc = run_quiver("sql", f"COPY (SELECT 1 AS a) TO '{out}' (FORMAT avro, COMPRESSION lz4)", check=False)
    assert proc.returncode != 0 and "Avro compression is null, deflate, snappy or zstd" in proc.stderr
    proc = run_quiver("sql", f"COPY (SELECT 1 + 1) TO '{out}' (FORMAT avro)", check=False)
    assert proc.returncode != 0 and "not an Avro name" in proc.stderr
    assert not out.exists()


def test_truncated_and_corrupt_files(run_quiver, tmp_path):
    path = tmp_path / "good.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(SCHEMA), make_records(200), codec="deflate", sync_interval=500)
    data = path.read_bytes()
    cut = tmp_path / "cut.avro"
    cut.write_bytes(data[: len(data) - 40])
    proc = run_quiver("convert", cut, tmp_path / "o.arrow", check=False)
    assert proc.returncode == 1
    assert "cut.avro: Avro block" in proc.stderr and "at offset" in proc.stderr and "truncated" in proc.stderr
    # A flipped byte inside the first block's data: an error naming the
    # block (deflate or the decoding fails), or different values, never a crash.
    bad = bytearray(data)
    header_end = data.index(data[-16:])  # the sync marker ends the header
    for i in range(header_end + 20, min(len(data), header_end + 400), 7):
        bad2 = bytearray(bad)
        bad2[i] ^= 0x5A
        p = tmp_path / "bad.avro"
        p.write_bytes(bytes(bad2))
        proc = run_quiver("convert", p, tmp_path / "o.arrow", check=False)
        assert proc.returncode in (0, 1), proc.stderr
        if proc.returncode:
            assert "bad.avro" in proc.stderr and "Avro" in proc.stderr
    # Not Avro at all, under an .avro name.
    junk = tmp_path / "junk.avro"
    junk.write_bytes(b"hello world")
    proc = run_quiver("convert", junk, tmp_path / "o.arrow", check=False)
    assert proc.returncode == 1 and "junk.avro" in proc.stderr and "Avro" in proc.stderr
