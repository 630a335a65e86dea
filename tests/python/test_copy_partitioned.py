"""COPY (query) TO 'dir' (PARTITION_BY (...)): Hive-partitioned output (issue 14).

* The directory layout is Hive's: dir/k=v/.../part-0.<ext>, NULL as
  __HIVE_DEFAULT_PARTITION__, keys and values escaped as Hive and Spark do
  (%XX for / = % : and the other characters of their list), and the
  partition columns are not stored in the files.
* What Quiver writes reads back with the same rows in Quiver (read_parquet
  over the directory), DuckDB (read_parquet(hive_partitioning = true)) and
  pyarrow.dataset(partitioning='hive'); the answers are checked against the
  source file read by DuckDB, not against Quiver.
* A directory that holds anything is refused (58P02) unless
  OVERWRITE_OR_IGNORE or APPEND says otherwise; option errors leave nothing
  behind; no temporary file stays.
* CSV and Arrow output in the same layout.
"""

import datetime
import decimal
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from result_compare import assert_same_result
from test_sql import quiver_query


def run_sql(quiver_bin, sql, check=True):
    proc = subprocess.run([str(quiver_bin), "sql", sql], capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


N = 3000
TEXT_KEYS = ["a/b", "x=y", "50%", "plain", "caf\u00e9", "sp ace", "q?#'\"", None]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    d = tmp_path_factory.mktemp("src")
    t = pa.table({
        "id": pa.array(range(N), pa.int64()),
        "year": pa.array([2020 + i % 3 for i in range(N)], pa.int32()),
        "tag": pa.array([TEXT_KEYS[i % len(TEXT_KEYS)] for i in range(N)], pa.string()),
        "day": pa.array([datetime.date(2024, 1, 1 + i % 5) if i % 11 else None for i in range(N)], pa.date32()),
        "f": pa.array([None if i % 13 == 0 else i / 8 for i in range(N)], pa.float64()),
        "m": pa.array([decimal.Decimal(i * 37 % 100000).scaleb(-2) for i in range(N)], pa.decimal128(12, 2)),
        "s": pa.array([f"name-{i % 97}" for i in range(N)], pa.string()),
        "ts": pa.array([datetime.datetime(2024, 3, 1, 12, 0, 0) + datetime.timedelta(seconds=i * 37)
                        for i in range(N)], pa.timestamp("us")),
    })
    path = d / "src.parquet"
    pq.write_table(t, path)
    return path, t


def rows_of(table, columns):
    """The table's rows as a sorted list of tuples over `columns` (None sorts first)."""
    cols = [table.column(c).to_pylist() for c in columns]
    return sorted(zip(*cols), key=lambda r: tuple((v is not None, v) for v in r))


def listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_parquet_layout_escaping_and_three_readers(quiver_bin, tmp_path, source):
    src, t = source
    out = tmp_path / "out"
    run_sql(quiver_bin, f"COPY (SELECT * FROM read_parquet('{src}')) TO '{out}' "
                        f"(FORMAT parquet, PARTITION_BY (year, tag))")
    escaped = {"a/b": "a%2Fb", "x=y": "x%3Dy", "50%": "50%25", "plain": "plain", "caf\u00e9": "caf\u00e9",
               "sp ace": "sp ace", "q?#'\"": "q%3F%23%27%22", None: "__HIVE_DEFAULT_PARTITION__"}
    expected = sorted(f"year={y}/tag={escaped[k]}/part-0.parquet" for y in (2020, 2021, 2022) for k in TEXT_KEYS)
    assert listing(out) == expected
    # The partition columns live in the directory names only.
    f = next(out.rglob("*.parquet"))
    assert pq.read_schema(f).names == ["id", "day", "f", "m", "s", "ts"]

    all_cols = ["id", "year", "tag", "day", "f", "m", "s", "ts"]
    # pyarrow's dataset reader (Hive keys URI-decoded, NULL by Hive's name).
    back = ds.dataset(out, format="parquet", partitioning="hive").to_table()
    back = back.select(all_cols)
    assert rows_of(back, all_cols) == rows_of(t, all_cols)

    # Quiver and DuckDB over the directory against DuckDB over the source.
    for sql in [
        "SELECT CAST(year AS integer) AS year, tag, count(*) AS n, sum(id) AS s, sum(m) AS m, min(ts) AS t0, max(day) AS d "
        "FROM {src} GROUP BY 1, tag ORDER BY 1, tag NULLS FIRST",
        "SELECT count(*) AS n, sum(f) AS f FROM {src} WHERE year = 2021 AND tag = 'a/b'",
        "SELECT count(*) AS n FROM {src} WHERE tag IS NULL",
    ]:
        truth_sql = sql.format(src=f"read_parquet('{src}')")
        truth = duckdb.sql(truth_sql).to_arrow_table()
        duck_sql = sql.format(src=f"read_parquet('{out}/**/*.parquet', hive_partitioning = true)")
        assert_same_result(duckdb.sql(duck_sql).to_arrow_table(), truth, truth_sql, "duckdb over Quiver's directory")
        ours = quiver_query(quiver_bin, "", sql.format(src=f"read_parquet('{out}')"))
        assert_same_result(ours, truth, truth_sql, "quiver over its own directory")


def test_empty_text_value_and_key_escaping(quiver_bin, tmp_path):
    out = tmp_path / "o"
    run_sql(quiver_bin, f"COPY (SELECT g AS v, CASE WHEN g % 2 = 0 THEN '' ELSE 'x:1' END AS \"k/ey\" "
                        f"FROM generate_series(1, 4) t(g)) TO '{out}' (FORMAT parquet, PARTITION_BY \"k/ey\")")
    assert listing(out) == ["k%2Fey=/part-0.parquet", "k%2Fey=x%3A1/part-0.parquet"]
    back = quiver_query(quiver_bin, "", f"SELECT \"k/ey\" AS k, sum(v) AS s FROM read_parquet('{out}') "
                                        f"GROUP BY 1 ORDER BY 1")
    assert back.to_pylist() == [{"k": "", "s": 6}, {"k": "x:1", "s": 4}]


def test_existing_directory_refused_unless_told(quiver_bin, tmp_path):
    out = tmp_path / "o"
    q = "SELECT g % 3 AS k, g AS v FROM generate_series(1, 30) t(g)"
    run_sql(quiver_bin, f"COPY ({q}) TO '{out}' (FORMAT parquet, PARTITION_BY (k))")
    before = {p: (out / p).read_bytes() for p in listing(out)}
    proc = run_sql(quiver_bin, f"COPY ({q}) TO '{out}' (FORMAT parquet, PARTITION_BY (k))", check=False)
    assert proc.returncode == 1
    assert f'directory "{out}" is not empty' in proc.stderr, proc.stderr
    assert {p: (out / p).read_bytes() for p in listing(out)} == before

    # APPEND: new files beside the old, every row twice.
    run_sql(quiver_bin, f"COPY ({q}) TO '{out}' (FORMAT parquet, PARTITION_BY (k), APPEND)")
    assert listing(out) == sorted(f"k={k}/part-{n}.parquet" for k in range(3) for n in range(2))
    count = f"SELECT count(*) AS n, sum(v) AS s FROM read_parquet('{out}')"
    assert quiver_query(quiver_bin, "", count).to_pylist() == [{"n": 60, "s": 930}]

    # OVERWRITE_OR_IGNORE: part-0 replaced, part-1 left alone.
    run_sql(quiver_bin, f"COPY (SELECT k, v * 10 AS v FROM ({q}) s) TO '{out}' "
                        f"(FORMAT parquet, PARTITION_BY (k), OVERWRITE_OR_IGNORE true)")
    assert listing(out) == sorted(f"k={k}/part-{n}.parquet" for k in range(3) for n in range(2))
    assert quiver_query(quiver_bin, "", count).to_pylist() == [{"n": 60, "s": 4650 + 465}]
    assert not [p for p in out.rglob(".*")], "a temporary file was left behind"

    # A file where the directory should be.
    (tmp_path / "f").write_text("x")
    proc = run_sql(quiver_bin, f"COPY ({q}) TO '{tmp_path}/f' (PARTITION_BY (k))", check=False)
    assert proc.returncode == 1 and "is not a directory" in proc.stderr, proc.stderr


@pytest.mark.parametrize("options,message", [
    ("(PARTITION_BY (nope))", 'column "nope" of COPY\'s PARTITION_BY is not in the query\'s output'),
    ("(PARTITION_BY (k, v, a))", 'PARTITION_BY on column "a" of type integer[]'),
    ("(PARTITION_BY (k, k))", 'names column "k" twice'),
    ("(APPEND)", "apply to COPY ... TO with PARTITION_BY"),
    ("(PARTITION_BY (k), APPEND, OVERWRITE_OR_IGNORE)", "cannot be used together"),
])
def test_partition_option_errors_leave_nothing(quiver_bin, tmp_path, options, message):
    out = tmp_path / "o"
    proc = run_sql(quiver_bin, f"COPY (SELECT 1 AS k, 2 AS v, ARRAY[1] AS a) TO '{out}' {options}", check=False)
    assert proc.returncode == 1 and message in proc.stderr, proc.stderr
    proc = run_sql(quiver_bin, f"COPY (SELECT 1 AS k, 2 AS v) TO '{out}' (PARTITION_BY (v, k))", check=False)
    assert proc.returncode == 1 and "names every column of the query" in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_csv_and_arrow_layouts(quiver_bin, tmp_path):
    q = "SELECT g % 4 AS k, g AS v, 'r' || g AS s FROM generate_series(1, 100) t(g)"
    run_sql(quiver_bin, f"COPY ({q}) TO '{tmp_path}/c' (FORMAT csv, PARTITION_BY (k));"
                        f"COPY ({q}) TO '{tmp_path}/a' (FORMAT arrow, PARTITION_BY (k))")
    assert listing(tmp_path / "c") == [f"k={k}/part-0.csv" for k in range(4)]
    assert listing(tmp_path / "a") == [f"k={k}/part-0.arrow" for k in range(4)]
    sql = "SELECT k, count(*) AS n, sum(v) AS v, min(s) AS s FROM {src} GROUP BY k ORDER BY k"
    truth = duckdb.sql(sql.format(src=f"(SELECT g % 4 AS k, g AS v, 'r' || g AS s FROM range(1, 101) t(g))")
                       ).to_arrow_table()
    duck_csv = duckdb.sql(sql.format(src=f"read_csv('{tmp_path}/c/*/*.csv', hive_partitioning = true)")
                          ).to_arrow_table()
    assert duck_csv.to_pylist() == truth.to_pylist()
    assert (tmp_path / "c/k=1/part-0.csv").read_text().splitlines()[:2] == ["v,s", "1,r1"]
    ours = quiver_query(quiver_bin, "", sql.format(src=f"read_arrow('{tmp_path}/a')"))
    assert ours.to_pylist() == truth.to_pylist()
    arrow_back = ds.dataset(tmp_path / "a", format="arrow", partitioning="hive").to_table()
    assert sorted(arrow_back.column("v").to_pylist()) == list(range(1, 101))


def test_timestamp_keys_read_back_as_timestamps(quiver_bin, tmp_path):
    out = tmp_path / "o"
    run_sql(quiver_bin, f"COPY (SELECT TIMESTAMP '2024-03-01 10:00:00' + (g % 3) * INTERVAL '90.5 minutes' AS ts, "
                        f"g % 2 = 0 AS flag, g AS v FROM generate_series(1, 12) t(g)) TO '{out}' "
                        f"(FORMAT parquet, PARTITION_BY (ts, flag))")
    assert "ts=2024-03-01 11%3A30%3A30/flag=true/part-0.parquet" in listing(out)
    sql = "SELECT ts, flag, sum(v) AS s FROM {src} GROUP BY 1, 2 ORDER BY 1, 2"
    ours = quiver_query(quiver_bin, "", sql.format(src=f"read_parquet('{out}')"))
    assert ours.schema.field("ts").type == pa.timestamp("us")
    theirs = duckdb.sql(sql.format(src=f"read_parquet('{out}/**/*.parquet', hive_partitioning = true)"))
    # DuckDB keeps such keys as text: compare the text.
    assert [(str(r["ts"]), r["flag"], r["s"]) for r in ours.to_pylist()] == theirs.fetchall()
    t0 = datetime.datetime(2024, 3, 1, 10, 0, 0)
    assert ours.column("ts").to_pylist()[0] == t0 and ours.column("s").to_pylist()[0] == 3 + 9
