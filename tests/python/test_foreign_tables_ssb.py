"""Foreign tables at work on the Star Schema Benchmark (issue 13's proofs).

* SSB's 13 queries over foreign tables (one `CREATE FOREIGN TABLE ... SERVER
  arrow_fdw` per table, over the Arrow files `quiver gen ssb` writes) give
  DuckDB's answers over the same files.
* Skipping is real: lineorder sorted by lo_orderdate and written with
  PG-Strom min/max statistics (`COPY ... (FORMAT arrow, STATS ...)`); a query
  on one quarter loads at most 10 % of the record batches (EXPLAIN ANALYZE's
  Stats-Hint numbers) and answers as the same file without statistics does.
* The same rows cut into one file per month and declared with a virtual
  column (`pattern 'lo_@{ym}.arrow'`): a predicate on the month opens 3 of the
  files, and the answer equals DuckDB's over a Hive-partitioned copy
  (`ym=YYYYMM/`, hive_partitioning) and Quiver's own read_parquet of it.

bench/file_tables.py times the same shapes at SF 10 against DuckDB.
"""

import re
import subprocess
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc
import pytest

from result_compare import assert_same_result

ROOT = Path(__file__).resolve().parents[2]
SSB_QUERIES = sorted((ROOT / "bench" / "queries" / "ssb").glob("*.sql"))
SSB_TABLES = ["lineorder", "customer", "supplier", "part", "date"]
SF = 0.05

HINT = re.compile(r"Stats-Hint: .* \[loaded: (\d+), skipped: (\d+)\]")
FILES = re.compile(r"files: (\d+) read, (\d+) skipped by virtual columns")

QUARTER = ("SELECT sum(lo_extendedprice * lo_discount) AS revenue, count(*) AS n FROM {t} "
           "WHERE lo_orderdate BETWEEN 19940101 AND 19940331 AND lo_discount BETWEEN 1 AND 3 "
           "AND lo_quantity < 25")
MONTHS = ("SELECT ym, count(*) AS n, sum(lo_revenue) AS revenue FROM {t} "
          "WHERE ym BETWEEN 199401 AND 199403 GROUP BY ym ORDER BY ym")


def quiver(quiver_bin, sql, fmt="arrow"):
    proc = subprocess.run([str(quiver_bin), "sql", "--format", fmt, sql], capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    return ipc.open_stream(proc.stdout).read_all() if fmt == "arrow" else proc.stdout.decode()


def sql_type(field):
    return {pa.int32(): "integer", pa.int64(): "bigint", pa.string(): "text", pa.date32(): "date",
            pa.float64(): "double precision"}[field.type]


def foreign_table(name, path, schema, options=None):
    cols = ", ".join(f"{f.name} {sql_type(f)}" for f in schema)
    opts = options or f"file '{path}'"
    return f"CREATE FOREIGN TABLE {name} ({cols}) SERVER arrow_fdw OPTIONS ({opts});\n"


@pytest.fixture(scope="module")
def ssb(quiver_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("ssb_foreign")
    subprocess.run([str(quiver_bin), "gen", "ssb", "--sf", str(SF), "--batch-rows", "7000", "--out", str(d),
                    "--quiet"], check=True, capture_output=True, timeout=300)
    schemas = {t: ipc.open_file(d / f"{t}.arrow").schema for t in SSB_TABLES}
    prelude = "CREATE EXTENSION IF NOT EXISTS arrow_fdw;\n"
    prelude += "".join(foreign_table(t, d / f"{t}.arrow", schemas[t]) for t in SSB_TABLES)
    con = duckdb.connect()
    for t in SSB_TABLES:
        con.register(f"{t}_arrow", ipc.open_file(d / f"{t}.arrow").read_all())
        con.execute(f'CREATE TABLE "{t}" AS SELECT * FROM {t}_arrow')
    return d, schemas, prelude, con


@pytest.mark.parametrize("query", SSB_QUERIES, ids=lambda p: p.stem)
def test_ssb_over_foreign_tables_equals_duckdb(quiver_bin, ssb, query):
    _, _, prelude, con = ssb
    sql = query.read_text()
    assert_same_result(quiver(quiver_bin, prelude + sql), con.sql(sql).to_arrow_table(), sql, "duckdb")


@pytest.fixture(scope="module")
def sorted_files(quiver_bin, ssb):
    d, schemas, _, _ = ssb
    src = d / "lineorder.arrow"
    quiver(quiver_bin,
           f"COPY (SELECT * FROM '{src}' ORDER BY lo_orderdate) TO '{d}/lo_stats.arrow' "
           f"(FORMAT arrow, STATS 'lo_orderdate', BATCH_ROWS 2048);"
           f"COPY (SELECT * FROM '{src}' ORDER BY lo_orderdate) TO '{d}/lo_plain.arrow' (FORMAT arrow, BATCH_ROWS 2048)", "csv")
    return d, schemas["lineorder"]


def explain_analyze(quiver_bin, prelude, sql):
    return quiver(quiver_bin, prelude + "EXPLAIN ANALYZE " + sql, "table")


def test_statistics_skip_all_but_one_quarter_of_the_batches(quiver_bin, ssb, sorted_files):
    d, schema = sorted_files
    con = ssb[3]
    stats = foreign_table("lo", d / "lo_stats.arrow", schema)
    plain = foreign_table("lo", d / "lo_plain.arrow", schema)
    sql = QUARTER.format(t="lo")

    batches = ipc.open_file(d / "lo_stats.arrow").num_record_batches
    assert batches >= 100, batches  # enough batches for the fraction to mean something
    m = HINT.search(explain_analyze(quiver_bin, stats, sql))
    assert m, "no Stats-Hint in EXPLAIN ANALYZE"
    loaded, skipped = int(m.group(1)), int(m.group(2))
    assert loaded + skipped == batches, (loaded, skipped, batches)
    assert loaded <= 0.10 * batches, (loaded, batches)
    assert loaded >= 1

    # The file without statistics is read in full and answers the same, as DuckDB does.
    assert not HINT.search(explain_analyze(quiver_bin, plain, sql)) or \
        HINT.search(explain_analyze(quiver_bin, plain, sql)).group(2) == "0"
    with_stats = quiver(quiver_bin, stats + sql)
    assert_same_result(with_stats, quiver(quiver_bin, plain + sql), sql, "without statistics", same_engine=True)
    assert_same_result(with_stats, con.sql(QUARTER.format(t="lineorder")).to_arrow_table(), sql, "duckdb")
    assert with_stats.column("n")[0].as_py() > 0


@pytest.fixture(scope="module")
def monthly_files(quiver_bin, ssb):
    """lineorder cut by month: flat Arrow files lo_YYYYMM.arrow for a virtual column, and a
    Hive-partitioned Parquet copy (ym=YYYYMM/) written by DuckDB for DuckDB's own pruning."""
    d, schemas, _, con = ssb
    flat, hive = d / "monthly", d / "hive"
    flat.mkdir()
    months = [r[0] for r in con.sql("SELECT DISTINCT lo_orderdate // 100 FROM lineorder ORDER BY 1").fetchall()]
    assert len(months) >= 72, len(months)
    src = d / "lineorder.arrow"
    script = "".join(f"COPY (SELECT * FROM '{src}' WHERE lo_orderdate / 100 = {m}) TO '{flat}/lo_{m}.arrow' "
                     f"(FORMAT arrow);\n" for m in months)
    quiver(quiver_bin, script, "csv")
    con.execute(f"COPY (SELECT *, lo_orderdate // 100 AS ym FROM lineorder) TO '{hive}' "
                f"(FORMAT parquet, PARTITION_BY (ym))")
    return flat, hive, months, schemas["lineorder"]


def test_virtual_column_opens_only_the_months_asked_for(quiver_bin, ssb, monthly_files):
    flat, hive, months, schema = monthly_files
    con = ssb[3]
    table = foreign_table("lo", None, schema, f"dir '{flat}', pattern 'lo_@{{ym}}.arrow'")
    table = table.replace(") SERVER", ", ym bigint OPTIONS (virtual 'ym')) SERVER", 1)
    sql = MONTHS.format(t="lo")

    m = FILES.search(explain_analyze(quiver_bin, table, sql))
    assert m and (int(m.group(1)), int(m.group(2))) == (3, len(months) - 3), m and m.group(0)

    ours = quiver(quiver_bin, table + sql)
    duck_sql = MONTHS.format(t=f"read_parquet('{hive}/*/*.parquet', hive_partitioning = true)")
    assert_same_result(ours, con.sql(duck_sql).to_arrow_table(), sql, "duckdb over the Hive copy")
    assert ours.num_rows == 3
    # Quiver over DuckDB's Hive directory prunes the same way and agrees.
    hive_sql = MONTHS.format(t=f"read_parquet('{hive}')")
    out = explain_analyze(quiver_bin, "", hive_sql)
    m = FILES.search(out)
    assert m and (int(m.group(1)), int(m.group(2))) == (3, len(months) - 3), out
    assert_same_result(quiver(quiver_bin, hive_sql), ours, sql, "quiver over the Hive copy", same_engine=True)
