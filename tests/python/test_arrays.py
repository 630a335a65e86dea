"""SQL arrays (issue 12 item 4): list columns of Parquet / Arrow files and of
memory tables, read end to end, and PostgreSQL's array text.

Files: Quiver's `SELECT *` (through --format arrow) must give the values
pyarrow and DuckDB read from the same files, as list<item: T> (large, view
and fixed-size lists become lists; element types become engine types).
Array text: `::text`, the table, CSV and JSON printers against PostgreSQL 15
(pg_oracle.py). What cannot handle an array yet (grouping, sorting,
hashing) must refuse with 0A000, never answer wrongly.
"""

import json

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

import pg_oracle

PARQUET = "parquet-testing/data"
IPC = "arrow-testing/data/arrow-ipc-stream/integration/1.0.0-littleendian"


def arrow_result(quiver_bin, sql):
    import subprocess
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


def leaf(t):
    while pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        t = t.value_type
    return t


def depth(t):
    d = 0
    while pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        t = t.value_type
        d += 1
    return d


@pytest.mark.parametrize("name", ["list_columns.parquet", "nested_lists.snappy.parquet"])
def test_parquet_lists_match_pyarrow_and_duckdb(quiver_bin, shared_testdata, name):
    path = shared_testdata / PARQUET / name
    ours = arrow_result(quiver_bin, f"SELECT * FROM '{path}'")
    theirs = pq.read_table(path)
    assert ours.column_names == theirs.column_names
    assert ours.to_pylist() == theirs.to_pylist()
    rows = duckdb.sql(f"SELECT * FROM '{path}'").fetchall()
    assert [tuple(r.values()) for r in ours.to_pylist()] == rows
    for f, g in zip(ours.schema, theirs.schema):
        assert pa.types.is_list(f.type) == pa.types.is_list(g.type)
        if pa.types.is_list(g.type):
            assert f.type.value_field.name == "item"
            assert depth(f.type) == depth(g.type) and leaf(f.type) == leaf(g.type)


def test_large_and_fixed_size_lists_become_lists(quiver_bin, shared_testdata):
    path = shared_testdata / IPC / "generated_nested_large_offsets.arrow_file"
    ours = arrow_result(quiver_bin, f"SELECT * FROM '{path}'")
    theirs = ipc.open_file(path).read_all()
    assert ours.to_pylist() == theirs.to_pylist()
    assert all(pa.types.is_list(f.type) for f in ours.schema)
    assert ours.schema.field("large_list_nested").type == pa.list_(pa.list_(pa.int16()))
    path = shared_testdata / IPC / "generated_nested.arrow_file"
    ours = arrow_result(quiver_bin, f"SELECT list_nullable, fixedsizelist_nullable FROM '{path}'")
    theirs = ipc.open_file(path).read_all().select(["list_nullable", "fixedsizelist_nullable"])
    assert ours.to_pylist() == theirs.to_pylist()
    assert ours.schema.field("fixedsizelist_nullable").type == pa.list_(pa.int32())


def test_printers_show_postgres_array_text(run_quiver, shared_testdata):
    path = shared_testdata / PARQUET / "list_columns.parquet"
    out = run_quiver("sql", f"SELECT * FROM '{path}'").stdout
    for cell in ["{1,2,3}", "{NULL,1}", "{4}", "{abc,efg,hij}", "{efg,NULL,hij,xyz}"]:
        assert f"│ {cell} " in out, out
    csv = run_quiver("sql", "--format", "csv", f"SELECT * FROM '{path}'").stdout
    assert csv.splitlines() == ['int64_list,utf8_list', '"{1,2,3}","{abc,efg,hij}"',
                                '"{NULL,1}",', '{4},"{efg,NULL,hij,xyz}"']
    js = run_quiver("sql", "--format", "json", f"SELECT * FROM '{path}'").stdout
    assert [json.loads(line) for line in js.splitlines()] == [
        {"int64_list": [1, 2, 3], "utf8_list": ["abc", "efg", "hij"]},
        {"int64_list": [None, 1], "utf8_list": None},
        {"int64_list": [4], "utf8_list": ["efg", None, "hij", "xyz"]}]
    nested = shared_testdata / PARQUET / "nested_lists.snappy.parquet"
    out = run_quiver("sql", "--format", "csv", f"SELECT a FROM '{nested}'").stdout
    assert out.splitlines()[1] == '"{{{a,b},{c}},{NULL,{d}}}"'
    out = run_quiver("sql", "--format", "csv", f"SELECT a::text FROM '{nested}'").stdout
    assert out.splitlines()[1] == '"{{{a,b},{c}},{NULL,{d}}}"'


def test_lists_flow_through_operators(run_quiver, shared_testdata, tmp_path):
    path = shared_testdata / PARQUET / "list_columns.parquet"
    sql = f"""
      CREATE TABLE t AS SELECT row_number() OVER () AS id, * FROM '{path}';
      CREATE TABLE k (i int, n text);
      INSERT INTO k VALUES (1, 'one'), (3, 'three'), (2, 'two');
      SELECT k.n, t.utf8_list, t.int64_list FROM t JOIN k ON t.id = k.i
        WHERE t.id > 1 ORDER BY k.n DESC LIMIT 2;
      SELECT id, COALESCE(utf8_list, '{{x}}'::text[]),
             CASE WHEN id = 1 THEN NULL ELSE int64_list END FROM t ORDER BY id;
      SELECT id, int64_list FROM t UNION ALL SELECT 9, NULL ORDER BY 1 DESC LIMIT 2;
      COPY t TO '{tmp_path}/t.parquet';
      COPY (SELECT * FROM t WHERE id <> 2) TO '{tmp_path}/t.arrow' (FORMAT arrow);
    """
    out = run_quiver("sql", "--format", "csv", sql).stdout
    assert out.split("id,int64_list\n")[0].endswith(
        'n,utf8_list,int64_list\ntwo,,"{NULL,1}"\nthree,"{efg,NULL,hij,xyz}",{4}\n'
        'id,coalesce,case\n1,"{abc,efg,hij}",\n2,{x},"{NULL,1}"\n'
        '3,"{efg,NULL,hij,xyz}",{4}\n'), out
    assert out.split("id,int64_list\n")[1].startswith("9,\n3,{4}\n"), out
    back = pq.read_table(tmp_path / "t.parquet")
    assert pa.types.is_list(back.schema.field("int64_list").type)
    assert back.column("utf8_list").to_pylist() == [["abc", "efg", "hij"], None,
                                                   ["efg", None, "hij", "xyz"]]
    back = ipc.open_file(tmp_path / "t.arrow").read_all()
    assert back.schema.field("int64_list").type == pa.list_(pa.int64())
    assert back.column("int64_list").to_pylist() == [[1, 2, 3], [4]]


@pytest.mark.parametrize("sql,what", [
    ("SELECT int64_list, count(*) FROM t GROUP BY 1", "GROUP BY"),
    ("SELECT * FROM t ORDER BY int64_list", "ORDER BY"),
    ("SELECT DISTINCT utf8_list FROM t", "DISTINCT"),
    ("SELECT int64_list FROM t UNION SELECT int64_list FROM t", "UNION"),
    ("SELECT * FROM t EXCEPT SELECT * FROM t", "INTERSECT / EXCEPT"),
    ("SELECT count(DISTINCT int64_list) FROM t", "DISTINCT in an aggregate"),
    ("SELECT rank() OVER (PARTITION BY int64_list) FROM t", "PARTITION BY"),
    ("SELECT rank() OVER (ORDER BY utf8_list) FROM t", "ORDER BY in a window"),
    ("SELECT (SELECT int64_list FROM t LIMIT 1)", "scalar subquery returning an array"),
    ("SELECT '{{1,2},{3,4}}'::int[]", "multidimensional arrays"),
    ("SELECT '[1:2]={1,2}'::int[]", "dimension decorations"),
])
def test_what_cannot_handle_arrays_refuses(run_quiver, shared_testdata, sql, what):
    path = shared_testdata / PARQUET / "list_columns.parquet"
    err = quiver_error(run_quiver, f"CREATE VIEW t AS SELECT * FROM '{path}'; {sql}")
    assert err["sqlstate"] == "0A000" and what in err["error"], err


# Array text in and out, against PostgreSQL: literals cast to arrays and
# back to text (array_in / array_out), quoting, NULL elements, empty arrays.
TEXT_QUERIES = [
    "SELECT '{1,2,NULL}'::int[]::text",
    "SELECT '{}'::int[]::text, '{}'::text[]::text",
    "SELECT NULL::int[]::text IS NULL",
    """SELECT '{"a b",c,"","NULL",null,"x,y","q\\"t","back\\\\slash"}'::text[]::text""",
    "SELECT '{ 1 , 2 ,3 }'::bigint[]::text",
    "SELECT '{ab  c ,  d}'::text[]::text",
    "SELECT '{naïve,café,\"ÉTÉ été\",日本}'::text[]::text",
    "SELECT '{true,f,NULL}'::boolean[]::text",
    "SELECT '{1.50,-2,3e2}'::numeric(10,2)[]::text",
    "SELECT '{1.5,-0.25,1e20}'::float8[]::text",
    "SELECT '{2024-02-29,1999-12-31}'::date[]::text",
    "SELECT '{\"2024-02-29 13:05:09.5\"}'::timestamp[]::text",
    "SELECT '{1,2}'::int[]::bigint[]::text, '{1,2}'::int[]::text[]::text",
]

TEXT_ERRORS = [
    "SELECT '{1,2'::int[]",
    "SELECT '1,2'::int[]",
    "SELECT '{1,2}x'::int[]",
    "SELECT '{a}'::int[]",
    "SELECT '{1,,2}'::int[]",
    "SELECT '{\"1}'::int[]",
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres(locale="C.UTF-8") as server:
        yield server


@pytest.mark.parametrize("sql", TEXT_QUERIES)
def test_array_text_matches_postgres(quiver_bin, pg, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, sql)
    pg_oracle.assert_same_rows(ours, pg.query(sql), sql)


@pytest.mark.parametrize("sql", TEXT_ERRORS)
def test_array_text_errors_match_postgres(pg, run_quiver, sql):
    code = pg.sqlstate(sql)
    assert code is not None, f"PostgreSQL accepts {sql}"
    assert quiver_error(run_quiver, sql)["sqlstate"] == code, sql


def test_create_table_with_array_columns(quiver_bin, pg):
    setup = ("CREATE TABLE a (id int, xs int[], ts text[]);"
             "INSERT INTO a VALUES (1, '{1,2,3}', '{a,\"b c\"}'), (2, NULL, '{}'),"
             " (3, '{NULL}', '{NULL,\"\"}');")
    pg.execute("DROP TABLE IF EXISTS a;" + setup)
    sql = "SELECT id, xs::text, ts::text, xs IS NULL FROM a"
    ours = pg_oracle.quiver_rows(quiver_bin, setup + sql)
    pg_oracle.assert_same_rows(ours, pg.query(sql), sql)
    table = arrow_result(quiver_bin, setup + "SELECT xs, ts FROM a ORDER BY id")
    assert table.schema.field("xs").type == pa.list_(pa.int32())
    assert table.column("ts").to_pylist() == [["a", "b c"], [], [None, ""]]


# Array SQL against PostgreSQL 15: constructors, subscripts and slices,
# functions, operators, ANY / ALL, unnest and array_agg over a table with
# empty arrays, NULL arrays, NULL elements and quoted / Unicode text.
ARRAY_SETUP = """
CREATE TABLE ta (id int, xs int[], ts text[], n int);
INSERT INTO ta VALUES
  (1, '{1,2,3}', '{a,"b c",d}', 2),
  (2, '{}', '{}', 1),
  (3, NULL, NULL, NULL),
  (4, '{NULL,5,NULL}', '{NULL,"",x}', 0),
  (5, '{7,7,8}', '{"naïve","q\\"t","{}"}', 5),
  (6, '{-1}', '{é}', -1);
"""

ARRAY_QUERIES = [
    # constructors
    "SELECT id, ARRAY[id, n]::text, ARRAY[id, NULL, 3]::text FROM ta",
    "SELECT ARRAY[1.5, 2.5]::text, ARRAY['a', 'b c']::text, ARRAY[NULL]::text, ARRAY[]::int[]::text",
    "SELECT ARRAY[1, '2']::text, ARRAY[true, NULL]::text, ARRAY['x'::text, NULL]::text",
    # subscripts and slices (1-based, NULL / empty out of range)
    "SELECT id, xs[1], xs[3], xs[0], xs[-1], xs[4], ts[2], xs[n] FROM ta",
    "SELECT id, xs[2:3]::text, xs[:2]::text, xs[2:]::text, xs[:]::text, xs[0:10]::text, xs[3:2]::text FROM ta",
    "SELECT id, (ARRAY[10,20,30])[id], (ARRAY['p','q'])[2] FROM ta",
    # sizes and search
    "SELECT id, array_length(xs, 1), array_length(xs, 2), cardinality(xs), cardinality(ts) FROM ta",
    "SELECT id, array_position(xs, 7), array_position(xs, NULL), array_position(ts, 'x'), array_position(xs, 7, 2) FROM ta",
    # append, prepend, cat and ||
    "SELECT id, array_append(xs, n)::text, array_prepend(n, xs)::text, array_cat(xs, xs)::text FROM ta",
    "SELECT id, (xs || n)::text, (n || xs)::text, (xs || xs)::text, (xs || '{9}')::text, (ts || 'z'::text)::text FROM ta",
    "SELECT id, array_append(NULL::int[], 1)::text, array_cat(NULL::int[], xs)::text, (xs || NULL::int[])::text FROM ta",
    # text
    "SELECT id, array_to_string(xs, ','), array_to_string(xs, '-', '*'), array_to_string(ts, '|') FROM ta",
    "SELECT string_to_array('a,b,,c', ',')::text, string_to_array('abc', NULL)::text, string_to_array('', ',')::text, string_to_array('a b', '')::text, string_to_array('x,NA,y', ',', 'NA')::text",
    "SELECT id, string_to_array(array_to_string(ts, ','), ',')::text FROM ta",
    # ANY / ALL
    "SELECT id, n = ANY(xs), n <> ALL(xs), 7 = ANY(xs), 7 < ALL(xs), NULL::int = ANY(xs), n > ANY('{1,2}') FROM ta",
    "SELECT id FROM ta WHERE 2 = ANY(xs) OR 'x' = ANY(ts)",
    "SELECT id, 'a' = ANY(ts), 'zz' <> ALL(ts) FROM ta",
    # containment and overlap
    "SELECT id, xs @> ARRAY[7], xs <@ ARRAY[1,2,3,7,8], xs && ARRAY[3,5], ts @> '{}', xs @> ARRAY[NULL::int] FROM ta",
    # unnest in FROM, WITH ORDINALITY, LATERAL over a column
    "SELECT u FROM unnest(ARRAY[3,1,NULL]) AS u",
    "SELECT u, o FROM unnest(ARRAY['a','b c']) WITH ORDINALITY AS t(u, o)",
    "SELECT ta.id, u FROM ta, unnest(ta.xs) AS u",
    "SELECT ta.id, u.v, u.k FROM ta CROSS JOIN LATERAL unnest(ta.ts) WITH ORDINALITY AS u(v, k)",
    "SELECT ta.id, u FROM ta LEFT JOIN LATERAL unnest(ta.xs) AS u ON true",
    # array_agg, with ORDER BY, DISTINCT and FILTER
    "SELECT array_agg(id ORDER BY id)::text, array_agg(n ORDER BY n DESC NULLS LAST)::text FROM ta",
    "SELECT n % 2 AS g, array_agg(id ORDER BY id DESC)::text FROM ta WHERE n IS NOT NULL GROUP BY 1",
    "SELECT array_agg(id ORDER BY id) FILTER (WHERE id > 3)::text FROM ta",
    "SELECT array_agg(t ORDER BY t)::text FROM (VALUES ('b'), (NULL), ('a c')) v(t)",
    "SELECT array_agg(id ORDER BY id)::text FROM ta WHERE id > 100",
    "SELECT cardinality(array_agg(id)) FROM ta",
    # arrays in CTAS and back, casts between element types
    "SELECT id, xs::bigint[]::text, xs::text[]::text, ts::text FROM ta",
]

ARRAY_ERRORS = [
    "SELECT ARRAY[]",
    "SELECT ARRAY[1, 'x']",
    "SELECT xs['a'] FROM ta",
    "SELECT 1 = ANY(5)",
    "SELECT array_length(5, 1)",
    "SELECT ARRAY[1] || ARRAY['a']",
]

ARRAY_QUERIES += [
    # unnest in the select list (a LATERAL FROM item, as PostgreSQL's ProjectSet runs it)
    "SELECT id, unnest(xs) FROM ta",
    "SELECT id, unnest(ts) AS t FROM ta WHERE id > 3",
]

ARRAY_REFUSED = [
    ("SELECT ARRAY[[1,2],[3,4]]", "multidimensional"),
    ("SELECT ARRAY[ARRAY[1,2], ARRAY[3,4]]", "multidimensional"),
    ("SELECT array_agg(xs) FROM ta", "multidimensional"),
    ("SELECT xs, count(*) FROM ta GROUP BY xs", "GROUP BY"),
    ("SELECT array_agg(DISTINCT n) FROM ta", "array_agg(DISTINCT"),
]


@pytest.fixture(scope="module")
def pga(pg):
    pg.execute("DROP TABLE IF EXISTS ta;" + ARRAY_SETUP)
    return pg


@pytest.mark.parametrize("sql", ARRAY_QUERIES)
def test_array_sql_matches_postgres(quiver_bin, pga, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, ARRAY_SETUP + sql)
    pg_oracle.assert_same_rows(ours, pga.query(sql), sql)


@pytest.mark.parametrize("sql", ARRAY_ERRORS)
def test_array_errors_match_postgres(pga, run_quiver, sql):
    code = pga.sqlstate(sql)
    assert code is not None, f"PostgreSQL accepts {sql}"
    assert quiver_error(run_quiver, ARRAY_SETUP + sql)["sqlstate"] == code, sql


@pytest.mark.parametrize("sql,what", ARRAY_REFUSED)
def test_array_refusals(run_quiver, sql, what):
    err = quiver_error(run_quiver, ARRAY_SETUP + sql)
    assert err["sqlstate"] == "0A000" and what in err["error"], err


def test_array_results_keep_arrow_list_types(quiver_bin):
    table = arrow_result(quiver_bin, ARRAY_SETUP + """
        SELECT ARRAY[id, n] AS a, array_agg(id) OVER () AS w, ts[1:2] AS s FROM ta WHERE id = 1""")
    assert table.schema.field("a").type == pa.list_(pa.int32())
    assert table.schema.field("s").type == pa.list_(pa.string())
    assert table.column("a").to_pylist() == [[1, 2]]
    assert table.column("s").to_pylist() == [["a", "b c"]]
