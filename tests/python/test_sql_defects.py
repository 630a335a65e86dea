"""Defects a new user met (issue 12 item 0), checked against the peers.

PostgreSQL 15 (Debian's postgresql-15, started by this module under a
temporary directory with a UTF-8 locale, as a PostgreSQL user's database
usually is) answers the SQL-semantics cases: ordered string_agg, Unicode
upper / lower / initcap, the CSV text of timestamps, times and intervals.
DuckDB answers the file cases (FROM 'file.parquet', nested Parquet
columns). Constraint refusals are Quiver's own behaviour (PostgreSQL would
enforce them): the tests check the error and that nothing was created.
"""

import csv
import datetime
import io

import duckdb
import pytest

import pg_oracle


@pytest.fixture(scope="module")
def pg():
    # A UTF-8 locale: upper('ü') is 'Ü' there, as in a PostgreSQL user's database.
    with pg_oracle.postgres(locale="C.UTF-8") as server:
        yield server


def quiver_csv(run_quiver, setup, query):
    """The result of `query` as Quiver's CSV output, without the header line."""
    script = "".join(s + ";\n" for s in setup) + query
    out = run_quiver("sql", "--format", "csv", script).stdout
    lines = out.splitlines(keepends=True)
    # Each setup statement prints its command tag; then the query's header.
    return "".join(lines[len(setup) + 1:])


# --- ordered aggregates ------------------------------------------------------

AGG_SETUP = [
    "CREATE TABLE s (g int, b text, k int)",
    "INSERT INTO s VALUES (1, 'c', 2), (1, 'a', NULL), (1, 'b', 1), (2, 'z', 1), (2, NULL, 0),"
    " (1, 'a', 3), (3, 'é', 5), (3, 'e', 4), (3, NULL, NULL)",
]

ORDERED_AGG_QUERIES = [
    "SELECT string_agg(b, ',' ORDER BY b) FROM s",
    "SELECT string_agg(b, ',' ORDER BY b DESC) FROM s",
    "SELECT g, string_agg(b, '-' ORDER BY k) FROM s GROUP BY g ORDER BY g",
    "SELECT g, string_agg(b, '-' ORDER BY k DESC) FROM s GROUP BY g ORDER BY g",
    "SELECT g, string_agg(b, '-' ORDER BY k NULLS FIRST) FROM s GROUP BY g ORDER BY g",
    "SELECT g, string_agg(b, '-' ORDER BY k DESC NULLS LAST) FROM s GROUP BY g ORDER BY g",
    "SELECT string_agg(b, '' ORDER BY k DESC NULLS LAST, b) FROM s",
    "SELECT string_agg(b, '' ORDER BY g DESC, b DESC) FROM s",
    "SELECT string_agg(DISTINCT b, '|' ORDER BY b DESC) FROM s",
    "SELECT string_agg(b, ',' ORDER BY b) FILTER (WHERE k > 0) FROM s",
    # (count(*) beside it: a lone NULL is a line PostgreSQL leaves empty and Quiver quotes)
    "SELECT count(*), string_agg(b, ',' ORDER BY b) FROM s WHERE false",
    "SELECT string_agg(b, k::text ORDER BY b, k NULLS FIRST) FROM s WHERE g < 3",
    "SELECT g, string_agg(k::text, ',' ORDER BY k::text) FROM s GROUP BY g ORDER BY g",
    "SELECT count(b ORDER BY k), sum(k ORDER BY b DESC), max(b ORDER BY k) FROM s",
]


@pytest.mark.parametrize("query", ORDERED_AGG_QUERIES)
def test_ordered_string_agg_matches_postgres(pg, run_quiver, query):
    assert quiver_csv(run_quiver, AGG_SETUP, query) == pg.csv(AGG_SETUP, query)


def test_order_by_in_aggregates_is_never_ignored(run_quiver):
    setup = "".join(s + ";" for s in AGG_SETUP)
    p = run_quiver("sql", setup + "SELECT lower(b ORDER BY k) FROM s", check=False)
    assert p.returncode != 0
    assert "ORDER BY specified, but lower is not an aggregate function" in p.stderr
    # array_agg sorts by its ORDER BY (arrays landed): the same order as string_agg's.
    p = run_quiver("sql", "--format", "csv", setup + "SELECT array_to_string(array_agg(b ORDER BY k), ',') "
                   "= string_agg(b, ',' ORDER BY k) FROM s")
    assert p.stdout.splitlines()[-1] == "true", p.stdout
    p = run_quiver("sql", setup + "SELECT string_agg(DISTINCT b, ',' ORDER BY k) FROM s", check=False)
    assert "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list" in p.stderr


# --- case mapping ------------------------------------------------------------

CASE_SETUP = [
    "CREATE TABLE w (s text)",
    "INSERT INTO w VALUES ('ü'), ('ÀÉÎ õ'), ('straße'), ('ΣΑΣ σας'), ('ǆemal'), (''), (NULL),"
    " ('hello WORLD 3rd-place'), ('élan vital-über ünd'), ('ÅNGSTRÖM'), ('abc😀xyz'), ('İstanbul'),"
    " ('ﬁne'), ('Ωmega ω'), ('ПРИВЕТ мир'), ('x''y z_w')",
]


@pytest.mark.parametrize("fn", ["upper", "lower", "initcap"])
def test_case_mapping_matches_postgres_utf8(pg, run_quiver, fn):
    query = f"SELECT s, {fn}(s) FROM w"
    assert quiver_csv(run_quiver, CASE_SETUP, query) == pg.csv(CASE_SETUP, query)


# --- timestamps, times and intervals as text ---------------------------------

DATETIME_QUERIES = [
    "SELECT timestamp '2024-02-29 00:00:00', timestamp '2024-02-29 12:00:00.5',"
    " timestamp '1999-12-31 23:59:59.999999', timestamp '2024-01-01 10:00:00.120'",
    "SELECT timestamptz '2024-02-29 00:00:00+00', timestamptz '2024-07-01 12:30:00.25+02'",
    "SELECT time '12:00:00', time '12:00:00.5', time '00:00:00.000001'",
    "SELECT interval '1 year 2 months 3 days 04:05:06.5', interval '0', interval '-1 day 2 hours',"
    " interval '1 day -2 hours', interval '-2 hours', interval '14 months', interval '-1 month',"
    " interval '1 day', interval '2 days 1 microsecond', interval '-1 year -2 mons +3 days'",
    "SELECT date '2024-02-29' - timestamp '2024-01-01 12:00:00',"
    " timestamp '2024-02-29 00:00:00' - timestamp '2024-02-28 23:59:59.75'",
]


@pytest.mark.parametrize("query", DATETIME_QUERIES)
def test_datetime_csv_text_matches_postgres(pg, run_quiver, query):
    assert quiver_csv(run_quiver, [], query) == pg.csv([], query)


def test_table_output_prints_no_zero_fraction(run_quiver):
    out = run_quiver("sql", "SELECT timestamp '2024-02-29 00:00:00' AS t, interval '1 month' AS i").stdout
    assert "2024-02-29 00:00:00 " in out and ".000000" not in out
    assert "1 mon " in out


def test_csv_with_timestamps_and_intervals_reads_back(run_quiver, tmp_path):
    """pyarrow and DuckDB read what Quiver writes (fractions only where non-zero)."""
    import pyarrow.csv as pacsv

    out = tmp_path / "t.csv"
    run_quiver("sql", f"COPY (SELECT timestamp '2024-02-29 00:00:00' + x * interval '1500 milliseconds' AS ts,"
                      f" interval '1 day' * x AS i FROM generate_series(0, 3) AS g(x)) TO '{out}'")
    t = pacsv.read_csv(out)
    assert [v.isoformat(sep=" ") for v in t.column("ts").to_pylist()] == [
        "2024-02-29 00:00:00", "2024-02-29 00:00:01.500000", "2024-02-29 00:00:03",
        "2024-02-29 00:00:04.500000"]
    assert t.column("i").to_pylist() == ["00:00:00", "1 day", "2 days", "3 days"]
    rows = duckdb.sql(f"SELECT ts::text, i FROM read_csv('{out}')").fetchall()
    assert [r[0] for r in rows] == ["2024-02-29 00:00:00", "2024-02-29 00:00:01.5",
                                    "2024-02-29 00:00:03", "2024-02-29 00:00:04.5"]
    # DuckDB's sniffer reads PostgreSQL's interval text as text here; the cast reads it as INTERVAL.
    assert [r[1] for r in rows] == ["00:00:00", "1 day", "2 days", "3 days"]
    assert [r[0] for r in duckdb.sql(f"SELECT i::interval FROM read_csv('{out}')").fetchall()] == [
        datetime.timedelta(days=d) for d in range(4)]


# --- CTEs referenced from a subquery -----------------------------------------

def test_tpch_q15_shape_with_group_by_alias(pg, run_quiver):
    setup = [
        "CREATE TABLE lineitem (l_suppkey int, l_extendedprice numeric(12,2), l_discount numeric(12,2))",
        "INSERT INTO lineitem VALUES (1, 100, 0.1), (2, 50, 0), (1, 20, 0.5), (3, 90, 0), (2, 40, 0)",
    ]
    query = ("WITH revenue AS (SELECT l_suppkey AS supplier_no,"
             " sum(l_extendedprice * (1 - l_discount)) AS total_revenue FROM lineitem GROUP BY supplier_no)"
             " SELECT supplier_no, total_revenue FROM revenue"
             " WHERE total_revenue = (SELECT max(total_revenue) FROM revenue) ORDER BY supplier_no")
    assert quiver_csv(run_quiver, setup, query) == pg.csv(setup, query)


# --- declared constraints ----------------------------------------------------

# PRIMARY KEY, UNIQUE, CHECK and DEFAULT are enforced (test_constraints.py);
# the constraints that are not are refused.
@pytest.mark.parametrize("ddl,kind", [
    ("CREATE TABLE z (k int REFERENCES y (k))", "FOREIGN KEY"),
    ("CREATE TABLE z (k int, EXCLUDE USING btree (k WITH =))", "EXCLUDE"),
])
def test_unenforced_constraints_are_refused(run_quiver, ddl, kind):
    p = run_quiver("sql", ddl + "; SELECT 1", check=False)
    assert p.returncode != 0
    assert f"unsupported: {kind} constraints are not enforced yet" in p.stderr
    assert "LINE 1:" in p.stderr and "^" in p.stderr


# --- files ---------------------------------------------------------------------

def test_from_string_literal_reads_the_file(run_quiver, shared_testdata):
    path = shared_testdata / "parquet-testing" / "data" / "alltypes_plain.parquet"
    query = f"SELECT id, string_col FROM '{path}' WHERE id > 2 ORDER BY id"
    got = list(csv.reader(io.StringIO(quiver_csv(run_quiver, [], query))))
    want = duckdb.sql(query).fetchall()
    assert [tuple(r) for r in got] == [(str(a), b.decode() if isinstance(b, bytes) else b) for a, b in want]
    joined = (f"SELECT count(*) FROM '{path}' a JOIN '{path}' b ON a.id = b.id, '{path}' c"
              " WHERE c.id = a.id")
    assert quiver_csv(run_quiver, [], joined).strip() == str(duckdb.sql(joined).fetchall()[0][0])


def test_nested_parquet_columns_are_never_dropped(run_quiver, shared_testdata):
    path = shared_testdata / "parquet-testing" / "data" / "nested_lists.snappy.parquet"
    # List columns are arrays now: `*` lists both columns, as DuckDB does.
    p = run_quiver("sql", "--format", "csv", f"SELECT * FROM '{path}'")
    assert p.stdout.splitlines()[0] == "a,b", p.stdout
    assert len(p.stdout.splitlines()) == 1 + duckdb.sql(f"SELECT count(*) FROM '{path}'").fetchall()[0][0]
    # Queries that do not name them still work, and agree with DuckDB.
    query = f"SELECT b, count(*) FROM '{path}' GROUP BY b"
    got = quiver_csv(run_quiver, [], query)
    assert got == "".join(f"{b},{n}\n" for b, n in duckdb.sql(query).fetchall())
