"""json and jsonb against PostgreSQL 15 itself.

Every query in QUERIES runs on the same small table in Quiver (`quiver sql
--format arrow`) and in a PostgreSQL 15 server started by pg_oracle under a
temporary directory; the answers must be equal, json and jsonb values as
text exactly (json keeps its input text, jsonb prints normalised:
`{"a": 1, "b": [1, 2]}`). The documents have unicode keys and values,
escapes, duplicate keys, nested nulls, empty containers, scalars at the top
level and a SQL NULL.

ERRORS must fail in both with the same SQLSTATE and message (PostgreSQL's
DETAIL too, where Quiver gives one). REFUSED lists what Quiver does not do
yet: each must fail with an "unsupported: ..." error, never give an answer.
"""

import json

import pytest

import pg_oracle

SETUP = r"""
CREATE TABLE docs (id int, t text);
INSERT INTO docs VALUES
  (1, '{"a": 1, "b": [1, 2, {"c": "x"}], "d": {"e": null}}'),
  (2, '{"a": "str\n\u00e9\"q\"", "b": [], "f": false}'),
  (3, '[1, "two", null, {"k": true}, [3, 4]]'),
  (4, '"scalar"'),
  (5, '42'),
  (6, 'null'),
  (7, NULL),
  (8, '{"ü": {"ключ": "значение"}, "a b": 1.50, "x": 1e2, "y": -0.0, "z": 12E-1}'),
  (9, '{"a":1,"a":2, "b" : {"a":3}}'),
  (10, '{}'),
  (11, '[]'),
  (12, '  {"sp" :  [ 1 ,2 ] ,"long key": true, "k": "\ud83d\ude00"}  '),
  (13, '{"esc\"aped": "tab\there", "sl": "a\/b", "ctl": "\u0001"}');
"""

QUERIES = [
    # Casts: json keeps the text, jsonb normalises it.
    "SELECT id, t::json FROM docs",
    "SELECT id, t::jsonb FROM docs",
    "SELECT id, t::jsonb::json, t::json::jsonb, t::jsonb::text FROM docs",
    "SELECT id, CAST(t AS jsonb) FROM docs WHERE id > 7",
    # -> and ->> by key and by index.
    "SELECT id, t::json -> 'a', t::jsonb -> 'a', t::json ->> 'a', t::jsonb ->> 'a' FROM docs",
    "SELECT id, t::json -> 'b', t::jsonb -> 'b', t::json ->> 'b', t::jsonb ->> 'b' FROM docs",
    "SELECT id, t::json -> 0, t::jsonb -> 1, t::json ->> 1, t::jsonb ->> 2, "
    "t::json -> -1, t::jsonb -> -2, t::jsonb -> 9, t::json -> -9 FROM docs",
    "SELECT id, t::jsonb -> 'ü' -> 'ключ', t::jsonb -> 'ü' ->> 'ключ', t::json -> 'a b', "
    "t::jsonb ->> 'x', t::jsonb ->> 'y', t::jsonb ->> 'z' FROM docs",
    "SELECT id, t::json -> 'd' -> 'e', t::json -> 'd' ->> 'e', t::jsonb -> 'd' -> 'e', "
    "t::jsonb -> 'd' ->> 'e' FROM docs",
    "SELECT id, t::json ->> 'esc\"aped', t::jsonb ->> 'esc\"aped', t::json ->> 'sl', "
    "t::jsonb ->> 'ctl', t::jsonb ->> 'k', t::json ->> 'k', t::json -> 'k' FROM docs",
    "SELECT id, t::json -> 'b' -> 'a', t::json -> 'sp', t::jsonb -> 'sp' FROM docs",
    "SELECT id, t::json -> 'b' -> 2 ->> 'c', t::jsonb -> 'b' -> 2 -> 'c' FROM docs",
    # #> and #>> with text[] paths.
    "SELECT id, t::json #> '{b,2,c}', t::jsonb #> '{b,2,c}', t::json #>> '{b,2,c}', "
    "t::jsonb #>> '{b, 2, c}' FROM docs",
    "SELECT id, t::json #> '{}', t::jsonb #>> '{}', t::jsonb #> '{3,k}', t::json #>> '{4,-1}', "
    "t::jsonb #> '{b,x}', t::jsonb #> '{\"long key\"}' FROM docs",
    "SELECT id, t::jsonb #> '{d,e}', t::jsonb #>> '{d,e}', t::json #> '{a,NULL}' FROM docs",
    # Extract-path functions.
    "SELECT id, json_extract_path(t::json, 'b', '2', 'c'), json_extract_path_text(t::json, 'b', '0'), "
    "jsonb_extract_path(t::jsonb, 'd'), jsonb_extract_path_text(t::jsonb, 'ü', 'ключ') FROM docs",
    "SELECT id, jsonb_extract_path_text(t::jsonb, 'a'), jsonb_extract_path(t::jsonb, 'd', 'e'), "
    "jsonb_extract_path_text(t::jsonb, 'd', 'e') FROM docs",
    # Type and length.
    "SELECT id, json_typeof(t::json), jsonb_typeof(t::jsonb), jsonb_typeof(t::jsonb -> 'a') FROM docs",
    "SELECT id, json_array_length(t::json), jsonb_array_length(t::jsonb -> 'b') FROM docs "
    "WHERE id IN (3, 11)",
    "SELECT id, jsonb_array_length(t::jsonb -> 'b') FROM docs WHERE id IN (1, 2)",
    # Filters and grouping on extracted values.
    "SELECT id FROM docs WHERE t::jsonb ->> 'a' = '1'",
    "SELECT id FROM docs WHERE (t::jsonb -> 'a') IS NOT NULL",
    "SELECT jsonb_typeof(t::jsonb) AS k, count(*) FROM docs GROUP BY 1",
    "SELECT count(*) FROM docs WHERE t::jsonb ? 'a'",
    # jsonb @> <@ ? =.
    "SELECT id, t::jsonb @> '{\"a\": 1}', t::jsonb @> '{\"b\": [2]}', t::jsonb <@ '{\"a\": 1, \"b\": []}', "
    "t::jsonb ? 'b', t::jsonb ? 'two', t::jsonb ? 'scalar' FROM docs",
    "SELECT id FROM docs WHERE t::jsonb @> '{\"d\": {\"e\": null}}'",
    "SELECT id FROM docs WHERE t::jsonb @> '[[3]]' OR t::jsonb @> '\"scalar\"' OR t::jsonb @> '42'",
    "SELECT '[1, 2, [1, 3]]'::jsonb @> '[1, 3]', '[1, 2, [1, 3]]'::jsonb @> '[[1, 3]]', "
    "'{\"a\": [1, 2]}'::jsonb @> '{\"a\": 1}', '[1, 2]'::jsonb @> '1', '{\"a\": 1.0}'::jsonb @> '{\"a\": 1}', "
    "'\"a\"'::jsonb @> '\"a\"', '[\"a\"]'::jsonb @> '\"a\"', '{}'::jsonb @> '{}', '[]'::jsonb <@ '[1]'",
    "SELECT '1.0'::jsonb = '1'::jsonb, '{\"a\":1, \"b\":2}'::jsonb = '{\"b\":2,\"a\":1}'::jsonb, "
    "'[1,2]'::jsonb = '[2,1]'::jsonb, '\"é\"'::jsonb = '\"\\u00e9\"'::jsonb, '{}'::jsonb <> '[]'::jsonb",
    "SELECT id, t::jsonb = '{\"a\": 2, \"b\": {\"a\": 3}}' FROM docs",
    "SELECT '[\"a\", \"b\"]'::jsonb ? 'a', '[\"a\"]'::jsonb ? 'b', '{\"a\":1}'::jsonb ? 'b', "
    "'\"x\"'::jsonb ? 'x', '1'::jsonb ? '1'",
    # Casts of jsonb scalars.
    "SELECT '1.5'::jsonb::int, '2.5'::jsonb::numeric, '-3'::jsonb::bigint, '1e2'::jsonb::float8, "
    "'true'::jsonb::boolean, 'false'::jsonb::bool",
    # Numbers as jsonb prints them.
    "SELECT '1e2'::jsonb, '1.0e1'::jsonb, '1.00e1'::jsonb, '0.1e-2'::jsonb, '-0'::jsonb, "
    "'-0.0'::jsonb, '123.456e-5'::jsonb, '5E+3'::jsonb, '[0.0, 10e0, 1e-0]'::jsonb",
    # Strings: escapes decoded by jsonb and written back as PostgreSQL does.
    "SELECT '\"a\\u0041\\n\\t\\\\\\/\\b\\f\\r\"'::jsonb, '\"a\\u0041\"'::json, "
    "'\"\\ud83d\\ude00\"'::jsonb, '\"\\u001f\"'::jsonb",
    "SELECT '{\"b\":1, \"a\":2, \"aa\":3, \"B\":4, \"\":5}'::jsonb, '{\"a\":1, \"a\":[1,{\"a\":2,\"a\":3}]}'::jsonb",
    # NULLs.
    "SELECT NULL::json -> 'a', NULL::jsonb ->> 0, '{\"a\":1}'::jsonb -> NULL::text, "
    "jsonb_typeof(NULL), NULL::jsonb @> '{}'",
    "SELECT 'null'::jsonb -> 'a', 'null'::json ->> 0, jsonb_typeof('null'), '[null]'::jsonb ->> 0, "
    "'{\"a\":null}'::json ->> 'a', '{\"a\":null}'::json -> 'a'",
    # Insert into json / jsonb columns (assignment casts validate and normalise).
    "CREATE TABLE j (a json, b jsonb); "
    "INSERT INTO j SELECT t::json, t::jsonb FROM docs; "
    "INSERT INTO j VALUES ('{\"z\" : 1}', '{\"z\" : 1, \"y\": [ ]}'); "
    "SELECT a, b, a -> 'z', b -> 'y' FROM j",
    # Values to JSON: to_json, the builders, the aggregates.
    "SELECT id, to_json(t), to_jsonb(t::jsonb), to_json(id), to_json(t::json), to_jsonb(t) FROM docs",
    "SELECT to_json(1.50::numeric), to_json('NaN'::float8), to_json(1e20::float8), to_json(0.1::float8), "
    "to_json(-2::smallint), to_json(true), to_json('2024-02-29'::date), "
    "to_json('2024-02-29 10:00:00.5'::timestamp), to_json('2024-02-29 10:00:00'::timestamptz), "
    "to_json('10:00'::time), to_json('1 day 2 hours'::interval), to_json('\\x0102'::bytea), "
    "to_json('a\"b\\c'::text), to_jsonb('é'::text), to_json(NULL::int)",
    "SELECT json_build_object('a', 1, 'b', NULL, 'c', '{\"x\":1}'::json, 3, 'x', 'd', '{\"y\": 2}'::jsonb), "
    "jsonb_build_object('b', 1, 'a', 'x', 'b', 2), json_build_array(1, 'a', NULL, 1.5, true), "
    "jsonb_build_array(), json_build_object(), json_build_array(), jsonb_build_array('{\"b\":1,\"a\":2}'::json)",
    "SELECT id, json_build_object('id', id, 'a', t::jsonb -> 'a', 'at', t::jsonb ->> 'a') FROM docs",
    "SELECT json_agg(id ORDER BY id), jsonb_agg(t::jsonb ORDER BY id), "
    "json_agg(t ORDER BY id DESC) FILTER (WHERE id < 4), jsonb_agg(id) FILTER (WHERE id = 1) FROM docs",
    "SELECT jsonb_typeof(t::jsonb) k, json_agg(id ORDER BY id), "
    "json_object_agg(id, t::jsonb -> 'a' ORDER BY id), jsonb_object_agg(id::text, id), "
    "jsonb_object_agg('k', id ORDER BY id) FROM docs GROUP BY 1",
    "SELECT json_agg(x), jsonb_agg(x), json_object_agg(x, x), jsonb_object_agg(x, x) "
    "FROM generate_series(1, 0) g(x)",
    "SELECT json_agg(x ORDER BY x NULLS FIRST), json_object_agg(coalesce(x, 0), x ORDER BY x) "
    "FROM (VALUES (1), (NULL), (3)) v(x)",
    # Set-returning functions in FROM.
    "SELECT * FROM json_array_elements('[1, {\"a\": [2]}, \"x\", null, [ ]]')",
    "SELECT * FROM jsonb_array_elements('[1, {\"b\": 1, \"a\": [2]}, \"x\", null]')",
    "SELECT * FROM jsonb_array_elements_text('[1, {\"b\":1, \"a\": [2]}, \"x\\ny\", null]')",
    "SELECT * FROM json_array_elements_text('[]')",
    "SELECT * FROM json_each('{\"a\":1,\"a\":[2], \"b\": null, \"ü\": \"é\"}')",
    "SELECT key, value FROM jsonb_each_text('{\"b\":1,\"a\":\"x\",\"c\":null}')",
    "SELECT * FROM jsonb_each('{\"b\":1,\"a\":{\"y\":1,\"x\":2}}'::jsonb)",
    "SELECT * FROM json_object_keys('{\"b\":1,\"a\":2,\"b\":3}')",
    "SELECT * FROM jsonb_object_keys('{\"b\":1,\"a\":2, \"aa\": 3}')",
    "SELECT count(*), sum(e::text::int) FROM json_array_elements('[1,2,3]') AS a(e)",
    "SELECT value ->> 'k' FROM jsonb_array_elements('[{\"k\":1},{\"k\":\"two\"}]'::jsonb)",
    "SELECT * FROM json_array_elements(NULL)",
    # jsonb || jsonb merges (tests/python/test_jsonb_modify.py has the rest).
    "SELECT '{\"a\":1}'::jsonb || '{\"b\":2}'::jsonb, id, t::jsonb || '[0]' FROM docs WHERE id <> 7",
    # json || text is text concatenation.
    "SELECT '{\"a\":1}'::json || 'x', 'x'::text || '[1]'::jsonb",
    # x::jsonb -> 'k' over text normalises only the field (the binder fuses the
    # cast into the operator): the last of duplicate keys, escaped keys that
    # equal it, nesting past the fast path's depth, huge numbers, blanks.
    r"""SELECT id, t::jsonb -> 'a', t::jsonb ->> 'a', jsonb_typeof(t::jsonb -> 'a'),
              t::json -> 'a', t::json ->> 'a', t::jsonb -> 'a' -> 'b'
       FROM (VALUES
         (1, '{"a":1,"a":{"z":1,"b":[1.50,1e2,-0.0],"b":{"y":[2],"x":true}}}'),
         (2, '{"\u0061": 5, "a": 6}'),
         (3, '{"a": 7, "\u0061": {"b": "\u00e9\n"}}'),
         (4, '{"a": 1e400, "b": -12.5E-3}'),
         (5, '{"a": DEEP, "b": 0}'),
         (6, '{"b": DEEP, "a": {"b" : null}}'),
         (7, '  { "a" :  { "b" : "x\"y\\z" , "c": [ ] } }  '),
         (8, '{"ab": 1, "a\"": 2, "b": {"a": 3}}'),
         (9, '[{"a": 1}]'),
         (10, '"a"'),
         (11, NULL),
         (12, '{"a": "\ud83d\ude00", "a": "last"}'),
         (13, '{"a": {"b": 1, "a": 2, "b": 3}}')
       ) v(id, t) ORDER BY id""".replace("DEEP", "[" * 70 + "1" + "]" * 70),
    # A column cast to json more than once, also under a filter's selection.
    "SELECT id, t::json -> 'a', t::json ->> 'b', t::json #>> '{b,2,c}' FROM docs WHERE t::json ->> 'f' IS NULL",
    "SELECT (CASE WHEN id = 3 THEN NULL ELSE t END)::json -> 'a', t::json -> 'a' FROM docs",
]

# (SQL, SQLSTATE). Messages must equal PostgreSQL's.
ERRORS = [
    # The fused x::jsonb -> 'k' fails as the cast does, wherever the bad text is.
    ("SELECT '{\"a\":1, \"b\": tru}'::jsonb -> 'a'", "22P02"),
    ("SELECT '{\"a\":1, \"b\": [1,}'::jsonb ->> 'a'", "22P02"),
    ("SELECT '{\"a\":1, \"b\": \"\\u0000\"}'::jsonb ->> 'a'", "22P05"),
    ("SELECT '{\"a\":1, \"b\": \"\\ud800\"}'::jsonb -> 'a'", "22P02"),
    ("SELECT t::jsonb -> 'a' FROM (VALUES ('{\"a\":1}'), ('{\"a\":2,}')) v(t)", "22P02"),
    ("SELECT t::jsonb -> 'zz' FROM (VALUES ('{\"a\":1}'), ('{\"a\":01}')) v(t)", "22P02"),
    # A second cast of a column validated by the first still fails on bad rows
    # the first did not read (NULL there).
    ("SELECT t::json ->> 'a', t::json ->> 'b' FROM (VALUES ('{\"a\":1}'), ('{\"a\":2,}')) v(t)",
     "22P02"),
    ("SELECT (CASE WHEN id = 2 THEN NULL ELSE t END)::json ->> 'a', t::json ->> 'a' "
     "FROM (VALUES (1, '{\"a\":1}'), (2, '{\"a\" 2}')) v(id, t)", "22P02"),
    ("SELECT t::json ->> 'a' FROM (VALUES (1, '{\"a\":1}'), (2, '[1,2')) v(id, t) "
     "WHERE t::json ->> 'a' IS NULL", "22P02"),
    ("SELECT 'abc'::json", "22P02"),
    ("SELECT '{\"a\":}'::json", "22P02"),
    ("SELECT '{\"a\" 1}'::jsonb", "22P02"),
    ("SELECT '[1,2'::json", "22P02"),
    ("SELECT '\"a'::json", "22P02"),
    ("SELECT ''::jsonb", "22P02"),
    ("SELECT '1 2'::json", "22P02"),
    ("SELECT '01'::json", "22P02"),
    ("SELECT '{1:2}'::json", "22P02"),
    ("SELECT '[1,]'::json", "22P02"),
    ("SELECT '{\"a\":1,}'::json", "22P02"),
    ("SELECT '\"\\x\"'::json", "22P02"),
    ("SELECT '\"\\u00\"'::json", "22P02"),
    ("SELECT '\"\\ud800\"'::jsonb", "22P02"),
    ("SELECT '\"\\u0000\"'::jsonb", "22P05"),
    ("SELECT t::json FROM (VALUES ('[1, 2] x')) v(t)", "22P02"),
    ("SELECT '{\"a\":1}'::json = '{\"a\":1}'::json", "42883"),
    ("SELECT length('{}'::json)", "42883"),
    ("SELECT '{\"a\":1}'::text -> 'a'", "42883"),
    ("SELECT 1::json", "42846"),
    ("SELECT '\"x\"'::jsonb::int", "22023"),
    ("SELECT '{}'::jsonb::numeric", "22023"),
    ("SELECT '1'::jsonb::boolean", "22023"),
    ("SELECT '{\"a\":1}'::json::int", "42846"),
    ("SELECT json_array_length('{}')", "22023"),
    ("SELECT jsonb_array_length('1')", "22023"),
    ("SELECT '{\"a\":1}'::json #> 'a'", "22P02"),
    ("SELECT t::json FROM docs ORDER BY 1", "42883"),
    ("SELECT * FROM json_each('[1]')", "22023"),
    ("SELECT * FROM json_each_text('\"x\"')", "22023"),
    ("SELECT * FROM jsonb_each('1')", "22023"),
    ("SELECT * FROM json_array_elements('1')", "22023"),
    ("SELECT * FROM jsonb_array_elements('{}')", "22023"),
    ("SELECT * FROM jsonb_array_elements_text('true')", "22023"),
    ("SELECT * FROM json_object_keys('[1]')", "22023"),
    ("SELECT * FROM jsonb_object_keys('1')", "22023"),
    ("SELECT * FROM json_array_elements('[1')", "22P02"),
    ("SELECT json_build_object('a')", "22023"),
    ("SELECT json_build_object(NULL, 1)", "22023"),
    ("SELECT json_build_object('{\"a\":1}'::json, 1)", "22023"),
    ("SELECT json_object_agg(k, v) FROM (VALUES (NULL::text, 1)) t(k, v)", "22023"),
]

# Valid PostgreSQL that Quiver refuses for now.
REFUSED = [
    "SELECT t::jsonb FROM docs ORDER BY 1",
    "SELECT json_agg(DISTINCT id) FROM docs",
    "SELECT json_agg(id) OVER () FROM docs",
    "SELECT json_array_elements('[1, 2]')",
    "SELECT d.id, e.value FROM docs d, json_array_elements(d.t::json) e WHERE d.id = 3",
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


def pg_answer(pg, sql):
    """PostgreSQL's rows for `sql`; a `CREATE TABLE j ...; ...; query` script
    gets a table of its own, dropped again after the query (test_jsonb_modify
    uses this too)."""
    if not sql.startswith("CREATE TABLE j"):
        return pg.query(sql)
    *stmts, query = [s.strip() for s in sql.split("; ")]
    pg.execute("; ".join(stmts))
    try:
        return pg.query(query)
    finally:
        pg.execute("DROP TABLE j")


@pytest.mark.parametrize("sql", QUERIES)
def test_json_query_matches_postgres(pg, quiver_bin, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, SETUP + sql)
    pg_oracle.assert_same_rows(ours, pg_answer(pg, sql), sql)


def pg_error(pg, sql):
    proc = pg.psql("-v", "VERBOSITY=verbose", "-c", sql, check=False)
    if proc.returncode == 0:
        return None, None, proc.stdout
    # "ERROR:  22P02: invalid input syntax for type json" then DETAIL etc.
    lines = proc.stderr.splitlines()
    head = next(line for line in lines if line.startswith("ERROR:"))
    code, message = head[len("ERROR:  "):].split(": ", 1)
    detail = [line[len("DETAIL:  "):] for line in lines if line.startswith("DETAIL:")]
    return code, message, detail[0] if detail else None


def quiver_error(run_quiver, sql, setup=SETUP):
    p = run_quiver("sql", "--format", "json", setup + sql, check=False)
    if p.returncode == 0:
        return None, None, p.stdout
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == 1, p.stderr
    err = json.loads(lines[0])
    return err.get("sqlstate"), err["error"], err.get("detail")


@pytest.mark.parametrize("sql,code", ERRORS)
def test_json_error_matches_postgres(pg, run_quiver, sql, code):
    pg_code, pg_message, pg_detail = pg_error(pg, sql)
    assert pg_code == code, (sql, pg_code, pg_message)
    q_code, q_message, q_detail = quiver_error(run_quiver, sql)
    if code is None:
        assert q_code is None, (sql, q_message)
        return
    assert (q_code, q_message) == (pg_code, pg_message), sql
    if q_detail is not None and pg_detail is not None:
        # Quiver's DETAIL holds PostgreSQL's DETAIL line, then its CONTEXT line.
        assert q_detail.split("\n")[0] == pg_detail, sql


@pytest.mark.parametrize("sql", REFUSED)
def test_json_refused_with_unsupported(pg, run_quiver, sql):
    pg.query(sql.replace("docs ORDER BY 1", "docs ORDER BY 1 LIMIT 1"))  # PostgreSQL answers
    p = run_quiver("sql", SETUP + sql, check=False)
    assert p.returncode != 0, p.stdout
    assert "unsupported" in p.stderr, p.stderr


def test_invalid_json_error_names_the_place(run_quiver):
    """The error of a bad document says where, as PostgreSQL's CONTEXT does."""
    p = run_quiver("sql", "SELECT '{\"a\": [1, 2}'::json", check=False)
    assert p.returncode != 0
    assert "invalid input syntax for type json" in p.stderr
    assert 'Expected "," or "]", but found "}".' in p.stderr
    assert 'JSON data, line 1: {"a": [1, 2}' in p.stderr
    assert "^" in p.stderr  # the caret under the literal


def test_json_arrow_output_is_text(quiver_bin):
    rows = pg_oracle.quiver_rows(quiver_bin, "SELECT '{\"b\":1,\"a\":[1,2]}'::jsonb AS j")
    assert rows == [['{"a": [1, 2], "b": 1}']]
