"""SQL over Parquet, and Parquet out of SQL, against pyarrow and DuckDB.

* `quiver gen ssb --format parquet` at SF 0.05: the 13 SSB queries through
  read_parquet views give DuckDB's answers over the same files.
* read_parquet('dir/*.parquet'): globs over files pyarrow and Quiver wrote.
* COPY (query) TO 'x.parquet' (FORMAT parquet, COMPRESSION c, ROW_GROUP_SIZE n):
  pyarrow reads the requested row groups and codec, with the content of the
  source table; the options are checked and a failed COPY leaves no file.
* Statistics pruning: EXPLAIN ANALYZE shows the row groups a range predicate
  skipped on a file sorted by its key.
"""

import decimal
import math
import re
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from result_compare import assert_same_result
from test_sql import SSB_TABLES, query_files, quiver_query, views

PARQUET_CODECS = {  # COPY's name -> what pyarrow's metadata calls it
    "none": "UNCOMPRESSED",
    "snappy": "SNAPPY",
    "gzip": "GZIP",
    "zstd": "ZSTD",
    "lz4": "LZ4",  # LZ4_RAW, which pyarrow reports as LZ4
    "brotli": "BROTLI",
}


def codecs_of(path):
    md = pq.ParquetFile(path).metadata
    return {md.row_group(i).column(j).compression
            for i in range(md.num_row_groups) for j in range(md.num_columns)}


# --- SSB over Parquet written by `quiver gen` -----------------------------------------

@pytest.fixture(scope="module")
def ssb_parquet(quiver_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("ssb_parquet")
    subprocess.run([str(quiver_bin), "gen", "ssb", "--sf", "0.05", "--format", "parquet",
                    "--out", str(out), "--quiet"], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def ssb_parquet_duck(ssb_parquet):
    con = duckdb.connect()
    for t in SSB_TABLES:
        con.execute(f"CREATE VIEW \"{t}\" AS SELECT * FROM read_parquet('{ssb_parquet}/{t}.parquet')")
    return con


def test_gen_writes_zstd_parquet_with_batch_sized_row_groups(ssb_parquet):
    assert sorted(p.name for p in ssb_parquet.iterdir()) == sorted(f"{t}.parquet" for t in SSB_TABLES)
    md = pq.ParquetFile(ssb_parquet / "lineorder.parquet").metadata
    assert md.num_rows > 122880 * 2
    assert md.num_row_groups == math.ceil(md.num_rows / 122880)
    assert all(md.row_group(i).num_rows == 122880 for i in range(md.num_row_groups - 1))
    for t in SSB_TABLES:
        assert codecs_of(ssb_parquet / f"{t}.parquet") == {"ZSTD"}, t


@pytest.mark.parametrize("qfile", query_files("ssb"), ids=lambda p: p.stem)
def test_ssb_parquet_matches_duckdb(qfile, ssb_parquet, ssb_parquet_duck, quiver_bin):
    sql = qfile.read_text()
    ours = quiver_query(quiver_bin, views(ssb_parquet, SSB_TABLES, "read_parquet", "parquet"), sql)
    theirs = ssb_parquet_duck.sql(sql).to_arrow_table()
    # SF 0.05 leaves Q3.3 and Q3.4 empty (two given cities, 100 suppliers); both must agree.
    if qfile.stem not in ("q3.3", "q3.4"):
        assert ours.num_rows > 0
    assert_same_result(ours, theirs, sql, qfile.stem)


# --- read_parquet over a glob -----------------------------------------------------------

def test_read_parquet_glob(quiver_bin, tmp_path):
    d = tmp_path / "parts"
    d.mkdir()
    for i, n in enumerate([1000, 0, 2500, 7]):
        t = pa.table({"id": pa.array(range(i * 10000, i * 10000 + n), pa.int64()),
                      "grp": pa.array([f"g{j % 5}" for j in range(n)], pa.string()),
                      "x": pa.array([j * 0.5 if j % 11 else None for j in range(n)], pa.float64())})
        pq.write_table(t, d / f"part-{i}.parquet", row_group_size=600)
    (d / "notes.txt").write_text("not a parquet file\n")
    sql = ("SELECT grp, count(*) AS n, count(x) AS nx, sum(x) AS sx, min(id) AS lo, max(id) AS hi "
           "FROM read_parquet('{}/*.parquet') GROUP BY grp ORDER BY grp")
    ours = quiver_query(quiver_bin, "", sql.format(d))
    theirs = duckdb.sql(sql.format(d)).to_arrow_table()
    assert ours.num_rows == 5
    assert_same_result(ours, theirs, sql.format(d), "glob")


def test_read_parquet_glob_over_quiver_parts(quiver_bin, tmp_path):
    subprocess.run([str(quiver_bin), "gen", "ssb", "--sf", "0.01", "--format", "parquet",
                    "--files-per-table", "3", "--batch-rows", "10000", "--out", str(tmp_path), "--quiet"],
                   check=True, capture_output=True)
    assert sorted(p.name for p in (tmp_path / "lineorder").iterdir()) == [
        "part-000.parquet", "part-001.parquet", "part-002.parquet"]
    sql = ("SELECT lo_shipmode, count(*) AS n, sum(lo_revenue) AS r, min(lo_orderkey) AS lo, "
           "max(lo_orderkey) AS hi FROM read_parquet('{}/lineorder/*.parquet') GROUP BY 1 ORDER BY 1")
    ours = quiver_query(quiver_bin, "", sql.format(tmp_path))
    theirs = duckdb.sql(sql.format(tmp_path)).to_arrow_table()
    assert ours.num_rows == 7  # AIR, FOB, MAIL, RAIL, REG AIR, SHIP, TRUCK
    assert_same_result(ours, theirs, sql.format(tmp_path), "gen parts")


# --- COPY ... TO Parquet ----------------------------------------------------------------

@pytest.fixture(scope="module")
def source_table():
    n = 25000
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "i32": pa.array([(i * 7919) % 100003 - 50000 for i in range(n)], pa.int32()),
        "f": pa.array([None if i % 13 == 0 else i / 8 for i in range(n)], pa.float64()),
        "s": pa.array([None if i % 17 == 0 else f"name-{i % 977}" for i in range(n)], pa.string()),
        "d": pa.array([i % 20000 for i in range(n)], pa.date32()),
        "m": pa.array([None if i % 19 == 0 else decimal.Decimal(i * 37 % 100000).scaleb(-2)
                       for i in range(n)], pa.decimal128(15, 2)),
        "b": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
    })


@pytest.mark.parametrize("codec", sorted(PARQUET_CODECS))
def test_copy_to_parquet_row_groups_and_codec(run_quiver, tmp_path, source_table, codec):
    src = tmp_path / "src.parquet"
    pq.write_table(source_table, src)
    out = tmp_path / "out.parquet"
    run_quiver("sql", f"COPY (SELECT * FROM read_parquet('{src}') ORDER BY id) TO '{out}' "
                      f"(FORMAT parquet, COMPRESSION {codec}, ROW_GROUP_SIZE 4000)")
    f = pq.ParquetFile(out)
    md = f.metadata
    assert md.num_row_groups == 7  # 6 x 4000 + 1000
    assert [md.row_group(i).num_rows for i in range(7)] == [4000] * 6 + [1000]
    assert codecs_of(out) == {PARQUET_CODECS[codec]}
    back = f.read()
    assert back.column_names == source_table.column_names
    for name in source_table.column_names:
        assert back.schema.field(name).type == source_table.schema.field(name).type, name
        assert back.column(name).to_pylist() == source_table.column(name).to_pylist(), name
    # DuckDB reads it too.
    s = source_table.column("s")
    assert duckdb.sql(f"SELECT count(*), count(s), sum(i32) FROM '{out}'").fetchall()[0] == (
        len(s), len(s) - s.null_count, sum(source_table.column("i32").to_pylist()))
    assert [p.name for p in tmp_path.iterdir() if p.name not in ("src.parquet", "out.parquet")] == []


def test_copy_compression_level_and_default_codec(run_quiver, tmp_path):
    q = "SELECT g AS k, 'row ' || (g % 1000) AS s FROM generate_series(1, 200000) t(g)"
    run_quiver("sql", f"COPY ({q}) TO '{tmp_path}/default.parquet';"
                      f"COPY ({q}) TO '{tmp_path}/z19.parquet' (COMPRESSION zstd, COMPRESSION_LEVEL 19);"
                      f"COPY ({q}) TO '{tmp_path}/g1.parquet' (COMPRESSION gzip, COMPRESSION_LEVEL 1)")
    assert codecs_of(tmp_path / "default.parquet") == {"ZSTD"}
    assert codecs_of(tmp_path / "z19.parquet") == {"ZSTD"}
    assert codecs_of(tmp_path / "g1.parquet") == {"GZIP"}
    for name in ["default", "z19", "g1"]:
        t = pq.read_table(tmp_path / f"{name}.parquet")
        assert t.num_rows == 200000 and t.column("k").to_pylist()[-1] == 200000


def test_copy_to_arrow_and_csv_options(run_quiver, tmp_path):
    q = "SELECT g AS k, CASE WHEN g % 4 = 0 THEN NULL ELSE 'v;' || g END AS s FROM generate_series(1, 10) t(g)"
    run_quiver("sql", f"COPY ({q}) TO '{tmp_path}/o.arrow' (FORMAT arrow, COMPRESSION lz4);"
                      f"COPY ({q}) TO '{tmp_path}/o.txt' (FORMAT csv, HEADER false, DELIMITER ';', NULL 'N/A')")
    t = ipc.open_file(tmp_path / "o.arrow").read_all()
    assert t.column("s").to_pylist()[:4] == ["v;1", "v;2", "v;3", None]
    lines = (tmp_path / "o.txt").read_text().splitlines()
    assert lines[:4] == ['1;"v;1"', '2;"v;2"', '3;"v;3"', "4;N/A"]


@pytest.mark.parametrize("options,message", [
    ("(ROW_GROUP_SIZ 10)", 'COPY option "row_group_siz" is not recognized (valid options: FORMAT, '
                           "COMPRESSION, COMPRESSION_LEVEL, ROW_GROUP_SIZE, BATCH_ROWS, STATS, HEADER, DELIMITER, QUOTE, NULL, "
                           "PARTITION_BY, OVERWRITE_OR_IGNORE, APPEND)"),
    ("(ROW_GROUP_SIZE 0)", 'COPY option "row_group_size" must be a positive integer'),
    ("(COMPRESSION lzo)", "Parquet compression is none, snappy, gzip, zstd, lz4 or brotli, not 'lzo'"),
    ("(HEADER true)", 'COPY option "header" applies to CSV, not Parquet'),
    ("(FORMAT orc)", "COPY format 'orc' is not supported"),
    ("(COMPRESSION snappy, COMPRESSION_LEVEL 3)", "does not apply to compression snappy"),
])
def test_copy_option_errors_leave_no_file(run_quiver, tmp_path, options, message):
    out = tmp_path / "x.parquet"
    proc = run_quiver("sql", f"COPY (SELECT 1 AS a) TO '{out}' {options}", check=False)
    assert proc.returncode == 1
    assert message in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_copy_failing_query_keeps_the_old_file(run_quiver, tmp_path):
    out = tmp_path / "x.parquet"
    run_quiver("sql", f"COPY (SELECT 1 AS a) TO '{out}'")
    before = out.read_bytes()
    proc = run_quiver("sql", f"COPY (SELECT 10 / (g - 500) AS a FROM generate_series(1, 1000) t(g)) TO '{out}'",
                      check=False)
    assert proc.returncode == 1 and "division by zero" in proc.stderr
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["x.parquet"]


# --- statistics pruning -----------------------------------------------------------------

SCAN_COUNTERS = re.compile(r"units=(\d+) pruned=(\d+) skipped=(\d+) read=(\d+) rows_read=(\d+)")


def scan_counters(run_quiver, sql):
    proc = run_quiver("sql", "--format", "csv", "EXPLAIN ANALYZE " + sql)
    found = SCAN_COUNTERS.search(proc.stdout)
    assert found, proc.stdout
    return dict(zip(["units", "pruned", "skipped", "read", "rows_read"], map(int, found.groups())))


def test_row_groups_pruned_by_statistics_in_quiver_file(run_quiver, quiver_bin, tmp_path):
    path = tmp_path / "sorted.parquet"
    run_quiver("sql", f"COPY (SELECT g AS key, g % 97 AS v FROM generate_series(1, 100000) t(g) ORDER BY g) "
                      f"TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 10000)")
    assert pq.ParquetFile(path).metadata.num_row_groups == 10
    sql = f"SELECT count(*) AS n, sum(v) AS s FROM '{path}' WHERE key BETWEEN 23456 AND 34567"
    c = scan_counters(run_quiver, sql.replace(f"'{path}'", f'"{path}"'))
    # Row groups 3 and 4 hold keys 20001..40000; the other 8 are skipped unread.
    assert c["units"] == 10 and c["pruned"] == 8 and c["read"] == 2 and c["rows_read"] == 20000, c
    ours = quiver_query(quiver_bin, "", sql.replace(f"'{path}'", f'"{path}"'))
    assert_same_result(ours, duckdb.sql(sql).to_arrow_table(), sql, "pruned")


def test_row_groups_pruned_by_statistics_in_pyarrow_file(run_quiver, quiver_bin, tmp_path):
    path = tmp_path / "pa.parquet"
    n = 60000
    t = pa.table({"ts": pa.array(range(1_700_000_000, 1_700_000_000 + n), pa.int64()),
                  "name": pa.array([f"n{i % 50:02d}" for i in range(n)])})
    pq.write_table(t, path, row_group_size=5000)  # 12 row groups with min/max statistics
    sql = f"SELECT count(*) AS n, min(name) AS lo FROM read_parquet('{path}') WHERE ts >= {1_700_000_000 + 52000}"
    c = scan_counters(run_quiver, sql)
    assert c["units"] == 12 and c["pruned"] == 10 and c["read"] == 2, c
    ours = quiver_query(quiver_bin, "", sql)
    assert_same_result(ours, duckdb.sql(sql).to_arrow_table(), sql, "pyarrow pruned")


def test_row_groups_skipped_by_runtime_filter(run_quiver, quiver_bin, tmp_path):
    # The join's build keys (two ids in [123456, 123999]) become a runtime
    # filter whose range rules out 19 of the fact file's 20 row groups by
    # their key statistics: skipped at run time, never read.
    fact, dim = tmp_path / "fact.parquet", tmp_path / "dim.parquet"
    n = 1_000_000
    pq.write_table(pa.table({"k": pa.array(range(n), pa.int64()), "v": pa.array([i % 97 for i in range(n)], pa.int32())}),
                   fact, row_group_size=50_000)
    pq.write_table(pa.table({"id": pa.array([10, 20, 123_456, 123_999], pa.int64()), "tag": ["a", "b", "c", "d"]}),
                   dim)
    sql = (f"SELECT d.tag, sum(f.v) AS s, count(*) AS n FROM read_parquet('{fact}') f "
           f"JOIN read_parquet('{dim}') d ON f.k = d.id WHERE d.id > 100000 GROUP BY d.tag ORDER BY 1")
    c = scan_counters(run_quiver, sql)
    assert c["units"] == 20 and c["skipped"] == 19 and c["read"] == 1 and c["rows_read"] == 50_000, c
    ours = quiver_query(quiver_bin, "", sql)
    assert_same_result(ours, duckdb.sql(sql).to_arrow_table(), sql, "runtime filter skip")


# --- page index pruning ------------------------------------------------------------------

ROWS_PRUNED = re.compile(r"rows_pruned=(\d+)")


def rows_pruned(run_quiver, sql):
    proc = run_quiver("sql", "--format", "csv", "EXPLAIN ANALYZE " + sql)
    found = ROWS_PRUNED.search(proc.stdout)
    return int(found.group(1)) if found else 0


@pytest.fixture(scope="module")
def paged_file(tmp_path_factory):
    """One row group of 200k rows in small pages with a page index (pyarrow):
    `id` sorted, `day` sorted dates, `name` sorted text, `x` doubles with NaN
    and NULL runs, `tag` unsorted, `sparse` NULL for whole pages."""
    out = tmp_path_factory.mktemp("paged") / "paged.parquet"
    n = 200_000
    import datetime
    t = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i // 500) for i in range(n)]),
        "name": pa.array([f"name-{i:06d}" for i in range(n)]),
        "x": pa.array([None if (i // 3000) % 5 == 2 else (math.nan if i % 9973 == 0 else i * 0.5)
                       for i in range(n)], pa.float64()),
        "tag": pa.array([f"t{(i * 7919) % 13}" for i in range(n)]),
        "sparse": pa.array([i if (i // 20000) % 2 == 1 else None for i in range(n)], pa.int32()),
    })
    pq.write_table(t, out, row_group_size=n, data_page_size=8 * 1024, write_page_index=True,
                   use_dictionary=["tag"])
    md = pq.ParquetFile(out).metadata
    assert md.num_row_groups == 1
    return out


PAGE_QUERIES = [
    ("point", "SELECT count(*) AS n, sum(x) AS s, min(name) AS lo FROM {f} WHERE id = 123456", True),
    ("range", "SELECT count(*) AS n, sum(x) AS s, max(tag) AS t FROM {f} WHERE id BETWEEN 50000 AND 50999", True),
    ("two ranges", "SELECT count(*) AS n, sum(id) AS s FROM {f} WHERE id < 700 OR id >= 199500", True),
    ("in list", "SELECT count(*) AS n, sum(id) AS s FROM {f} WHERE id IN (5, 77777, 150001)", True),
    ("dates", "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM {f} "
              "WHERE day BETWEEN DATE '2020-03-01' AND DATE '2020-03-03'", True),
    ("text prefix", "SELECT count(*) AS n, sum(id) AS s FROM {f} WHERE name LIKE 'name-1234%'", True),
    ("text range", "SELECT count(*) AS n FROM {f} WHERE name > 'name-199990'", True),
    ("two columns", "SELECT count(*) AS n, sum(id) AS s FROM {f} WHERE id >= 100000 AND day < DATE '2020-08-01'", True),
    ("doubles", "SELECT count(*) AS n, sum(id) AS s FROM {f} WHERE x BETWEEN 1000 AND 1100", True),
    ("nulls", "SELECT count(*) AS n FROM {f} WHERE sparse IS NOT NULL AND id < 30000", True),
    ("null pages", "SELECT count(*) AS n, sum(sparse) AS s FROM {f} WHERE sparse > 39990 AND sparse < 40010", True),
    ("is null", "SELECT count(*) AS n FROM {f} WHERE x IS NULL", True),
    ("unsorted", "SELECT count(*) AS n FROM {f} WHERE tag = 't3'", False),
    ("nothing", "SELECT count(*) AS n FROM {f} WHERE id > 10000000", None),
    ("select star", "SELECT * FROM {f} WHERE id BETWEEN 77000 AND 77004 ORDER BY id", True),
]


@pytest.mark.parametrize("name,sql,prunes", PAGE_QUERIES, ids=[q[0] for q in PAGE_QUERIES])
def test_page_index_prunes_pages_with_duckdb_answers(run_quiver, quiver_bin, paged_file, name, sql, prunes):
    # Quiver reads only the pages of the row group whose statistics may match;
    # the answer equals DuckDB's over the same file.
    q = sql.format(f=f"read_parquet('{paged_file}')")
    ours = quiver_query(quiver_bin, "", q)
    assert_same_result(ours, duckdb.sql(q).to_arrow_table(), q, name)
    pruned = rows_pruned(run_quiver, q)
    if prunes:
        assert pruned > 100_000, (name, pruned)
    elif prunes is False:
        assert pruned == 0, (name, pruned)


def test_page_index_prunes_foreign_table_and_quiver_written_pages(run_quiver, quiver_bin, tmp_path):
    # Quiver's own writer stores a page index (pages of 20000 rows); a foreign
    # table over its files reads only the pages a predicate may match.
    path = tmp_path / "q.parquet"
    run_quiver("sql", f"COPY (SELECT g AS key, g % 97 AS v, 'k' || g AS s FROM generate_series(1, 300000) t(g) "
                      f"ORDER BY g) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 300000)")
    ddl = (f"CREATE FOREIGN TABLE f (key bigint, v int, s text) SERVER arrow_fdw "
           f"OPTIONS (file '{path}');")
    sql = "SELECT count(*) AS n, sum(v) AS sv, min(s) AS lo FROM f WHERE key BETWEEN 123000 AND 125000"
    proc = run_quiver("sql", "--format", "csv", ddl + "EXPLAIN ANALYZE " + sql)
    found = ROWS_PRUNED.search(proc.stdout)
    assert found and int(found.group(1)) >= 240_000, proc.stdout
    ours = quiver_query(quiver_bin, ddl, sql)
    theirs = duckdb.sql(sql.replace("FROM f", f"FROM read_parquet('{path}')")).to_arrow_table()
    assert_same_result(ours, theirs, sql, "foreign pages")
