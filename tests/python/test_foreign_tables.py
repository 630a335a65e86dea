"""Foreign tables over files with PG-Strom arrow_fdw's SQL (issue 13).

* CREATE FOREIGN TABLE ... SERVER arrow_fdw OPTIONS (file | files | dir |
  suffix | pattern), column options field and virtual; CREATE EXTENSION /
  SERVER accepted as no-ops; DROP FOREIGN TABLE; unknown options refused.
* Arrow IPC, Parquet and CSV files mixed in one table; a declared type that
  does not match a file's field fails naming the file, field and both types.
* Virtual columns from the pattern's @{key} / ${key} captures hold the values
  of the file names; predicates on them skip whole files (EXPLAIN ANALYZE's
  "files: N read, M skipped") and the answers equal those computed here from
  the files' own contents.
* IMPORT FOREIGN SCHEMA types every Arrow type pyarrow writes as arrow_fdw
  does (information_schema.columns shows them); Hive directories written by
  pq.write_to_dataset answer as DuckDB's read_parquet(hive_partitioning).
* PG-Strom min/max statistics in Arrow files, in both encodings, prune
  record batches with unchanged answers; malformed statistics never do.
  COPY ... (FORMAT arrow, STATS 'a,b') writes them (checked with pyarrow).
* missing_columns 'null' and widened integer / float types across files.
"""

import csv
import datetime
import decimal
import re
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.compute
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from result_compare import assert_same_result
from test_sql import quiver_query

FILES = re.compile(r"files: (\d+) read, (\d+) skipped by virtual columns")
HINT = re.compile(r"Stats-Hint: .* \[loaded: (\d+), skipped: (\d+)\]")


def run_sql(quiver_bin, sql, check=True):
    proc = subprocess.run([str(quiver_bin), "sql", sql], capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def explain(quiver_bin, prelude, sql):
    out = run_sql(quiver_bin, prelude + "EXPLAIN ANALYZE " + sql).stdout
    files, hint = FILES.search(out), HINT.search(out)
    assert files, out
    return {"files_read": int(files.group(1)), "files_skipped": int(files.group(2)),
            "loaded": int(hint.group(1)) if hint else None, "skipped": int(hint.group(2)) if hint else None,
            "text": out}


def write_arrow(path, table, batch_rows=None):
    with ipc.new_file(path, table.schema) as w:
        w.write_table(table, max_chunksize=batch_rows)


# --- CREATE FOREIGN TABLE -------------------------------------------------------------------

@pytest.fixture()
def mytest(tmp_path):
    t = pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int32()),
        "ts": pa.array([datetime.datetime(2024, 1, 1, 10), None, datetime.datetime(2024, 3, 1, 0, 0, 1),
                        datetime.datetime(1999, 12, 31, 23, 59, 59)], pa.timestamp("us")),
        "x": pa.array([1.5, 2.5, None, -0.25], pa.float64()),
        "y": pa.array(["a", "b", None, "dé"]),
        "z": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("3.50"), decimal.Decimal("-7.00")],
                      pa.decimal128(10, 2)),
    })
    path = tmp_path / "mytest.arrow"
    write_arrow(path, t)
    return path, t


def test_issue_example_runs_as_written(quiver_bin, mytest):
    path, t = mytest
    # The issue's statement, with the file where this test wrote it.
    create = ("CREATE FOREIGN TABLE f (id int, ts timestamp, x float8, y text, z numeric) "
              f"SERVER arrow_fdw OPTIONS (file '{path}');")
    sql = "SELECT * FROM f ORDER BY id"
    ours = quiver_query(quiver_bin, create, sql)
    theirs = duckdb.sql("SELECT * FROM t ORDER BY id").to_arrow_table()
    assert_same_result(ours, theirs, sql, "mytest")
    assert ours.schema.field("z").type == pa.decimal128(10, 2)  # bare numeric takes the file's


def test_extension_and_server_statements_are_no_ops(quiver_bin, mytest):
    path, _ = mytest
    out = run_sql(quiver_bin, "CREATE EXTENSION pg_strom; CREATE EXTENSION IF NOT EXISTS arrow_fdw; "
                              "CREATE SERVER arrow_fdw FOREIGN DATA WRAPPER arrow_fdw; "
                              "CREATE USER MAPPING FOR PUBLIC SERVER arrow_fdw; "
                              f"CREATE FOREIGN TABLE f (id int) SERVER arrow_fdw OPTIONS (file '{path}'); "
                              "SELECT count(*) FROM f").stdout
    for tag in ["CREATE EXTENSION", "CREATE SERVER", "CREATE USER MAPPING", "CREATE FOREIGN TABLE"]:
        assert tag in out
    assert "│     4 │" in out
    for sql, msg in [
        ("CREATE SERVER pg FOREIGN DATA WRAPPER postgres_fdw", 'foreign data wrapper "postgres_fdw"'),
        ("CREATE EXTENSION postgis", 'extension "postgis"'),
        (f"CREATE FOREIGN TABLE g (id int) SERVER other OPTIONS (file '{path}')", 'server "other" does not exist'),
    ]:
        proc = run_sql(quiver_bin, sql, check=False)
        assert proc.returncode != 0 and msg in proc.stderr, (sql, proc.stderr)


def test_options_are_checked(quiver_bin, mytest):
    path, _ = mytest
    for sql, msg in [
        (f"CREATE FOREIGN TABLE f (id int) SERVER arrow_fdw OPTIONS (file '{path}', compression 'zstd')",
         'invalid option "compression"'),
        (f"CREATE FOREIGN TABLE f (id int OPTIONS (fieldname 'id')) SERVER arrow_fdw OPTIONS (file '{path}')",
         'invalid option "fieldname"'),
        (f"CREATE FOREIGN TABLE f (id int OPTIONS (virtual_metadata_spilt 'k')) SERVER arrow_fdw "
         f"OPTIONS (file '{path}')", 'invalid option "virtual_metadata_spilt"'),
        ("CREATE FOREIGN TABLE f (id int) SERVER arrow_fdw OPTIONS (pattern 'x_*.arrow')",
         "needs the option file, files or dir"),
        (f"CREATE FOREIGN TABLE f (id int) SERVER arrow_fdw OPTIONS (file '{path}', pattern '*.arrow')",
         "need the option dir"),
        ("CREATE FOREIGN TABLE f (id int) SERVER arrow_fdw OPTIONS (file '/nonexistent/x.arrow')",
         "No such file"),
    ]:
        proc = run_sql(quiver_bin, sql, check=False)
        assert proc.returncode != 0 and msg in proc.stderr, (sql, proc.stderr)


def test_declared_type_must_match_each_file(quiver_bin, tmp_path):
    a, b = tmp_path / "a.arrow", tmp_path / "b.parquet"
    write_arrow(a, pa.table({"id": pa.array([1], pa.int32())}))
    pq.write_table(pa.table({"id": pa.array([2], pa.int64())}), b)
    proc = run_sql(quiver_bin, f"CREATE FOREIGN TABLE f (id int) SERVER arrow_fdw OPTIONS (files '{a},{b}')",
                   check=False)
    assert proc.returncode != 0
    err = proc.stderr
    assert str(b) in err and '"id"' in err and "bigint" in err and "integer" in err, err
    proc = run_sql(quiver_bin, f"CREATE FOREIGN TABLE f (ident int) SERVER arrow_fdw OPTIONS (file '{a}')",
                   check=False)
    assert proc.returncode != 0 and f"file '{a}' has no field \"ident\"" in proc.stderr, proc.stderr


def test_field_option_maps_a_column_to_another_field(quiver_bin, mytest):
    path, _ = mytest
    t = quiver_query(quiver_bin, f"CREATE FOREIGN TABLE f (ident int OPTIONS (field 'id'), label text OPTIONS "
                                 f"(field 'y')) SERVER arrow_fdw OPTIONS (file '{path}');",
                     "SELECT ident, label FROM f ORDER BY ident")
    assert t.column_names == ["ident", "label"]
    assert t.column("ident").to_pylist() == [1, 2, 3, 4]
    assert t.column("label").to_pylist() == ["a", "b", None, "dé"]


def test_arrow_parquet_and_csv_mixed_in_one_table(quiver_bin, tmp_path):
    parts = [pa.table({"k": pa.array(range(i * 100, i * 100 + 50 + i), pa.int64()),
                       "s": pa.array([f"s{j % 7}" for j in range(50 + i)])}) for i in range(3)]
    write_arrow(tmp_path / "p0.arrow", parts[0], batch_rows=16)
    pq.write_table(parts[1], tmp_path / "p1.parquet", row_group_size=20)
    with open(tmp_path / "p2.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["k", "s"])
        for k, s in zip(parts[2].column("k").to_pylist(), parts[2].column("s").to_pylist()):
            w.writerow([k, s])
    files = ",".join(str(tmp_path / n) for n in ["p0.arrow", "p1.parquet", "p2.csv"])
    create = f"CREATE FOREIGN TABLE m (k bigint, s text) SERVER arrow_fdw OPTIONS (files '{files}');"
    sql = "SELECT s, count(*) AS n, sum(k) AS total, min(k) AS lo, max(k) AS hi FROM m GROUP BY s ORDER BY s"
    whole = pa.concat_tables(parts)
    theirs = duckdb.sql(sql.replace("FROM m", "FROM whole")).to_arrow_table()
    assert_same_result(quiver_query(quiver_bin, create, sql), theirs, sql, "mixed")
    # dir + suffix picks one format out of the directory.
    create = f"CREATE FOREIGN TABLE m (k bigint, s text) SERVER arrow_fdw OPTIONS (dir '{tmp_path}', suffix '.parquet');"
    t = quiver_query(quiver_bin, create, "SELECT count(*) AS n FROM m")
    assert t.column("n").to_pylist() == [parts[1].num_rows]


# --- virtual columns ------------------------------------------------------------------------

MONTHS = [202401, 202402, 202403, 202404]
MODES = ["AIR", "RAIL", "SHIP"]


@pytest.fixture()
def lineorder_dir(tmp_path):
    """f_lineorder_<yyyymm>_<mode>.arrow / .parquet: 12 files, each of its own size."""
    contents = {}
    for i, ym in enumerate(MONTHS):
        for j, mode in enumerate(MODES):
            n = 10 + 3 * i + j
            t = pa.table({"lo_quantity": pa.array([(ym % 100) * 10 + k for k in range(n)], pa.int64()),
                          "lo_mode": pa.array([mode] * n)})
            name = f"f_lineorder_{ym}_{mode}." + ("arrow" if (i + j) % 2 == 0 else "parquet")
            if name.endswith("arrow"):
                write_arrow(tmp_path / name, t)
            else:
                pq.write_table(t, tmp_path / name)
            contents[(ym, mode)] = t.column("lo_quantity").to_pylist()
    return tmp_path, contents


PREDICATES = [
    ("year_month = 202402", lambda ym, m: ym == 202402),
    ("year_month < 202402", lambda ym, m: ym < 202402),
    ("year_month <= 202402", lambda ym, m: ym <= 202402),
    ("year_month > 202402", lambda ym, m: ym > 202402),
    ("year_month >= 202403", lambda ym, m: ym >= 202403),
    ("year_month BETWEEN 202402 AND 202403", lambda ym, m: 202402 <= ym <= 202403),
    ("year_month IN (202401, 202404)", lambda ym, m: ym in (202401, 202404)),
    ("year_month <> 202401", lambda ym, m: ym != 202401),
    ("NOT (year_month < 202404)", lambda ym, m: ym >= 202404),
    ("year_month = 202401 AND shipmode = 'AIR'", lambda ym, m: ym == 202401 and m == "AIR"),
    ("year_month = 202401 OR shipmode = 'SHIP'", lambda ym, m: ym == 202401 or m == "SHIP"),
    ("(year_month = 202401 AND shipmode = 'AIR') OR (year_month = 202404 AND shipmode <> 'AIR')",
     lambda ym, m: (ym == 202401 and m == "AIR") or (ym == 202404 and m != "AIR")),
    ("shipmode = 'RAIL'", lambda ym, m: m == "RAIL"),
    ("shipmode IN ('AIR', 'SHIP')", lambda ym, m: m in ("AIR", "SHIP")),
    ("shipmode <> 'AIR'", lambda ym, m: m != "AIR"),
    ("shipmode LIKE 'RA%'", lambda ym, m: m.startswith("RA")),
    ("shipmode > 'RAIL'", lambda ym, m: m > "RAIL"),
]

LINEORDER = ("CREATE FOREIGN TABLE lineorder (lo_quantity bigint, lo_mode text, "
             "year_month bigint OPTIONS (virtual 'year_month'), shipmode text OPTIONS (virtual 'shipmode')) "
             "SERVER arrow_fdw OPTIONS (dir '{dir}', pattern 'f_lineorder_@{{year_month}}_${{shipmode}}.*');")


def test_virtual_columns_hold_the_file_names_values(quiver_bin, lineorder_dir):
    d, contents = lineorder_dir
    sql = ("SELECT year_month, shipmode, count(*) AS n, sum(lo_quantity) AS s, min(lo_mode) AS m "
           "FROM lineorder GROUP BY 1, 2 ORDER BY 1, 2")
    t = quiver_query(quiver_bin, LINEORDER.format(dir=d), sql)
    assert t.schema.field("year_month").type == pa.int64() and t.schema.field("shipmode").type == pa.string()
    expected = [(ym, m, len(v), sum(v), m) for (ym, m), v in sorted(contents.items())]
    got = list(zip(*[t.column(c).to_pylist() for c in ["year_month", "shipmode", "n", "s", "m"]]))
    assert [tuple(map(lambda x: int(x) if isinstance(x, decimal.Decimal) else x, r)) for r in got] == expected


@pytest.mark.parametrize("predicate,keep", PREDICATES, ids=[p for p, _ in PREDICATES])
def test_virtual_column_predicates_skip_files(quiver_bin, lineorder_dir, predicate, keep):
    d, contents = lineorder_dir
    prelude = LINEORDER.format(dir=d)
    sql = f"SELECT count(*) AS n, sum(lo_quantity) AS s FROM lineorder WHERE {predicate}"
    kept = [v for (ym, m), v in contents.items() if keep(ym, m)]
    t = quiver_query(quiver_bin, prelude, sql)
    assert t.column("n").to_pylist() == [sum(len(v) for v in kept)]
    assert [None if x is None else int(x) for x in t.column("s").to_pylist()] == \
        [sum(sum(v) for v in kept) if kept else None]
    e = explain(quiver_bin, prelude, sql)
    assert e["files_read"] == len(kept) and e["files_skipped"] == len(contents) - len(kept), e["text"]


def test_pattern_wildcards_and_digits_only(quiver_bin, lineorder_dir):
    d, contents = lineorder_dir
    # ? and * match; @{k} takes digits only, so 'f_lineorder_AIR...' never matches.
    prelude = ("CREATE FOREIGN TABLE lo (lo_quantity bigint, y bigint OPTIONS (virtual 'y')) SERVER arrow_fdw "
               f"OPTIONS (dir '{d}', pattern 'f_lineorder_@{{y}}??_RAIL.*');")
    t = quiver_query(quiver_bin, prelude, "SELECT y, count(*) AS n FROM lo GROUP BY y ORDER BY y")
    assert t.column("y").to_pylist() == [2024]
    assert t.column("n").to_pylist() == [sum(len(v) for (ym, m), v in contents.items() if m == "RAIL")]


def test_drop_foreign_table(quiver_bin, mytest):
    path, _ = mytest
    create = f"CREATE FOREIGN TABLE f (id int) SERVER arrow_fdw OPTIONS (file '{path}');"
    out = run_sql(quiver_bin, create + "DROP FOREIGN TABLE f; DROP FOREIGN TABLE IF EXISTS f;").stdout
    assert out.count("DROP FOREIGN TABLE") == 2
    proc = run_sql(quiver_bin, create + "DROP FOREIGN TABLE f; SELECT * FROM f", check=False)
    assert proc.returncode != 0 and 'relation "f" does not exist' in proc.stderr
    proc = run_sql(quiver_bin, create + "DROP TABLE f", check=False)
    assert proc.returncode != 0 and '"f" is not a table' in proc.stderr and "DROP FOREIGN TABLE" in proc.stderr
    proc = run_sql(quiver_bin, "CREATE TABLE t (a int); DROP FOREIGN TABLE t", check=False)
    assert proc.returncode != 0 and '"t" is not a foreign table' in proc.stderr


# --- IMPORT FOREIGN SCHEMA ------------------------------------------------------------------

# Each Arrow type pyarrow writes, and the PostgreSQL type arrow_fdw gives it
# (Quiver has no int1 / float2: int8 and float16 widen to smallint / real).
IMPORT_TYPES = [
    ("c_int8", pa.int8(), [1, -2], "smallint"),
    ("c_int16", pa.int16(), [1, -2], "smallint"),
    ("c_int32", pa.int32(), [1, -2], "integer"),
    ("c_int64", pa.int64(), [1, -2], "bigint"),
    ("c_uint8", pa.uint8(), [1, 2], "smallint"),
    ("c_uint16", pa.uint16(), [1, 2], "integer"),
    ("c_uint32", pa.uint32(), [1, 2], "bigint"),
    ("c_uint64", pa.uint64(), [1, 2], "numeric(20,0)"),
    ("c_float16", pa.float16(), None, "real"),
    ("c_float32", pa.float32(), [1.5, 2.5], "real"),
    ("c_float64", pa.float64(), [1.5, 2.5], "double precision"),
    ("c_bool", pa.bool_(), [True, False], "boolean"),
    ("c_utf8", pa.string(), ["a", "b"], "text"),
    ("c_large_utf8", pa.large_string(), ["a", "b"], "text"),
    ("c_binary", pa.binary(), [b"a", b"b"], "bytea"),
    ("c_large_binary", pa.large_binary(), [b"a", b"b"], "bytea"),
    ("c_decimal", pa.decimal128(12, 3), [decimal.Decimal("1.500"), decimal.Decimal("-2.250")], "numeric(12,3)"),
    ("c_date32", pa.date32(), [datetime.date(2024, 1, 1), datetime.date(1970, 1, 2)], "date"),
    ("c_date64", pa.date64(), [datetime.date(2024, 1, 1), datetime.date(1970, 1, 2)], "date"),
    ("c_time32", pa.time32("ms"), [datetime.time(1, 2, 3), datetime.time(23, 0)], "time without time zone"),
    ("c_time64", pa.time64("us"), [datetime.time(1, 2, 3), datetime.time(23, 0)], "time without time zone"),
    ("c_ts_s", pa.timestamp("s"), [datetime.datetime(2024, 1, 1), datetime.datetime(2000, 2, 29)],
     "timestamp without time zone"),
    ("c_ts_ns", pa.timestamp("ns"), [datetime.datetime(2024, 1, 1), datetime.datetime(2000, 2, 29)],
     "timestamp without time zone"),
    ("c_tstz", pa.timestamp("us", tz="UTC"),
     [datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc), None], "timestamp with time zone"),
    ("c_interval", pa.month_day_nano_interval(), [pa.MonthDayNano([1, 2, 3000]), None], "interval"),
]


def import_types_table():
    cols = {}
    for name, typ, values, _ in IMPORT_TYPES:
        if typ == pa.float16():
            import numpy as np
            cols[name] = pa.array(np.array([1.5, 2.5], dtype=np.float16))
        else:
            cols[name] = pa.array(values, typ)
    return pa.table(cols)


@pytest.mark.parametrize("fmt", ["arrow", "parquet"])
def test_import_foreign_schema_types(quiver_bin, tmp_path, fmt):
    t = import_types_table()
    if fmt == "parquet":
        # Parquet stores no date64, time32[ms] keeps its unit, uint32 stays.
        t = t.drop(["c_date64", "c_interval"])
        pq.write_table(t, tmp_path / "types.parquet")
    else:
        write_arrow(tmp_path / "types.arrow", t)
    prelude = (f"IMPORT FOREIGN SCHEMA types FROM SERVER arrow_fdw INTO public OPTIONS "
               f"(file '{tmp_path / ('types.' + fmt)}');")
    cols = quiver_query(quiver_bin, prelude, "SELECT column_name, data_type, numeric_precision AS p, "
                                             "numeric_scale AS s FROM information_schema.columns "
                                             "WHERE table_name = 'types' ORDER BY ordinal_position")
    got = {r["column_name"]: r["data_type"] + (f"({r['p']},{r['s']})" if r["p"] is not None else "")
           for r in cols.to_pylist()}
    want = {name: pg for name, _, _, pg in IMPORT_TYPES if name in t.column_names}
    assert got == want
    # The rows read back as pyarrow wrote them (values of a few of the columns).
    back = quiver_query(quiver_bin, prelude, "SELECT c_int32, c_utf8, c_decimal, c_date32 FROM types ORDER BY c_int32")
    assert back.column("c_utf8").to_pylist() == ["b", "a"]
    assert back.column("c_decimal").to_pylist() == [decimal.Decimal("-2.250"), decimal.Decimal("1.500")]


def test_import_refuses_types_without_sql_type_and_disagreeing_files(quiver_bin, tmp_path):
    # Lists are arrays and structs composite values now; a union still has no SQL type here.
    union = pa.UnionArray.from_sparse(pa.array([0, 1], pa.int8()), [pa.array([1, 2]), pa.array(["a", "b"])])
    write_arrow(tmp_path / "l.arrow", pa.table({"a": union}))
    proc = run_sql(quiver_bin, f"IMPORT FOREIGN SCHEMA l FROM SERVER arrow_fdw INTO public OPTIONS "
                               f"(file '{tmp_path / 'l.arrow'}')", check=False)
    assert proc.returncode != 0 and 'field "a"' in proc.stderr and "union" in proc.stderr, proc.stderr
    # A struct imports, and its fields read back.
    write_arrow(tmp_path / "s.arrow", pa.table({"a": pa.array([{"x": 1}, None], pa.struct([("x", pa.int32())]))}))
    proc = run_sql(quiver_bin, f"IMPORT FOREIGN SCHEMA s FROM SERVER arrow_fdw INTO public OPTIONS "
                               f"(file '{tmp_path / 's.arrow'}'); SELECT (a).x, a::text FROM s", check=False)
    assert proc.returncode == 0 and "(1)" in proc.stdout, proc.stderr
    d = tmp_path / "d"
    d.mkdir()
    write_arrow(d / "x1.arrow", pa.table({"a": pa.array([1], pa.int32())}))
    write_arrow(d / "x2.arrow", pa.table({"a": pa.array([1.5], pa.float64())}))
    proc = run_sql(quiver_bin, f"IMPORT FOREIGN SCHEMA x FROM SERVER arrow_fdw INTO public OPTIONS (dir '{d}')",
                   check=False)
    assert proc.returncode != 0 and str(d / "x2.arrow") in proc.stderr and "double" in proc.stderr, proc.stderr


def test_import_adds_the_patterns_virtual_columns(quiver_bin, lineorder_dir):
    d, contents = lineorder_dir
    prelude = ("IMPORT FOREIGN SCHEMA lo FROM SERVER arrow_fdw INTO public OPTIONS "
               f"(dir '{d}', pattern 'f_lineorder_@{{ym}}_${{mode}}.*');")
    cols = quiver_query(quiver_bin, prelude, "SELECT column_name, data_type FROM information_schema.columns "
                                             "WHERE table_name = 'lo' ORDER BY ordinal_position")
    assert list(zip(cols.column("column_name").to_pylist(), cols.column("data_type").to_pylist())) == [
        ("lo_quantity", "bigint"), ("lo_mode", "text"), ("ym", "bigint"), ("mode", "text")]
    t = quiver_query(quiver_bin, prelude, "SELECT count(*) AS n FROM lo WHERE ym = 202403 AND mode = 'SHIP'")
    assert t.column("n").to_pylist() == [len(contents[(202403, "SHIP")])]
    tables = quiver_query(quiver_bin, prelude, "SELECT table_name, table_type FROM information_schema.tables")
    assert tables.to_pylist() == [{"table_name": "lo", "table_type": "FOREIGN"}]
    opts = quiver_query(quiver_bin, prelude, "SELECT option_name, option_value FROM "
                                             "information_schema.foreign_table_options ORDER BY option_name")
    assert opts.to_pylist() == [{"option_name": "dir", "option_value": str(d)},
                                {"option_name": "pattern", "option_value": "f_lineorder_@{ym}_${mode}.*"}]


# --- Hive directories -----------------------------------------------------------------------

def test_hive_directory_matches_duckdb(quiver_bin, tmp_path):
    n = 3000
    t = pa.table({"year": pa.array([2022 + i % 3 for i in range(n)], pa.int64()),
                  "cat": pa.array([["x", "y", "z w"][i % 3 if i % 7 else 0] for i in range(n)]),
                  "v": pa.array([i * 0.5 for i in range(n)], pa.float64()),
                  "k": pa.array(range(n), pa.int64())})
    root = tmp_path / "hive"
    pq.write_to_dataset(t, root, partition_cols=["year", "cat"])
    prelude = ("IMPORT FOREIGN SCHEMA h FROM SERVER arrow_fdw INTO public OPTIONS "
               f"(dir '{root}', hive_partitioning 'true');")
    duck = f"read_parquet('{root}/**/*.parquet', hive_partitioning = true)"
    for sql in ["SELECT year, cat, count(*) AS n, sum(v) AS s, min(k) AS lo FROM h GROUP BY year, cat ORDER BY 1, 2",
                "SELECT cat, count(*) AS n FROM h WHERE year = 2023 GROUP BY cat ORDER BY cat",
                "SELECT count(*) AS n, sum(k) AS s FROM h WHERE year IN (2022, 2024) AND cat <> 'x'",
                "SELECT year, max(v) AS m FROM h WHERE cat LIKE 'z%' GROUP BY year ORDER BY year"]:
        theirs = duckdb.sql(sql.replace("FROM h", "FROM " + duck)).to_arrow_table()
        assert_same_result(quiver_query(quiver_bin, prelude, sql), theirs, sql, "hive")
    e = explain(quiver_bin, prelude, "SELECT count(*) FROM h WHERE year = 2023")
    files = list(root.rglob("*.parquet"))
    in_2023 = [f for f in files if "year=2023" in str(f)]
    assert len(files) > len(in_2023) > 0
    assert e["files_read"] == len(in_2023) and e["files_skipped"] == len(files) - len(in_2023), e["text"]


# --- Arrow min/max statistics ---------------------------------------------------------------

def sorted_batches(n_batches=10, rows=1000):
    return [pa.record_batch({"key": pa.array(range(b * rows, (b + 1) * rows), pa.int64()),
                             "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=b * 10 + i % 10)
                                            for i in range(rows)], pa.date32()),
                             "name": pa.array([f"n{b:02d}_{i % 5}" for i in range(rows)]),
                             "v": pa.array([(i * 7) % 101 for i in range(rows)], pa.int32())})
            for b in range(n_batches)]


def stat_token(v):
    """pg2arrow's token of a value: the stored integer of a date (days)."""
    return str((v - datetime.date(1970, 1, 1)).days) if isinstance(v, datetime.date) else str(v)


def write_with_field_stats(path, batches, cols, tamper=None):
    """Encoding 1: min_values / max_values in the footer schema's fields."""
    fields = []
    for f in batches[0].schema:
        if f.name in cols:
            mins = [stat_token(pa.compute.min(b.column(f.name)).as_py()) for b in batches]
            maxs = [stat_token(pa.compute.max(b.column(f.name)).as_py()) for b in batches]
            if tamper:
                mins, maxs = tamper(mins, maxs)
            f = f.with_metadata({"min_values": ",".join(mins), "max_values": ",".join(maxs)})
        fields.append(f)
    schema = pa.schema(fields)
    with ipc.new_file(path, schema) as w:
        for b in batches:
            w.write_batch(pa.record_batch(b.columns, schema=schema))


def write_with_batch_stats(path, batches, cols):
    """Encoding 2: min_max_stats.<column> in each record batch's metadata."""
    with ipc.new_file(path, batches[0].schema) as w:
        for b in batches:
            md = {f"min_max_stats.{c}": f"{stat_token(pa.compute.min(b.column(c)).as_py())},"
                                        f"{stat_token(pa.compute.max(b.column(c)).as_py())}" for c in cols}
            w.write_batch(b, custom_metadata=md)


STATS_QUERIES = [
    # (where, batches that may match out of 10)
    ("key BETWEEN 2500 AND 3499", 2),
    ("key < 1000", 1),
    ("key >= 9000 OR key = 4321", 2),
    ("key IN (5, 7005)", 2),
    ("d = DATE '2020-02-01'", 1),
    ("name = 'n07_3'", 1),
    ("name LIKE 'n03%'", 1),
    ("NOT (key < 8000)", 2),
]


@pytest.mark.parametrize("encoding", ["field", "batch"])
@pytest.mark.parametrize("where,loaded", STATS_QUERIES, ids=[w for w, _ in STATS_QUERIES])
def test_arrow_statistics_prune_record_batches(quiver_bin, tmp_path, encoding, where, loaded):
    batches = sorted_batches()
    path = tmp_path / "stats.arrow"
    (write_with_field_stats if encoding == "field" else write_with_batch_stats)(path, batches, ["key", "d", "name"])
    whole = pa.Table.from_batches(batches)
    sql = f"SELECT count(*) AS n, sum(v) AS s, min(name) AS lo FROM t WHERE {where}"
    theirs = duckdb.sql(sql.replace("FROM t", "FROM whole")).to_arrow_table()
    prelude = f"CREATE FOREIGN TABLE t (key bigint, d date, name text, v int) SERVER arrow_fdw OPTIONS (file '{path}');"
    assert_same_result(quiver_query(quiver_bin, prelude, sql), theirs, sql, encoding)
    e = explain(quiver_bin, prelude, sql)
    assert e["loaded"] == loaded and e["skipped"] == 10 - loaded, e["text"]
    # read_arrow over the same file prunes the same record batches.
    proc = run_sql(quiver_bin, "EXPLAIN ANALYZE " + sql.replace("FROM t", f"FROM read_arrow('{path}')"))
    assert f"units=10 pruned={10 - loaded}" in proc.stdout, proc.stdout


@pytest.mark.parametrize("tamper,why", [
    (lambda lo, hi: (lo[:-1], hi[:-1]), "9 min and 9 max values for 10 record batches"),
    (lambda lo, hi: (["x"] + lo[1:], hi), "do not parse"),
    (lambda lo, hi: ([hi[0]] + lo[1:], [lo[0]] + hi[1:]), "min '999' > max '0'"),
], ids=["wrong-count", "unparsable", "min-above-max"])
def test_malformed_statistics_are_never_used(quiver_bin, tmp_path, tamper, why):
    batches = sorted_batches()
    path = tmp_path / "bad.arrow"
    write_with_field_stats(path, batches, ["key"], tamper=tamper)
    whole = pa.Table.from_batches(batches)
    sql = "SELECT count(*) AS n, sum(v) AS s FROM t WHERE key < 500 OR key >= 9990"
    prelude = f"CREATE FOREIGN TABLE t (key bigint, d date, name text, v int) SERVER arrow_fdw OPTIONS (file '{path}');"
    theirs = duckdb.sql(sql.replace("FROM t", "FROM whole")).to_arrow_table()
    assert_same_result(quiver_query(quiver_bin, prelude, sql), theirs, sql, "malformed")
    proc = run_sql(quiver_bin, prelude + "EXPLAIN ANALYZE " + sql)
    assert HINT.search(proc.stdout).groups() == ("10", "0"), proc.stdout
    assert "WARNING:" in proc.stderr and "malformed min/max statistics" in proc.stderr and why in proc.stderr, \
        proc.stderr


# --- writing statistics: COPY ... (FORMAT arrow, STATS ...) -------------------------------------

def test_copy_writes_statistics_that_arrow_fdw_reads(quiver_bin, tmp_path):
    path = tmp_path / "out.arrow"
    run_sql(quiver_bin, f"COPY (SELECT g AS key, g % 7 AS v, 'n' || (g % 1000)::text AS name "
                        f"FROM generate_series(1, 300000) t(g) ORDER BY g) TO '{path}' (FORMAT arrow, STATS 'key,name')")
    reader = ipc.open_file(path)
    assert reader.num_record_batches > 2
    for i in range(reader.num_record_batches):
        b, md = reader.get_batch_with_custom_metadata(i)
        got = {k.decode(): v.decode() for k, v in md.items()}
        keys, names = b.column("key").to_pylist(), b.column("name").to_pylist()
        assert got == {"min_max_stats.key": f"{min(keys)},{max(keys)}",
                       "min_max_stats.name": f"{min(names)},{max(names)}"}
    whole = reader.read_all()
    sql = "SELECT count(*) AS n, sum(v) AS s FROM t WHERE key BETWEEN 150000 AND 150100"
    prelude = f"CREATE FOREIGN TABLE t (key int, v int, name text) SERVER arrow_fdw OPTIONS (file '{path}');"
    theirs = duckdb.sql(sql.replace("FROM t", "FROM whole")).to_arrow_table()
    assert_same_result(quiver_query(quiver_bin, prelude, sql), theirs, sql, "copy stats")
    e = explain(quiver_bin, prelude, sql)
    assert e["loaded"] <= 2 and e["loaded"] + e["skipped"] == reader.num_record_batches, e["text"]
    for options, msg in [("(FORMAT parquet, STATS 'key')", 'COPY option "stats" applies to Arrow'),
                         ("(FORMAT arrow, STATS 'nope')", 'column "nope" of COPY\'s STATS')]:
        proc = run_sql(quiver_bin, f"COPY (SELECT 1 AS key) TO '{tmp_path / 'x.out'}' {options}", check=False)
        assert proc.returncode != 0 and msg in proc.stderr, proc.stderr


# --- schema evolution: missing_columns, widened types ---------------------------------------------

def test_virtual_metadata_columns(quiver_bin, tmp_path):
    """virtual_metadata 'KEY' reads the schema's custom metadata (or field f's with 'f.k'), one
    value per file; virtual_metadata_split 'KEY' splits it at commas, one value per record batch
    (here PG-Strom's min_values lists). Both prune: their values are exact statistics."""
    batches = sorted_batches(n_batches=4, rows=100)
    for name, source in [("a", "sensor-7"), ("b", "sensor-9")]:
        write_with_field_stats(tmp_path / f"{name}.arrow", batches, ["key"])
        t = ipc.open_file(tmp_path / f"{name}.arrow").read_all()
        schema = t.schema.with_metadata({"source": source, "day": "2024-03-01", "batches": "4"})
        with ipc.new_file(tmp_path / f"{name}.arrow", schema) as w:
            for b in batches:
                w.write_batch(pa.record_batch(b.columns, schema=schema))
    prelude = (f"CREATE FOREIGN TABLE m (key bigint, src text OPTIONS (virtual_metadata 'source'), "
               f"day date OPTIONS (virtual_metadata 'day'), nb int OPTIONS (virtual_metadata 'batches'), "
               f"lo bigint OPTIONS (virtual_metadata_split 'key.min_values'), "
               f"hi bigint OPTIONS (virtual_metadata_split 'key.max_values'), "
               f"nothing text OPTIONS (virtual_metadata 'no such key')) "
               f"SERVER arrow_fdw OPTIONS (dir '{tmp_path}', suffix '.arrow');")
    t = quiver_query(quiver_bin, prelude, "SELECT src, day, nb, lo, hi, nothing, count(*) AS n, min(key) AS kmin, "
                                          "max(key) AS kmax FROM m GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY src, lo")
    rows = t.to_pylist()
    assert len(rows) == 8, rows
    for i, r in enumerate(rows):
        b = i % 4
        assert r == {"src": ["sensor-7", "sensor-9"][i // 4], "day": datetime.date(2024, 3, 1), "nb": 4,
                     "lo": b * 100, "hi": b * 100 + 99, "nothing": None, "n": 100, "kmin": b * 100,
                     "kmax": b * 100 + 99}, r
    # Values as statistics: whole record batches and files are skipped.
    sql = "SELECT count(*) AS n FROM m WHERE src = 'sensor-9' AND lo >= 200"
    assert quiver_query(quiver_bin, prelude, sql).to_pylist() == [{"n": 200}]
    out = run_sql(quiver_bin, prelude + "EXPLAIN ANALYZE " + sql).stdout
    assert "units=8 pruned=6" in out, out
    # Parquet's key-value metadata too, one value per row group when split.
    pq.write_table(pa.table({"k": [1, 2, 3]}).replace_schema_metadata({"source": "pq-1", "rg": "a,b"}),
                   tmp_path / "m.parquet", row_group_size=2)
    t = quiver_query(quiver_bin, f"CREATE FOREIGN TABLE p (k bigint, s text OPTIONS (virtual_metadata 'source'), "
                                 f"g text OPTIONS (virtual_metadata_split 'rg')) SERVER arrow_fdw "
                                 f"OPTIONS (file '{tmp_path}/m.parquet');", "SELECT k, s, g FROM p ORDER BY k")
    assert t.to_pylist() == [{"k": 1, "s": "pq-1", "g": "a"}, {"k": 2, "s": "pq-1", "g": "a"},
                             {"k": 3, "s": "pq-1", "g": "b"}]


@pytest.mark.parametrize("option,why", [
    ("virtual_metadata_split 'key.max_values'", "has 3 values for 4 record batches"),
    ("virtual_metadata 'key.max_values'", "cannot hold '99,199,299'"),
    ("virtual_metadata ''", "needs a metadata key"),
    ("virtual_metadata 'x', field 'key'", "exclude each other"),
])
def test_virtual_metadata_errors(quiver_bin, tmp_path, option, why):
    batches = sorted_batches(n_batches=4, rows=100)
    write_with_field_stats(tmp_path / "a.arrow", batches, ["key"], tamper=lambda lo, hi: (lo, hi[:3]))
    proc = run_sql(quiver_bin, f"CREATE FOREIGN TABLE m (key bigint, v bigint OPTIONS ({option})) SERVER arrow_fdw "
                               f"OPTIONS (file '{tmp_path}/a.arrow'); SELECT * FROM m", check=False)
    assert proc.returncode != 0 and why in proc.stderr, proc.stderr


def test_missing_columns_and_widened_types(quiver_bin, tmp_path):
    write_arrow(tmp_path / "old.arrow", pa.table({"a": pa.array([1, 2], pa.int32()), "f": pa.array([0.5, 1.5], pa.float32())}))
    pq.write_table(pa.table({"a": pa.array([3, 2**40], pa.int64()), "f": pa.array([2.5, 3.5], pa.float64()),
                             "extra": pa.array(["x", None])}), tmp_path / "new.parquet")
    files = f"{tmp_path / 'old.arrow'},{tmp_path / 'new.parquet'}"
    proc = run_sql(quiver_bin, f"CREATE FOREIGN TABLE t (a bigint, f float8, extra text) SERVER arrow_fdw "
                               f"OPTIONS (files '{files}')", check=False)
    assert proc.returncode != 0 and "has no field \"extra\"" in proc.stderr and "missing_columns" in proc.stderr
    prelude = (f"CREATE FOREIGN TABLE t (a bigint, f float8, extra text) SERVER arrow_fdw "
               f"OPTIONS (files '{files}', missing_columns 'null');")
    t = quiver_query(quiver_bin, prelude, "SELECT a, f, extra FROM t ORDER BY a")
    assert t.to_pylist() == [{"a": 1, "f": 0.5, "extra": None}, {"a": 2, "f": 1.5, "extra": None},
                             {"a": 3, "f": 2.5, "extra": "x"}, {"a": 2**40, "f": 3.5, "extra": None}]
    t = quiver_query(quiver_bin, prelude, "SELECT count(*) AS n FROM t WHERE extra = 'x'")
    assert t.column("n").to_pylist() == [1]
    # The file lacking `extra` holds only NULLs there: ruled out by its statistics.
    e = explain(quiver_bin, prelude, "SELECT count(*) FROM t WHERE extra = 'x'")
    assert e["loaded"] == 1 and e["skipped"] == 1, e["text"]
    # Narrower than declared widens; wider than declared is refused.
    proc = run_sql(quiver_bin, f"CREATE FOREIGN TABLE t (a int) SERVER arrow_fdw OPTIONS (files '{files}')", check=False)
    assert proc.returncode != 0 and "new.parquet" in proc.stderr and "bigint" in proc.stderr, proc.stderr


def test_union_all_view_over_a_table_and_files_prunes_the_files(quiver_bin, lineorder_dir):
    # arrow_fdw users' partitioned table: recent rows in a table, older months
    # in files, one UNION ALL view; a predicate on the view reaches the files.
    d, contents = lineorder_dir
    prelude = (LINEORDER.format(dir=d) +
               "CREATE TABLE recent (lo_quantity bigint, lo_mode text, year_month bigint, shipmode text);"
               "INSERT INTO recent VALUES (7, 'AIR', 202405, 'AIR'), (8, 'SHIP', 202402, 'SHIP');"
               "CREATE VIEW all_lineorder AS SELECT * FROM recent UNION ALL SELECT * FROM lineorder;")
    sql = "SELECT count(*) AS n, sum(lo_quantity) AS s FROM all_lineorder WHERE year_month = 202402"
    kept = [v for (ym, m), v in contents.items() if ym == 202402]
    t = quiver_query(quiver_bin, prelude, sql)
    assert t.column("n").to_pylist() == [sum(len(v) for v in kept) + 1]
    assert [int(x) for x in t.column("s").to_pylist()] == [sum(sum(v) for v in kept) + 8]
    e = explain(quiver_bin, prelude, sql)
    assert e["files_read"] == len(kept) and e["files_skipped"] == len(contents) - len(kept), e["text"]


def test_convert_writes_statistics(quiver_bin, tmp_path):
    src, out = tmp_path / "src.parquet", tmp_path / "out.arrow"
    pq.write_table(pa.table({"k": pa.array(range(50_000), pa.int64()), "v": pa.array([i % 5 for i in range(50_000)],
                                                                                   pa.int32())}), src)
    subprocess.run([str(quiver_bin), "convert", str(src), str(out), "--stats", "k", "--batch-rows", "10000"],
                   check=True, capture_output=True)
    reader = ipc.open_file(out)
    assert reader.num_record_batches == 5
    for i in range(5):
        b, md = reader.get_batch_with_custom_metadata(i)
        k = b.column("k").to_pylist()
        assert dict(md) == {b"min_max_stats.k": f"{min(k)},{max(k)}".encode()}
    prelude = f"CREATE FOREIGN TABLE t (k bigint, v int) SERVER arrow_fdw OPTIONS (file '{out}');"
    e = explain(quiver_bin, prelude, "SELECT sum(v) FROM t WHERE k >= 45000")
    assert e["loaded"] == 1 and e["skipped"] == 4, e["text"]
    proc = subprocess.run([str(quiver_bin), "convert", str(src), str(tmp_path / "o.csv"), "--stats", "k"],
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "--stats applies to Arrow output" in proc.stderr


def test_read_parquet_over_a_hive_directory(quiver_bin, tmp_path):
    n = 2000
    t = pa.table({"year": pa.array([2020 + i % 4 for i in range(n)], pa.int64()),
                  "region": pa.array([["EU", "US"][i % 2] for i in range(n)]),
                  "v": pa.array(range(n), pa.int64())})
    root = tmp_path / "ds"
    pq.write_to_dataset(t, root, partition_cols=["year", "region"])
    for sql in ["SELECT year, region, count(*) AS n, sum(v) AS s FROM {src} GROUP BY 1, 2 ORDER BY 1, 2",
                "SELECT count(*) AS n, max(v) AS m FROM {src} WHERE year >= 2022 AND region = 'US'"]:
        ours_sql = sql.format(src=f"read_parquet('{root}')")
        theirs_sql = sql.format(src=f"read_parquet('{root}/**/*.parquet', hive_partitioning = true)")
        assert_same_result(quiver_query(quiver_bin, "", ours_sql), duckdb.sql(theirs_sql).to_arrow_table(),
                           theirs_sql, "read_parquet hive")
    out = run_sql(quiver_bin, f"EXPLAIN ANALYZE SELECT count(*) FROM read_parquet('{root}') WHERE year = 2021").stdout
    assert "files: 1 read, 3 skipped by virtual columns" in out, out  # year decides region here: 4 files
    # Switched off, the directory's own files are read: there are none.
    proc = run_sql(quiver_bin, f"SELECT count(*) FROM read_parquet('{root}', hive_partitioning => false)", check=False)
    assert proc.returncode != 0 and "holds no files" in proc.stderr, proc.stderr
