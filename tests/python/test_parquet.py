"""Parquet through real peers: pyarrow and DuckDB read what Quiver writes, Quiver reads what
they (and the parquet-testing corpus) wrote.

What is checked, always against an independent peer:

(a) every file of parquet-testing's data/ (and shredded_variant/, and arrow-testing's
    data/parquet/*.parquet): `quiver convert F out.arrow`, re-read by pyarrow, equals
    pyarrow's own read of F (schema, field and schema metadata, values; NaN-aware). Files
    Quiver rejects on purpose are listed in EXPECTED_ERRORS with the message they must give;
    files pyarrow rejects but Quiver reads are in PYARROW_FAILS. Where the corpus ships an
    *_expect.csv, Quiver's values are also compared with it.
(b) encrypted files, bad_data/ and arrow-testing's fuzzing corpus: a clear error naming the
    file, exit status 1, never a crash, quickly.
(c) files Quiver writes (every type pyarrow writes, nulls, nested lists/maps/structs, several
    input batches) for each codec, V1 and V2 data pages, dictionary and plain: pyarrow reads
    them equal to its read of the same table written by pyarrow itself; DuckDB reads every
    column equal to its read of pyarrow's file; Quiver reads its own file back equal.
(d) files pyarrow writes with every encoding (PLAIN, RLE_DICTIONARY, DELTA_BINARY_PACKED,
    DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE booleans), V1/V2
    pages and every codec, read by Quiver equal to pyarrow's read.
(e) the CLI: --row-group-rows, --compression for Parquet and IPC, CSV <-> Parquet, `cat`.
"""

import datetime
import decimal
import glob
import math
import os
import subprocess
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest
from conftest import shared_testdata_dir

TESTDATA = shared_testdata_dir()
PARQUET_TESTING = TESTDATA / "parquet-testing"
ARROW_TESTING_PARQUET = TESTDATA / "arrow-testing" / "data" / "parquet"

# Files Quiver refuses, with (a part of) the error it must give.
EXPECTED_ERRORS = {
    # Checksum verification is on: these pages carry deliberately wrong CRCs.
    "data/datapage_v1-corrupt-checksum.parquet": "page CRC mismatch",
    "data/rle-dict-uncompressed-corrupt-checksum.parquet": "page CRC mismatch",
    # More than 2 GiB of strings decompressed from a 3.5 MB brotli file (pyarrow fails too).
    "data/large_string_map.brotli.parquet": "decoding needs more than",
}
# Files pyarrow cannot read that Quiver reads (with the reason pyarrow gives up).
PYARROW_FAILS = {
    # Presto wrote a MAP with optional keys; Quiver reads it as list<struct<key, value>>.
    "data/incorrect_map_schema.parquet": "Map keys must be annotated as required",
}


def _corpus_files():
    files = sorted(glob.glob(str(PARQUET_TESTING / "data" / "**" / "*.parquet"), recursive=True))
    files += sorted(glob.glob(str(PARQUET_TESTING / "shredded_variant" / "*.parquet")))
    files += sorted(glob.glob(str(ARROW_TESTING_PARQUET / "*.parquet")))
    return files


def _rel(path):
    p = Path(path)
    try:
        return str(p.relative_to(PARQUET_TESTING))
    except ValueError:
        return "arrow-testing/" + str(p.relative_to(ARROW_TESTING_PARQUET))


def _norm(x):
    """Python values with NaN made comparable."""
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    if isinstance(x, dict):
        return {k: _norm(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_norm(v) for v in x]
    return x


def assert_tables_equal(got: pa.Table, exp: pa.Table, what=""):
    assert got.schema.remove_metadata() == exp.schema.remove_metadata(), (
        f"{what}: schema\n got {got.schema}\n exp {exp.schema}"
    )
    assert (got.schema.metadata or {}) == (exp.schema.metadata or {}), f"{what}: schema metadata"
    for g, e in zip(got.schema, exp.schema):
        assert (g.metadata or {}) == (e.metadata or {}), f"{what}: metadata of field {g.name}"
    if got.equals(exp):
        return
    # NaNs compare unequal in Table.equals; compare values instead.
    for name in exp.column_names:
        assert _norm(got.column(name).to_pylist()) == _norm(exp.column(name).to_pylist()), (
            f"{what}: values of column {name}"
        )


def read_arrow_file(path) -> pa.Table:
    with ipc.open_file(path) as f:
        return f.read_all()


# --------------------------------------------------------------------------------------------
# (a) the corpus, read by Quiver
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", _corpus_files(), ids=_rel)
def test_reads_corpus_file_like_pyarrow(path, run_quiver, tmp_path):
    rel = _rel(path)
    out = tmp_path / "out.arrow"
    if rel in EXPECTED_ERRORS:
        proc = run_quiver("convert", path, out, check=False)
        assert proc.returncode == 1, proc.stderr
        assert EXPECTED_ERRORS[rel] in proc.stderr and path in proc.stderr, proc.stderr
        assert not out.exists()
        return
    run_quiver("convert", path, out)
    got = read_arrow_file(out)
    if rel in PYARROW_FAILS:
        with pytest.raises(Exception, match=PYARROW_FAILS[rel]):
            pq.read_table(path)
        # DuckDB as the peer: it reads the map; Quiver's entries hold the same pairs.
        rows = duckdb.sql(f"SELECT * FROM read_parquet('{path}')").fetchall()
        want = [[{"key": k, "value": v} for k, v in r[0].items()] for r in rows]
        assert got.column(0).to_pylist() == want
        return
    assert_tables_equal(got, pq.read_table(path), rel)


EXPECT_CSV = sorted(glob.glob(str(PARQUET_TESTING / "data" / "*_expect.csv")))


@pytest.mark.parametrize("csv_path", EXPECT_CSV, ids=lambda p: Path(p).name)
def test_reads_values_of_expect_csv(csv_path, run_quiver, tmp_path):
    parquet = csv_path.replace("_expect.csv", ".parquet")
    run_quiver("convert", parquet, tmp_path / "out.arrow")
    got = read_arrow_file(tmp_path / "out.arrow")
    types = {f.name: f.type for f in got.schema}
    # The CSV headers spell some names differently; columns match by position.
    expected = pacsv.read_csv(
        csv_path,
        read_options=pacsv.ReadOptions(column_names=got.column_names, skip_rows=1),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=True),
    )
    for name in got.column_names:
        assert got.column(name).to_pylist() == expected.column(name).to_pylist(), name


# --------------------------------------------------------------------------------------------
# (b) hostile and unsupported input
# --------------------------------------------------------------------------------------------

ENCRYPTED = sorted(glob.glob(str(PARQUET_TESTING / "data" / "**" / "*.parquet.encrypted"), recursive=True))


@pytest.mark.parametrize("path", ENCRYPTED, ids=_rel)
def test_encrypted_files_say_so(path, run_quiver, tmp_path):
    proc = run_quiver("convert", "--from", "parquet", path, tmp_path / "o.arrow", check=False)
    assert proc.returncode == 1
    assert "encrypted Parquet is not supported" in proc.stderr and path in proc.stderr


HOSTILE = sorted(glob.glob(str(PARQUET_TESTING / "bad_data" / "*.parquet"))) + sorted(
    p for p in glob.glob(str(ARROW_TESTING_PARQUET / "fuzzing" / "*")) if not p.endswith(".md")
)


def test_hostile_files_give_clear_errors(quiver_bin, tmp_path):
    assert len(HOSTILE) > 100
    outcomes = {}
    for path in HOSTILE:
        proc = subprocess.run(
            [str(quiver_bin), "convert", "--from", "parquet", path, str(tmp_path / "o.arrow")],
            capture_output=True, timeout=60,
        )
        stderr = proc.stderr.decode("utf-8")  # messages escape the bytes of hostile names
        assert proc.returncode in (0, 1), f"{path}: exit {proc.returncode}\n{stderr}"
        if proc.returncode == 1:
            first = stderr.splitlines()[0]
            assert first.startswith("quiver: error: ") and path in first, f"{path}: {stderr}"
        outcomes[path] = proc.returncode
    # Most of the corpus is broken on purpose.
    assert sum(1 for rc in outcomes.values() if rc == 1) > 100


# --------------------------------------------------------------------------------------------
# (c) files Quiver writes
# --------------------------------------------------------------------------------------------

N = 45


def _nulls(values, every=5):
    return [None if i % every == 3 else v for i, v in enumerate(values)]


def _typed_table() -> pa.Table:
    ints = [((i * 7919) % 200) - 100 for i in range(N)]
    strs = [("s%d" % (i % 9)) * (i % 4) for i in range(N)]
    ts = [1_600_000_000 + i * 3_601 for i in range(N)]
    dec = [decimal.Decimal(i * 37 - 500) / 100 for i in range(N)]
    cols = {
        "bool": pa.array(_nulls([i % 3 == 0 for i in range(N)]), pa.bool_()),
        "int8": pa.array(_nulls(ints), pa.int8()),
        "int16": pa.array(_nulls([v * 300 for v in ints]), pa.int16()),
        "int32": pa.array(_nulls([v * 2_000_000 for v in ints]), pa.int32()),
        "int64": pa.array(_nulls([v * 10**15 for v in ints]), pa.int64()),
        "uint8": pa.array(_nulls([v + 100 for v in ints]), pa.uint8()),
        "uint16": pa.array(_nulls([(v + 100) * 300 for v in ints]), pa.uint16()),
        "uint32": pa.array(_nulls([(v + 100) * 20_000_000 for v in ints]), pa.uint32()),
        "uint64": pa.array(_nulls([(v + 100) * 9 * 10**16 for v in ints]), pa.uint64()),
        "float16": pa.array(_nulls([float(v) / 4 for v in ints]), pa.float16()),
        "float32": pa.array(_nulls([v / 3 for v in ints]), pa.float32()),
        "float64": pa.array(_nulls([v / 7 if v != 0 else float("nan") for v in ints]), pa.float64()),
        "string": pa.array(_nulls(strs), pa.string()),
        "large_string": pa.array(_nulls(strs), pa.large_string()),
        "string_view": pa.array(_nulls(strs + ["x" * 40]) [:N], pa.string_view()),
        "binary": pa.array(_nulls([s.encode() + b"\x00\xff" for s in strs]), pa.binary()),
        "large_binary": pa.array(_nulls([s.encode() for s in strs]), pa.large_binary()),
        "fixed_binary": pa.array(_nulls([bytes([i, 255 - i, 7]) for i in range(N)]), pa.binary(3)),
        "date32": pa.array(_nulls([v * 100 for v in ints]), pa.date32()),
        "date64": pa.array(_nulls([v * 86_400_000 for v in ints]), pa.date64()),
        "time32_s": pa.array(_nulls([(v + 100) * 400 for v in ints]), pa.time32("s")),
        "time32_ms": pa.array(_nulls([(v + 100) * 400_000 for v in ints]), pa.time32("ms")),
        "time64_us": pa.array(_nulls([(v + 100) * 4 * 10**8 for v in ints]), pa.time64("us")),
        "time64_ns": pa.array(_nulls([(v + 100) * 4 * 10**11 for v in ints]), pa.time64("ns")),
        "ts_s": pa.array(_nulls(ts), pa.timestamp("s")),
        "ts_ms_utc": pa.array(_nulls([t * 1000 + 5 for t in ts]), pa.timestamp("ms", tz="UTC")),
        "ts_us_tz": pa.array(_nulls([t * 10**6 + 7 for t in ts]), pa.timestamp("us", tz="Europe/Paris")),
        "ts_ns": pa.array(_nulls([t * 10**9 + 9 for t in ts]), pa.timestamp("ns")),
        "duration_ms": pa.array(_nulls([v * 1000 for v in ints]), pa.duration("ms")),
        "decimal32": pa.array(_nulls(dec), pa.decimal32(7, 2)),
        "decimal64": pa.array(_nulls(dec), pa.decimal64(15, 2)),
        "decimal128": pa.array(_nulls(dec), pa.decimal128(30, 2)),
        "decimal256": pa.array(_nulls(dec), pa.decimal256(50, 2)),
        "null": pa.nulls(N),
        "dict": pa.array(_nulls(strs)).dictionary_encode(),
        "list": pa.array(_nulls([list(range(i % 4)) if i % 7 else [] for i in range(N)]), pa.list_(pa.int32())),
        "list_nullable_items": pa.array(
            _nulls([[None if (i + j) % 3 == 0 else f"v{j}" for j in range(i % 4)] for i in range(N)]),
            pa.list_(pa.string()),
        ),
        "large_list": pa.array(_nulls([list(range(i % 3)) for i in range(N)]), pa.large_list(pa.int64())),
        "fixed_list": pa.array(_nulls([[i, i + 1] for i in range(N)]), pa.list_(pa.int16(), 2)),
        "list_of_lists": pa.array(
            _nulls([[list(range(j)) if j != 1 else None for j in range(i % 4)] for i in range(N)]),
            pa.list_(pa.list_(pa.int32())),
        ),
        "struct": pa.array(
            _nulls([{"a": i, "b": None if i % 4 == 0 else str(i), "c": {"d": [i] * (i % 3)}} for i in range(N)]),
            pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.struct([("d", pa.list_(pa.int64()))]))]),
        ),
        "map": pa.array(
            _nulls([[(f"k{j}", None if j == 1 else i * j) for j in range(i % 4)] for i in range(N)]),
            pa.map_(pa.string(), pa.int32()),
        ),
        "list_of_structs": pa.array(
            _nulls([[{"x": j, "y": None if j % 2 else 1.5 * j} for j in range(i % 3)] for i in range(N)]),
            pa.list_(pa.struct([("x", pa.int32()), ("y", pa.float64())])),
        ),
        "map_of_lists": pa.array(
            _nulls([[(j, [str(k) for k in range(j)]) for j in range(i % 3)] for i in range(N)]),
            pa.map_(pa.int32(), pa.list_(pa.string())),
        ),
    }
    schema = pa.schema(
        [pa.field(k, v.type, metadata={"note": k} if k == "int32" else None) for k, v in cols.items()]
        + [pa.field("required_int", pa.int64(), nullable=False)],
        metadata={"origin": "test_parquet"},
    )
    cols["required_int"] = pa.array(range(N), pa.int64())
    return pa.Table.from_pydict(cols, schema=schema)


@pytest.fixture(scope="module")
def typed(tmp_path_factory):
    d = tmp_path_factory.mktemp("typed")
    table = _typed_table()
    src = d / "in.arrows"
    # Several input batches (one empty): the writer buffers them into row groups.
    with ipc.new_stream(src, table.schema) as w:
        for batch in table.to_batches(max_chunksize=20):
            w.write_batch(batch)
        w.write_batch(pa.RecordBatch.from_pylist([], schema=table.schema))
    reference = d / "pyarrow.parquet"
    pq.write_table(table, reference)
    return table, src, reference


WRITE_CASES = [
    ("zstd-v1", []),
    ("snappy-v2", ["--compression", "snappy", "--data-page-version", "2"]),
    ("gzip-v1-plain", ["--compression", "gzip", "--no-dictionary"]),
    ("brotli-v2", ["--compression", "brotli", "--data-page-version", "2", "--row-group-rows", "7"]),
    ("lz4-v1", ["--compression", "lz4", "--row-group-rows", "20"]),
    ("none-v2-plain", ["--compression", "none", "--data-page-version", "2", "--no-dictionary"]),
]


@pytest.mark.parametrize("case,args", WRITE_CASES, ids=[c for c, _ in WRITE_CASES])
def test_quiver_written_files_read_back_in_pyarrow_and_duckdb(case, args, typed, run_quiver, tmp_path):
    table, src, reference = typed
    out = tmp_path / "quiver.parquet"
    run_quiver("convert", src, out, *args)
    # pyarrow: the same as its own file of the same table.
    expected = pq.read_table(reference)
    assert_tables_equal(pq.read_table(out), expected, case)
    meta = pq.ParquetFile(out).metadata
    # (pyarrow calls LZ4_RAW "LZ4".)
    codec = {"zstd": "ZSTD", "snappy": "SNAPPY", "gzip": "GZIP", "brotli": "BROTLI",
             "lz4": "LZ4", "none": "UNCOMPRESSED"}[case.split("-")[0]]
    assert meta.row_group(0).column(0).compression == codec
    encodings = {e for i in range(meta.num_columns) for e in meta.row_group(0).column(i).encodings}
    assert ("RLE_DICTIONARY" in encodings) == ("plain" not in case), encodings
    # Quiver reads its own file like pyarrow does.
    # (A stream: each row group brings its own dictionary, which IPC files cannot replace.)
    run_quiver("convert", out, tmp_path / "back.arrows")
    with ipc.open_stream(tmp_path / "back.arrows") as r:
        back = r.read_all()
    assert_tables_equal(back, pq.read_table(out), case + " back")
    # DuckDB: each column as DuckDB reads it from pyarrow's file.
    con = duckdb.connect()
    for name in table.column_names:
        try:
            want = con.execute(f'SELECT "{name}" FROM read_parquet(\'{reference}\')').fetchall()
        except duckdb.Error:
            continue  # a type DuckDB does not read from pyarrow's file either
        got = con.execute(f'SELECT "{name}" FROM read_parquet(\'{out}\')').fetchall()
        assert _norm(got) == _norm(want), f"{case}: DuckDB column {name}"


def test_row_groups_statistics_and_page_index(typed, run_quiver, tmp_path):
    table, src, _ = typed
    out = tmp_path / "q.parquet"
    run_quiver("convert", src, out, "--row-group-rows", "10")
    f = pq.ParquetFile(out)
    assert f.metadata.num_row_groups == math.ceil(N / 10)
    assert [f.metadata.row_group(i).num_rows for i in range(f.metadata.num_row_groups)] == [10, 10, 10, 10, 5]
    col = f.metadata.row_group(1).column(f.schema_arrow.get_field_index("int64"))
    values = [v for v in table.column("int64").to_pylist()[10:20] if v is not None]
    assert col.statistics.min == min(values) and col.statistics.max == max(values)
    assert col.statistics.null_count == table.column("int64").slice(10, 10).null_count
    assert col.has_column_index and col.has_offset_index
    # DuckDB pushes filters into the statistics and still finds the right rows.
    n = duckdb.sql(f"SELECT count(*) FROM '{out}' WHERE int64 > 0").fetchall()[0][0]
    assert n == sum(1 for v in table.column("int64").to_pylist() if v is not None and v > 0)


# --------------------------------------------------------------------------------------------
# (d) every encoding, read by Quiver
# --------------------------------------------------------------------------------------------


def _encoding_table():
    n = 3000
    return pa.table({
        "i32": pa.array(_nulls([(i * 37) % 1000 - 500 for i in range(n)]), pa.int32()),
        "i64": pa.array(_nulls([i * 10**12 - 7 for i in range(n)]), pa.int64()),
        "f32": pa.array(_nulls([i / 3 for i in range(n)]), pa.float32()),
        "f64": pa.array(_nulls([i / 7 for i in range(n)]), pa.float64()),
        "s": pa.array(_nulls(["prefix-%05d" % (i // 3) for i in range(n)]), pa.string()),
        "flba": pa.array(_nulls([i.to_bytes(4, "little") for i in range(n)]), pa.binary(4)),
        "b": pa.array(_nulls([i % 7 < 3 for i in range(n)]), pa.bool_()),
    })


ENCODINGS = {
    "PLAIN": ["i32", "i64", "f32", "f64", "s", "flba", "b"],
    "DELTA_BINARY_PACKED": ["i32", "i64"],
    "DELTA_LENGTH_BYTE_ARRAY": ["s"],
    "DELTA_BYTE_ARRAY": ["s", "flba"],
    "BYTE_STREAM_SPLIT": ["i32", "i64", "f32", "f64", "flba"],
    "RLE": ["b"],
}


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("encoding", list(ENCODINGS) + ["RLE_DICTIONARY"])
def test_reads_every_encoding(encoding, version, run_quiver, tmp_path):
    table = _encoding_table()
    path = tmp_path / "enc.parquet"
    if encoding == "RLE_DICTIONARY":
        pq.write_table(table, path, data_page_version=version, compression="snappy", data_page_size=2000)
    else:
        cols = ENCODINGS[encoding]
        table = table.select(cols)
        pq.write_table(table, path, use_dictionary=False, column_encoding={c: encoding for c in cols},
                       data_page_version=version, compression="zstd", data_page_size=2000)
    meta = pq.ParquetFile(path).metadata
    assert encoding in meta.row_group(0).column(0).encodings
    run_quiver("convert", path, tmp_path / "out.arrow")
    assert_tables_equal(read_arrow_file(tmp_path / "out.arrow"), pq.read_table(path), encoding)


@pytest.mark.parametrize("codec", ["snappy", "gzip", "brotli", "lz4", "zstd", "none"])
def test_reads_every_codec(codec, run_quiver, tmp_path):
    table = _encoding_table()
    path = tmp_path / "c.parquet"
    pq.write_table(table, path, compression=codec, row_group_size=1000)
    run_quiver("convert", path, tmp_path / "out.arrow")
    assert_tables_equal(read_arrow_file(tmp_path / "out.arrow"), pq.read_table(path), codec)


# --------------------------------------------------------------------------------------------
# (e) the CLI
# --------------------------------------------------------------------------------------------


def test_csv_parquet_round_trip(run_quiver, tmp_path):
    csv = tmp_path / "in.csv"
    csv.write_text("id,name,when,score\n1,alpha,2024-01-02 03:04:05,1.5\n2,,2024-02-03 00:00:00,\n3,gamma,,2.25\n")
    run_quiver("convert", csv, tmp_path / "t.parquet", "--compression", "snappy")
    t = pq.read_table(tmp_path / "t.parquet")
    assert t.column("id").to_pylist() == [1, 2, 3]
    assert t.column("name").to_pylist() == ["alpha", "", "gamma"]  # CSV: empty strings stay
    assert t.column("score").to_pylist() == [1.5, None, 2.25]
    run_quiver("convert", tmp_path / "t.parquet", tmp_path / "back.csv")
    assert (tmp_path / "back.csv").read_text().splitlines()[0] == "id,name,when,score"
    proc = run_quiver("cat", tmp_path / "t.parquet")
    assert "(Parquet," in proc.stdout and "gamma" in proc.stdout and "3 rows" in proc.stdout


def test_compression_choices_per_format(run_quiver, tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("a\n1\n2\n")
    proc = run_quiver("convert", src, tmp_path / "o.arrow", "--compression", "snappy", check=False)
    assert proc.returncode == 1 and "lz4 or zstd" in proc.stderr
    assert not (tmp_path / "o.arrow").exists()
    proc = run_quiver("convert", src, tmp_path / "o.csv", "--row-group-rows", "5", check=False)
    assert proc.returncode == 1 and "Parquet output" in proc.stderr
    run_quiver("convert", src, tmp_path / "o.parquet")
    assert pq.ParquetFile(tmp_path / "o.parquet").metadata.row_group(0).column(0).compression == "ZSTD"


def test_projection_and_multiple_row_groups_through_arrow(run_quiver, tmp_path):
    table = _encoding_table()
    path = tmp_path / "rg.parquet"
    pq.write_table(table, path, row_group_size=700)
    run_quiver("convert", path, tmp_path / "o.arrows", "--to", "stream")
    with ipc.open_stream(tmp_path / "o.arrows") as r:
        got = r.read_all()
    assert_tables_equal(got, pq.read_table(path), "stream")
