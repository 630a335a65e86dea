"""Comparing a Quiver query result with a reference engine's (DuckDB).

    assert_same_result(ours, theirs, sql, label)

checks, in this order:

* Shape: the same number of columns and rows.
* Types, column by column. Quiver's Arrow type must equal DuckDB's, or the
  pair must be one of TYPE_EQUIVALENCES below: places where the two engines
  legitimately differ because Quiver follows PostgreSQL's typing rules and
  DuckDB its own. Any other difference fails.
* Values, by type: integers, decimals, strings, dates and timestamps exactly
  (a decimal is compared as a Decimal with the type's scale, never as a
  float); floating-point values within 1e-9 relative (summation order differs
  between engines and thread counts); NaN equals NaN and -0.0 equals 0.0 (they
  are one value, and one group, in both engines and in PostgreSQL).
* Row order, only where the query defines it. The SQL is parsed by DuckDB
  (json_serialize_sql) and the outermost ORDER BY's keys are resolved to
  output columns (by position, output name or the same expression as a select
  list item). Rows are then compared run by run, where a run is a maximal
  stretch of rows with equal keys: the sequence of keys must be the same, and
  within a run the rows are compared as multisets (ORDER BY leaves ties in
  any order). With LIMIT (OFFSET) the last (first) run may be cut anywhere, so
  only its key and length are compared. Without an outermost ORDER BY the
  whole results are compared as multisets. A key that is not an output
  column, or SQL that DuckDB cannot parse, fails the comparison: the order
  could not be checked, and a comparison never passes without checking.
"""

import decimal
import json
import math
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

FLOAT_REL_TOL = 1e-9


# --- types ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Equivalence:
    reason: str
    duckdb: object  # predicate on DuckDB's Arrow type
    quiver: object  # predicate on Quiver's Arrow type
    values: str  # how values compare: "exact" or "decimal_vs_double"


def _is_hugeint(t):
    return pa.types.is_decimal(t) and t.precision == 38 and t.scale == 0


TYPE_EQUIVALENCES = [
    Equivalence(
        "sum() of integers: DuckDB's is HUGEINT (Arrow decimal128(38, 0)); PostgreSQL's sum(int2/int4) "
        "is bigint (int64) and sum(int8) numeric (decimal128(38, 0))",
        _is_hugeint, lambda t: pa.types.is_int64(t), "exact"),
    Equivalence(
        "avg() of numeric, and numeric / numeric: PostgreSQL's result is numeric (Quiver: decimal128 "
        "with PostgreSQL's result scale), DuckDB's DOUBLE",
        pa.types.is_float64, pa.types.is_decimal, "decimal_vs_double"),
    Equivalence(
        "extract() / date_part(): PostgreSQL 14+ returns numeric (Quiver: decimal128(18, 0) for "
        "integral fields), DuckDB BIGINT",
        pa.types.is_int64, lambda t: pa.types.is_decimal(t) and t.scale == 0, "exact"),
]


def value_mode(quiver_type, duckdb_type):
    """How the values of a column compare, or None when the types may not differ so."""
    if quiver_type == duckdb_type:
        if pa.types.is_floating(quiver_type):
            return "float"
        return "exact"
    for e in TYPE_EQUIVALENCES:
        if e.duckdb(duckdb_type) and e.quiver(quiver_type):
            return e.values
    return None


# --- values -----------------------------------------------------------------------------

def _float_key(v):
    # -0.0 and 0.0 are one value (and one group); NaNs are all alike.
    return "nan" if v != v else v + 0.0


def same_value(x, y, mode, quiver_type=None):
    """x: Quiver's value, y: DuckDB's."""
    if x is None or y is None:
        return x is None and y is None
    if mode == "exact":
        if isinstance(x, float) or isinstance(y, float):
            raise AssertionError(f"float value {x!r} / {y!r} in a column compared exactly")
        if isinstance(x, decimal.Decimal) and isinstance(y, decimal.Decimal):
            # Same type, so the same scale; compared as exact numbers.
            return x == y and x.as_tuple().exponent == y.as_tuple().exponent
        return x == y
    if mode == "float":
        x, y = _float_key(x), _float_key(y)
        if x == "nan" or y == "nan":
            return x == y
        return x == y or math.isclose(x, y, rel_tol=FLOAT_REL_TOL)
    if mode == "decimal_vs_double":
        # Quiver's exact decimal against DuckDB's double: the double must be the
        # decimal to within the decimal's rounding unit plus a few ulps of the double.
        if not isinstance(x, decimal.Decimal) or not isinstance(y, float):
            raise AssertionError(f"expected Decimal vs float, got {x!r} / {y!r}")
        if y != y or math.isinf(y):
            return False
        unit = decimal.Decimal(1).scaleb(-quiver_type.scale)
        return abs(x - decimal.Decimal(y)) <= unit + decimal.Decimal(4 * math.ulp(y))
    raise ValueError(mode)


# --- order from the parsed query --------------------------------------------------------

@dataclass
class OrderSpec:
    keys: list  # output column positions, outermost ORDER BY's order
    limit: bool
    offset: bool


_parser = None


def _parse(sql):
    global _parser
    if _parser is None:
        _parser = duckdb.connect()
    tree = json.loads(_parser.execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0])
    if tree.get("error"):
        raise AssertionError(f"DuckDB cannot parse the query, so its row order cannot be determined: "
                             f"{tree.get('error_message')}\n{sql}")
    return tree["statements"][-1]["node"]


def _strip(e):
    """An expression tree without positions and aliases, for structural equality."""
    if isinstance(e, dict):
        return {k: _strip(v) for k, v in e.items() if k not in ("query_location", "query_location_length", "alias")}
    if isinstance(e, list):
        return [_strip(v) for v in e]
    return e


def _select_list(node):
    while node["type"] == "SET_OPERATION_NODE":  # output names come from the first input
        node = node["children"][0] if node.get("children") else node["left"]
    if node["type"] != "SELECT_NODE":
        raise AssertionError(f"unexpected query node {node['type']}")
    return node["select_list"]


def _resolve(key, select_list, names):
    """The output position ORDER BY key `key` refers to, or None."""
    if key["class"] == "CONSTANT" and key.get("literal", {}).get("kind") == "INTEGER":
        pos = int(key["literal"]["text"]) - 1
        return pos if 0 <= pos < len(names) else None
    if key["class"] == "COLUMN_REF" and len(key["column_names"]) == 1:
        name = key["column_names"][0].lower()
        # PostgreSQL: an output column name first, then an input column.
        for i, item in enumerate(select_list):
            if item.get("alias", "").lower() == name:
                return i
        for i, item in enumerate(select_list):
            if (not item.get("alias") and item["class"] == "COLUMN_REF"
                    and item["column_names"][-1].lower() == name):
                return i
        matches = [i for i, n in enumerate(names) if n.lower() == name]
        if len(matches) == 1:  # SELECT *
            return matches[0]
    stripped = _strip(key)
    for i, item in enumerate(select_list):
        if item["class"] != "STAR" and _strip(item) == stripped:
            return i
    if key["class"] == "COLUMN_REF":
        last = key["column_names"][-1].lower()
        cands = [i for i, item in enumerate(select_list)
                 if not item.get("alias") and item["class"] == "COLUMN_REF"
                 and item["column_names"][-1].lower() == last]
        if len(cands) == 1:
            return cands[0]
    return None


def order_spec(sql, names):
    """The outermost ORDER BY of `sql` as output positions; None when it has none."""
    node = _parse(sql)
    orders, limit, offset = None, False, False
    for m in node.get("modifiers", []):
        if m["type"] == "ORDER_MODIFIER":
            orders = m["orders"]
        elif m["type"] in ("LIMIT_MODIFIER", "LIMIT_PERCENT_MODIFIER"):
            limit = m.get("limit") is not None
            offset = m.get("offset") is not None
    if orders is None:
        if limit or offset:
            raise AssertionError("LIMIT / OFFSET without ORDER BY: which rows come back is not defined\n" + sql)
        return None
    select_list = _select_list(node)
    keys = []
    for i, o in enumerate(orders):
        pos = _resolve(o["expression"], select_list, names)
        if pos is None:
            raise AssertionError(f"ORDER BY key {i + 1} is not an output column, so the row order cannot be "
                                 f"checked; add it to the select list\n{sql}")
        keys.append(pos)
    return OrderSpec(keys, limit, offset)


# --- the comparison ---------------------------------------------------------------------
#
# Vectorized (pyarrow / numpy): results of a few hundred thousand rows are
# compared many times over in test_differential.py. Rows are aligned by
# sorting both results on all columns (within each ORDER BY run), exact
# columns first, so that a float's last bits cannot misalign two rows.

def _common(a, b, mode):
    """Quiver's column a and the peer's b as arrays of one type, for sorting and comparing."""
    a, b = a.combine_chunks(), b.combine_chunks()
    if mode == "float":  # -0.0 + 0.0 is 0.0: one value, as in both engines
        return pc.add(a.cast(pa.float64()), 0.0), pc.add(b.cast(pa.float64()), 0.0)
    if mode == "decimal_vs_double":
        return a.cast(pa.float64()), b
    if a.type != b.type:  # the integral equivalences (scale 0 on the decimal side)
        return a.cast(pa.decimal128(38, 0)), b.cast(pa.decimal128(38, 0))
    return a, b


def _float_equal(a, b, tolerance):
    na, nb = a.is_null().to_numpy(zero_copy_only=False), b.is_null().to_numpy(zero_copy_only=False)
    va, vb = a.fill_null(0.0).to_numpy(zero_copy_only=False), b.fill_null(0.0).to_numpy(zero_copy_only=False)
    with np.errstate(invalid="ignore"):
        same = (va == vb) | (np.isnan(va) & np.isnan(vb))
        if tolerance:
            same |= np.isclose(va, vb, rtol=FLOAT_REL_TOL, atol=0.0)
    return (na & nb) | (~na & ~nb & same)


def _equal(a, b, mode, tolerance=True):
    """Row-wise equality of two common-typed arrays (NULL equals NULL) as a numpy mask."""
    if pa.types.is_floating(a.type):
        return _float_equal(a, b, tolerance and mode != "exact")
    na, nb = a.is_null().to_numpy(zero_copy_only=False), b.is_null().to_numpy(zero_copy_only=False)
    eq = pc.equal(a, b).fill_null(False).to_numpy(zero_copy_only=False)
    return (na & nb) | eq


def _run_ids(cols, keys, n):
    """Run number of each row: a run is a stretch of rows with equal ORDER BY keys."""
    change = np.zeros(n, dtype=bool)
    if n:
        change[0] = True
    for k in keys:
        if n > 1:
            change[1:] |= ~_equal(cols[k].slice(1), cols[k].slice(0, n - 1), "exact", tolerance=False)
    return np.cumsum(change) - 1


def _row(table, i):
    return tuple(c[i].as_py() for c in table.columns)


def _sortable(t):
    return not (pa.types.is_nested(t) or pa.types.is_dictionary(t) or pa.types.is_null(t))


def assert_same_result(ours: pa.Table, theirs: pa.Table, sql: str, label: str, same_engine=False):
    """Quiver's result `ours` equals DuckDB's `theirs` for query `sql` (see the module doc).

    same_engine=True compares two Quiver results (another plan, another
    thread count): names and types must then be identical, no equivalences.
    """
    peer = "the other Quiver run" if same_engine else "DuckDB"
    assert ours.num_columns == theirs.num_columns, (
        f"{label}: {ours.num_columns} columns, {peer} {theirs.num_columns}\n{ours.schema}\n{theirs.schema}")
    if same_engine:
        assert ours.schema.remove_metadata() == theirs.schema.remove_metadata(), (
            f"{label}: schema\n{ours.schema}\n{peer}:\n{theirs.schema}")
    modes = []
    for j, (fo, ft) in enumerate(zip(ours.schema, theirs.schema)):
        mode = value_mode(fo.type, ft.type)
        assert mode is not None, (
            f"{label}: column {j} ({fo.name}) is {fo.type} in Quiver, {ft.type} in DuckDB "
            f"(not an equivalence listed in result_compare.TYPE_EQUIVALENCES)")
        assert _sortable(fo.type), f"{label}: column {j} ({fo.name}): {fo.type} cannot be compared here yet"
        modes.append(mode)
    n = ours.num_rows
    assert n == theirs.num_rows, f"{label}: {n} rows, {peer} {theirs.num_rows}"
    spec = order_spec(sql, theirs.column_names)
    if ours.num_columns == 0:
        return
    common = [_common(ours.column(j), theirs.column(j), m) for j, m in enumerate(modes)]
    ca, cb = [c[0] for c in common], [c[1] for c in common]
    keys = spec.keys if spec else []
    runs_a, runs_b = _run_ids(ca, keys, n), _run_ids(cb, keys, n)
    num_runs = int(runs_b[-1]) + 1 if n else 0

    if spec is not None and n:
        # The same sequence of ORDER BY keys, each run as long.
        starts_a = np.flatnonzero(np.diff(runs_a, prepend=-1))
        starts_b = np.flatnonzero(np.diff(runs_b, prepend=-1))
        for r in range(min(len(starts_a), len(starts_b))):
            ia, ib = int(starts_a[r]), int(starts_b[r])
            same = all(_equal(ca[k].slice(ia, 1), cb[k].slice(ib, 1), modes[k])[0] for k in keys)
            assert same, (f"{label}: ORDER BY run {r} (row {ib}): Quiver keys "
                          f"{[ours.column(k)[ia].as_py() for k in keys]!r}, {peer} "
                          f"{[theirs.column(k)[ib].as_py() for k in keys]!r}")
            len_a = (int(starts_a[r + 1]) if r + 1 < len(starts_a) else n) - ia
            len_b = (int(starts_b[r + 1]) if r + 1 < len(starts_b) else n) - ib
            assert len_a == len_b, (f"{label}: ORDER BY run {r} with keys "
                                    f"{[theirs.column(k)[ib].as_py() for k in keys]!r}: {len_a} rows, "
                                    f"{peer} {len_b}")
        assert len(starts_a) == len(starts_b), (
            f"{label}: {len(starts_a)} distinct ORDER BY keys in order, {peer} {len(starts_b)}")

    # Rows as multisets within each run, except a run LIMIT / OFFSET may cut
    # anywhere among its ties (compared above by key and length only).
    keep = np.ones(n, dtype=bool)
    if spec is not None and n:
        if spec.limit:
            keep &= runs_b != num_runs - 1
        if spec.offset:
            keep &= runs_b != 0
    # Exact columns first, so that float rounding cannot misalign rows.
    order = sorted(range(len(modes)), key=lambda j: modes[j] != "exact")

    def aligned(cols, runs, table):
        t = pa.table({"run": pa.array(runs, pa.int64()), **{f"c{j}": cols[j] for j in range(len(cols))}})
        t = t.filter(pa.array(keep))
        idx = pc.sort_indices(t, sort_keys=[("run", "ascending", "at_end")] +
                              [(f"c{j}", "ascending", "at_end") for j in order])
        original = table.filter(pa.array(keep)).take(idx)
        return [t.column(f"c{j}").take(idx).combine_chunks() for j in range(len(cols))], original

    sa, oa = aligned(ca, runs_a, ours)
    sb, ob = aligned(cb, runs_b, theirs)
    for j, mode in enumerate(modes):
        if mode == "decimal_vs_double":  # exactly, in Python (only in small results)
            qtype = ours.schema.field(j).type
            bad = [i for i, (x, y) in enumerate(zip(oa.column(j).to_pylist(), ob.column(j).to_pylist()))
                   if not same_value(x, y, mode, qtype)]
        else:
            bad = np.flatnonzero(~_equal(sa[j], sb[j], mode)).tolist()
        if bad:
            i = bad[0]
            where = "rows as a multiset" if spec is None else "rows within ORDER BY runs"
            raise AssertionError(
                f"{label}: {where}, row {i} of {oa.num_rows} (sorted), column {j} ({ours.column_names[j]}): "
                f"Quiver {oa.column(j)[i].as_py()!r}, {peer} {ob.column(j)[i].as_py()!r} ({len(bad)} such rows)\n"
                f"  Quiver row {_row(oa, i)!r}\n  {peer} row {_row(ob, i)!r}")
