"""jsonb's modification operators and functions against PostgreSQL 15.

`||`, `-` (text, text[], integer), `#-`, jsonb_set (with and without
create_if_missing) and jsonb_pretty run on the same small tables in Quiver
and in a PostgreSQL 15 server started by pg_oracle; results must be equal as
text exactly (jsonb's normal form, jsonb_pretty's indentation). ERRORS must
fail in both with the same SQLSTATE and message.
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
  (9, NULL), (10, ARRAY['b', '2', 'c']), (11, ARRAY['b', '9']), (12, ARRAY['x', 'y']);
"""

QUERIES = [
    # || : objects merge (right wins), arrays concatenate, others wrap.
    "SELECT id, j || '{\"a\": 9, \"new\": [1]}' FROM d",
    "SELECT id, j || '[1, 2]' FROM d",
    "SELECT id, j || '3' FROM d",
    "SELECT id, j || '\"s\"'::jsonb, '\"s\"'::jsonb || j FROM d",
    "SELECT id, j || j, j || '{}', j || '[]', '[]' || j, '{}' || j FROM d",
    "SELECT id, j || NULL, NULL || j, j || NULL::jsonb FROM d",
    "SELECT '{\"a\": {\"b\": 1}}'::jsonb || '{\"a\": {\"c\": 2}}'::jsonb, "
    "'[1]'::jsonb || '{\"a\": 1}', '{\"a\": 1}'::jsonb || '[1]', 'null'::jsonb || 'null', "
    "'true'::jsonb || '[false]', '1'::jsonb || '2'::jsonb",
    "SELECT jsonb_typeof(j || '1') FROM d",
    # - text: a key, or string elements of an array.
    "SELECT id, j - 'a', j - 'b', j - 'two', j - 'zz', j - '' FROM d WHERE jsonb_typeof(j) IN ('object', 'array')",
    "SELECT id, j - 'ü', j - 'a b' FROM d WHERE id IN (1, 10)",
    "SELECT id, j - NULL::text FROM d",
    "SELECT id, j - '{a,b}', j - '{two,a}' FROM d WHERE id IN (1, 3, 11)",
    # - text[].
    "SELECT id, j - ARRAY['a', 'b'], j - ARRAY[]::text[], j - ARRAY['a', NULL], "
    "j - '{two,a}'::text[] FROM d WHERE jsonb_typeof(j) IN ('object', 'array')",
    "SELECT d.id, p.id, j - path FROM d, p WHERE jsonb_typeof(j) IN ('object', 'array')",
    # - integer: by index, negative from the end.
    "SELECT id, j - 0, j - 1, j - -1, j - -2, j - 6, j - 7, j - -7, j - -8, j - 100, j - -100 "
    "FROM d WHERE jsonb_typeof(j) = 'array'",
    "SELECT id, j - NULL::int FROM d",
    # #- path.
    "SELECT d.id, p.id, j #- path FROM d, p WHERE jsonb_typeof(j) = 'object' "
    "OR (jsonb_typeof(j) = 'array' AND p.id IN (6, 7, 8, 9))",
    "SELECT id, j #- '{b,2,c}', j #- '{d}', j #- '{b,-1}', j #- '{b,9}', j #- '{}', j #- '{a,x}' "
    "FROM d WHERE id IN (1, 2, 8, 10)",
    "SELECT id, j #- '{1}', j #- '{-1}', j #- '{}', j #- '{3,k}', j #- '{4,0}', j #- '{3,k,z}' "
    "FROM d WHERE id IN (3, 9, 11)",
    "SELECT id, j #- '{x,NULL}' FROM d WHERE id IN (1, 2, 8, 9)",
    # jsonb_set.
    "SELECT d.id, p.id, jsonb_set(j, path, '\"NEW\"'), jsonb_set(j, path, '[1]', false) "
    "FROM d, p WHERE (jsonb_typeof(j) = 'object' AND p.id <> 12) "
    "OR (jsonb_typeof(j) = 'array' AND p.id IN (6, 7, 8, 9))",
    "SELECT id, jsonb_set(j, '{b,0}', '{\"x\": 1}'), jsonb_set(j, '{b,-1}', 'null'), "
    "jsonb_set(j, '{b,-10}', '0'), jsonb_set(j, '{b,10}', '0'), jsonb_set(j, '{b,10}', '0', false) "
    "FROM d WHERE id IN (1, 2)",
    "SELECT id, jsonb_set(j, '{0}', '\"first\"'), jsonb_set(j, '{-1}', '\"last\"'), "
    "jsonb_set(j, '{99}', '99'), jsonb_set(j, '{-99}', '-99'), jsonb_set(j, '{-99}', '-99', false), "
    "jsonb_set(j, '{3,k}', 'false'), jsonb_set(j, '{3,n}', '1'), jsonb_set(j, '{4,1}', '5') "
    "FROM d WHERE jsonb_typeof(j) = 'array'",
    "SELECT id, jsonb_set(j, '{new}', '{\"deep\": [1, {\"x\": \"y\"}]}'), "
    "jsonb_set(j, '{new,deeper}', '1'), jsonb_set(j, '{a}', 'null'), "
    "jsonb_set(j, '{d,e}', '\"é\"'), jsonb_set(j, '{ü,ключ}', '2') FROM d WHERE jsonb_typeof(j) = 'object'",
    "SELECT id, jsonb_set(j, '{a}', '1', NULL), jsonb_set(j, NULL, '1'), jsonb_set(j, '{a}', NULL), "
    "jsonb_set(j, '{a}', '1', true), jsonb_set(j, '{}', '1') FROM d WHERE id IN (1, 7, 8)",
    "SELECT jsonb_set('{}', '{a}', '1', false), jsonb_set('[]', '{0}', '1', false), "
    "jsonb_set('[]', '{5}', '1'), jsonb_set('[]', '{-5}', '1'), jsonb_set('{}', '{a,b}', '1'), "
    "jsonb_set('{\"a\": 1}', '{a,b}', '2'), jsonb_set('{\"a\": \"s\"}', '{a,0}', '2'), "
    "jsonb_set('[1, 2]', '{ 1}', '9'), jsonb_set('[1, 2]', '{+1}', '9')",
    "SELECT jsonb_set(jsonb_set('{\"a\": [1, 2, 3]}', '{a,1}', '\"x\"'), '{b}', '{\"c\": [1]}') "
    "#- '{a,0}' || '{\"z\": true}'",
    # jsonb_pretty.
    "SELECT id, jsonb_pretty(j) FROM d",
    "SELECT jsonb_pretty('{\"a\": [1, {\"b\": {}, \"c\": []}, [[]]], \"e\\\"s\": \"tab\\t\", \"n\": 1.50}')",
    "SELECT jsonb_pretty('[[1, [2, [3]]], {\"a\": {\"b\": {\"c\": null}}}]'), jsonb_pretty('\"x\"'), "
    "jsonb_pretty('[]'), jsonb_pretty('{}'), jsonb_pretty(NULL)",
    # Integer extremes, deep nesting, and many rows (several vectors, a path per row).
    "SELECT '[1,2]'::jsonb - (-2147483648), jsonb_set('[1,2]', '{-2147483648}', '0'), "
    "jsonb_set('[1,2]', '{2147483647}', '0'), '[1]'::jsonb - 2147483647",
    "SELECT length(jsonb_pretty((repeat('[', 3000) || repeat(']', 3000))::jsonb)), "
    "jsonb_set((repeat('[', 3000) || repeat(']', 3000))::jsonb, '{0,0,0}', '1')::text",
    "SELECT sum(length(((jsonb_set(jsonb_build_object('k', g), ARRAY['k'], to_jsonb(g)) || "
    "to_jsonb(g)) #- ARRAY[(g % 3)::text])::text)), count(DISTINCT (to_jsonb(g) || '[1]') - (g % 2)) "
    "FROM generate_series(1, 10000) g",
    # jsonb || text is text concatenation.
    "SELECT id, j || 'x'::text, 'x'::text || j FROM d",
    # In expressions: filters, grouping, writes.
    "SELECT id FROM d WHERE (j || '{\"q\": 1}') @> '{\"q\": 1}' ORDER BY id",
    "SELECT count(*), j - 'a' FROM d WHERE jsonb_typeof(j) = 'object' GROUP BY 2",
    "CREATE TABLE j (k int, v jsonb); INSERT INTO j VALUES (1, '{\"a\": 1}'), (2, '[1]'); "
    "UPDATE j SET v = jsonb_set(v, '{0}', '\"u\"') || '{\"b\": 2}'; SELECT k, v FROM j",
]

# (SQL, SQLSTATE). Messages must equal PostgreSQL's.
ERRORS = [
    ("SELECT '\"s\"'::jsonb - 'a'", "22023"),
    ("SELECT '1'::jsonb - 'a'", "22023"),
    ("SELECT 'null'::jsonb - ARRAY['a']", "22023"),
    ("SELECT '3'::jsonb - 0", "22023"),
    ("SELECT '{\"a\": 1}'::jsonb - 0", "22023"),
    ("SELECT '{}'::jsonb - 1", "22023"),
    ("SELECT '\"x\"'::jsonb #- '{a}'", "22023"),
    ("SELECT '[1, 2]'::jsonb #- '{a}'", "22P02"),
    ("SELECT '{\"a\": [1, 2]}'::jsonb #- '{a,x}'", "22P02"),
    ("SELECT '{\"a\": [1, 2]}'::jsonb #- '{a,NULL}'", "22004"),
    ("SELECT '{\"a\": [1, 2]}'::jsonb #- ARRAY[NULL]", "22004"),
    ("SELECT jsonb_set('1', '{a}', '2')", "22023"),
    ("SELECT jsonb_set('\"s\"', '{}', '2')", "22023"),
    ("SELECT jsonb_set('[1]', '{x}', '2')", "22P02"),
    ("SELECT jsonb_set('[1]', '{1.5}', '2')", "22P02"),
    ("SELECT jsonb_set('[1]', '{99999999999}', '2')", "22P02"),
    ("SELECT jsonb_set('{\"a\": [1]}', '{a,\"\"}', '2')", "22P02"),
    ("SELECT jsonb_set('{\"a\": 1}', '{NULL}', '2')", "22004"),
    ("SELECT jsonb_set('{\"a\": {\"b\": 1}}', '{a,NULL}', '2')", "22004"),
    ("SELECT jsonb_set('{\"a\": 1}', '{a}', '{bad')", "22P02"),
    ("SELECT jsonb_set('{\"a\": 1}', '{a', '2')", "22P02"),
    ("SELECT '[1]'::jsonb || '{bad'", "22P02"),
    ("SELECT jsonb_pretty('{bad')", "22P02"),
    ("SELECT '[1]'::json || '[2]'::jsonb", "42883"),
    ("SELECT '[1]'::jsonb || '[2]'::json", "42883"),
    ("SELECT '[1]'::jsonb || 2", "42883"),
    ("SELECT '[1]'::json || '[2]'::json", "42883"),
    ("SELECT '{\"a\": 1}'::jsonb - 1::bigint", "42883"),
    ("SELECT '{\"a\": 1}'::jsonb #- 'a'::text", "42883"),
    ("SELECT '{\"a\": 1}'::jsonb - ARRAY[1]", "42883"),
    ("SELECT jsonb_set('{\"a\": 1}', ARRAY[1], '2')", "42883"),
    ("SELECT jsonb_set('{\"a\": 1}', '{a}'::text, '2')", "42883"),
    ("SELECT jsonb_set('{\"a\": 1}', '{a}', '2', 1)", "42883"),
    ("SELECT jsonb_pretty('{\"a\": 1}'::json)", "42883"),
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_jsonb_modify_matches_postgres(pg, quiver_bin, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, SETUP + sql)
    pg_oracle.assert_same_rows(ours, pg_answer(pg, sql), sql)


@pytest.mark.parametrize("sql,code", ERRORS)
def test_jsonb_modify_error_matches_postgres(pg, run_quiver, sql, code):
    pg_code, pg_message, _ = pg_error(pg, sql)
    assert pg_code == code, (sql, pg_code, pg_message)
    q_code, q_message, _ = quiver_error(run_quiver, sql, setup="")
    assert (q_code, q_message) == (pg_code, pg_message), sql


def test_jsonb_pretty_layout(quiver_bin):
    """The exact text: four spaces a level, a key's container on the key's line."""
    rows = pg_oracle.quiver_rows(quiver_bin, "SELECT jsonb_pretty('{\"a\": [1, {}], \"b\": 2}')")
    assert rows == [['{\n    "a": [\n        1,\n        {\n        }\n    ],\n    "b": 2\n}']]
