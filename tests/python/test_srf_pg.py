"""Set-returning functions in the select list and in FROM, against PostgreSQL 15
(issue 12, item 3).

PostgreSQL 10+ semantics: several set-returning calls in a select list run in
lock-step (a row gives as many rows as the longest call, the shorter ones
padded with NULLs; a row for which every call gives nothing drops out); a
call in another's arguments runs first; with GROUP BY, aggregates, HAVING or
windows the calls run after those and before DISTINCT, ORDER BY and LIMIT.
In FROM, unnest(a, b, ...) and ROWS FROM (f(...), g(...)) zip the same way,
WITH ORDINALITY numbering the zipped rows. Each query's rows must equal
PostgreSQL's (as multisets, in order where its ORDER BY fixes the order);
what PostgreSQL refuses (CASE, COALESCE, aggregates over a call, HAVING,
WHERE) Quiver refuses with the same SQLSTATE.
"""

import json

import pytest

import pg_oracle

SETUP = """
CREATE TABLE t (id int, k int, v int, a int[], s text);
INSERT INTO t VALUES
  (1, 1, 10, '{1,2}', 'a,b'),
  (2, 1, 20, '{}', ''),
  (3, 2, 30, NULL, NULL),
  (4, 2, 40, '{3,3,4}', 'x'),
  (5, 3, 50, '{5}', 'p,q,r');
"""

QUERIES = [
    # several calls in lock-step, NULL-padded
    "SELECT generate_series(1, 3), generate_series(1, 2)",
    "SELECT generate_series(1, 2), generate_series(1, 3), generate_series(1, 0)",
    "SELECT generate_series(1, 0), generate_series(1, 0)",
    "SELECT generate_series(1, 3) + 1 AS x, generate_series(10, 30, 10) * 2 AS y",
    "SELECT unnest(ARRAY[1, 2, 3]), unnest(ARRAY['a', 'b'])",
    "SELECT unnest(NULL::int[]), generate_series(1, 2)",
    "SELECT unnest('{}'::int[]), unnest(ARRAY[1])",
    "SELECT unnest(NULL::int[]), unnest('{}'::text[])",
    # correlated: once per table row
    "SELECT id, unnest(a), generate_series(1, id) FROM t",
    "SELECT id, unnest(a), unnest(a) FROM t",
    "SELECT id, unnest(a) AS u, regexp_split_to_table(s, ',') AS p FROM t",
    "SELECT id, regexp_matches(s, '[a-z]', 'g')::text, generate_series(1, 2) FROM t",
    "SELECT id, unnest(a) * 10 + generate_series(0, 1) AS z FROM t WHERE k < 3",
    "SELECT *, generate_series(1, 2), unnest(ARRAY['x']) FROM (SELECT id, k, s FROM t) t WHERE id < 3",
    # nested calls: the inner one runs first
    "SELECT generate_series(1, generate_series(1, 3))",
    "SELECT generate_series(1, 2) AS a, generate_series(1, generate_series(1, 3)) AS b",
    "SELECT unnest(ARRAY[1, 2]) + generate_series(1, unnest(ARRAY[2, 3]))",
    "SELECT id, generate_series(1, unnest(a)) FROM t",
    # after GROUP BY / aggregates / HAVING
    "SELECT k, unnest(array_agg(v)) FROM t GROUP BY k",
    "SELECT k, generate_series(1, count(*)::int) AS g, sum(v) FROM t GROUP BY k",
    "SELECT k, unnest(array_agg(v ORDER BY v)) FROM t GROUP BY k HAVING count(*) > 1",
    "SELECT unnest(array_agg(id)) FROM t",
    "SELECT count(*), generate_series(1, 3) FROM t",
    "SELECT generate_series(1, 3) FROM t GROUP BY k",
    "SELECT k, generate_series(1, k) FROM t GROUP BY 1",
    "SELECT k, unnest(array_agg(v ORDER BY v)), generate_series(1, 3) FROM t GROUP BY ROLLUP (k)",
    "SELECT max(v) AS m, unnest(ARRAY[min(v), max(v)]) FROM t",
    # DISTINCT after the calls
    "SELECT DISTINCT unnest(a) FROM t",
    "SELECT DISTINCT k, unnest(a) FROM t",
    "SELECT DISTINCT generate_series(1, 4) % 2 AS m, generate_series(1, 2) AS n",
    # windows before the calls
    "SELECT unnest(a), row_number() OVER (ORDER BY id) FROM t",
    "SELECT id, sum(v) OVER (PARTITION BY k), generate_series(1, 2) FROM t",
    "SELECT k, count(*) OVER (), unnest(array_agg(v)) FROM t GROUP BY k",
    # in a subquery
    "SELECT count(*), sum(g), count(h) FROM "
    "(SELECT generate_series(1, 100000) AS g, generate_series(1, 50000) AS h) s",
    "SELECT id, (SELECT count(*) FROM t u WHERE u.id <= t.id) AS n, generate_series(1, 2) FROM t",
    "SELECT id, (SELECT sum(g) FROM (SELECT generate_series(1, t.id) AS g, generate_series(1, 2) AS h) q) "
    "FROM t",
    "SELECT id, x, y FROM t, LATERAL (SELECT generate_series(1, t.k) AS x, "
    "generate_series(t.id, t.id + 1) AS y) q",
    "SELECT id, (SELECT max(x) FROM (SELECT unnest(array_agg(u.v)) AS x FROM t u WHERE u.k = t.k) q) "
    "FROM t",
    # FROM: unnest of several arrays, ROWS FROM
    "SELECT * FROM unnest(ARRAY[1, 2, 3], ARRAY['a', 'b']) AS u(x, y)",
    "SELECT * FROM unnest(ARRAY[1, 2, 3], ARRAY['a', 'b']) WITH ORDINALITY AS u(x, y, n)",
    "SELECT * FROM unnest(ARRAY[1, 2], NULL::text[])",
    "SELECT * FROM unnest('{}'::int[], '{}'::text[])",
    "SELECT * FROM ROWS FROM (generate_series(1, 2), unnest(ARRAY['a', 'b', 'c'])) AS r(g, u)",
    "SELECT * FROM ROWS FROM (generate_series(1, 3), generate_series(10, 11)) WITH ORDINALITY",
    "SELECT id, x, y FROM t, unnest(a, ARRAY[id]) AS u(x, y)",
    "SELECT id, u.* FROM t LEFT JOIN LATERAL ROWS FROM (unnest(a), generate_series(1, k)) "
    "AS u(x, g) ON true",
    "SELECT id, u.x, u.n FROM t CROSS JOIN LATERAL unnest(a, a) WITH ORDINALITY AS u(x, y, n)",
]

ORDERED = [
    "SELECT generate_series(1, 3) AS g, generate_series(1, 2) AS h ORDER BY g DESC",
    "SELECT generate_series(1, 5) AS g, generate_series(1, 2) AS h ORDER BY h NULLS FIRST, g LIMIT 3",
    "SELECT id, unnest(a) AS u FROM t ORDER BY u DESC, id LIMIT 3 OFFSET 1",
    "SELECT generate_series(1, 3) ORDER BY generate_series(1, 3) DESC",
    "SELECT k, unnest(array_agg(v)) AS u FROM t GROUP BY k ORDER BY count(*) DESC, u LIMIT 3",
    "SELECT DISTINCT generate_series(1, 5) % 3 AS m ORDER BY m",
    "SELECT DISTINCT ON (k) k, unnest(a) AS u FROM t ORDER BY k, u DESC",
    "SELECT DISTINCT k, unnest(a) AS u FROM t ORDER BY k, u",
    "SELECT k, sum(v), generate_series(1, 2) AS g FROM t GROUP BY k ORDER BY 2 DESC, g",
]

# What PostgreSQL refuses, with its SQLSTATE.
ERRORS = [
    "SELECT CASE WHEN true THEN generate_series(1, 3) END",
    "SELECT coalesce(generate_series(1, 3), 0)",
    "SELECT sum(generate_series(1, 3))",
    "SELECT count(*) FROM t GROUP BY k HAVING generate_series(1, 2) > 1",
    "SELECT 1 WHERE generate_series(1, 2) > 1",
    "SELECT unnest(ARRAY[1], ARRAY[2])",
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_srf_matches_postgres(quiver_bin, pg, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, SETUP + sql)
    pg_oracle.assert_same_rows(ours, pg.query(sql), sql)


@pytest.mark.parametrize("sql", ORDERED)
def test_srf_ordered_matches_postgres(quiver_bin, pg, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, SETUP + sql)
    pg_oracle.assert_same_rows(ours, pg.query(sql), sql, ordered=True)


@pytest.mark.parametrize("sql", ERRORS)
def test_srf_errors_match_postgres(run_quiver, pg, sql):
    code = pg.sqlstate(sql)
    assert code is not None, f"PostgreSQL accepts {sql}"
    p = run_quiver("sql", "--format", "json", SETUP + sql, check=False)
    assert p.returncode == 1, (sql, p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == 1, p.stderr
    assert json.loads(lines[0])["sqlstate"] == code, (sql, lines[0])


def test_column_names_match_postgres(quiver_bin, pg):
    # Names as PostgreSQL derives them: a zipped FROM item's columns after
    # its functions, an expression's ?column?.
    import subprocess

    import pyarrow.ipc as ipc
    for sql in ["SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a']) WITH ORDINALITY",
                "SELECT * FROM ROWS FROM (generate_series(1, 2), unnest(ARRAY['a']))",
                "SELECT generate_series(1, 2), generate_series(1, 3) + 1, unnest(ARRAY[1]) AS u"]:
        proc = subprocess.run([str(quiver_bin), "sql", "--format", "arrow", sql],
                              capture_output=True, timeout=120)
        assert proc.returncode == 0, proc.stderr.decode()
        ours = ipc.open_stream(proc.stdout).read_all().schema.names
        header = pg.psql("-A", "-c", sql).stdout.splitlines()[0].split("|")
        assert ours == header, sql
