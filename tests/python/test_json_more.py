"""More json / jsonb against PostgreSQL 15: jsonb_insert, json[b]_strip_nulls,
jsonb ?| and ?&, and whole rows as JSON (row_to_json, to_json[b], json[b]_agg
and the builders over a FROM item `t`, `t.*` or ROW(...)).

Every query runs on the same small tables in Quiver and in a PostgreSQL 15
server started by pg_oracle; results must be equal as text exactly (json's
compact and pretty forms, jsonb's normal form, json_agg's line breaks).
ERRORS must fail in both with the same SQLSTATE and message. REFUSED is
valid PostgreSQL that Quiver does not do: each must fail with an
"unsupported: ..." error, never give an answer.
"""

import pytest

import pg_oracle
from test_json import pg_answer, pg_error, quiver_error

SETUP = r"""
CREATE TABLE d (id int, j jsonb);
INSERT INTO d VALUES
  (1, '{"a": 1, "b": [1, 2, {"c": "x"}], "d": {"e": null}}'),
  (2, '{"a": "str", "b": [], "f": false}'),
  (3, '[1, "two", null, {"k": true}, [3, 4], "a", "two"]'),
  (4, '"scalar"'),
  (5, '42'),
  (6, 'null'),
  (7, NULL),
  (8, '{}'),
  (9, '[]'),
  (10, '{"ü": {"ключ": "значение"}, "a b": 1.50, "x": 1e2, "long key": [[], {}]}'),
  (11, '["a", "b", "a", {"a": 1}]');
CREATE TABLE p (id int, path text[]);
INSERT INTO p VALUES
  (1, ARRAY['a']), (2, ARRAY['b', '1']), (3, ARRAY['b', '-1']), (4, ARRAY['d', 'e']),
  (5, ARRAY['z']), (6, ARRAY['0']), (7, ARRAY['-1']), (8, ARRAY[]::text[]),
  (9, NULL), (10, ARRAY['b', '2', 'c']), (11, ARRAY['b', '9']), (12, ARRAY['x', 'y']),
  (13, ARRAY['a', NULL]), (14, ARRAY['two', 'ü']);
CREATE TABLE docs (id int, t text);
INSERT INTO docs VALUES
  (1, '{"a": 1, "b": null, "c": [1, null, {"d": null, "e": "\u00e9x"}], "f" : {"g":null}}'),
  (2, '{"a":1,"a":null, "b" : {"a":null}, "k\u0041": "x\/y", "n": 1.0e2}'),
  (3, '[null, {"a": null}, [null]]'),
  (4, '  null  '),
  (5, '"\ud83d\ude00 tab\t"'),
  (6, '{}'),
  (7, NULL),
  (8, ' [ 1 , 2 ] ');
CREATE TABLE r (id int, name text, price numeric(10,2), d date, ts timestamp,
                tz timestamptz, ok boolean, tags text[], j json, jb jsonb, f float8, n int[]);
INSERT INTO r VALUES
  (1, 'a"b', 1.50, '2024-02-29', '2024-02-29 10:00:00.5', '2024-02-29 10:00:00+00', true,
   '{x,NULL,"y z"}', '{"k" : [1, 2]}', '{"b":1, "a":2}', 0.1, '{1,NULL,3}'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, 'ü ключ', -0.5, '1999-12-31', '2000-01-01 00:00:00', '2000-01-01 23:59:59.25+00', false,
   '{}', '[]', '{}', 1e20, '{}'),
  (4, 'tab\there', 0, '2024-01-01', '2024-01-01 00:00:01', '2024-06-30 12:00:00+00', true,
   '{"a\\b"}', '"s"', '[1, "x", null]', 'NaN', '{-1}');
"""

QUERIES = [
    # jsonb_insert into arrays: before / after the element at the index.
    "SELECT id, jsonb_insert(j, '{0}', '\"new\"'), jsonb_insert(j, '{0}', '\"new\"', true), "
    "jsonb_insert(j, '{-1}', '\"new\"'), jsonb_insert(j, '{-1}', '\"new\"', true), "
    "jsonb_insert(j, '{2}', '{\"o\": 1}', false) FROM d WHERE jsonb_typeof(j) = 'array'",
    # Out of range: appended at the end, or prepended for a negative index.
    "SELECT id, jsonb_insert(j, '{99}', '99'), jsonb_insert(j, '{99}', '99', true), "
    "jsonb_insert(j, '{-99}', '-99'), jsonb_insert(j, '{-99}', '-99', true), "
    "jsonb_insert(j, '{-2147483648}', '0'), jsonb_insert(j, '{2147483647}', '0', true) "
    "FROM d WHERE jsonb_typeof(j) = 'array'",
    # Objects: a new key is added; paths through arrays and missing keys.
    "SELECT id, jsonb_insert(j, '{new}', '[1, {\"deep\": null}]'), jsonb_insert(j, '{b,0}', '0'), "
    "jsonb_insert(j, '{b,-1}', '\"last\"', true), jsonb_insert(j, '{d,x}', 'true'), "
    "jsonb_insert(j, '{ü,new}', '\"é\"'), jsonb_insert(j, '{missing,x}', '1'), "
    "jsonb_insert(j, '{a,0}', '2') FROM d WHERE jsonb_typeof(j) = 'object'",
    # NULL arguments (the function is strict) and an empty path.
    "SELECT id, jsonb_insert(j, '{z}', '1', NULL), jsonb_insert(j, NULL, '1'), "
    "jsonb_insert(j, '{z}', NULL), jsonb_insert(j, '{}', '1'), jsonb_insert(j, '{z}', 'null') "
    "FROM d WHERE id IN (1, 7, 8)",
    "SELECT id, jsonb_insert(j, '{0}', '1', NULL), jsonb_insert(j, '{}', '1'), "
    "jsonb_insert(j, '{0}', 'null', true) FROM d WHERE id IN (3, 9)",
    # Empty containers and deep paths (unicode keys, negative indexes).
    "SELECT jsonb_insert('[]', '{5}', '1'), jsonb_insert('[]', '{-5}', '1', true), "
    "jsonb_insert('{}', '{a}', '1'), jsonb_insert('{}', '{a,b}', '1'), "
    "jsonb_insert('{\"a\": {}}', '{a,b}', '[1]'), jsonb_insert('[[]]', '{0,0}', '1'), "
    "jsonb_insert('[[]]', '{0,-1}', '1', true)",
    "SELECT jsonb_insert('{\"a\": [0, {\"b\": [1, 2]}]}', '{a,1,b,1}', '\"x\"', true), "
    "jsonb_insert('{\"a\": [0, {\"b\": [1, 2]}]}', '{a,-1,b,-1}', '\"x\"'), "
    "jsonb_insert('{\"a\": [0, {\"b\": [1, 2]}]}', '{a,1,c}', '{}'), "
    "jsonb_insert('{\"ключ\": [\"v\"]}', '{ключ,0}', '\"w\"'), "
    "jsonb_insert('[1, 2]', '{ 1}', '9'), jsonb_insert('[1, 2]', '{+1}', '9', true)",
    # A path per row.
    "SELECT d.id, p.id, jsonb_insert(j, path, '\"X\"'), jsonb_insert(j, path, '\"X\"', true) "
    "FROM d, p WHERE (jsonb_typeof(j) = 'array' AND p.id IN (6, 7, 8, 9)) "
    "OR (jsonb_typeof(j) = 'object' AND p.id IN (5, 8, 9, 11, 12))",
    "SELECT sum(length(jsonb_insert(jsonb_build_array(g, g + 1), ARRAY[(g % 5 - 2)::text], "
    "to_jsonb(g), g % 2 = 0)::text)) FROM generate_series(1, 5000) g",
    # json_strip_nulls keeps json's text compact as PostgreSQL writes it;
    # jsonb_strip_nulls gives jsonb's normal form.
    "SELECT id, json_strip_nulls(t::json), jsonb_strip_nulls(t::jsonb) FROM docs",
    "SELECT json_strip_nulls('{\"a\": null}'), jsonb_strip_nulls('[null, {\"a\": null}]'), "
    "json_strip_nulls('null'), jsonb_strip_nulls('null'), json_strip_nulls(' 1.50 '), "
    "json_strip_nulls(NULL), jsonb_strip_nulls(NULL), json_strip_nulls('[ ]'), jsonb_strip_nulls('{}')",
    "SELECT json_strip_nulls(' {\"a\" : 1.50e0, \"b\" : \"\\u00e9\\ud83d\\ude00\\t\\u0001\", "
    "\"c\": {\"d\": null, \"e\": [null, {\"f\": null}]}, \"a\": true} ')",
    "SELECT count(*) FROM docs WHERE jsonb_strip_nulls(t::jsonb) = t::jsonb",
    "SELECT id, jsonb_strip_nulls(j), jsonb_strip_nulls(j) = j FROM d",
    # ?| (any key) and ?& (all keys): NULL elements are skipped.
    "SELECT id, j ?| ARRAY['a', 'x'], j ?& ARRAY['a', 'b'], j ?| '{}', j ?& '{}', "
    "j ?| ARRAY[NULL]::text[], j ?& ARRAY[NULL, 'a'], j ? 'a' FROM d",
    "SELECT id, j ?| '{two,zz}', j ?& '{a,two}', j ?& '{scalar}', j ?| '{42}', "
    "j ?| '{ü,\"a b\"}', j ?& '{\"long key\",x}', j ?| '{c,e,k}' FROM d",
    "SELECT d.id, p.id, j ?| path, j ?& path FROM d, p",
    "SELECT NULL::jsonb ?| '{a}', '{\"a\":1}'::jsonb ?| NULL, '{\"a\":1}'::jsonb ?& NULL::text[], "
    "'\"a\"'::jsonb ?& '{a,a}', '[]'::jsonb ?& '{}', '{\"\":1}'::jsonb ?| '{\"\"}'",
    "SELECT id FROM d WHERE j ?| ARRAY['a', 'k'] OR j ?& '{ü,x}' ORDER BY id",
    "SELECT '{\"a\":1}'::jsonb ? NULL, '{\"a\":1}'::jsonb ? '', '{\"\":1}'::jsonb ? '', "
    "'[\"a\", [\"b\"]]'::jsonb ? 'b', '{\"a\": {\"b\": 1}}'::jsonb ? 'b', '[1]'::jsonb ? '1'",
    # Whole rows: keys in column order, PostgreSQL's value texts.
    "SELECT id, row_to_json(r) FROM r",
    "SELECT id, row_to_json(r, true), row_to_json(r, false), row_to_json(r, id = 1), "
    "row_to_json(r, NULL) FROM r",
    "SELECT to_json(r), to_jsonb(r), to_json(r.*), to_jsonb(r.*) FROM r",
    "SELECT json_agg(r ORDER BY id), jsonb_agg(r ORDER BY id DESC), json_agg(r.*) FILTER (WHERE id > 2) "
    "FROM r",
    "SELECT ok, json_agg(r ORDER BY id), jsonb_agg(r) FROM r GROUP BY ok",
    "SELECT json_agg(r), jsonb_agg(r) FROM r WHERE id < 0",
    # json_agg of arrays: items after the first on new lines (NULLs not).
    "SELECT json_agg(n ORDER BY id), json_agg(tags ORDER BY id DESC), "
    "json_agg(n ORDER BY id NULLS FIRST) FILTER (WHERE id IN (1, 2)) FROM r",
    # Subqueries, VALUES, CTEs and table functions by their aliases.
    "SELECT row_to_json(s), to_jsonb(s) FROM (SELECT id, name AS \"Näme \"\"q\"\"\", id * 2 AS id2, "
    "ARRAY[d, d + 1] AS ds, jb -> 'a' AS a FROM r) s",
    "SELECT row_to_json(s), to_jsonb(s), to_json(s) FROM (SELECT 1 AS a, 'x' AS b, 2 AS a) s",
    "SELECT row_to_json(v) FROM (VALUES (1, 'a'), (2, NULL)) v",
    "SELECT row_to_json(v), to_jsonb(v) FROM (VALUES (1, 'a')) v(x, \"ключ \"\"q\"\"\")",
    "WITH c AS (SELECT 1 AS a, ARRAY['2024-01-01'::date] AS ds, interval '1 day 2 hours' AS iv, "
    "'10:00'::time AS tm, '\\x01ff'::bytea AS b, 0.1::float8 AS f, 0.1::real AS re, "
    "12345678901234::bigint AS big, -2::smallint AS sm, 1e20::float8 AS fe, "
    "'Infinity'::float8 AS inf, 123.4500::numeric AS nu) "
    "SELECT row_to_json(c), to_jsonb(c), row_to_json(c, true) FROM c",
    # Joins: each side's own row.
    "SELECT row_to_json(a), row_to_json(b) FROM r a JOIN r b ON a.id = b.id + 1",
    "SELECT row_to_json(a), to_json(b) FROM r a JOIN r b USING (id)",
    # Correlated: an outer query's row inside a subquery.
    "SELECT s.id, (SELECT row_to_json(s) FROM (SELECT 1) x) FROM (SELECT id, name, d, jb FROM r) s",
    # Outer joins: the preserved side's rows are taken.
    "SELECT row_to_json(a) FROM r a LEFT JOIN r b ON a.id = b.id + 3",
    "SELECT to_json(b) FROM r a RIGHT JOIN r b ON a.id = b.id + 3",
    "SELECT row_to_json(x) FROM r x, r a LEFT JOIN r b ON a.id = b.id WHERE x.id = a.id",
    # LATERAL: the row of an item to its left.
    "SELECT l.k FROM (SELECT id, name FROM r) s, LATERAL (SELECT row_to_json(s) AS k) l",
    # Writes: the target's row in SET and RETURNING, ON CONFLICT's excluded row.
    "CREATE TABLE j (id int PRIMARY KEY, v text, w jsonb); "
    "INSERT INTO j VALUES (1, 'a', NULL), (2, 'b', NULL); "
    "UPDATE j SET w = to_jsonb(j) WHERE id = 1; SELECT id, v, w FROM j",
    "CREATE TABLE j (id int PRIMARY KEY, v text, w jsonb); "
    "INSERT INTO j VALUES (1, 'a', NULL), (2, 'b', NULL); "
    "UPDATE j SET w = to_jsonb(j) RETURNING row_to_json(j)",
    "CREATE TABLE j (id int PRIMARY KEY, v text, w jsonb); "
    "INSERT INTO j VALUES (1, 'a', NULL), (2, 'b', NULL); "
    "INSERT INTO j VALUES (1, 'z', NULL) ON CONFLICT (id) DO UPDATE SET w = to_jsonb(excluded) "
    "RETURNING row_to_json(j)",
    "CREATE TABLE j (id int PRIMARY KEY, v text, w jsonb); "
    "INSERT INTO j VALUES (1, 'a', NULL), (2, 'b', NULL); "
    "UPDATE j SET w = to_jsonb(o) FROM (SELECT 2 AS id, 'x' AS q) o WHERE j.id = o.id; "
    "SELECT id, v, w FROM j",
    "CREATE TABLE j (id int PRIMARY KEY, v text, w jsonb); "
    "INSERT INTO j VALUES (1, 'a', NULL), (2, 'b', NULL); "
    "DELETE FROM j WHERE id = 2 RETURNING to_json(j)",
    # Builders and object_agg take rows too.
    "SELECT json_build_object('row', r, 'id', id), json_build_array(id, r), "
    "jsonb_build_object('r', r), jsonb_build_array(r, r) FROM r",
    "SELECT json_object_agg(id, r ORDER BY id), jsonb_object_agg(id, r) FROM r",
    # ROW(...): fields f1, f2, ...
    "SELECT row_to_json(ROW(1, 'x', NULL)), to_json(ROW(1, 'x')), to_jsonb(ROW(1, 'x', NULL)), "
    "row_to_json(ROW(1, ROW(2, 'y'))), row_to_json(ROW(1, 'x'), true)",
    "SELECT id, to_json(ROW(id, name, d)), to_jsonb(ROW(tags, n)) FROM r",
    "SELECT json_agg(ROW(id, name) ORDER BY id) FROM r",
    "SELECT row_to_json(ROW()), to_jsonb(ROW()), to_json(ROW(NULL)), row_to_json(s), to_json(s) "
    "FROM (SELECT NULL AS x, 1 AS \"Abc\") s",
    "SELECT row_to_json(w), rank() OVER (ORDER BY x) FROM (VALUES (2), (1)) w(x)",
    # Many rows (several batches, a filter's selection), and per group.
    "SELECT count(*), sum(length(row_to_json(s)::text)), sum(length(to_jsonb(s)::text)) "
    "FROM (SELECT g, g::text AS t, ARRAY[g, -g] AS a, g * 0.5 AS h FROM generate_series(1, 100000) g) s "
    "WHERE g % 3 = 0",
    "SELECT g % 4, length(json_agg(s ORDER BY g)::text), md5(json_agg(s ORDER BY g)::text) "
    "FROM (SELECT g, g::text AS t FROM generate_series(1, 20000) g) s GROUP BY 1",
    # In filters and expressions.
    "SELECT id FROM r WHERE to_jsonb(r) @> '{\"ok\": true}' ORDER BY id",
    "SELECT row_to_json(r) ->> 'name', to_jsonb(r) -> 'tags' -> 0, json_typeof(row_to_json(r)) FROM r",
    # jsonb -> / ->> an index on a scalar: PostgreSQL's jsonb scalar is a
    # one-element array to them (not to #> or to json's ->).
    "SELECT id, j -> 0, j ->> 0, j -> -1, j ->> -1, j -> 1, j -> -2, j #> '{0}', "
    "j::json -> 0 FROM d",
    "SELECT '{\"a\": 5}'::jsonb -> 'a' -> 0, '\"x\"'::jsonb ->> -1, 'null'::jsonb ->> 0",
    # Edge cases of the set-returning functions and jsonb_array_length.
    "SELECT * FROM jsonb_each('{}')",
    "SELECT * FROM jsonb_each(NULL)",
    "SELECT * FROM json_each('{\"b\": 1, \"a\": [1, {\"x\": null}], \"b\": \"two\", \"ü\": \"\\u00e9\"}')",
    "SELECT * FROM jsonb_each('{\"b\": 1, \"a\": [1, {\"x\": null}], \"b\": \"two\", "
    "\"ü\": \"\\u00e9\", \"n\": 1.0e1}')",
    "SELECT * FROM jsonb_each_text('{\"s\": \"a\\\"b\\\\c\\n\", \"n\": 1.50, \"z\": null, "
    "\"o\": {\"k\": [1]}, \"t\": true}')",
    "SELECT * FROM json_each_text('{\"s\": \"\\u00e9\\t\", \"n\": 1.50e0, \"z\": null, \"o\": {\"k\" : [1]}}')",
    "SELECT '<' || k || '>' FROM jsonb_object_keys('{\"b\": 1, \"aa\": 2, \"a\": 3, \"\": 4}') o(k)",
    "SELECT * FROM json_object_keys('{\"b\": 1, \"a\": 2, \"b\": 3, \"\\u00fc\": 4}')",
    "SELECT * FROM jsonb_object_keys('{}')",
    "SELECT k FROM jsonb_object_keys('{\"x\": 1, \"y\": 2}') AS o(k) ORDER BY k DESC",
    "SELECT key, value FROM jsonb_each('{\"a\": {\"b\": null}}') e WHERE value IS NOT NULL",
    "SELECT * FROM jsonb_each('{\"a\": 1}') AS e(k, v)",
    "SELECT count(*), min(key) FROM jsonb_each('{\"a\": 1, \"b\": 2, \"c\": 3}')",
    "SELECT jsonb_array_length('[]'), jsonb_array_length('[[1, 2], null]'), "
    "json_array_length(' [1, [2], {\"a\": [3]}] '), json_array_length('[]'), "
    "jsonb_array_length(NULL), jsonb_array_length('[null]'), jsonb_array_length(j) FROM d "
    "WHERE jsonb_typeof(j) = 'array'",
]

# (SQL, SQLSTATE). Messages must equal PostgreSQL's.
ERRORS = [
    ("SELECT jsonb_insert('{\"a\": 1}', '{a}', '2')", "22023"),
    ("SELECT jsonb_insert('{\"a\": {\"b\": 1}}', '{a,b}', '2', true)", "22023"),
    ("SELECT jsonb_insert('1', '{a}', '2')", "22023"),
    ("SELECT jsonb_insert('\"s\"', '{}', '2')", "22023"),
    ("SELECT jsonb_insert('[1]', '{x}', '2')", "22P02"),
    ("SELECT jsonb_insert('{\"a\": [1]}', '{a,1.5}', '2')", "22P02"),
    ("SELECT jsonb_insert('[1]', '{NULL}', '2')", "22004"),
    ("SELECT jsonb_insert('{\"a\": [1]}', '{a,NULL}', '2')", "22004"),
    ("SELECT jsonb_insert('{\"a\": 1}', '{b}', '{bad')", "22P02"),
    ("SELECT jsonb_insert('{\"a\": 1}', '{b}'::text, '2')", "42883"),
    ("SELECT jsonb_insert('{\"a\": 1}'::json, '{b}', '2')", "42883"),
    ("SELECT jsonb_insert('{\"a\": 1}', '{b}', '2', 1)", "42883"),
    ("SELECT json_strip_nulls('{\"a\": \"\\u0000\"}')", "22P05"),
    ("SELECT json_strip_nulls('{\"\\u0000\": 1}')", "22P05"),
    ("SELECT jsonb_strip_nulls('{\"a\": 1}'::json)", "42883"),
    ("SELECT '{\"a\":1}'::json ?| '{a}'", "42883"),
    ("SELECT '{\"a\":1}'::jsonb ?| 'a'::text", "42883"),
    ("SELECT '{\"a\":1}'::jsonb ?& ARRAY[1]", "42883"),
    ("SELECT '{\"a\":1}'::jsonb ?| 'a'", "22P02"),
    ("SELECT row_to_json(r) FROM r GROUP BY id", "42803"),
    ("SELECT row_to_json(id) FROM r", "42883"),
    ("SELECT row_to_json(g) FROM generate_series(1, 2) g", "42883"),
    ("SELECT json_build_object(r, 1) FROM r", "22023"),
    ("SELECT json_build_object(ARRAY[1], 1)", "22023"),
    ("SELECT jsonb_object_agg(r, 1) FROM r", "22023"),
    ("SELECT row_to_json(x) FROM r", "42703"),
    ("SELECT to_json(x.*) FROM r", "42P01"),
    ("SELECT jsonb_array_length('null')", "22023"),
    ("SELECT jsonb_array_length('\"x\"')", "22023"),
    ("SELECT json_array_length('{\"a\": 1}')", "22023"),
    ("SELECT json_array_length('null')", "22023"),
    ("SELECT * FROM jsonb_each('null')", "22023"),
    ("SELECT * FROM jsonb_each('[1]')", "22023"),
    ("SELECT * FROM json_each('\"x\"')", "22023"),
    ("SELECT * FROM json_object_keys('null')", "22023"),
    ("SELECT * FROM jsonb_object_keys('[]')", "22023"),
    ("SELECT * FROM json_each_text('[1]')", "22023"),
]

# Valid PostgreSQL that Quiver refuses for now.
REFUSED = [
    "SELECT r FROM r",
    "SELECT r::text FROM r",
    "SELECT count(r) FROM r",
    "SELECT row_to_json(b) FROM r a LEFT JOIN r b ON a.id = b.id + 3",
    "SELECT json_agg(a) FROM r a FULL JOIN r b ON a.id = b.id + 3",
    "SELECT to_json(jj) FROM (r a JOIN r b USING (id)) jj",
    "SELECT json_agg(e ORDER BY key) FROM jsonb_each('{\"b\": [1], \"a\": null}') e",
    "SELECT row_to_json(ROW(1, r)) FROM r",
    "SELECT json_agg(x) FROM (VALUES (ROW(1, 2))) v(x)",
    "SELECT to_json(s) FROM (SELECT 1 AS a) s ORDER BY s",
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_json_more_matches_postgres(pg, quiver_bin, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, SETUP + sql)
    pg_oracle.assert_same_rows(ours, pg_answer(pg, sql), sql)


@pytest.mark.parametrize("sql,code", ERRORS)
def test_json_more_error_matches_postgres(pg, run_quiver, sql, code):
    pg_code, pg_message, _ = pg_error(pg, sql)
    assert pg_code == code, (sql, pg_code, pg_message)
    q_code, q_message, _ = quiver_error(run_quiver, sql, setup=SETUP)
    assert (q_code, q_message) == (pg_code, pg_message), sql


@pytest.mark.parametrize("sql", REFUSED)
def test_json_more_refused_with_unsupported(pg, run_quiver, sql):
    pg.query(sql)  # PostgreSQL answers
    p = run_quiver("sql", SETUP + sql, check=False)
    assert p.returncode != 0, p.stdout
    assert "unsupported" in p.stderr, p.stderr


def test_row_to_json_pretty_layout(quiver_bin):
    """The exact text: each field after the first on its own line, one space in."""
    rows = pg_oracle.quiver_rows(
        quiver_bin, "SELECT row_to_json(s, true) FROM (SELECT 1 AS a, ARRAY[1, 2] AS b, 'x' AS c) s")
    assert rows == [['{"a":1,\n "b":[1,2],\n "c":"x"}']]


def test_json_agg_of_rows_layout(quiver_bin):
    """json_agg puts each row after the first on a new line, as PostgreSQL does."""
    rows = pg_oracle.quiver_rows(
        quiver_bin, "SELECT json_agg(s ORDER BY a) FROM (VALUES (2, 'y'), (1, 'x')) s(a, b)")
    assert rows == [['[{"a":1,"b":"x"}, \n {"a":2,"b":"y"}]']]


def test_whole_row_of_a_scalar_function_is_refused(pg, run_quiver):
    """PostgreSQL's whole row of a scalar function in FROM is the scalar (so
    row_to_json(g) finds no function); Quiver refuses all function items."""
    sql = "SELECT row_to_json(g) FROM generate_series(1, 3) AS g(x)"
    assert pg_error(pg, sql)[0] == "42883"
    p = run_quiver("sql", sql, check=False)
    assert p.returncode != 0, p.stdout
    assert "unsupported" in p.stderr, p.stderr
