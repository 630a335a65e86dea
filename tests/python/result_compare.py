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
import pyarrow as pa

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


def _sort_key(row, modes):
    key = []
    for v, m in zip(row, modes):
        if v is None:
            key.append((1, ""))
        elif m == "float" or isinstance(v, float):
            f = _float_key(v)
            key.append((0, "nan" if f == "nan" else f"{f:.9e}"))
        elif m == "decimal_vs_double":
            key.append((0, f"{float(v):.9e}"))
        else:
            key.append((0, repr(v)))
    return key


def _rows(table):
    return list(zip(*[c.to_pylist() for c in table.columns])) if table.num_columns else []


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

def _runs(rows, keys):
    out = []
    for r in rows:
        k = tuple(_float_key(r[i]) if isinstance(r[i], float) else r[i] for i in keys)
        if out and out[-1][0] == k:
            out[-1][1].append(r)
        else:
            out.append((k, [r]))
    return out


def _same_rows(a, b, modes, types, label, where):
    a = sorted(a, key=lambda r: _sort_key(r, modes))
    b = sorted(b, key=lambda r: _sort_key(r, modes))
    for i, (ra, rb) in enumerate(zip(a, b)):
        for j, (x, y) in enumerate(zip(ra, rb)):
            assert same_value(x, y, modes[j], types[j]), (
                f"{label}: {where}, row {i} column {j}: Quiver {x!r}, DuckDB {y!r}\n"
                f"  Quiver row {ra!r}\n  DuckDB row {rb!r}")


def assert_same_result(ours: pa.Table, theirs: pa.Table, sql: str, label: str):
    """Quiver's result `ours` equals DuckDB's `theirs` for query `sql` (see the module doc)."""
    assert ours.num_columns == theirs.num_columns, (
        f"{label}: {ours.num_columns} columns, DuckDB {theirs.num_columns}\n{ours.schema}\n{theirs.schema}")
    modes, types = [], []
    for j, (fo, ft) in enumerate(zip(ours.schema, theirs.schema)):
        mode = value_mode(fo.type, ft.type)
        assert mode is not None, (
            f"{label}: column {j} ({fo.name}) is {fo.type} in Quiver, {ft.type} in DuckDB "
            f"(not an equivalence listed in result_compare.TYPE_EQUIVALENCES)")
        modes.append(mode)
        types.append(fo.type)
    a, b = _rows(ours), _rows(theirs)
    assert len(a) == len(b), f"{label}: {len(a)} rows, DuckDB {len(b)}"
    spec = order_spec(sql, theirs.column_names)
    if spec is None:
        _same_rows(a, b, modes, types, label, "rows as a multiset")
        return
    runs_a, runs_b = _runs(a, spec.keys), _runs(b, spec.keys)
    for n, ((ka, ra), (kb, rb)) in enumerate(zip(runs_a, runs_b)):
        assert all(same_value(x, y, modes[i], types[i]) for x, y, i in zip(ka, kb, spec.keys)), (
            f"{label}: ORDER BY run {n} (row {sum(len(r) for _, r in runs_a[:n])}): "
            f"Quiver keys {ka!r}, DuckDB {kb!r}")
        assert len(ra) == len(rb), f"{label}: ORDER BY run {n} with keys {kb!r}: {len(ra)} rows, DuckDB {len(rb)}"
        cut = (spec.limit and n == len(runs_b) - 1) or (spec.offset and n == 0)
        if not cut:  # a run LIMIT / OFFSET may cut anywhere among its ties
            _same_rows(ra, rb, modes, types, label, f"ORDER BY run {n} with keys {kb!r}")
    assert len(runs_a) == len(runs_b), (
        f"{label}: {len(runs_a)} distinct ORDER BY keys in order, DuckDB {len(runs_b)}")
