"""The result comparison (result_compare.py) checks what it claims.

Every other SQL test trusts assert_same_result, so it is tested on its own:
each rule must reject the difference it is there to catch, and accept the
differences the engines may legitimately show.
"""

import decimal

import pyarrow as pa
import pytest

from result_compare import assert_same_result, order_spec

D = decimal.Decimal


def table(**columns):
    return pa.table({name: pa.array(values, type) for name, (values, type) in columns.items()})


def fails(ours, theirs, sql, match):
    with pytest.raises(AssertionError, match=match):
        assert_same_result(ours, theirs, sql, "t")


# --- types -------------------------------------------------------------------------------

def test_types_must_match():
    a = table(x=([1, 2], pa.int32()))
    b = table(x=([1, 2], pa.int64()))
    fails(a, b, "SELECT x FROM t", "int32 in Quiver, int64 in DuckDB")
    fails(table(x=(["1"], pa.string())), table(x=([1], pa.int64())), "SELECT x FROM t", "string in Quiver")


def test_decimal_scale_and_precision_must_match():
    a = table(x=([D("1.50")], pa.decimal128(15, 2)))
    fails(a, table(x=([D("1.500")], pa.decimal128(15, 3))), "SELECT x FROM t", "decimal128")
    fails(a, table(x=([D("1.50")], pa.decimal128(38, 2))), "SELECT x FROM t", "decimal128")


def test_documented_equivalences():
    # sum() of integers: bigint (PostgreSQL) vs HUGEINT (DuckDB), compared exactly.
    assert_same_result(table(s=([10**15], pa.int64())), table(s=([D(10**15)], pa.decimal128(38, 0))),
                       "SELECT sum(x) AS s FROM t", "t")
    fails(table(s=([10**15 + 1], pa.int64())), table(s=([D(10**15)], pa.decimal128(38, 0))),
          "SELECT sum(x) AS s FROM t", "row 0 of 1 .sorted., column 0")
    # extract(): numeric vs BIGINT, exactly.
    assert_same_result(table(y=([D(1995)], pa.decimal128(18, 0))), table(y=([1995], pa.int64())),
                       "SELECT extract(year FROM d) AS y FROM t", "t")
    fails(table(y=([D("1995.5")], pa.decimal128(18, 1))), table(y=([1995], pa.int64())),
          "SELECT extract(year FROM d) AS y FROM t", "decimal128")
    # avg() of numeric: Quiver's exact decimal within its rounding unit of DuckDB's double.
    third = D("0.3333333333333333")
    assert_same_result(table(a=([third], pa.decimal128(38, 16))), table(a=([1 / 3], pa.float64())),
                       "SELECT avg(x) AS a FROM t", "t")
    fails(table(a=([D("0.3333333333333000")], pa.decimal128(38, 16))), table(a=([1 / 3], pa.float64())),
          "SELECT avg(x) AS a FROM t", "column 0")
    # A double where DuckDB has a decimal is not an equivalence.
    fails(table(a=([0.5], pa.float64())), table(a=([D("0.50")], pa.decimal128(38, 2))),
          "SELECT x FROM t", "double in Quiver")


# --- values ------------------------------------------------------------------------------

def test_decimals_exactly():
    a = table(x=([D("1234567890123.45")], pa.decimal128(38, 2)))
    b = table(x=([D("1234567890123.46")], pa.decimal128(38, 2)))
    fails(a, b, "SELECT x FROM t", "column 0")  # 1e-14 relative: a float tolerance would pass it


def test_floats_within_tolerance_nan_and_signed_zero():
    a = table(x=([1.0 + 1e-12, float("nan"), -0.0, None], pa.float64()))
    b = table(x=([1.0, float("nan"), 0.0, None], pa.float64()))
    assert_same_result(a, b, "SELECT x FROM t", "t")
    fails(table(x=([1.001], pa.float64())), table(x=([1.0], pa.float64())), "SELECT x FROM t", "column 0")
    fails(table(x=([None], pa.float64())), table(x=([0.0], pa.float64())), "SELECT x FROM t", "column 0")


def test_row_and_column_counts():
    fails(table(x=([1, 2], pa.int64())), table(x=([1], pa.int64())), "SELECT x FROM t", "2 rows, DuckDB 1")
    fails(table(x=([1], pa.int64())), table(x=([1], pa.int64()), y=([1], pa.int64())), "SELECT x FROM t",
          "1 columns, DuckDB 2")


# --- order -------------------------------------------------------------------------------

def test_unordered_query_compares_multisets():
    a = table(k=([1, 2, 2], pa.int64()))
    assert_same_result(a, table(k=([2, 1, 2], pa.int64())), "SELECT k FROM t", "t")
    fails(a, table(k=([1, 1, 2], pa.int64())), "SELECT k FROM t", "column 0")
    # The words "order by" in a subquery or a string define no order of the result.
    sql = "SELECT k FROM (SELECT k FROM t ORDER BY k) s WHERE 'order by' <> ''"
    assert order_spec(sql, ["k"]) is None
    assert_same_result(a, table(k=([2, 2, 1], pa.int64())), sql, "t")


def test_order_by_is_checked():
    a = table(k=([1, 2, 3], pa.int64()))
    b = table(k=([3, 2, 1], pa.int64()))
    fails(a, b, "SELECT k FROM t ORDER BY k DESC", "ORDER BY run 0")
    assert_same_result(b, b, "SELECT k FROM t ORDER BY k DESC", "t")


def test_ties_compare_as_multisets():
    # ORDER BY k leaves rows with equal k in any order.
    a = table(k=([1, 1, 2], pa.int64()), v=(["a", "b", "c"], pa.string()))
    b = table(k=([1, 1, 2], pa.int64()), v=(["b", "a", "c"], pa.string()))
    assert_same_result(a, b, "SELECT k, v FROM t ORDER BY k", "t")
    # ...but not in another run.
    c = table(k=([1, 1, 2], pa.int64()), v=(["a", "c", "b"], pa.string()))
    fails(a, c, "SELECT k, v FROM t ORDER BY k", "rows within ORDER BY runs, row 1 of 3")
    # A full order allows no reordering.
    fails(a, b, "SELECT k, v FROM t ORDER BY k, v", "ORDER BY run 0 .row 0.: Quiver keys \\[1, 'a'\\]")


def test_limit_cuts_the_last_run_anywhere():
    sql = "SELECT k, v FROM t ORDER BY k LIMIT 3"
    a = table(k=([1, 2, 2], pa.int64()), v=(["a", "x", "y"], pa.string()))
    b = table(k=([1, 2, 2], pa.int64()), v=(["a", "y", "z"], pa.string()))
    assert_same_result(a, b, sql, "t")
    fails(a, b, "SELECT k, v FROM t ORDER BY k", "rows within ORDER BY runs")  # without LIMIT: the same rows
    d = table(k=([1, 2, 2], pa.int64()), v=(["b", "y", "z"], pa.string()))
    fails(a, d, sql, "rows within ORDER BY runs, row 0 of 1")  # runs before the cut must match


def test_order_keys_resolve_to_output_columns():
    names = ["a", "s", "count_star()"]
    sql = "SELECT a, sum(b) AS s, count(*) FROM t GROUP BY a ORDER BY s DESC, 1, count(*)"
    assert order_spec(sql, names).keys == [1, 0, 2]
    assert order_spec("SELECT t.a, b FROM t ORDER BY a", ["a", "b"]).keys == [0]
    assert order_spec("SELECT * FROM t ORDER BY b", ["a", "b"]).keys == [1]
    assert order_spec("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", ["a"]).keys == [0]
    assert order_spec("WITH w AS (SELECT 1 AS a) SELECT a FROM w ORDER BY a", ["a"]).keys == [0]
    spec = order_spec("SELECT a FROM t ORDER BY a LIMIT 5 OFFSET 2", ["a"])
    assert spec.limit and spec.offset
    # A key that is not an output column leaves the order uncheckable: that fails.
    with pytest.raises(AssertionError, match="not an output column"):
        order_spec("SELECT a FROM t ORDER BY b", ["a"])
    with pytest.raises(AssertionError, match="LIMIT / OFFSET without ORDER BY"):
        order_spec("SELECT a FROM t LIMIT 3", ["a"])
    with pytest.raises(AssertionError, match="cannot parse"):
        order_spec("SELECT FROM WHERE", ["a"])


def test_large_results_and_nulls():
    import random

    rnd = random.Random(3)
    n = 50_000
    rows = [(rnd.choice([None, 1, 2, 3]), rnd.choice([None, "a", "b", "é"]), rnd.choice([None, 0.5, -0.0, 1e300]),
             D(rnd.randrange(-10**6, 10**6)).scaleb(-2)) for _ in range(n)]
    schema = pa.schema([("k", pa.int32()), ("s", pa.string()), ("f", pa.float64()), ("d", pa.decimal128(12, 2))])

    def make(rs):
        return pa.Table.from_pylist([dict(zip(schema.names, r)) for r in rs], schema=schema)

    shuffled = rows[:]
    rnd.shuffle(shuffled)
    assert_same_result(make(rows), make(shuffled), "SELECT k, s, f, d FROM t", "t")
    changed = shuffled[:]
    i = next(i for i, r in enumerate(changed) if r[3] is not None)
    changed[i] = changed[i][:3] + (changed[i][3] + D("0.01"),)
    fails(make(rows), make(changed), "SELECT k, s, f, d FROM t", r"column 3 \(d\).*\(1 such rows\)")
    # Ordered by k (NULLs last, as PostgreSQL sorts them): runs of ties in any order.
    by_k = sorted(rows, key=lambda r: (r[0] is None, r[0] or 0))
    by_k_shuffled = sorted(shuffled, key=lambda r: (r[0] is None, r[0] or 0))
    assert_same_result(make(by_k), make(by_k_shuffled), "SELECT k, s, f, d FROM t ORDER BY k", "t")
    fails(make(by_k), make(shuffled), "SELECT k, s, f, d FROM t ORDER BY k", "ORDER BY run 0")
