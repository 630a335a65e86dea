"""WITH RECURSIVE, SELECT DISTINCT ON, FETCH FIRST ... WITH TIES and the ordered-set
aggregates (percentile_cont, percentile_disc, mode WITHIN GROUP) against PostgreSQL 15.

Every query in QUERIES runs on the same small tables in Quiver and in a PostgreSQL 15 server
started for this module (pg_oracle.py, UTC); the answers must be equal (rows as multisets, or in
order for the queries in ORDERED, whose ORDER BY fixes the order). ERRORS: PostgreSQL's message
and SQLSTATE for each; Quiver's error must contain the same message and carry the same code.
The recursion limit, which PostgreSQL does not have, is tested on its own.
"""

import json
import subprocess

import pytest

import pg_oracle

SETUP = """
CREATE TABLE edges (src int, dst int);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 4), (2, 5), (5, 6), (6, 2), (10, 11);
CREATE TABLE tree (id int, parent int, name text);
INSERT INTO tree VALUES (1, NULL, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'a1'), (5, 2, 'a2'),
  (6, 4, 'a1x'), (7, 3, 'b1');
CREATE TABLE m (g int, x float8, k text, d date, iv interval);
INSERT INTO m VALUES (1, 1.0, 'p', DATE '2024-01-01', INTERVAL '1 day'),
  (1, 2.0, 'q', DATE '2024-01-03', INTERVAL '3 days'),
  (1, 4.0, 'q', DATE '2024-02-29', INTERVAL '1 mon'),
  (1, NULL, NULL, NULL, NULL),
  (2, 10.0, 'r', DATE '2023-12-31', INTERVAL '2 hours'),
  (2, 10.0, 's', DATE '2023-12-30', INTERVAL '1 hour'),
  (2, 30.0, 's', NULL, INTERVAL '3 hours'),
  (2, 20.0, 'r', DATE '2024-03-01', INTERVAL '1 hour 30 minutes'),
  (3, 5.0, 'z', DATE '2020-02-29', INTERVAL '1 year'),
  (NULL, 7.0, 'n', DATE '2021-06-01', INTERVAL '5 minutes');
CREATE TABLE empty_t (g int, x float8);
CREATE TABLE scores (name text, team text, score int);
INSERT INTO scores VALUES ('ann', 'red', 90), ('bob', 'red', 85), ('cid', 'blue', 90),
  ('dan', 'blue', 70), ('eve', NULL, 88), ('fay', NULL, 95), ('gus', 'red', 85),
  ('hal', 'green', NULL), ('ivy', 'green', 60);
"""


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


def _pg_text(v):
    """Quiver's dates and timestamps as PostgreSQL prints them."""
    if hasattr(v, "isoformat") and not isinstance(v, str):
        return v.isoformat(sep=" ") if hasattr(v, "hour") else v.isoformat()
    return v


def quiver_rows(quiver_bin, sql):
    return [[_pg_text(v) for v in row]
            for row in pg_oracle.quiver_rows(quiver_bin, SETUP + sql)]


RECURSIVE = [
    # counting, UNION ALL and UNION
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n + 1 FROM t WHERE n < 100) "
    "SELECT count(*), sum(n), min(n), max(n) FROM t",
    "WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 5) "
    "SELECT n * 2 AS doubled FROM t",
    # Fibonacci with two columns and a bigint
    "WITH RECURSIVE fib(i, a, b) AS (SELECT 1, 0::bigint, 1::bigint UNION ALL "
    "SELECT i + 1, b, a + b FROM fib WHERE i < 60) SELECT i, a FROM fib",
    # the anchor yields nothing
    "WITH RECURSIVE t(n) AS (SELECT 1 WHERE false UNION ALL SELECT n + 1 FROM t) SELECT * FROM t",
    "WITH RECURSIVE t(x) AS (SELECT x FROM empty_t UNION ALL SELECT x + 1 FROM t WHERE x < 3) "
    "SELECT * FROM t",
    # UNION stops at a cycle (1 -> 2 -> 3 -> 4, 2 -> 5 -> 6 -> 2)
    "WITH RECURSIVE reach(n) AS (SELECT 1 UNION SELECT e.dst FROM edges e JOIN reach r "
    "ON e.src = r.n) SELECT * FROM reach",
    "WITH RECURSIVE reach(n) AS (SELECT 6 UNION SELECT e.dst FROM reach r, edges e "
    "WHERE e.src = r.n) SELECT n FROM reach",
    # UNION deduplicates the anchor's rows too
    "WITH RECURSIVE t(n) AS (VALUES (1), (1), (2) UNION SELECT n + 1 FROM t WHERE n < 3) "
    "SELECT * FROM t",
    # UNION ALL over a cycle with a depth bound
    "WITH RECURSIVE walk(n, depth) AS (SELECT 2, 0 UNION ALL SELECT e.dst, w.depth + 1 "
    "FROM walk w JOIN edges e ON e.src = w.n WHERE w.depth < 6) SELECT n, depth FROM walk",
    # paths as text, a tree walk with levels
    "WITH RECURSIVE p(id, path, lvl) AS (SELECT id, name, 0 FROM tree WHERE parent IS NULL "
    "UNION ALL SELECT c.id, p.path || '/' || c.name, p.lvl + 1 FROM tree c JOIN p "
    "ON c.parent = p.id) SELECT * FROM p",
    "WITH RECURSIVE sub(id) AS (SELECT 2 UNION ALL SELECT t.id FROM tree t, sub "
    "WHERE t.parent = sub.id) SELECT count(*) FROM sub",
    # ancestors, NULLs in the working table
    "WITH RECURSIVE anc(id, parent) AS (SELECT id, parent FROM tree WHERE id = 6 UNION ALL "
    "SELECT t.id, t.parent FROM tree t JOIN anc a ON t.id = a.parent) SELECT * FROM anc",
    "WITH RECURSIVE t(a, b) AS (SELECT 1, NULL::int UNION SELECT a + 1, b FROM t WHERE a < 3) "
    "SELECT * FROM t",
    # several CTEs, some recursive, one referencing another; the CTE used twice
    "WITH RECURSIVE lim(k) AS (SELECT 4), t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t, lim "
    "WHERE n < lim.k), u(m) AS (SELECT n * 10 FROM t) SELECT * FROM u",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) "
    "SELECT a.n, b.n FROM t a, t b",
    "WITH RECURSIVE a(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM a WHERE n < 3), "
    "b(n) AS (SELECT n FROM a UNION ALL SELECT n * 2 FROM b WHERE n < 10) SELECT * FROM b",
    # a recursive query that does not recurse, a WITH RECURSIVE over a plain CTE
    "WITH RECURSIVE t AS (SELECT 1 AS x) SELECT * FROM t",
    # the recursive term with a FROM subquery, DISTINCT and an expression filter
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT DISTINCT n + 1 FROM "
    "(SELECT n FROM t) s WHERE n % 7 <> 0) SELECT * FROM t",
    # a column list that renames, types widened by the anchor
    "WITH RECURSIVE t(n, s) AS (SELECT 1::bigint, 'x'::text UNION ALL SELECT n + 1, s || 'y' "
    "FROM t WHERE n < 4) SELECT * FROM t",
    # numeric: the working table widens to the scale the recursive term needs
    "WITH RECURSIVE t(n) AS (SELECT 1.5::numeric UNION ALL SELECT n * 2 FROM t WHERE n < 20) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1::numeric UNION ALL SELECT n + 0.25 FROM t WHERE n < 2) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1::numeric UNION ALL SELECT (n * 1.5)::numeric(20, 4) "
    "FROM t WHERE n < 3) SELECT * FROM t",
    "WITH RECURSIVE t(d) AS (SELECT DATE '2024-02-27' UNION ALL SELECT d + 1 FROM t "
    "WHERE d < DATE '2024-03-02') SELECT d::text FROM t",
    # a LIMIT above ends a recursion that would not end by itself, as PostgreSQL's lazy
    # evaluation does (rows in the order the rounds make them)
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 5",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n FROM t "
    "WHERE n % 7 = 0 LIMIT 3",
    "WITH RECURSIVE fib(a, b) AS (SELECT 0::bigint, 1::bigint UNION ALL SELECT b, a + b "
    "FROM fib) SELECT a FROM fib LIMIT 10 OFFSET 80",
    # used in a subquery and under an aggregate with GROUP BY
    "SELECT (WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) "
    "SELECT sum(n) FROM t)",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 20) "
    "SELECT n % 3 AS r, count(*), sum(n) FROM t GROUP BY n % 3",
    # 10,000 rounds
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10000) "
    "SELECT count(*), sum(n) FROM t",
    # rows that grow per round
    "WITH RECURSIVE t(n, v) AS (SELECT 0, 1 UNION ALL SELECT n + 1, v * 10 + x FROM t, "
    "(VALUES (1), (2)) AS c(x) WHERE n < 6) SELECT count(*), sum(v::bigint) FROM t",
]

DISTINCT_ON = [
    "SELECT DISTINCT ON (team) team, name, score FROM scores ORDER BY team, score DESC, name",
    "SELECT DISTINCT ON (team) team, name FROM scores ORDER BY team NULLS FIRST, name DESC",
    "SELECT DISTINCT ON (team) team, name FROM scores ORDER BY team DESC, score, name",
    "SELECT DISTINCT ON (score) score, name FROM scores ORDER BY score DESC NULLS LAST, name",
    "SELECT DISTINCT ON (score) score, name FROM scores ORDER BY score NULLS FIRST, name",
    "SELECT DISTINCT ON (1) team, name FROM scores ORDER BY 1, 2",
    "SELECT DISTINCT ON (team, score) team, score, name FROM scores "
    "ORDER BY team, score, name DESC",
    "SELECT DISTINCT ON (score, team) team, score, name FROM scores "
    "ORDER BY team, score, name",
    "SELECT DISTINCT ON (lower(team)) name FROM scores ORDER BY lower(team), name",
    "SELECT DISTINCT ON (g) g, x FROM m ORDER BY g, x DESC NULLS LAST",
    "SELECT DISTINCT ON (g) g, x FROM m ORDER BY g NULLS FIRST, x NULLS FIRST",
    "SELECT DISTINCT ON (g) g, x FROM empty_t ORDER BY g, x",
    "SELECT DISTINCT ON (team) team, max(score) FROM scores GROUP BY team, name "
    "ORDER BY team, max(score) DESC NULLS LAST",
    "SELECT DISTINCT ON (team) team, name FROM scores ORDER BY team, name LIMIT 2",
    "SELECT DISTINCT ON (team) team, name FROM scores ORDER BY team, name OFFSET 1",
    "SELECT count(*) FROM (SELECT DISTINCT ON (team) team FROM scores) s",
]

WITH_TIES = [
    "SELECT name, score FROM scores ORDER BY score DESC NULLS LAST FETCH FIRST 2 ROWS WITH TIES",
    "SELECT name, score FROM scores ORDER BY score DESC NULLS LAST FETCH FIRST 3 ROWS WITH TIES",
    "SELECT name, score FROM scores ORDER BY score FETCH FIRST 1 ROW WITH TIES",
    "SELECT name, score FROM scores ORDER BY score NULLS FIRST FETCH FIRST ROW WITH TIES",
    "SELECT name, score FROM scores ORDER BY score DESC NULLS LAST "
    "OFFSET 1 ROWS FETCH FIRST 1 ROWS WITH TIES",
    "SELECT name, score FROM scores ORDER BY score DESC NULLS LAST "
    "OFFSET 3 ROWS FETCH NEXT 2 ROWS WITH TIES",
    "SELECT team, score FROM scores ORDER BY team NULLS FIRST FETCH FIRST 1 ROWS WITH TIES",
    "SELECT name FROM scores ORDER BY score DESC NULLS LAST, name FETCH FIRST 2 ROWS WITH TIES",
    "SELECT name FROM scores ORDER BY score FETCH FIRST 0 ROWS WITH TIES",
    "SELECT name FROM scores ORDER BY score FETCH FIRST 100 ROWS WITH TIES",
    "SELECT x FROM empty_t ORDER BY x FETCH FIRST 2 ROWS WITH TIES",
    "SELECT team, count(*) FROM scores GROUP BY team ORDER BY count(*) DESC "
    "FETCH FIRST 1 ROWS WITH TIES",
    "SELECT score FROM scores UNION ALL SELECT 90 ORDER BY score DESC NULLS LAST "
    "FETCH FIRST 2 ROWS WITH TIES",
    "SELECT team FROM scores UNION SELECT 'red' ORDER BY 1 OFFSET 1 FETCH FIRST 1 ROW WITH TIES",
    "VALUES (1, 'a'), (2, 'b'), (2, 'c'), (3, 'd') ORDER BY 1 FETCH FIRST 2 ROWS WITH TIES",
]

ORDERED_SET = [
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM m",
    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM m",
    "SELECT mode() WITHIN GROUP (ORDER BY k) FROM m",
    "SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x), "
    "percentile_disc(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY x) "
    "FROM m GROUP BY g",
    "SELECT g, percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC), "
    "percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC) FROM m GROUP BY g",
    "SELECT percentile_cont(0) WITHIN GROUP (ORDER BY x), percentile_cont(1) WITHIN GROUP "
    "(ORDER BY x), percentile_disc(0) WITHIN GROUP (ORDER BY x), percentile_disc(1) WITHIN "
    "GROUP (ORDER BY x) FROM m",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM m WHERE g = 3",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY x) "
    "FROM empty_t",
    "SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM empty_t GROUP BY g",
    "SELECT percentile_cont(0.3) WITHIN GROUP (ORDER BY score) FROM scores",
    "SELECT team, percentile_cont(0.5) WITHIN GROUP (ORDER BY score) FROM scores GROUP BY team",
    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY d), percentile_disc(0.9) WITHIN GROUP "
    "(ORDER BY k) FROM m",
    "SELECT (percentile_cont(0.5) WITHIN GROUP (ORDER BY iv))::text, (percentile_cont(0.25) "
    "WITHIN GROUP (ORDER BY iv))::text FROM m",
    "SELECT g, (percentile_cont(0.5) WITHIN GROUP (ORDER BY iv))::text, (percentile_disc(0.5) "
    "WITHIN GROUP (ORDER BY iv DESC))::text FROM m GROUP BY g",
    "SELECT (percentile_cont(0.4) WITHIN GROUP (ORDER BY v))::text FROM (VALUES "
    "(INTERVAL '1 mon'), (INTERVAL '2 mons 3 days'), (INTERVAL '1 day 05:00:00')) t(v)",
    "SELECT g, mode() WITHIN GROUP (ORDER BY k) FROM m GROUP BY g",
    "SELECT g, mode() WITHIN GROUP (ORDER BY k DESC) FROM m GROUP BY g",
    "SELECT mode() WITHIN GROUP (ORDER BY score) FROM scores",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE g = 1), "
    "percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FILTER (WHERE g = 2) FROM m",
    "SELECT percentile_cont(NULL::float8) WITHIN GROUP (ORDER BY x) FROM m",
    "SELECT g, percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY k) FROM m GROUP BY g",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x::numeric), percentile_disc(0.5) "
    "WITHIN GROUP (ORDER BY x::numeric) FROM m",
    # the recursive term may use GROUP BY without aggregates
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5 GROUP BY n) "
    "SELECT * FROM t",
    "SELECT percentile_cont('0.75') WITHIN GROUP (ORDER BY x) FROM m",
    "SELECT g, count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM m GROUP BY g "
    "HAVING percentile_cont(0.5) WITHIN GROUP (ORDER BY x) > 3",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM "
    "(VALUES (1), (2), (3), (4)) t(v)",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v), percentile_disc(0.5) WITHIN GROUP "
    "(ORDER BY v) FROM (VALUES (1), (2), (3)) t(v)",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM (VALUES (42)) t(v)",
    # larger inputs, aggregated in parallel: doubles, integers, dates, text
    "SELECT g % 5 AS k, percentile_cont(0.37) WITHIN GROUP (ORDER BY g), percentile_disc(0.37) "
    "WITHIN GROUP (ORDER BY g DESC), mode() WITHIN GROUP (ORDER BY g % 11) "
    "FROM generate_series(1, 100000) g GROUP BY 1",
    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY DATE '2024-01-01' + g % 400), "
    "percentile_disc(0.25) WITHIN GROUP (ORDER BY (g % 97)::text), mode() WITHIN GROUP "
    "(ORDER BY (g % 13)::bigint DESC), percentile_cont(0.9) WITHIN GROUP (ORDER BY g / 3.0) "
    "FROM generate_series(1, 50000) g",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v), percentile_disc(0.5) WITHIN GROUP "
    "(ORDER BY v DESC), mode() WITHIN GROUP (ORDER BY v) FROM (VALUES ('NaN'::float8), (1), "
    "('NaN'), (-0.5), ('Infinity')) t(v)",
]

QUERIES = RECURSIVE + DISTINCT_ON + WITH_TIES + ORDERED_SET

# The ORDER BY of these fixes the order of every row.
ORDERED = {
    "SELECT DISTINCT ON (team) team, name, score FROM scores ORDER BY team, score DESC, name",
    "SELECT DISTINCT ON (score) score, name FROM scores ORDER BY score DESC NULLS LAST, name",
    "SELECT DISTINCT ON (1) team, name FROM scores ORDER BY 1, 2",
    "SELECT name FROM scores ORDER BY score DESC NULLS LAST, name FETCH FIRST 2 ROWS WITH TIES",
}


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_postgres(quiver_bin, pg, sql):
    pg_oracle.assert_same_rows(quiver_rows(quiver_bin, sql), pg.query(sql), sql,
                               ordered=sql in ORDERED)


ERRORS = [
    # WITH RECURSIVE shapes (42P19 invalid_recursion, 42804, 0A000)
    "WITH RECURSIVE t(n) AS (SELECT n FROM t) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT n FROM t UNION ALL SELECT 1) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT a.n FROM t a, t b) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT 2 WHERE EXISTS (SELECT 1 FROM t)) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT e.src FROM edges e LEFT JOIN t "
    "ON t.n = e.src) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT t.n FROM t FULL JOIN edges e "
    "ON t.n = e.src) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT max(n) + 1 FROM t) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (SELECT 5 EXCEPT SELECT n FROM t)) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n, m) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t ORDER BY 1) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t LIMIT 3) SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1::bigint FROM t WHERE n < 3) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n * 1.5 FROM t WHERE n < 3) "
    "SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1, 2 FROM t) SELECT * FROM t",
    # a plain WITH does not see itself; mutual recursion
    "WITH t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t",
    "WITH t AS (SELECT * FROM t) SELECT * FROM t",
    "WITH t AS (SELECT 1 AS x WHERE EXISTS (SELECT 1 FROM t)) SELECT * FROM t",
    "WITH RECURSIVE a AS (SELECT 1 AS x UNION ALL SELECT x FROM b), b AS (SELECT x FROM a) "
    "SELECT * FROM a",
    # DISTINCT ON (42P10)
    "SELECT DISTINCT ON (team) team, name FROM scores ORDER BY name",
    "SELECT DISTINCT ON (team) team, name FROM scores ORDER BY name, team",
    "SELECT DISTINCT ON (team, score) team, name FROM scores ORDER BY team, name, score",
    # WITH TIES
    "SELECT name FROM scores FETCH FIRST 2 ROWS WITH TIES",
    "SELECT name FROM scores ORDER BY score FETCH FIRST NULL ROWS WITH TIES",
    # ordered-set aggregates (22003, 42809)
    "SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM m",
    "SELECT percentile_disc(-0.1) WITHIN GROUP (ORDER BY x) FROM m",
    "SELECT percentile_cont(0.5) FROM m",
    "SELECT percentile_cont(0.5, x) FROM m",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x, g) FROM m",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY d) FROM m",
    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) FROM (VALUES ('1'::json)) t(v)",
    "SELECT sum(x) WITHIN GROUP (ORDER BY x) FROM m",
    "SELECT mode() WITHIN GROUP (ORDER BY x) OVER () FROM m",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY k) FROM m",
]


def _message(stderr):
    for line in stderr.splitlines():
        if line.startswith("ERROR:"):
            return line[len("ERROR:"):].strip()
    return stderr.strip()


def quiver_json_error(quiver_bin, sql):
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "json", SETUP + sql],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0, f"Quiver accepted {sql}:\n{proc.stdout}"
    lines = [line for line in proc.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == 1, proc.stderr
    return json.loads(lines[0])


@pytest.mark.parametrize("sql", ERRORS)
def test_errors_match_postgres(quiver_bin, pg, sql):
    proc = pg.psql("-c", sql, check=False)
    assert proc.returncode != 0, f"PostgreSQL accepted {sql}:\n{proc.stdout}"
    theirs = _message(proc.stderr)
    ours = quiver_json_error(quiver_bin, sql)
    assert theirs in ours["error"], f"{sql}\nPostgreSQL: {theirs}\nQuiver: {ours}"
    assert ours["sqlstate"] == pg.sqlstate(sql), ours


def test_recursive_type_error_hint(quiver_bin):
    err = quiver_json_error(
        quiver_bin,
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1::bigint FROM t WHERE n < 3) "
        "SELECT * FROM t")
    assert err["hint"] == "Cast the output of the non-recursive term to the correct type."


@pytest.mark.parametrize("sql", [
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) "
    "SEARCH DEPTH FIRST BY n SET ord SELECT * FROM t",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n % 3 + 1 FROM t) "
    "CYCLE n SET is_cycle USING path SELECT * FROM t",
])
def test_search_and_cycle_are_refused(quiver_bin, sql):
    # PostgreSQL 14+ adds columns for these (over arrays, which Quiver lacks): refused, not ignored.
    err = quiver_json_error(quiver_bin, sql)
    assert err["sqlstate"] == "0A000" and "WITH RECURSIVE" in err["error"], err


@pytest.mark.parametrize("name", ["percentile_cont", "percentile_disc"])
def test_array_of_fractions_is_refused(quiver_bin, name):
    # PostgreSQL returns an array with one percentile per fraction; not implemented yet.
    err = quiver_json_error(
        quiver_bin, f"SELECT {name}('{{0.5,0.75}}'::float8[]) WITHIN GROUP (ORDER BY x) FROM m")
    assert err["sqlstate"] == "0A000" and "array of fractions" in err["error"], err


def test_mode_over_jsonb_is_refused(quiver_bin):
    # PostgreSQL orders jsonb by its own rules, which Quiver does not implement yet.
    err = quiver_json_error(
        quiver_bin, "SELECT mode() WITHIN GROUP (ORDER BY v) FROM (VALUES ('1'::jsonb)) t(v)")
    assert err["sqlstate"] == "0A000" and "jsonb" in err["error"], err


def test_numeric_scale_growing_every_round_is_refused(quiver_bin):
    # PostgreSQL's numeric keeps each value's own scale; Quiver's has one per column, so a
    # recursive term whose scale grows with every round (n * 1.5) cannot have one.
    err = quiver_json_error(
        quiver_bin,
        "WITH RECURSIVE t(n) AS (SELECT 1::numeric UNION ALL SELECT n * 1.5 FROM t WHERE n < 3) "
        "SELECT * FROM t")
    assert err["sqlstate"] == "0A000" and "numeric scale grows" in err["error"], err
    assert "numeric(precision, scale)" in err["hint"], err


def test_runaway_recursion_stops_at_the_memory_limit(quiver_bin):
    # Rows double every round: the memory limit ends it (PostgreSQL would run on).
    sql = ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t, "
           "(VALUES (1), (2)) v(x)) SELECT count(*) FROM t")
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "json", "--memory-limit", "64MB",
                           sql], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    err = json.loads([line for line in proc.stderr.splitlines() if line.startswith("{")][0])
    assert err["sqlstate"] == "53200", err


def test_runaway_recursion_stops_at_the_iteration_limit(quiver_bin):
    # One row per round, forever: stopped after 1,000,000 rounds with 54000 and a HINT.
    sql = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t"
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "json", sql],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    err = json.loads([line for line in proc.stderr.splitlines() if line.startswith("{")][0])
    assert err["sqlstate"] == "54000", err
    assert "1000000 iterations" in err["error"] and "PostgreSQL has no such limit" in err["hint"]
