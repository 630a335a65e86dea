"""Arrow IPC round trips through a real peer: pyarrow writes, Quiver converts, pyarrow reads.

What is checked, always against pyarrow (the reference implementation), never against
Quiver's own earlier output:

(a) every type pyarrow can write (with nulls, sliced input, schema/field/nested-field custom
    metadata, several batches including empty ones, uncompressed / lz4 / zstd bodies, file and
    stream format) survives `quiver convert IN OUT [--to stream] [--compression C]
    [--batch-rows N]`: pyarrow reads Quiver's output and it equals the original table
    (`Table.equals(check_metadata=True)` plus schema equality). `--batch-rows` makes Quiver
    slice batches itself, so its writer sees arrays with non-zero offsets.
(b) `quiver cat` prints pyarrow's values for simple columns; `--limit` and `--schema` work.
(c) dictionary deltas (`emit_dictionary_deltas=True`) and dictionary replacement in streams.
(d) the Arrow integration golden files (arrow-testing: Arrow C++ 21 and older writers): Quiver's
    conversion of each, re-read by pyarrow, equals pyarrow's read of the original. Files Quiver
    rejects on purpose are listed in EXPECTED_UNSUPPORTED, so a change either way is noticed.
(e) a failed conversion exits non-zero, names the input and leaves no output file.

The CLI contract under test:
    quiver convert IN OUT [--compression lz4|zstd|none] [--batch-rows N] [--to arrow|stream|csv]
    quiver cat FILE [--limit N] [--schema]
"""

import datetime
import decimal
import fnmatch
import random
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pytest
from conftest import shared_testdata_dir

N = 37  # rows per generated column: not a multiple of 8, so bitmaps have ragged tails
BATCH_LAYOUT = [10, 0, 17, 0, 10]  # rows per input batch: several batches, two empty
assert sum(BATCH_LAYOUT) == N

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"


# --------------------------------------------------------------------------------------------
# Input generation
# --------------------------------------------------------------------------------------------


def _nullify(values, every=4, phase=1):
    return [None if i % every == phase else v for i, v in enumerate(values)]


def _cycle(values, n=N):
    return [values[i % len(values)] for i in range(n)]


def _int_case(typ, rng):
    info = np.iinfo(typ.to_pandas_dtype())
    extremes = [int(info.min), int(info.max), 0, 1, -1 if info.min < 0 else 2]
    vals = extremes + [rng.randint(int(info.min), int(info.max)) for _ in range(N - len(extremes))]
    return pa.array(_nullify(vals, 5, 3), typ)


def _float16_case():
    vals = np.array(_cycle([0.0, -0.0, 1.5, -2.25, 65504.0, 6.1e-5, np.inf, -np.inf]), np.float16)
    mask = np.array([i % 4 == 2 for i in range(N)])
    return pa.array(vals, mask=mask)


def _decimal_case(typ):
    # Unscaled integers, from the largest the precision allows down to small ones.
    top = 10**typ.precision - 1
    unscaled = _cycle([top, -top, 0, 1, -1, 150, -12325, top // 7])
    values = [decimal.Decimal(f"{u}E{-typ.scale}") for u in unscaled]  # exact, no rounding
    return pa.array(_nullify(values, 3, 0), typ)


def _union_children():
    return [
        pa.array(_nullify(list(range(N)), 5, 1), pa.int32()),
        pa.array(_nullify([f"s{i}" for i in range(N)], 6, 2), pa.utf8()),
    ]


def _sparse_union():
    type_ids = pa.array([5 if i % 3 else 9 for i in range(N)], pa.int8())
    return pa.UnionArray.from_sparse(type_ids, _union_children(), ["i", "s"], [5, 9])


def _dense_union():
    codes = [5 if i % 3 else 9 for i in range(N)]
    counts = {5: 0, 9: 0}
    offsets = []
    for c in codes:
        offsets.append(counts[c])
        counts[c] += 1
    children = [
        pa.array(_nullify(list(range(counts[5])), 4, 1), pa.int64()),
        pa.array(_nullify([f"d{i}" for i in range(counts[9])], 3, 0), pa.large_utf8()),
    ]
    return pa.UnionArray.from_dense(pa.array(codes, pa.int8()), pa.array(offsets, pa.int32()),
                                    children, ["i", "s"], [5, 9])


def _ree(run_end_type, values, run_lengths):
    ends, total = [], 0
    for length in run_lengths:
        total += length
        ends.append(total)
    assert total == N
    return pa.RunEndEncodedArray.from_arrays(pa.array(ends, run_end_type), values)


def _list_view_out_of_order():
    # Views that overlap and go backwards: legal for list_view, impossible for list.
    values = pa.array(_nullify(list(range(20)), 7, 3), pa.int16())
    offsets = pa.array([(i * 7) % 15 for i in range(N)], pa.int32())
    sizes = pa.array([i % 6 for i in range(N)], pa.int32())
    mask = pa.array([i % 5 == 4 for i in range(N)])
    return pa.ListViewArray.from_arrays(offsets, sizes, values, mask=mask)


def _dictionary(index_type, values, indices, ordered=False):
    return pa.DictionaryArray.from_arrays(pa.array(indices, index_type), values, ordered=ordered)


def type_cases():
    """name -> pa.Array of length N, one per type (and a few nested combinations)."""
    rng = random.Random(20261202)
    words = ["", "a", "Quiver", "ünïcødé ✓", "x" * 40, "line\nbreak", "tab\t,comma", "émoji 🏹"]
    blobs = [b"", b"\x00", b"\x00\xff\x10binary", b"y" * 33, b"abc"]
    cases = {}

    cases["null"] = pa.nulls(N)
    cases["bool"] = pa.array(_nullify([rng.random() < 0.5 for _ in range(N)], 3, 2), pa.bool_())
    for typ in [pa.int8(), pa.int16(), pa.int32(), pa.int64(),
                pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]:
        cases[str(typ)] = _int_case(typ, rng)
    cases["float16"] = _float16_case()
    floats = [0.0, -0.0, 1.5, -2.25, 1e308, -5e-324, float("inf"), float("-inf"), 3.14159]
    cases["float32"] = pa.array(_nullify(_cycle([1.5, -0.0, 3.4e38, 1e-45, float("inf"), 7.25]),
                                         4, 0), pa.float32())
    cases["float64"] = pa.array(_nullify(_cycle(floats), 4, 0), pa.float64())
    for typ in [pa.decimal32(9, 2), pa.decimal64(18, 4), pa.decimal128(38, 10),
                pa.decimal128(5, 0), pa.decimal256(76, 20), pa.decimal256(40, -3)]:
        cases[f"decimal{typ.bit_width}({typ.precision},{typ.scale})"] = _decimal_case(typ)
    cases["utf8"] = pa.array(_nullify(_cycle(words), 5, 4), pa.utf8())
    cases["large_utf8"] = pa.array(_nullify(_cycle(words[::-1]), 5, 1), pa.large_utf8())
    cases["binary"] = pa.array(_nullify(_cycle(blobs), 4, 1), pa.binary())
    cases["large_binary"] = pa.array(_nullify(_cycle(blobs[::-1]), 4, 2), pa.large_binary())
    # Views: values <= 12 bytes are inlined, longer ones live in variadic data buffers.
    cases["string_view"] = pa.array(_nullify(_cycle(words + ["inline12byte", "thirteen byte"]),
                                             6, 5), pa.string_view())
    cases["binary_view"] = pa.array(_nullify(_cycle(blobs), 3, 1), pa.binary_view())
    cases["fixed_size_binary(5)"] = pa.array(_nullify(_cycle([b"abcde", b"\x00" * 5, b"\xff" * 5]),
                                                      4, 3), pa.binary(5))
    days = [0, 1, -1, 19000, 2932896, -719162, 20000]
    cases["date32"] = pa.array(_nullify(_cycle(days), 5, 2), pa.date32())
    cases["date64"] = pa.array(_nullify(_cycle([d * 86_400_000 for d in days]), 5, 3), pa.date64())
    cases["time32[s]"] = pa.array(_nullify(_cycle([0, 1, 86399, 43200]), 4, 1), pa.time32("s"))
    cases["time32[ms]"] = pa.array(_nullify(_cycle([0, 86_399_999, 1234]), 4, 2), pa.time32("ms"))
    cases["time64[us]"] = pa.array(_nullify(_cycle([0, 86_399_999_999, 5]), 4, 3), pa.time64("us"))
    cases["time64[ns]"] = pa.array(_nullify(_cycle([0, 86_399_999_999_999, 7]), 4, 0),
                                   pa.time64("ns"))
    stamps = [0, 1, -1, 1_700_000_000, -2_208_988_800, 253_402_300_799]
    scale = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}
    for unit in ["s", "ms", "us", "ns"]:
        vals = [v * scale[unit] + (123 if unit != "s" else 0) for v in stamps[:5]]
        for tz in [None, "UTC", "Asia/Kolkata"]:
            cases[f"timestamp[{unit},{tz}]"] = pa.array(_nullify(_cycle(vals), 4, 1),
                                                        pa.timestamp(unit, tz))
        cases[f"duration[{unit}]"] = pa.array(_nullify(_cycle([0, -5, 86400 * scale[unit], 42]),
                                                       3, 1), pa.duration(unit))
    cases["month_day_nano_interval"] = pa.array(
        _nullify(_cycle([pa.MonthDayNano([1, 2, 3]), pa.MonthDayNano([-1, 0, -86_400 * 10**9]),
                         pa.MonthDayNano([0, 0, 0])]), 4, 2), pa.month_day_nano_interval())

    ints = [None if i % 6 == 5 else i for i in range(8)]
    lists = _nullify([ints[: i % 5] for i in range(N)], 7, 3)
    cases["list<int32>"] = pa.array(lists, pa.list_(pa.int32()))
    cases["large_list<utf8>"] = pa.array(
        _nullify([_cycle(words, i % 4) for i in range(N)], 6, 1), pa.large_list(pa.utf8()))
    cases["fixed_size_list<float64,3>"] = pa.array(
        _nullify([[i * 0.5, None if i % 4 == 0 else -i, 1e10] for i in range(N)], 5, 2),
        pa.list_(pa.float64(), 3))
    cases["list_view<int16>"] = pa.array(lists, pa.list_view(pa.int16()))
    cases["list_view<int16> out of order"] = _list_view_out_of_order()
    cases["large_list_view<utf8>"] = pa.array(
        _nullify([_cycle(words[2:], i % 3) for i in range(N)], 4, 0), pa.large_list_view(pa.utf8()))
    cases["struct"] = pa.array(
        _nullify([{"a": i, "b": None if i % 3 == 0 else words[i % len(words)],
                   "c": {"x": i * 1.5, "y": None}} for i in range(N)], 6, 4),
        pa.struct([("a", pa.int32()), ("b", pa.utf8()),
                   ("c", pa.struct([("x", pa.float64()), ("y", pa.bool_())]))]))
    cases["struct<non-nullable>"] = pa.StructArray.from_arrays(
        [pa.array(range(N), pa.int64())], fields=[pa.field("k", pa.int64(), nullable=False)])
    maps = _nullify([[(f"k{j}", None if j == 1 else i * j) for j in range(i % 4)]
                     for i in range(N)], 5, 3)
    cases["map<utf8,int64>"] = pa.array(maps, pa.map_(pa.utf8(), pa.int64()))
    cases["map<utf8,int64> keys_sorted"] = pa.array(maps, pa.map_(pa.utf8(), pa.int64(),
                                                                  keys_sorted=True))
    dict_words = pa.array(["red", "green", "blue", "ünï"])
    cases["dictionary<int8,utf8>"] = _dictionary(
        pa.int8(), dict_words, _nullify([i % 4 for i in range(N)], 5, 0))
    cases["dictionary<uint16,utf8> ordered"] = _dictionary(
        pa.uint16(), dict_words, [(i * 3) % 4 for i in range(N)], ordered=True)
    cases["dictionary<int32,int64>"] = _dictionary(
        pa.int32(), pa.array([10**12, -7, 0]), _nullify([i % 3 for i in range(N)], 4, 1))
    cases["dictionary<int64,utf8> with null value"] = _dictionary(
        pa.int64(), pa.array(["x", None, "z"]), _nullify([i % 3 for i in range(N)], 7, 6))
    cases["dictionary<int8,list<utf8>>"] = _dictionary(
        pa.int8(), pa.array([["a", "b"], [], None, ["c"]], pa.list_(pa.utf8())),
        _nullify([i % 4 for i in range(N)], 6, 5))
    cases["sparse_union"] = _sparse_union()
    cases["dense_union"] = _dense_union()
    cases["run_end_encoded<int32,utf8>"] = _ree(
        pa.int32(), pa.array(["a", None, "long run value", "b", ""]), [10, 5, 20, 1, 1])
    cases["run_end_encoded<int16,float64>"] = _ree(
        pa.int16(), pa.array([1.5, None, -3.0]), [1, 35, 1])
    cases["run_end_encoded<int64,struct>"] = _ree(
        pa.int64(), pa.array([{"p": 1, "q": "x"}, None, {"p": None, "q": "y"}],
                             pa.struct([("p", pa.int8()), ("q", pa.utf8())])), [12, 12, 13])
    cases["extension<arrow.uuid>"] = pa.array(
        _nullify([bytes(range(i, i + 16)) for i in range(N)], 4, 2), pa.uuid())
    cases["extension<arrow.json>"] = pa.array(
        _nullify(_cycle(['{"a": 1}', "[]", "null"]), 3, 0), pa.json_())

    # Nested combinations: dictionaries, unions, views and REE below other types.
    cases["list<struct<list<int8>,dictionary>>"] = pa.array(
        _nullify([[{"l": [j, None] if j % 2 else [], "d": ["u", "v", None][j % 3]}
                   for j in range(i % 3)] for i in range(N)], 5, 1),
        pa.list_(pa.struct([("l", pa.list_(pa.int8())),
                            ("d", pa.dictionary(pa.int8(), pa.utf8()))])))
    cases["map<utf8,list<struct>>"] = pa.array(
        _nullify([[(f"k{j}", [{"a": i, "b": "v"}] * j) for j in range(i % 3)]
                  for i in range(N)], 4, 2),
        pa.map_(pa.utf8(), pa.list_(pa.struct([("a", pa.int64()), ("b", pa.utf8())]))))
    cases["struct<dictionary,dense_union,ree>"] = pa.StructArray.from_arrays(
        [cases["dictionary<int8,utf8>"], _dense_union(), cases["run_end_encoded<int32,utf8>"]],
        names=["d", "u", "r"], mask=pa.array([i % 9 == 8 for i in range(N)]))
    cases["list<dense_union>"] = pa.ListArray.from_arrays(
        pa.array([min(N, i * 3 // 2) for i in range(N + 1)], pa.int32()), _dense_union())
    cases["fixed_size_list<string_view,2>"] = pa.array(
        _nullify([[words[i % 8], None if i % 3 else words[(i + 4) % 8]] for i in range(N)], 6, 0),
        pa.list_(pa.string_view(), 2))
    cases["large_list<large_list_view<binary_view>>"] = pa.array(
        _nullify([[_cycle(blobs, j) for j in range(i % 3)] for i in range(N)], 4, 3),
        pa.large_list(pa.large_list_view(pa.binary_view())))
    cases["list<dictionary<int16,utf8>>"] = pa.array(
        _nullify([["x", None, "y"][: i % 4] for i in range(N)], 5, 4),
        pa.list_(pa.dictionary(pa.int16(), pa.utf8())))

    for name, arr in cases.items():
        assert len(arr) == N, name
        arr.validate(full=True)
    return cases


CASES = type_cases()

SCHEMA_METADATA = {b"origin": b"pyarrow test_ipc_interop", b"unicode": "ünï ✓".encode(),
                   b"empty": b""}


def _field_metadata(i):
    return {b"field.index": str(i).encode(), b"note": b"custom field metadata"}


def single_case_table(name):
    arr = CASES[name]
    field = pa.field("c", arr.type, nullable=True, metadata=_field_metadata(0))
    if name == "struct":
        # Metadata on a nested (child) field must survive as well.
        child = arr.type.field(0).with_metadata({b"child": b"meta"})
        typ = pa.struct([child] + [arr.type.field(i) for i in range(1, arr.type.num_fields)])
        arr = arr.cast(typ)
        field = pa.field("c", typ, metadata=_field_metadata(0))
    other = pa.array(range(N), pa.int64())
    schema = pa.schema([field, pa.field("row", pa.int64(), nullable=False)],
                       metadata=SCHEMA_METADATA)
    return pa.Table.from_arrays([arr, other], schema=schema)


def wide_table():
    """All cases side by side, each field with metadata."""
    names = list(CASES)
    fields = [pa.field(n, CASES[n].type, metadata=_field_metadata(i)) for i, n in enumerate(names)]
    return pa.Table.from_arrays([CASES[n] for n in names],
                                schema=pa.schema(fields, metadata=SCHEMA_METADATA))


def split_batches(table, layout):
    """Record batches of the given row counts: zero-copy slices (offset != 0) of one batch."""
    assert sum(layout) == table.num_rows
    (batch,) = table.combine_chunks().to_batches()
    batches, offset = [], 0
    for rows in layout:
        batches.append(batch.slice(offset, rows))
        offset += rows
    return batches


def write_ipc(path, table, fmt, compression, layout=None):
    options = ipc.IpcWriteOptions(compression=compression)
    opener = ipc.new_file if fmt == "file" else ipc.new_stream
    batches = split_batches(table, layout) if layout else table.to_batches()
    with opener(str(path), table.schema, options=options) as writer:
        for batch in batches:
            writer.write_batch(batch)
    return path


def read_ipc(path):
    """(table, batch row counts) as pyarrow reads a file or stream, sniffing the format."""
    data = Path(path).read_bytes()
    if data[:6] == b"ARROW1":
        reader = ipc.open_file(pa.py_buffer(data))
        batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
        return pa.Table.from_batches(batches, schema=reader.schema), [b.num_rows for b in batches]
    reader = ipc.open_stream(pa.py_buffer(data))
    batches = list(reader)
    return pa.Table.from_batches(batches, schema=reader.schema), [b.num_rows for b in batches]


# --------------------------------------------------------------------------------------------
# Comparison with a precise report
# --------------------------------------------------------------------------------------------


def _decode_dictionaries(column):
    if pa.types.is_dictionary(column.type):
        return column.cast(column.type.value_type)
    return column


def _first_difference(actual, expected):
    a, e = actual.combine_chunks(), expected.combine_chunks()
    if len(a) != len(e):
        return f"length {len(a)} != expected {len(e)}"
    for i in range(len(e)):
        if not a[i].equals(e[i]):
            return f"row {i}: got {a[i]!r}, expected {e[i]!r}"
    return "chunk-level difference only (dictionaries or buffers under nulls?)"


def assert_tables_equal(actual, expected, context, logical_dictionaries=False):
    """Asserts schema (with metadata) and values equal; on failure says which field and row."""
    problems = []
    # Absent and empty custom_metadata mean the same in the format (pyarrow: None vs {}).
    if (actual.schema.metadata or {}) != (expected.schema.metadata or {}):
        problems.append(f"schema metadata: got {actual.schema.metadata}, "
                        f"expected {expected.schema.metadata}")
    if actual.schema.names != expected.schema.names:
        problems.append(f"field names: got {actual.schema.names}, expected {expected.schema.names}")
    else:
        for i, (fa, fe) in enumerate(zip(actual.schema, expected.schema)):
            if not fa.equals(fe, check_metadata=True):
                problems.append(f"field {i} {fe.name!r}: got `{fa}` metadata={fa.metadata}, "
                                f"expected `{fe}` metadata={fe.metadata}")
                continue
            ca, ce = actual.column(i), expected.column(i)
            if logical_dictionaries:
                ca, ce = _decode_dictionaries(ca), _decode_dictionaries(ce)
            if not ca.equals(ce):
                problems.append(f"field {i} {fe.name!r} ({fe.type}): "
                                f"{_first_difference(ca, ce)}")
    if not problems:
        assert actual.schema.equals(expected.schema, check_metadata=True), context
        if not logical_dictionaries:
            assert actual.equals(expected, check_metadata=True), context
        return
    pytest.fail(f"{context}:\n  " + "\n  ".join(problems), pytrace=False)


# --------------------------------------------------------------------------------------------
# Running quiver convert
# --------------------------------------------------------------------------------------------


def out_path(tmp_path, out_format):
    return tmp_path / ("out.arrow" if out_format == "file" else "out.arrows")


def quiver_convert(run_quiver, src, dst, out_format, compression=None, batch_rows=None):
    args = ["convert", src, dst]
    if out_format == "stream":
        args += ["--to", "stream"]
    if compression is not None:
        args += ["--compression", compression]
    if batch_rows is not None:
        args += ["--batch-rows", batch_rows]
    run_quiver(*args)
    assert Path(dst).is_file(), f"quiver convert did not create {dst}"
    data = Path(dst).read_bytes()
    if out_format == "file":
        assert data[:6] == b"ARROW1" and data[-6:] == b"ARROW1", "output is not an IPC file"
    else:
        assert data[:6] != b"ARROW1", "--to stream wrote the file format"
    return data


def check_compressed(data, compression, table):
    """Quiver must really compress when asked (pyarrow would read uncompressed bodies too)."""
    if table.num_rows == 0 or compression in (None, "none"):
        return
    magic = {"zstd": ZSTD_MAGIC, "lz4": LZ4_FRAME_MAGIC}[compression]
    assert magic in data, f"--compression {compression}: no {compression} frame in the output"


# (input format, input compression, output format, output compression, --batch-rows)
VARIANTS = [
    ("file", None, "file", "none", None),
    ("stream", "lz4", "stream", "zstd", None),
    ("file", "zstd", "file", "lz4", None),
    ("stream", None, "file", None, 5),
]


def _variant_id(v):
    in_fmt, in_comp, out_fmt, out_comp, rows = v
    vid = f"{in_fmt}:{in_comp or 'none'}->{out_fmt}:{out_comp or 'default'}"
    return vid + (f":rows{rows}" if rows else "")


@pytest.mark.parametrize("variant", VARIANTS, ids=_variant_id)
@pytest.mark.parametrize("case", list(CASES))
def test_type_round_trip(run_quiver, tmp_path, case, variant):
    in_fmt, in_comp, out_fmt, out_comp, batch_rows = variant
    table = single_case_table(case)
    src = write_ipc(tmp_path / f"in.{in_fmt}", table, in_fmt, in_comp, BATCH_LAYOUT)
    dst = out_path(tmp_path, out_fmt)
    data = quiver_convert(run_quiver, src, dst, out_fmt, out_comp, batch_rows)
    check_compressed(data, out_comp, table)
    got, _ = read_ipc(dst)
    assert_tables_equal(got, table, f"{case} [{_variant_id(variant)}]")


@pytest.mark.parametrize("out_comp", ["none", "lz4", "zstd"])
@pytest.mark.parametrize("out_fmt", ["file", "stream"])
@pytest.mark.parametrize("in_comp", [None, "lz4", "zstd"])
@pytest.mark.parametrize("in_fmt", ["file", "stream"])
def test_wide_table_round_trip(run_quiver, tmp_path, in_fmt, in_comp, out_fmt, out_comp):
    table = wide_table()
    src = write_ipc(tmp_path / "in", table, in_fmt, in_comp, BATCH_LAYOUT)
    dst = out_path(tmp_path, out_fmt)
    data = quiver_convert(run_quiver, src, dst, out_fmt, out_comp)
    check_compressed(data, out_comp, table)
    got, _ = read_ipc(dst)
    assert_tables_equal(got, table, f"wide table {in_fmt}:{in_comp}->{out_fmt}:{out_comp}")


@pytest.mark.parametrize("batch_rows", [1, 4, 1000])
def test_sliced_input_and_rebatching(run_quiver, tmp_path, batch_rows):
    # A slice of the wide table: pyarrow writes arrays with non-zero offsets, and Quiver
    # cuts batches of `batch_rows`, writing slices of its own.
    table = wide_table().slice(5, N - 11)
    src = write_ipc(tmp_path / "in.arrow", table, "file", "zstd", [3, 0, N - 14])
    dst = tmp_path / "out.arrow"
    quiver_convert(run_quiver, src, dst, "file", "lz4", batch_rows)
    got, rows = read_ipc(dst)
    assert_tables_equal(got, table, f"sliced wide table, --batch-rows {batch_rows}")
    assert sum(rows) == table.num_rows
    assert all(r <= batch_rows for r in rows), f"batches {rows} exceed --batch-rows {batch_rows}"


@pytest.mark.parametrize("out_fmt", ["file", "stream"])
@pytest.mark.parametrize("in_fmt", ["file", "stream"])
def test_batch_boundaries_preserved(run_quiver, tmp_path, in_fmt, out_fmt):
    # Without --batch-rows, conversion keeps pyarrow's batches as they are, empty ones included.
    table = single_case_table("utf8")
    src = write_ipc(tmp_path / "in", table, in_fmt, None, BATCH_LAYOUT)
    dst = out_path(tmp_path, out_fmt)
    quiver_convert(run_quiver, src, dst, out_fmt)
    _, rows = read_ipc(dst)
    assert rows == BATCH_LAYOUT


@pytest.mark.parametrize("out_fmt", ["file", "stream"])
@pytest.mark.parametrize("in_fmt", ["file", "stream"])
def test_schema_only(run_quiver, tmp_path, in_fmt, out_fmt):
    # No batches at all: the schema (with metadata) alone must survive.
    table = wide_table().slice(0, 0)
    src = tmp_path / "in"
    opener = ipc.new_file if in_fmt == "file" else ipc.new_stream
    with opener(str(src), table.schema):
        pass
    dst = out_path(tmp_path, out_fmt)
    quiver_convert(run_quiver, src, dst, out_fmt)
    got, rows = read_ipc(dst)
    assert rows == []
    assert_tables_equal(got, table, f"schema-only {in_fmt}->{out_fmt}")


# --------------------------------------------------------------------------------------------
# (b) quiver cat
# --------------------------------------------------------------------------------------------


def _cat_table():
    return pa.table({
        "id": pa.array([1, 22, 333], pa.int64()),
        "name": pa.array(["alpha", "beta", None]),
        "score": pa.array([1.5, -2.25, 0.125]),
        "day": pa.array([datetime.date(2024, 1, 15), None, datetime.date(1999, 12, 31)]),
    })


def _row_lines(stdout, row_values):
    return [line for line in stdout.splitlines() if all(v in line for v in row_values)]


@pytest.mark.parametrize("fmt", ["file", "stream"])
def test_cat_shows_pyarrow_values(run_quiver, tmp_path, fmt):
    table = _cat_table()
    src = write_ipc(tmp_path / "t.arrow", table, fmt, "zstd", [2, 1])
    out = run_quiver("cat", src).stdout
    for name in table.column_names:
        assert name in out, f"column {name!r} missing from `quiver cat`:\n{out}"
    # Each row's values, rendered as pyarrow renders them, appear together on one line.
    for row in table.to_pylist():
        expected = [str(row["id"]), str(row["score"])]
        expected += [row["name"]] if row["name"] is not None else []
        expected += [row["day"].isoformat()] if row["day"] is not None else []
        assert _row_lines(out, expected), f"no line shows row {row}:\n{out}"


def test_cat_limit(run_quiver, tmp_path):
    src = write_ipc(tmp_path / "t.arrow", _cat_table(), "file", None, [2, 1])
    out = run_quiver("cat", src, "--limit", "2").stdout
    assert _row_lines(out, ["1", "alpha"]) and _row_lines(out, ["22", "beta"]), out
    assert "333" not in out and "1999-12-31" not in out, f"--limit 2 printed row 3:\n{out}"


def test_cat_schema(run_quiver, tmp_path):
    table = _cat_table()
    table = table.replace_schema_metadata({"origin": "pyarrow-cat-test"})
    table = table.cast(table.schema.set(0, table.schema.field(0).with_metadata({"unit": "km"})))
    src = write_ipc(tmp_path / "t.arrow", table, "file", None)
    out = run_quiver("cat", src, "--schema").stdout
    for field in table.schema:
        # Arrow's type names ("int64", "string", "double", "date32[day]").
        assert _row_lines(out, [field.name, str(field.type)]), f"no line for `{field}`:\n{out}"
    # Field and schema custom metadata are shown as key and value.
    assert _row_lines(out, ["unit", "km"]), f"field metadata missing:\n{out}"
    assert _row_lines(out, ["origin", "pyarrow-cat-test"]), f"schema metadata missing:\n{out}"
    assert "alpha" not in out, f"--schema printed values:\n{out}"


# --------------------------------------------------------------------------------------------
# (c) dictionary deltas and replacement
# --------------------------------------------------------------------------------------------


def _dictionary_batches(delta):
    schema = pa.schema([pa.field("d", pa.dictionary(pa.int32(), pa.utf8())),
                        pa.field("n", pa.int32())])
    dictionaries = [["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d", None]]
    if not delta:
        dictionaries[1] = ["z", "y", "x"]  # not a prefix extension: a replacement
    indices = [[0, 1, None, 1], [2, 0, 2], [4, 3, None, 0]]
    return schema, [
        pa.record_batch([_dictionary(pa.int32(), pa.array(d), i),
                         pa.array(range(len(i)), pa.int32())], schema=schema)
        for d, i in zip(dictionaries, indices)]


def _write_dictionary_stream(path, delta):
    schema, batches = _dictionary_batches(delta)
    options = ipc.IpcWriteOptions(emit_dictionary_deltas=delta)
    with ipc.new_stream(str(path), schema, options=options) as writer:
        for b in batches:
            writer.write_batch(b)
    reader = ipc.open_stream(str(path))
    expected = reader.read_all()
    stats = reader.stats
    if delta:
        assert stats.num_dictionary_deltas == 2, stats  # the input really has deltas
    else:
        assert stats.num_replaced_dictionaries == 2, stats
    return expected


@pytest.mark.parametrize("out_fmt", ["stream", "file"])
def test_dictionary_deltas(run_quiver, tmp_path, out_fmt):
    src = tmp_path / "deltas.arrows"
    expected = _write_dictionary_stream(src, delta=True)
    dst = out_path(tmp_path, out_fmt)
    quiver_convert(run_quiver, src, dst, out_fmt)
    got, rows = read_ipc(dst)
    assert rows == [4, 3, 4]
    # Quiver may write the dictionary whole or as deltas: compare decoded values.
    assert_tables_equal(got, expected, f"delta stream -> {out_fmt}", logical_dictionaries=True)
    out = run_quiver("cat", src).stdout
    assert _row_lines(out, ["c"]) and _row_lines(out, ["d"]), f"delta values not shown:\n{out}"


def test_dictionary_replacement_stream(run_quiver, tmp_path):
    src = tmp_path / "replaced.arrows"
    expected = _write_dictionary_stream(src, delta=False)
    dst = tmp_path / "out.arrows"
    quiver_convert(run_quiver, src, dst, "stream")
    got, _ = read_ipc(dst)
    assert_tables_equal(got, expected, "replacement stream -> stream", logical_dictionaries=True)


# --------------------------------------------------------------------------------------------
# (d) Arrow integration golden files
# --------------------------------------------------------------------------------------------

GOLDEN_ROOT = "arrow-testing/data/arrow-ipc-stream/integration"
# cpp-21.0.0: current Arrow C++; the others: older writers (0.14.1 predates the continuation
# marker), Arrow 2.0 body compression, shared dictionaries, big-endian data.
GOLDEN_DIRS = ["cpp-21.0.0", "0.14.1", "0.17.1", "1.0.0-littleendian", "1.0.0-bigendian",
               "2.0.0-compression", "4.0.0-shareddict"]

# Golden files Quiver rejects on purpose: fnmatch pattern of "dir/file" -> regex its error must
# match. A listed file that starts converting fails the test, so the list stays true.
EXPECTED_UNSUPPORTED = {
    # (empty: every golden file converts; big-endian files are byte-swapped on read)
}


def _golden_files():
    base = shared_testdata_dir() / GOLDEN_ROOT
    params = []
    for d in GOLDEN_DIRS:
        files = sorted(p for p in (base / d).glob("*") if p.suffix in (".arrow_file", ".stream"))
        params += [pytest.param(f"{d}/{p.name}", id=f"{d}/{p.name}") for p in files]
    return params or [pytest.param(None, id="golden-files-missing")]


def _expected_unsupported(rel):
    for pattern, message in EXPECTED_UNSUPPORTED.items():
        if fnmatch.fnmatch(rel, pattern):
            return message
    return None


@pytest.mark.parametrize("out_fmt", ["file", "stream"])
@pytest.mark.parametrize("rel", _golden_files())
def test_integration_golden(run_quiver, shared_testdata, tmp_path, rel, out_fmt):
    assert rel is not None, f"no golden files under {shared_testdata / GOLDEN_ROOT}"
    src = shared_testdata / GOLDEN_ROOT / rel
    dst = out_path(tmp_path, out_fmt)
    args = ["convert", src, dst] + (["--to", "stream"] if out_fmt == "stream" else [])
    proc = run_quiver(*args, check=False)
    unsupported = _expected_unsupported(rel)
    if unsupported:
        assert proc.returncode != 0, f"{rel} now converts: remove it from EXPECTED_UNSUPPORTED"
        assert re.search(unsupported, proc.stderr), proc.stderr
        assert not dst.exists()
        return
    assert proc.returncode == 0, f"quiver convert {rel} failed:\n{proc.stderr}"
    expected, expected_rows = read_ipc(src)
    got, rows = read_ipc(dst)
    assert_tables_equal(got, expected, f"golden {rel} -> {out_fmt}")
    assert sum(rows) == sum(expected_rows)


# --------------------------------------------------------------------------------------------
# (e) failures
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["file", "stream"])
def test_truncated_input_fails_cleanly(run_quiver, tmp_path, fmt):
    src = write_ipc(tmp_path / "in.bin", wide_table(), fmt, None, BATCH_LAYOUT)
    data = src.read_bytes()
    src.write_bytes(data[: len(data) * 2 // 3])
    dst = tmp_path / "out.arrow"
    proc = run_quiver("convert", src, dst, check=False)
    assert proc.returncode != 0, "truncated input converted without error"
    assert "in.bin" in proc.stderr, f"error does not name the input:\n{proc.stderr}"
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name != "in.bin")
    assert leftovers == [], f"failed conversion left files behind: {leftovers}"
