"""End-to-end tests of the `quiver` command-line tool against pyarrow.

The binary comes from $QUIVER_BIN (default ./build/release/quiver, resolved
against the current directory and then the repository root).
"""

import datetime
import os
import pathlib
import subprocess

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def _binary():
    path = pathlib.Path(os.environ.get("QUIVER_BIN", "./build/release/quiver"))
    if not path.is_absolute() and not path.exists():
        path = REPO / path
    return str(path)


QUIVER = _binary()


def quiver(*args, cwd=None):
    return subprocess.run([QUIVER, *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


@pytest.fixture(scope="module", autouse=True)
def _require_binary():
    if not os.path.exists(QUIVER):
        pytest.fail(f"quiver binary not found at {QUIVER} (set QUIVER_BIN)", pytrace=False)


def sample_table():
    return pa.table({
        "id": pa.array([1, 2, None], pa.int64()),
        "name": pa.array(["hello", "wörld, \"quoted\"", "x"], pa.string()),
        "score": pa.array([2.5, -0.125, 1e20], pa.float64()),
        "flag": pa.array([True, False, None], pa.bool_()),
    })


# --- help and version -----------------------------------------------------------------

def test_version():
    r = quiver("--version")
    assert r.returncode == 0
    assert r.stdout.strip() == "quiver 0.1.0"


def test_help_lists_commands():
    r = quiver("--help")
    assert r.returncode == 0
    for command in ("cat", "convert", "demo", "help"):
        assert command in r.stdout


@pytest.mark.parametrize("command,options", [
    ("cat", ["--limit", "--schema", "--format", "--delimiter", "--quote", "--no-header",
             "--null"]),
    ("convert", ["--compression", "--batch-rows", "--progress", "--no-progress", "--to",
                 "--delimiter", "--quote", "--no-header", "--null", "--schema"]),
    ("demo", ["--dir", "--rows"]),
])
def test_command_help(command, options):
    for argv in (["help", command], [command, "--help"]):
        r = quiver(*argv)
        assert r.returncode == 0, r.stderr
        for option in options:
            assert option in r.stdout, f"{option} missing from `quiver {' '.join(argv)}`"


def test_usage_errors_exit_2():
    r = quiver("cat", "--no-such-option", "x.arrow")
    assert r.returncode == 2
    assert r.stderr.startswith("quiver: error:")
    assert quiver().returncode == 2
    assert quiver("help", "nope").returncode == 2


# --- cat ---------------------------------------------------------------------------------

def test_cat_shows_pyarrow_values(tmp_path):
    ts = datetime.datetime(2024, 1, 2, 3, 4, 5, 250000, tzinfo=datetime.timezone.utc)
    table = sample_table().append_column(
        "ts", pa.array([ts, None, ts], pa.timestamp("us", tz="UTC")))
    table = table.append_column(
        "ts_ny", pa.array([ts, ts, None], pa.timestamp("ms", tz="America/New_York")))
    path = tmp_path / "data.arrow"
    with ipc.new_file(path, table.schema) as w:
        w.write_table(table)
    r = quiver("cat", path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for name in table.column_names:
        assert name in out
    assert "hello" in out and 'wörld, "quoted"' in out
    assert "NULL" in out
    assert "2.5" in out and "-0.125" in out and "1e+20" in out
    assert "true" in out and "false" in out
    # As PostgreSQL prints timestamptz: fraction without trailing zeros, +00.
    assert ts.isoformat(" ", "milliseconds").replace(".250+00:00", ".25+00") in out
    # Zoned timestamps are shown in their zone, with the offset.
    ny = table.column("ts_ny")[0].as_py()
    assert ny.isoformat(" ", "milliseconds").replace(".250-05:00", ".25-05") in out  # 2024-01-01 22:04:05.25-05
    assert "3 rows" in out


def test_cat_limit_schema_and_metadata(tmp_path):
    table = pa.table({"v": pa.array(range(100), pa.int32())})
    table = table.replace_schema_metadata({"origin": "pytest"})
    path = tmp_path / "many.arrow"
    with ipc.new_file(path, table.schema) as w:
        w.write_table(table, max_chunksize=30)
    r = quiver("cat", path, "--limit", "5")
    assert r.returncode == 0, r.stderr
    assert "100 rows (showing 5)" in r.stdout
    r = quiver("cat", path, "--schema")
    assert r.returncode == 0, r.stderr
    assert "v: int32" in r.stdout and "origin" in r.stdout and "pytest" in r.stdout
    assert "rows" not in r.stdout


def test_cat_detects_stream_and_csv(tmp_path):
    table = sample_table()
    stream = tmp_path / "data.bin"  # no telling extension: the marker decides
    with ipc.new_stream(stream, table.schema) as w:
        w.write_table(table)
    r = quiver("cat", stream)
    assert r.returncode == 0, r.stderr
    assert "hello" in r.stdout and "stream" in r.stdout
    tsv = tmp_path / "data.tsv"
    tsv.write_text("a\tb\n1\tx y\n2\tz\n")
    r = quiver("cat", tsv)
    assert r.returncode == 0, r.stderr
    assert "x y" in r.stdout and "2 rows" in r.stdout
    unknown = tmp_path / "data.dat"
    unknown.write_text("a,b\n1,2\n")
    r = quiver("cat", unknown)
    assert r.returncode == 1
    assert "cannot tell the format" in r.stderr and "data.dat" in r.stderr
    r = quiver("cat", unknown, "--format", "csv")
    assert r.returncode == 0, r.stderr


def test_stdin_and_stdout(tmp_path):
    table = sample_table()
    src = tmp_path / "in.arrow"
    with ipc.new_file(src, table.schema) as w:
        w.write_table(table)
    # convert to a stream on stdout, then cat it from stdin
    conv = subprocess.run([QUIVER, "convert", str(src), "-", "--to", "stream"],
                          capture_output=True, timeout=60)
    assert conv.returncode == 0, conv.stderr
    assert ipc.open_stream(conv.stdout).read_all().equals(table)
    cat = subprocess.run([QUIVER, "cat", "-"], input=conv.stdout, capture_output=True,
                         timeout=60)
    assert cat.returncode == 0, cat.stderr
    assert "hello" in cat.stdout.decode() and "3 rows" in cat.stdout.decode()
    csv = subprocess.run([QUIVER, "cat", "-"], input=b"a,b\n1,x\n", capture_output=True,
                         timeout=60)
    assert csv.returncode == 0, csv.stderr
    assert "1 row" in csv.stdout.decode()
    r = quiver("convert", src, "-")
    assert r.returncode == 1 and "--to" in r.stderr


def test_cat_missing_file():
    r = quiver("cat", "/nonexistent/file.arrow")
    assert r.returncode == 1
    assert r.stderr.startswith("quiver: error:") and "/nonexistent/file.arrow" in r.stderr


# --- convert ------------------------------------------------------------------------------

def test_convert_round_trip(tmp_path):
    original = tmp_path / "a.csv"
    pacsv.write_csv(sample_table(), original)
    expected = pacsv.read_csv(original)

    steps = [("a.csv", "b.arrow"), ("b.arrow", "c.csv"), ("c.csv", "d.arrow")]
    for src, dst in steps:
        r = quiver("convert", tmp_path / src, tmp_path / dst, "--no-progress")
        assert r.returncode == 0, r.stderr
        assert f"wrote 3 rows in 1 batch to {tmp_path / dst}" in r.stderr
    for name in ("b.arrow", "d.arrow"):
        got = ipc.open_file(tmp_path / name).read_all()
        assert got.equals(expected), f"{name}:\n{got}\nexpected:\n{expected}"
    assert pacsv.read_csv(tmp_path / "c.csv").equals(expected)


def test_convert_csv_dialects(tmp_path):
    src = tmp_path / "in.psv"
    src.write_text("a|b\n1|\n|x y\n")
    out = tmp_path / "out.tsv"
    # CSV -> CSV: the CSV options describe the input, --out-* the output.
    r = quiver("convert", src, out, "--format", "csv", "--delimiter", "|", "--out-null", "NA")
    assert r.returncode != 0  # convert has --from, not --format
    r = quiver("convert", src, out, "--from", "csv", "--delimiter", "|", "--out-null", "NA")
    assert r.returncode == 0, r.stderr
    # (an empty field is an empty string in a string column, as in pyarrow)
    assert out.read_text() == "a\tb\n1\t\nNA\tx y\n"
    # Arrow -> CSV: the CSV options describe the output.
    table = pa.table({"a": pa.array([1, None]), "b": pa.array(["p;q", None])})
    arrow = tmp_path / "t.arrow"
    with ipc.new_file(arrow, table.schema) as w:
        w.write_table(table)
    r = quiver("convert", arrow, tmp_path / "t.csv", "--delimiter", ";", "--null", "NULL")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t.csv").read_text() == 'a;b\n1;"p;q"\nNULL;NULL\n'
    back = pacsv.read_csv(tmp_path / "t.csv", parse_options=pacsv.ParseOptions(delimiter=";"),
                          convert_options=pacsv.ConvertOptions(null_values=["NULL"],
                                                               strings_can_be_null=True))
    assert back.equals(table)


def test_convert_ipc_options(tmp_path):
    table = pa.table({"x": pa.array(range(1000), pa.int64()),
                      "s": pa.array([f"row{i}" for i in range(1000)])})
    src = tmp_path / "in.arrow"
    with ipc.new_file(src, table.schema) as w:
        w.write_table(table)
    out = tmp_path / "out.arrow"
    r = quiver("convert", src, out, "--compression", "zstd", "--batch-rows", "300")
    assert r.returncode == 0, r.stderr
    assert "wrote 1000 rows in 4 batches" in r.stderr
    reader = ipc.open_file(out)
    assert reader.num_record_batches == 4
    assert reader.read_all().equals(table)
    stream = tmp_path / "out.arrows"
    r = quiver("convert", out, stream, "--compression", "lz4")
    assert r.returncode == 0, r.stderr
    assert ipc.open_stream(stream).read_all().equals(table)
    r = quiver("convert", stream, tmp_path / "out.data", "--to", "arrow")
    assert r.returncode == 0, r.stderr
    assert ipc.open_file(tmp_path / "out.data").read_all().equals(table)


def test_convert_error_leaves_no_output(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,x\n2,y\noops,z\n")
    out = tmp_path / "out.arrow"
    r = quiver("convert", bad, out, "--schema", "a:int64,b:utf8")
    assert r.returncode == 1
    assert r.stderr.startswith("quiver: error:")
    assert "bad.csv" in r.stderr and "line 4" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["bad.csv"]  # no output, no temporary file


def test_convert_unknown_output_format(tmp_path):
    src = tmp_path / "a.csv"
    src.write_text("a\n1\n")
    r = quiver("convert", src, tmp_path / "out.xyz")
    assert r.returncode == 1
    assert "--to" in r.stderr


# --- demo ---------------------------------------------------------------------------------

def test_demo(tmp_path):
    r = quiver("demo", "--dir", tmp_path / "demo", "--rows", "5000")
    assert r.returncode == 0, r.stderr
    assert "sensor_id" in r.stdout and "5000 rows (showing 10)" in r.stdout
    plain = ipc.open_file(tmp_path / "demo" / "readings.arrow").read_all()
    assert plain.num_rows == 5000
    assert plain.column_names == ["sensor_id", "ts", "temperature", "humidity", "status", "ok"]
    assert plain.schema.field("ts").type == pa.timestamp("us", tz="UTC")
    assert pa.types.is_dictionary(plain.schema.field("status").type)
    assert plain.column("humidity").null_count > 0
    zstd = ipc.open_file(tmp_path / "demo" / "readings.zstd.arrow").read_all()
    assert zstd.equals(plain)
    csv = pacsv.read_csv(tmp_path / "demo" / "readings.csv")
    assert csv.num_rows == 5000
    assert csv.column("temperature").equals(plain.column("temperature"))
    # Deterministic: a second run writes the same bytes.
    r = quiver("demo", "--dir", tmp_path / "again", "--rows", "5000")
    assert r.returncode == 0, r.stderr
    for name in ("readings.arrow", "readings.zstd.arrow", "readings.csv"):
        assert (tmp_path / "demo" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
