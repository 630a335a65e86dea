"""Window functions against PostgreSQL 15 itself.

Every query in QUERIES runs on the same small tables in Quiver (`quiver sql
--format arrow`) and in a PostgreSQL 15 server this module starts under a
temporary directory (Debian's postgresql-15: initdb + pg_ctl, as
bench/flight_bench.py does), and the answers must be equal: the same
columns, and the same rows as multisets (each query selects a row id, so
a window value that lands on the wrong row is caught); integers, decimals
and text exactly, floating-point values within 1e-9 relative.

tests/slt/*.test (sqllogictest format, expected results taken from
PostgreSQL 15) must pass in full under `quiver slt`.

The data has NULLs in partition and order keys, ties (peers), a partition of
one row and a table with no rows. REFUSED lists what Quiver does not do yet:
each must fail with an "unsupported: ..." error, never give an answer.
"""

import subprocess
from pathlib import Path

import pyarrow.ipc as ipc
import pytest

import pg_oracle


# id, g (partition key, NULLs), h, v (order key with ties and NULLs), x (float), d (numeric)
ROWS = [
    (1, "a", 1, 10, 1.5, "1.25"),
    (2, "a", 1, 20, 2.5, "2.50"),
    (3, "a", 2, 20, None, "3.75"),
    (4, "a", 2, None, 4.0, None),
    (5, "a", 1, 30, -1.0, "-5.00"),
    (6, "b", 1, 5, 5.0, "6.10"),
    (7, "b", 2, None, 7.0, "7.20"),
    (8, "b", 2, 5, None, "8.30"),
    (9, None, 1, 7, 6.0, "9.40"),
    (10, None, 1, 7, 7.5, None),
    (11, None, 2, 1, 0.25, "11.00"),
    (12, "c", 1, 100, 3.0, "12.00"),
    (13, "d", 3, 40, 2.0, "0.01"),
    (14, "d", 3, 40, 2.0, "0.02"),
    (15, "d", 3, 30, 1.0, "0.03"),
    (16, "d", None, 50, 9.0, "0.04"),
]


def _sql_value(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v + "'"
    return repr(v)


SETUP = (
    "CREATE TABLE t (id int, g text, h int, v int, x double precision, d numeric(10,2));"
    "INSERT INTO t VALUES "
    + ", ".join(
        "(" + ", ".join(_sql_value(c) if i != 5 or c is None else c for i, c in enumerate(r)) + ")"
        for r in ROWS
    )
    + ";"
    "CREATE TABLE e (id int, g text, v int);"
)

QUERIES = [
    # ranking, each over several windows
    "SELECT id, row_number() OVER (ORDER BY id) FROM t",
    "SELECT id, row_number() OVER (PARTITION BY g ORDER BY id DESC) FROM t",
    "SELECT id, rank() OVER (ORDER BY v), dense_rank() OVER (ORDER BY v) FROM t",
    "SELECT id, rank() OVER (PARTITION BY g ORDER BY v DESC), "
    "dense_rank() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST) FROM t",
    "SELECT id, rank() OVER (PARTITION BY g, h ORDER BY v NULLS FIRST) FROM t",
    "SELECT id, rank() OVER (), dense_rank() OVER (PARTITION BY g) FROM t",
    "SELECT id, percent_rank() OVER (ORDER BY v), cume_dist() OVER (ORDER BY v) FROM t",
    "SELECT id, percent_rank() OVER (PARTITION BY g ORDER BY x), "
    "cume_dist() OVER (PARTITION BY g ORDER BY x DESC) FROM t",
    "SELECT id, percent_rank() OVER (), cume_dist() OVER () FROM t",
    "SELECT id, ntile(3) OVER (ORDER BY id) FROM t",
    "SELECT id, ntile(4) OVER (PARTITION BY g ORDER BY id), ntile(1) OVER (ORDER BY id), "
    "ntile(100) OVER (ORDER BY id) FROM t",
    "SELECT id, ntile(h) OVER (PARTITION BY g ORDER BY id) FROM t",
    # navigation
    "SELECT id, lag(v) OVER (ORDER BY id), lead(v) OVER (ORDER BY id) FROM t",
    "SELECT id, lag(v, 2) OVER (PARTITION BY g ORDER BY id), "
    "lead(v, 2, -1) OVER (PARTITION BY g ORDER BY id) FROM t",
    "SELECT id, lag(x, 1, 0.5) OVER (PARTITION BY g ORDER BY id), "
    "lead(d, 1, 99.99) OVER (PARTITION BY g ORDER BY id) FROM t",
    "SELECT id, lag(g, 0) OVER (ORDER BY id), lead(g, -1) OVER (ORDER BY id), "
    "lag(id, h) OVER (ORDER BY id) FROM t",
    "SELECT id, lag(id, h, 0) OVER (PARTITION BY g ORDER BY id) FROM t",
    "SELECT id, first_value(x) OVER (PARTITION BY g ORDER BY id), "
    "last_value(x) OVER (PARTITION BY g ORDER BY id) FROM t",
    # (the value read is the order key, or the order is total: peers come in any order)
    "SELECT id, first_value(v) OVER (PARTITION BY g ORDER BY v), "
    "last_value(v) OVER (PARTITION BY g ORDER BY v), last_value(id) OVER (PARTITION BY g ORDER BY v, id) "
    "FROM t",
    "SELECT id, first_value(g) OVER (ORDER BY v DESC), last_value(g) OVER (ORDER BY v DESC) FROM t",
    "SELECT id, nth_value(id, 2) OVER (PARTITION BY g ORDER BY id), "
    "nth_value(x, 3) OVER (ORDER BY id) FROM t",
    "SELECT id, nth_value(v, 2) OVER (PARTITION BY g ORDER BY v), "
    "nth_value(g, 1) OVER (PARTITION BY g) FROM t",
    "SELECT id, first_value(h) OVER (PARTITION BY h), last_value(g) OVER (PARTITION BY g) FROM t",
    # aggregates over the default frame (running with peers; whole partition without ORDER BY)
    "SELECT id, sum(v) OVER (ORDER BY id), count(v) OVER (ORDER BY id), "
    "count(*) OVER (ORDER BY id) FROM t",
    "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY v), count(*) OVER (PARTITION BY g ORDER BY v) "
    "FROM t",
    "SELECT id, avg(v) OVER (PARTITION BY g ORDER BY v), avg(x) OVER (PARTITION BY g ORDER BY v) FROM t",
    "SELECT id, sum(d) OVER (PARTITION BY g ORDER BY id), avg(d) OVER (ORDER BY v, id) FROM t",
    "SELECT id, min(v) OVER (PARTITION BY g ORDER BY id), max(v) OVER (PARTITION BY g ORDER BY id), "
    "min(g) OVER (ORDER BY id), max(g) OVER (ORDER BY id) FROM t",
    "SELECT id, sum(x) OVER (), count(*) OVER (), avg(v) OVER (PARTITION BY g), "
    "max(d) OVER (PARTITION BY h) FROM t",
    "SELECT id, sum(v) OVER (ORDER BY v DESC NULLS LAST), sum(v) OVER (ORDER BY v NULLS FIRST) FROM t",
    "SELECT id, sum(x) OVER (PARTITION BY g ORDER BY h), min(d) OVER (PARTITION BY g ORDER BY h DESC) "
    "FROM t",
    "SELECT id, count(*) FILTER (WHERE v > 10) OVER (PARTITION BY g ORDER BY id), "
    "sum(v) FILTER (WHERE h = 1) OVER (ORDER BY id) FROM t",
    # ROWS frames
    # (frames of at most 16 rows between two offsets are folded directly; 17 and more
    # through the segment tree: both sides of that line, per partition, with FILTER)
    "SELECT id, avg(d) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 4 FOLLOWING), "
    "count(*) OVER (PARTITION BY h ORDER BY v, id ROWS BETWEEN 15 PRECEDING AND CURRENT ROW), "
    "sum(id) OVER (ORDER BY id ROWS BETWEEN 16 PRECEDING AND CURRENT ROW), "
    "avg(v) FILTER (WHERE x > 1) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING), "
    "string_agg(g, '') OVER (ORDER BY id DESC ROWS BETWEEN CURRENT ROW AND CURRENT ROW) FROM t",
    "SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), "
    "count(v) OVER (ORDER BY id ROWS 2 PRECEDING), avg(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) "
    "FROM t",
    "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
    "sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), "
    "count(*) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t",
    "SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING), "
    "sum(v) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING), "
    "count(*) OVER (ORDER BY id ROWS BETWEEN 5 FOLLOWING AND 2 FOLLOWING) FROM t",
    "SELECT id, min(x) OVER (PARTITION BY h ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), "
    "max(g) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 0 FOLLOWING), "
    "min(d) OVER (ORDER BY id ROWS BETWEEN 1000 PRECEDING AND 1000 FOLLOWING) FROM t",
    "SELECT id, first_value(id) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), "
    "last_value(id) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), "
    "nth_value(id, 3) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) FROM t",
    "SELECT id, last_value(id) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND "
    "UNBOUNDED FOLLOWING), first_value(x) OVER (ORDER BY id ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING) FROM t",
    "SELECT id, string_agg(g, ',') OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t",
    "SELECT id, sum(v) FILTER (WHERE h = 1) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING) FROM t",
    # RANGE frames
    "SELECT id, sum(v) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), "
    "sum(v) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), "
    "count(*) OVER (ORDER BY v RANGE CURRENT ROW) FROM t",
    "SELECT id, sum(id) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING), "
    "count(*) OVER (ORDER BY v RANGE BETWEEN 10 PRECEDING AND CURRENT ROW), "
    "count(*) OVER (ORDER BY v DESC RANGE BETWEEN 10 PRECEDING AND 1 FOLLOWING) FROM t",
    "SELECT id, count(*) OVER (PARTITION BY g ORDER BY v NULLS FIRST RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING), "
    "sum(id) OVER (ORDER BY v NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND 5 PRECEDING), "
    "sum(id) OVER (ORDER BY v DESC NULLS LAST RANGE BETWEEN 5 FOLLOWING AND UNBOUNDED FOLLOWING) FROM t",
    "SELECT id, sum(id) OVER (ORDER BY x RANGE BETWEEN 1.5 PRECEDING AND 0.5 FOLLOWING), "
    "count(*) OVER (ORDER BY x DESC RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t",
    "SELECT id, sum(id) OVER (ORDER BY d RANGE BETWEEN 1.5 PRECEDING AND 1 FOLLOWING), "
    "first_value(d) OVER (ORDER BY d RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING) FROM t",
    "SELECT id, first_value(id) OVER (ORDER BY v, id RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), "
    "last_value(v) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND 10 FOLLOWING) FROM t",
    "SELECT id, count(*) OVER (ORDER BY day RANGE BETWEEN INTERVAL '2 days' PRECEDING AND CURRENT ROW), "
    "sum(id) OVER (ORDER BY ts RANGE BETWEEN '1 day 12:00:00' PRECEDING AND '1 hour' FOLLOWING) "
    "FROM (SELECT id, DATE '2024-02-27' + id AS day, TIMESTAMP '2024-02-28 00:00:00' + id * INTERVAL '7 hours' AS ts FROM t) s",
    "SELECT id, count(*) OVER (ORDER BY day RANGE BETWEEN INTERVAL '1 month' PRECEDING AND CURRENT ROW), "
    "sum(id) OVER (ORDER BY day DESC RANGE BETWEEN INTERVAL '1 month 2 days' PRECEDING AND "
    "INTERVAL '1 year' FOLLOWING), "
    "count(*) OVER (ORDER BY ts RANGE BETWEEN CURRENT ROW AND INTERVAL '2 months -3 days 01:00:00' FOLLOWING) "
    "FROM (SELECT id, DATE '2023-11-30' + id * 9 AS day, TIMESTAMP '2024-01-31 12:00:00' + id * INTERVAL '10 days' "
    "AS ts FROM t) s",
    # GROUPS frames
    "SELECT id, sum(id) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING), "
    "count(*) OVER (ORDER BY v GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING), "
    "sum(id) OVER (PARTITION BY g ORDER BY h GROUPS 1 PRECEDING) FROM t",
    "SELECT id, sum(id) OVER (ORDER BY v GROUPS BETWEEN 2 PRECEDING AND 1 PRECEDING), "
    "sum(id) OVER (ORDER BY v DESC GROUPS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), "
    "first_value(v) OVER (ORDER BY v GROUPS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) FROM t",
    # EXCLUDE
    "SELECT id, sum(id) OVER (ORDER BY v, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW), "
    "sum(id) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP), "
    "sum(id) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE TIES), "
    "count(*) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE NO OTHERS) FROM t",
    "SELECT id, first_value(v) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE GROUP), "
    "last_value(v) OVER (ORDER BY v, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW), "
    "nth_value(v, 2) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) FROM t",
    "SELECT id, count(*) OVER (PARTITION BY g ORDER BY h ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING "
    "EXCLUDE TIES), max(x) OVER (PARTITION BY g ORDER BY h GROUPS CURRENT ROW EXCLUDE CURRENT ROW) FROM t",
    # other aggregates over frames
    "SELECT id, bool_and(v > 5) OVER (ORDER BY id ROWS 2 PRECEDING), bool_or(v > 30) OVER (PARTITION BY g), "
    "stddev_samp(x) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING), "
    "var_pop(v) OVER (ORDER BY id) FROM t",
    # expressions in and around window calls
    "SELECT id, sum(v * 2 + h) OVER (PARTITION BY upper(g) ORDER BY v + h, id) FROM t",
    "SELECT id, row_number() OVER (ORDER BY id) * 10 + rank() OVER (ORDER BY v) AS r FROM t",
    "SELECT id, v - lag(v) OVER (PARTITION BY g ORDER BY id) AS delta FROM t",
    "SELECT id, 100.0 * v / sum(v) OVER (PARTITION BY g) AS pct FROM t",
    # several windows, named windows
    "SELECT id, rank() OVER w, sum(v) OVER w, lag(id) OVER w2 FROM t "
    "WINDOW w AS (PARTITION BY g ORDER BY v), w2 AS (PARTITION BY g ORDER BY v, id)",
    "SELECT id, sum(v) OVER (w ORDER BY id), count(*) OVER w FROM t WINDOW w AS (PARTITION BY g)",
    "SELECT id, rank() OVER w2 FROM t WINDOW w1 AS (PARTITION BY h), w2 AS (w1 ORDER BY v DESC)",
    "SELECT id, row_number() OVER (ORDER BY x, id), row_number() OVER (ORDER BY id DESC), "
    "sum(id) OVER (PARTITION BY h ORDER BY id), count(*) OVER (PARTITION BY g, h) FROM t",
    # windows whose ORDER BY is a prefix of another's share its sort, with their own peers
    "SELECT id, rank() OVER (PARTITION BY g ORDER BY v), sum(id) OVER (PARTITION BY g ORDER BY v, id), "
    "count(*) OVER (PARTITION BY g), sum(id) OVER (PARTITION BY g ORDER BY v DESC), "
    "last_value(id) OVER (PARTITION BY g ORDER BY v, x, id), dense_rank() OVER (ORDER BY h), "
    "sum(id) OVER (ORDER BY h, v GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
    # WHERE, ORDER BY, LIMIT, DISTINCT, subqueries around windows
    "SELECT id, row_number() OVER (ORDER BY id) FROM t WHERE v > 5",
    "SELECT id, rank() OVER (ORDER BY v) FROM t ORDER BY rank() OVER (ORDER BY v), id",
    "SELECT id FROM t ORDER BY row_number() OVER (ORDER BY x DESC NULLS LAST, id) LIMIT 5",
    "SELECT id, rn FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) rn FROM t) s "
    "WHERE rn <= 2",
    "SELECT DISTINCT g, count(*) OVER (PARTITION BY g) FROM t",
    "SELECT id, (SELECT max(v) FROM t) - sum(v) OVER (ORDER BY id) FROM t",
    "WITH r AS (SELECT g, id, sum(v) OVER (PARTITION BY g ORDER BY id) s FROM t) "
    "SELECT g, max(s) FROM r GROUP BY g",
    # over aggregates (GROUP BY)
    "SELECT g, sum(v), sum(sum(v)) OVER (ORDER BY g), rank() OVER (ORDER BY sum(v) DESC) FROM t GROUP BY g",
    "SELECT g, h, count(*), sum(count(*)) OVER (PARTITION BY g), "
    "row_number() OVER (PARTITION BY g ORDER BY h) FROM t GROUP BY g, h",
    "SELECT h, avg(x), lag(avg(x)) OVER (ORDER BY h) FROM t GROUP BY h HAVING count(*) > 1",
    "SELECT count(*), sum(count(*)) OVER () FROM t",
    # empty input and empty partitions
    "SELECT id, row_number() OVER (ORDER BY id), sum(v) OVER (PARTITION BY g) FROM e",
    "SELECT id, lag(v) OVER (ORDER BY id), ntile(2) OVER () FROM t WHERE false",
    "SELECT g, count(*) OVER () FROM e GROUP BY g",
]

REFUSED = [
    ("SELECT id, sum(id) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1 month' PRECEDING AND CURRENT ROW) "
     "FROM (SELECT id, CAST(TIMESTAMP '2024-01-01 00:00:00' + id * INTERVAL '1 day' AS timestamptz) ts FROM t) s",
     "unsupported"),
    ("SELECT id, count(DISTINCT v) OVER (PARTITION BY g) FROM t", "DISTINCT is not implemented"),
    ("SELECT id, row_number() FILTER (WHERE v > 1) OVER () FROM t", "FILTER is not implemented"),
    ("SELECT id, string_agg(g, ',' ORDER BY g) OVER () FROM t", "not implemented"),
]

ERRORS = [
    ("SELECT id FROM t WHERE row_number() OVER () > 1", "window functions are not allowed in WHERE"),
    ("SELECT g FROM t GROUP BY g HAVING rank() OVER () > 1", "window functions are not allowed in HAVING"),
    ("SELECT sum(row_number() OVER ()) FROM t", "cannot contain window function calls"),
    ("SELECT lag(row_number() OVER ()) OVER () FROM t", "cannot be nested"),
    ("SELECT rank() OVER w FROM t", 'window "w" does not exist'),
    ("SELECT rank() OVER (w ORDER BY v) FROM t WINDOW w AS (ORDER BY id)",
     'cannot override ORDER BY clause of window "w"'),
    ("SELECT rank() OVER (w PARTITION BY v) FROM t WINDOW w AS (ORDER BY id)",
     'cannot override PARTITION BY clause of window "w"'),
    ("SELECT lower(g) OVER () FROM t", "is not a window function nor an aggregate function"),
    ("SELECT ntile(0) OVER () FROM t", "argument of ntile must be greater than zero"),
    ("SELECT nth_value(id, 0) OVER () FROM t", "argument of nth_value must be greater than zero"),
    ("SELECT sum(v) OVER (GROUPS 1 PRECEDING) FROM t", "GROUPS mode requires an ORDER BY clause"),
    ("SELECT sum(v) OVER (ORDER BY v, id RANGE 1 PRECEDING) FROM t",
     "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"),
    ("SELECT sum(v) OVER (ORDER BY v ROWS v PRECEDING) FROM t", "argument of ROWS must not contain variables"),
    ("SELECT sum(v) OVER (ORDER BY v ROWS -1 PRECEDING) FROM t", "frame starting offset must not be negative"),
    ("SELECT sum(v) OVER (ORDER BY v ROWS BETWEEN 1 PRECEDING AND NULL FOLLOWING) FROM t",
     "frame ending offset must not be null"),
    ("SELECT sum(v) OVER (ORDER BY v RANGE -1 PRECEDING) FROM t",
     "invalid preceding or following size in window function"),
    ("SELECT sum(v) OVER (ORDER BY g RANGE 1 PRECEDING) FROM t",
     "RANGE with offset PRECEDING/FOLLOWING is not supported for column type text"),
    ("SELECT id, sum(v) OVER (PARTITION BY g) FROM t GROUP BY g",
     'column "id" must appear in the GROUP BY clause'),
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_window_matches_postgres(quiver_bin, pg, sql):
    pg_oracle.assert_same_rows(pg_oracle.quiver_rows(quiver_bin, SETUP + sql), pg(sql), sql)


@pytest.mark.parametrize("sql,message", REFUSED + ERRORS)
def test_window_errors(quiver_bin, sql, message):
    proc = subprocess.run([str(quiver_bin), "sql", SETUP + sql], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0, f"{sql} should fail, gave:\n{proc.stdout}"
    assert message in proc.stderr, proc.stderr


def test_slt_scripts(quiver_bin):
    """The project's own sqllogictest scripts (tests/slt) pass in full."""
    slt_dir = Path(__file__).resolve().parents[1] / "slt"
    proc = subprocess.run([str(quiver_bin), "slt", str(slt_dir)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed, 0 skipped" in proc.stdout.splitlines()[-1], proc.stdout


# Larger inputs: many partitions computed in parallel, segment trees over
# long partitions, sorts shared between windows. DuckDB computes these
# functions as PostgreSQL does; each query reduces its window column to a
# few numbers, compared at 1, 2 and 7 threads.
LARGE_N = 200_000
LARGE_QUERIES = [
    "sum(a % 97) OVER (PARTITION BY a % 13 ORDER BY a ROWS BETWEEN 50 PRECEDING AND 25 FOLLOWING)",
    "min(a % 1009) OVER (ORDER BY a ROWS BETWEEN 300 PRECEDING AND 3 PRECEDING)",
    "max((a * 7919) % 10007) OVER (PARTITION BY a % 5 ORDER BY a ROWS BETWEEN CURRENT ROW AND 1000 FOLLOWING)",
    "count(*) OVER (PARTITION BY a % 7 ORDER BY a % 1000 RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING)",
    "sum(a) OVER (PARTITION BY a % 3 ORDER BY a % 50 GROUPS BETWEEN 2 PRECEDING AND 1 FOLLOWING)",
    "rank() OVER (PARTITION BY a % 11 ORDER BY a % 1000 DESC)",
    "dense_rank() OVER (ORDER BY a % 777)",
    "sum(a % 10) OVER (PARTITION BY a % 1000 ORDER BY a)",
    "lag(a, 3, -1) OVER (PARTITION BY a % 17 ORDER BY a)",
    "ntile(7) OVER (PARTITION BY a % 4 ORDER BY a)",
    "nth_value(a, 5) OVER (PARTITION BY a % 9 ORDER BY a ROWS BETWEEN 10 PRECEDING AND 10 FOLLOWING)",
]


@pytest.mark.parametrize("expr", LARGE_QUERIES)
def test_window_large(quiver_bin, expr):
    import duckdb

    sql = (f"SELECT sum(w), count(w), min(w), max(w) FROM (SELECT {expr} AS w "
           f"FROM generate_series(1, {LARGE_N}) g(a)) s")
    want = [float(v) if v is not None else None for v in duckdb.sql(sql).fetchall()[0]]
    for threads in (1, 2, 7):
        proc = subprocess.run([str(quiver_bin), "sql", "--threads", str(threads), "--format", "arrow", sql],
                              capture_output=True, timeout=300)
        assert proc.returncode == 0, proc.stderr.decode()
        table = ipc.open_stream(proc.stdout).read_all()
        got = [c.to_pylist()[0] for c in table.columns]
        got = [float(v) if v is not None else None for v in got]
        assert got == want, f"{expr} at {threads} threads: {got} != {want}"
