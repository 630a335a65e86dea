"""Structs and maps from Parquet / Arrow files (issue 12 item 4), and
regexp_match / regexp_matches / regexp_split_to_array / _to_table and
set-returning functions in the select list (issue 12 items 5 and 3).

Struct fields ((s).f, s.f, t.s.f, nested fields, fields of array elements)
and map lookups (m['k'], element_at, map_keys, map_values) must equal
DuckDB's answers on the same file. A whole struct prints as PostgreSQL's
record text (record_out: `(1,abc)`, NULL fields empty, quoting of empty
strings, spaces, quotes, backslashes, parentheses and commas), checked
against PostgreSQL 15's ROW(...)::text of the same values. `--format arrow`
keeps the struct and map types. What cannot handle a struct yet (GROUP BY,
ORDER BY, DISTINCT) refuses with 0A000.
"""

import json
import subprocess

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

import pg_oracle

INNER = pa.struct([("x", pa.float64()), ("y", pa.bool_())])
S = pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", INNER)])
ELEM = pa.struct([("f", pa.int64()), ("g", pa.string())])
ROWS_S = [
    {"a": 1, "b": "abc", "c": {"x": 1.5, "y": True}},
    None,
    {"a": None, "b": "a b", "c": None},
    {"a": 4, "b": "", "c": {"x": None, "y": False}},
    {"a": 5, "b": 'q"u\\o(te),', "c": {"x": -2.25, "y": None}},
]
ROWS_LS = [[{"f": 1, "g": "x"}, {"f": 2, "g": None}], None, [], [None], [{"f": 3, "g": "y"}]]
ROWS_M = [[("a", 1), ("b", 2)], None, [], [("a", None)], [("z", 26)]]


@pytest.fixture(scope="module")
def nested_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("nested") / "nested.parquet"
    table = pa.table({
        "id": pa.array([1, 2, 3, 4, 5], pa.int32()),
        "s": pa.array(ROWS_S, S),
        "ls": pa.array(ROWS_LS, pa.list_(ELEM)),
        "m": pa.array(ROWS_M, pa.map_(pa.string(), pa.int64())),
    })
    pq.write_table(table, path)
    return path


def arrow_result(quiver_bin, sql):
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "arrow", sql],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return ipc.open_stream(proc.stdout).read_all()


def quiver_error(run_quiver, sql):
    p = run_quiver("sql", "--format", "json", sql, check=False)
    assert p.returncode == 1, (sql, p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == 1, p.stderr
    return json.loads(lines[0])


# Quiver spelling, DuckDB spelling (DuckDB has no (s).f on a column of a
# table alias; both accept s.f).
FIELD_QUERIES = [
    ("SELECT id, s.a, s.b FROM t ORDER BY id", None),
    ("SELECT id, (s).a, (s).b FROM t ORDER BY id", "SELECT id, s.a, s.b FROM t ORDER BY id"),
    ("SELECT id, t.s.a FROM t ORDER BY id", None),
    ("SELECT id, s.c.x, s.c.y FROM t ORDER BY id", None),
    ("SELECT id, ((s).c).x FROM t ORDER BY id", "SELECT id, s.c.x FROM t ORDER BY id"),
    ("SELECT id, s.c IS NULL, s IS NULL FROM t ORDER BY id", None),
    ("SELECT id FROM t WHERE s.a > 1 ORDER BY id", None),
    ("SELECT sum(s.a), count(s.b), max(s.c.x) FROM t", None),
    ("SELECT s.b, count(*) FROM t GROUP BY s.b ORDER BY s.b NULLS LAST", None),
    ("SELECT id, ls[1].f, ls[2].g FROM t ORDER BY id", None),
    ("SELECT id, (ls[1]).g FROM t ORDER BY id", "SELECT id, ls[1].g FROM t ORDER BY id"),
    ("SELECT id, m['a'], m['b'], m['nope'] FROM t ORDER BY id", None),
    ("SELECT id, element_at(m, 'a'), map_extract(m, 'z') FROM t ORDER BY id", None),
    ("SELECT id, map_keys(m), map_values(m) FROM t ORDER BY id", None),
    ("SELECT id, CASE WHEN id % 2 = 0 THEN s END IS NULL FROM t ORDER BY id", None),
]


@pytest.mark.parametrize("sql,duck_sql", FIELD_QUERIES)
def test_fields_and_maps_match_duckdb(quiver_bin, nested_file, sql, duck_sql):
    q = sql.replace("FROM t", f"FROM '{nested_file}' AS t")
    d = (duck_sql or sql).replace("FROM t", f"FROM '{nested_file}' AS t")
    ours = arrow_result(quiver_bin, q)
    theirs = duckdb.sql(d).to_arrow_table()
    ours_rows = [list(r) for r in zip(*(c.to_pylist() for c in ours.columns))]
    theirs_rows = [list(r) for r in zip(*(c.to_pylist() for c in theirs.columns))]
    assert ours_rows == theirs_rows, sql


def test_select_star_keeps_struct_and_map_types(quiver_bin, nested_file):
    ours = arrow_result(quiver_bin, f"SELECT * FROM '{nested_file}'")
    theirs = pq.read_table(nested_file)
    assert ours.schema.field("s").type == S
    assert ours.schema.field("ls").type == pa.list_(pa.field("item", ELEM))
    assert pa.types.is_map(ours.schema.field("m").type)
    for name in ["id", "s", "ls", "m"]:
        assert ours.column(name).to_pylist() == theirs.column(name).to_pylist(), name


def pg_literal(v, t):
    if v is None:
        return "NULL"
    if pa.types.is_struct(t):
        return "ROW(" + ", ".join(pg_literal(v[f.name], f.type) for f in t) + ")"
    if pa.types.is_string(t):
        return "'" + v.replace("'", "''") + "'"
    if pa.types.is_boolean(t):
        return "true" if v else "false"
    if pa.types.is_floating(t):
        return f"{v!r}::float8"
    return str(v)


@pytest.fixture(scope="module")
def pg():
    if not pg_oracle.available():
        pytest.skip("PostgreSQL 15 is not installed")
    with pg_oracle.postgres(locale="C.UTF-8") as server:
        yield server


def test_record_text_matches_postgres(quiver_bin, nested_file, pg):
    ours = arrow_result(quiver_bin, f"SELECT s::text, s.c::text FROM '{nested_file}' ORDER BY id")
    texts = ours.column(0).to_pylist()
    inner = ours.column(1).to_pylist()
    for v, got, got_inner in zip(ROWS_S, texts, inner):
        want = pg.query(f"SELECT ({pg_literal(v, S)})::text")[0][0]
        assert got == want, (v, got, want)
        if v is not None:
            want_inner = pg.query(f"SELECT ({pg_literal(v['c'], INNER)})::text")[0][0]
            assert got_inner == want_inner, (v, got_inner, want_inner)


def test_array_of_records_text_matches_postgres(quiver_bin, nested_file, pg):
    pg.query("CREATE TYPE elem AS (f bigint, g text)")
    ours = arrow_result(quiver_bin, f"SELECT ls::text FROM '{nested_file}' ORDER BY id")
    for v, got in zip(ROWS_LS, ours.column(0).to_pylist()):
        if v is None:
            want = None
        else:
            items = ", ".join("NULL::elem" if e is None else
                              f"ROW({pg_literal(e['f'], pa.int64())}, {pg_literal(e['g'], pa.string())})::elem"
                              for e in v)
            want = pg.query(f"SELECT (ARRAY[{items}]::elem[])::text")[0][0]
        assert got == want, (v, got, want)


def test_printers_show_record_text(run_quiver, nested_file):
    sql = f"SELECT id, s FROM '{nested_file}' ORDER BY id"
    table = run_quiver("sql", sql).stdout
    assert "(1,abc,\"(1.5,t)\")" in table
    assert "(,\"a b\",)" in table
    csv_out = run_quiver("sql", "--format", "csv", sql).stdout.splitlines()
    assert csv_out[1] == '1,"(1,abc,""(1.5,t)"")"'
    assert csv_out[2] == "2,"
    js = [json.loads(line) for line in run_quiver("sql", "--format", "json", sql).stdout.splitlines()]
    assert js[0]["s"] == {"a": 1, "b": "abc", "c": {"x": 1.5, "y": True}}
    assert js[1]["s"] is None
    m = [json.loads(line) for line in
         run_quiver("sql", "--format", "json", f"SELECT m FROM '{nested_file}' ORDER BY id").stdout.splitlines()]
    assert m[0]["m"] == [{"key": "a", "value": 1}, {"key": "b", "value": 2}]


@pytest.mark.parametrize("sql,code", [
    ("SELECT s.nope FROM t", "42703"),
    ("SELECT (id).x FROM t", "42809"),
    ("SELECT id.x FROM t", "42809"),
    ("SELECT nope.x FROM t", "42P01"),
    ("SELECT s FROM t GROUP BY s", "0A000"),
    ("SELECT s FROM t ORDER BY s", "0A000"),
    ("SELECT DISTINCT s FROM t", "0A000"),
    ("SELECT m FROM t ORDER BY m", "0A000"),
    ("SELECT s = s FROM t", "42883"),
    ("SELECT element_at(id, 1) FROM t", "42883"),
    ("SELECT s::int FROM t", "42846"),
])
def test_struct_errors(run_quiver, nested_file, sql, code):
    err = quiver_error(run_quiver, sql.replace("FROM t", f"FROM '{nested_file}' AS t"))
    assert err["sqlstate"] == code, err


def test_nested_structs_file_matches_duckdb(quiver_bin, shared_testdata):
    path = shared_testdata / "parquet-testing/data/nested_structs.rust.parquet"
    sql = (f"SELECT roll_num.min, roll_num.count, (\"BIA_3\").mean, t.\"GLA\".variance, dup.sum "
           f"FROM '{path}' AS t")
    ours = arrow_result(quiver_bin, sql)
    ours_rows = [tuple(r) for r in zip(*(c.to_pylist() for c in ours.columns))]
    theirs = duckdb.sql(sql.replace('(\"BIA_3\").mean', '\"BIA_3\".mean')).fetchall()
    assert ours_rows == theirs
    # uint64 count becomes numeric(20,0), as for a top-level uint64 column.
    assert ours.schema.field(1).type == pa.decimal128(20, 0)


def test_nested_maps_file_matches_duckdb(quiver_bin, shared_testdata):
    path = shared_testdata / "parquet-testing/data/nested_maps.snappy.parquet"
    ours = arrow_result(quiver_bin, f"SELECT * FROM '{path}'")
    theirs = duckdb.sql(f"SELECT * FROM '{path}'").to_arrow_table()
    assert ours.num_rows == theirs.num_rows
    for name in theirs.column_names:
        assert ours.column(name).to_pylist() == theirs.column(name).to_pylist(), name
    keys = arrow_result(quiver_bin, f"SELECT map_keys(a) FROM '{path}'")
    assert keys.column(0).to_pylist() == [r[0] for r in duckdb.sql(f"SELECT map_keys(a) FROM '{path}'").fetchall()]


# --- regexp_match, regexp_matches, regexp_split_*, select-list SRFs (PostgreSQL 15) ---

RX_SETUP = """
CREATE TABLE rx (id int, s text, p text, fl text);
INSERT INTO rx VALUES
  (1, 'foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g'),
  (2, 'hello world  and   more', '\\s+', ''),
  (3, 'abc', '', ''),
  (4, NULL, 'a', ''),
  (5, 'ABCabc', 'b', 'i'),
  (6, 'naïve café', '(é|ï)', 'g'),
  (7, 'a1b22c333', '(\\d)(x)?', 'g'),
  (8, '', 'x*', '');
"""

RX_QUERIES = [
    "SELECT id, regexp_match(s, p)::text FROM rx",
    "SELECT id, regexp_match(s, p, replace(fl, 'g', ''))::text FROM rx",
    "SELECT regexp_match('foobarbequebaz', 'bar.*que')::text, regexp_match('foobarbequebaz', '(bar)(beque)')::text",
    "SELECT regexp_match('abc', 'x')::text IS NULL, regexp_match('aXbX', 'x', 'i')::text",
    "SELECT (regexp_match('2024-02-29', '(\\d+)-(\\d+)-(\\d+)'))[2]",
    "SELECT id, regexp_split_to_array(s, p)::text FROM rx",
    "SELECT id, regexp_split_to_array(s, p, replace(fl, 'g', ''))::text FROM rx",
    "SELECT regexp_split_to_array('hello world', '\\s*')::text, regexp_split_to_array('a,b,,c,', ',')::text",
    "SELECT regexp_split_to_array('', ',')::text, regexp_split_to_array('abc', 'x*')::text, regexp_split_to_array('abc', '^')::text",
    "SELECT id, regexp_matches(s, p, fl)::text FROM rx",
    "SELECT id, regexp_matches(s, p)::text FROM rx",
    "SELECT regexp_matches('foobarbequebazilbarfbonk', '(b[^b]+)(b[^b]+)', 'g')::text",
    "SELECT regexp_matches('abc', '', 'g')::text",
    "SELECT regexp_matches('aaa', 'a*?', 'g')::text",
    "SELECT id, regexp_split_to_table(s, p) FROM rx",
    "SELECT x FROM regexp_split_to_table('the quick  brown', '\\s+') AS x",
    "SELECT m::text FROM regexp_matches('a1b2c3', '[a-z](\\d)', 'g') AS m",
    "SELECT id, m::text FROM rx, LATERAL regexp_matches(s, p, fl) AS m",
    # unnest in the select list: once per row, rows with an empty or NULL array drop out
    "SELECT id, unnest(regexp_split_to_array(s, ' ')) FROM rx",
    "SELECT id, unnest(ARRAY[id, id * 10]) + 1 AS u FROM rx WHERE id < 4",
    "SELECT unnest(ARRAY['a', NULL, 'c'])",
    "SELECT id, generate_series(1, id) FROM rx WHERE id <= 3",
    # several in lock-step, padded with NULLs (PostgreSQL 10+)
    "SELECT unnest(ARRAY[1,2]), unnest(ARRAY[1,2,3])",
    "SELECT id, regexp_split_to_table(s, ' '), regexp_matches(s, '[a-z]', 'g')::text FROM rx",
]

RX_ERRORS = [
    "SELECT regexp_match('abc', 'b', 'g')",
    "SELECT regexp_split_to_array('abc', 'b', 'g')",
    "SELECT regexp_match('abc', 'b', 'z')",
    "SELECT * FROM regexp_split_to_table('abc', 'b', 'g')",
    "SELECT regexp_match('abc', '(')",
    "SELECT 1 WHERE unnest(ARRAY[1]) = 1",
]


@pytest.fixture(scope="module")
def pgrx(pg):
    pg.execute(RX_SETUP)
    return pg


@pytest.mark.parametrize("sql", RX_QUERIES)
def test_regexp_and_srfs_match_postgres(quiver_bin, pgrx, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, RX_SETUP + sql)
    pg_oracle.assert_same_rows(ours, pgrx.query(sql), sql)


@pytest.mark.parametrize("sql", RX_ERRORS)
def test_regexp_errors_match_postgres(pgrx, run_quiver, sql):
    code = pgrx.sqlstate(sql)
    assert code is not None, f"PostgreSQL accepts {sql}"
    assert quiver_error(run_quiver, RX_SETUP + sql)["sqlstate"] == code, sql


def test_regexp_results_are_text_arrays(quiver_bin):
    t = arrow_result(quiver_bin, "SELECT regexp_match('ab', '(a)(x)?'), regexp_split_to_array('a b', ' ')")
    assert t.schema.field(0).type == pa.list_(pa.string())
    assert t.column(0).to_pylist() == [["a", None]]
    assert t.column(1).to_pylist() == [["a", "b"]]
