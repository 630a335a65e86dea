"""numeric division and the numeric aggregates against PostgreSQL 15 (issue 12).

PostgreSQL rounds numeric / numeric (and avg, which is sum / count) half away
from zero at select_div_scale digits after the point: at least 16
significant digits, at least either input's scale. var_samp / var_pop /
variance / stddev_samp / stddev_pop / stddev of smallint, integer, bigint
and numeric are numeric too, computed exactly from the sums of x and x^2.
Quiver gives the same values (each query's rows must be equal to
PostgreSQL's, numbers compared exactly, by value: Quiver's decimal column
may print trailing zeros that PostgreSQL's per-value scale leaves out) and
the same types (pg_typeof).

REFUSED: PostgreSQL's result needs more digits than Quiver's numeric column
holds (20 after the point, or the inputs' scale, and 38 in all; a product
of two such columns keeps the larger scale where PostgreSQL's has their
sum); Quiver
must refuse it (0A000) naming PostgreSQL's value, never round it
differently. ERRORS: both refuse with the same SQLSTATE.
"""

import json

import pytest

import pg_oracle

SETUP = """
CREATE TABLE n (id int, g int, i int, b bigint, s smallint, d numeric(12,2), e numeric(20,6),
                w numeric(38,0));
INSERT INTO n VALUES
  (1, 1, 1, 10, 1, 1.50, 0.000001, 1),
  (2, 1, 2, 20, 2, 2.25, 123.456789, 10),
  (3, 1, 2, NULL, NULL, NULL, NULL, NULL),
  (4, 2, -7, -900000000, -32768, -99999.99, -0.5, 999999999),
  (5, 2, 1000000, 900000000, 32767, 12345678.91, 3.333333, -123456789),
  (6, 2, 0, 3, 0, 0.01, 0, 3),
  (7, 3, 5, 5, 5, 5.00, 5.000000, 5),
  (8, 4, NULL, NULL, NULL, NULL, NULL, NULL);
"""

QUERIES = [
    # Literals: the 16-significant-digit rule picks the scale.
    "SELECT 1::numeric / 3, 2::numeric / 3, 10000::numeric / 3, 1::numeric / 7",
    "SELECT 1.0 / 3, 10.0 / 4, 123.456 / 7.89, 0.5 / 0.25",
    "SELECT 100::numeric / 3, 1000::numeric / 3, 99999::numeric / 3, 100000000::numeric / 3",
    "SELECT 9999::numeric / 10000, 10000::numeric / 9999, 1::numeric / 9999, 5000::numeric / 5001",
    "SELECT -1::numeric / 3, 1::numeric / -3, (-2)::numeric / (-3), -7.5 / 2",
    "SELECT 5::numeric / 10000000, 0.0000000001 / 4, 0.000001 / 8, 1::numeric / 1024",
    "SELECT 12345678901234567.0 / 3, 99999999999999999 / 7.0, 123456789012.345 / 0.001",
    "SELECT 2::numeric / 3 * 3, (1::numeric / 3) + (2::numeric / 3), 1 / (1::numeric / 3)",
    "SELECT 0::numeric / 7, 0.000::numeric / 3.5, 7::numeric / 7, 22::numeric / 7",
    "SELECT 1.23456789012345678901234 / 3, 0.12345678901234567890123456 / 1.5",
    "SELECT 3.14159 / 2.71828, 2.71828 / 3.14159, 1.41421356 / 1.73205081",
    # Integers meet numeric.
    "SELECT 7 / 2.0, 7.0 / 2, 10 / 4::numeric, 2147483647 / 3.0, 9223372036854775807 / 10.0",
    # Products keep both scales (past 38 digits after the point: exact ones only).
    "SELECT avg(x) * avg(y), avg(x) * 2, (1::numeric / 4) * (1::numeric / 8) FROM (VALUES (69, 46)) t(x, y)",
    "SELECT 12345678901234567890::numeric * 1234567890123456, 1.5::numeric(38,20) * 2.5::numeric(38,20)",
    # Columns (rows of several magnitudes, NULLs).
    "SELECT id, i::numeric / 3, b::numeric / 7, s::numeric / 9 FROM n",
    "SELECT id, d / 7, d / 3.0, e / 4, w / 3 FROM n",
    "SELECT id, d / NULLIF(i, 0), d / NULLIF(e, 0) FROM n WHERE id IN (1, 2, 5, 7, 8)",
    "SELECT id, i / d, b / d FROM n WHERE id IN (1, 2, 7)",
    "SELECT id, (d * 3) / 7, d / (e + 1) FROM n WHERE id IN (1, 2, 3, 7)",
    "SELECT id, round(d / 7, 4), trunc(e / 4, 3) FROM n",
    # avg over every exact type, grouped and not, with NULLs.
    "SELECT g, avg(i), avg(b), avg(s), avg(d), avg(e), avg(w) FROM n GROUP BY g",
    "SELECT avg(i), avg(b), avg(s), avg(d), avg(e), avg(w) FROM n",
    "SELECT avg(x) FROM generate_series(1, 1000) x",
    "SELECT avg(x), avg(x * 2), avg(-x) FROM generate_series(1, 3) x",
    "SELECT avg(x::numeric(10,3)) FROM (VALUES (1.001), (2.002), (4.004)) t(x)",
    "SELECT avg(i) FILTER (WHERE i > 0), avg(DISTINCT i), avg(d) FILTER (WHERE g = 1) FROM n",
    "SELECT g, sum(d) / count(d), sum(i) / count(*)::numeric FROM n GROUP BY g",
    # variance and stddev: numeric for integer and numeric inputs.
    "SELECT g, stddev(i), stddev_samp(b), stddev_pop(s) FROM n GROUP BY g",
    "SELECT g, variance(i), var_samp(b), var_pop(s) FROM n GROUP BY g",
    "SELECT g, stddev(d), variance(d), stddev_pop(e), var_pop(e) FROM n GROUP BY g",
    "SELECT g, stddev(w), var_pop(w), var_samp(e), stddev_samp(d) FROM n GROUP BY g",
    "SELECT stddev(i), variance(i), stddev_pop(i), var_pop(i), stddev_samp(i), var_samp(i) FROM n",
    "SELECT stddev(d), variance(e), var_pop(b), stddev_pop(w), var_samp(s) FROM n",
    "SELECT stddev(x), variance(x), stddev_pop(x), var_pop(x) FROM generate_series(1, 1000) x",
    "SELECT stddev(x), variance(x) FROM (VALUES (1), (2), (2)) t(x)",
    "SELECT stddev(x), var_samp(x), stddev_pop(x) FROM (VALUES (1.5), (2.5), (2.5), (10.25)) t(x)",
    "SELECT stddev(x), variance(x) FROM (VALUES (4), (4), (4)) t(x)",
    "SELECT stddev_pop(x::bigint), var_pop(x::smallint) FROM generate_series(-50, 50, 7) x",
    # One row: the sample statistics are NULL, the population ones 0.
    "SELECT stddev_samp(i), var_samp(d), variance(b), stddev(e) FROM n WHERE id = 1",
    "SELECT stddev_pop(i), var_pop(d), stddev_pop(b), var_pop(e) FROM n WHERE id = 1",
    "SELECT g, count(i), stddev_samp(i), var_samp(d), stddev_pop(i) FROM n GROUP BY g",
    # No rows, only NULLs.
    "SELECT avg(i), stddev(i), variance(d), var_pop(b) FROM n WHERE false",
    "SELECT avg(i), stddev_pop(i), variance(d) FROM n WHERE id = 8",
    "SELECT g, stddev(i) FILTER (WHERE i > 0), variance(DISTINCT i) FROM n GROUP BY g",
    # Windows.
    "SELECT id, avg(i) OVER (PARTITION BY g), stddev(i) OVER (PARTITION BY g) FROM n",
    "SELECT id, avg(d) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM n",
    # Types.
    "SELECT pg_typeof(avg(i)), pg_typeof(avg(b)), pg_typeof(avg(s)), pg_typeof(avg(d)), "
    "pg_typeof(stddev(i)), pg_typeof(variance(b)), pg_typeof(stddev_pop(s)), "
    "pg_typeof(var_samp(d)), pg_typeof(var_pop(e)), pg_typeof(stddev(i::float8)), "
    "pg_typeof(variance(i::real)), pg_typeof(avg(i::float8)) FROM n",
    "SELECT pg_typeof(d / 3), pg_typeof(i / 3), pg_typeof(i / 3.0), pg_typeof(d / NULLIF(e, 0)) FROM n LIMIT 1",
]

REFUSED = [
    # 24 digits after the point (0.000033333333333333333333).
    "SELECT 1::numeric / 30000",
    "SELECT 0.000000001 / 3",
    "SELECT i::numeric / 70000 FROM n",
    # 19 digits before the point.
    "SELECT avg(x) FROM (VALUES (9000000000000000000::bigint), (9000000000000000001)) t(x)",
    "SELECT 1000000000000000000::numeric / 0.5",
    "SELECT variance(x) FROM (VALUES (2147483647), (-2147483648)) t(x)",
    # 40 digits after the point, or 40 digits in all.
    "SELECT avg(x) * avg(y) FROM (VALUES (1, 2), (2, 1), (2, 1)) t(x, y)",
    "SELECT 99999999999999999999::numeric * 99999999999999999999",
    # The squares of numbers with 20 digits after the point have 40.
    "SELECT stddev(x::numeric / 7) FROM generate_series(1, 5) x",
]

ERRORS = [
    "SELECT 1::numeric / 0",
    "SELECT d / 0 FROM n",
    "SELECT d / (i - i) FROM n WHERE i IS NOT NULL",
    "SELECT 1.5 / 0.0",
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_numeric_matches_postgres(quiver_bin, pg, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, SETUP + sql)
    pg_oracle.assert_same_rows(ours, pg.query(sql), sql)


def test_numeric_types_are_decimals(quiver_bin):
    """The numeric results arrive as decimals (compared exactly), never as doubles."""
    row = pg_oracle.quiver_rows(
        quiver_bin, SETUP + "SELECT 1::numeric / 3, avg(i), stddev(i), variance(d), "
        "stddev_pop(b), var_pop(s) FROM n")[0]
    import decimal
    assert all(isinstance(v, decimal.Decimal) for v in row), row


def quiver_error(run_quiver, sql):
    p = run_quiver("sql", "--format", "json", SETUP + sql, check=False)
    assert p.returncode == 1, (sql, p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == 1, p.stderr
    return json.loads(lines[0])


@pytest.mark.parametrize("sql", REFUSED)
def test_refused_where_quiver_cannot_hold_postgres_value(pg, run_quiver, sql):
    theirs = pg.query(sql)
    assert theirs, sql
    err = quiver_error(run_quiver, sql)
    assert err["sqlstate"] == "0A000", err
    assert "does not fit Quiver's numeric" in err["error"], err
    # The message names PostgreSQL's value: one of its answers.
    values = {v for row in theirs for v in row if v is not None}
    assert any(v in err["error"] for v in values), (err, theirs)


@pytest.mark.parametrize("sql", ERRORS)
def test_errors_match_postgres(pg, run_quiver, sql):
    code = pg.sqlstate(sql)
    assert code is not None, f"PostgreSQL accepts {sql}"
    assert quiver_error(run_quiver, sql)["sqlstate"] == code, sql


BIG = "99999999999999999999999999999999999999"


@pytest.mark.parametrize("sql", [
    f"SELECT sum(x) FROM (VALUES ({BIG}::numeric(38,0)), ({BIG})) t(x)",
    f"SELECT sum(x) FROM (VALUES (6{BIG[1:]}::numeric(38,0)), (6{BIG[1:]})) t(x)",
    f"SELECT avg(x) FROM (VALUES ({BIG}::numeric(38,0)), ({BIG})) t(x)",
    f"SELECT variance(x) FROM (VALUES ({BIG}::numeric(38,0)), ({BIG}), (1)) t(x)",
])
def test_sums_past_38_digits_refused(pg, run_quiver, sql):
    """PostgreSQL's numeric sums any number of digits; Quiver's 38-digit
    accumulator refuses rather than wraps (sum(numeric) used to wrap)."""
    assert pg.query(sql)
    err = quiver_error(run_quiver, sql)
    assert err["sqlstate"] == "0A000" and "exceeds Quiver's numeric" in err["error"], err
