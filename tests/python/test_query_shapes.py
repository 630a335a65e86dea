"""Query shapes of issue 12 item 3 (and the rest of item 2) against PostgreSQL 15 itself.

Every query in QUERIES runs on the same small tables in Quiver and in a PostgreSQL 15 server
started for this module (pg_oracle.py, UTC); the answers must be equal (rows as multisets, or in
order for the queries in ORDERED, whose ORDER BY fixes it). Covered: set-returning functions
in FROM (generate_series over integers, numerics, dates and timestamps with intervals, steps
of either sign, month ends and leap days; WITH ORDINALITY; arguments reading the FROM items
on their left), LATERAL subqueries (top-n per group, aggregates, LEFT JOIN LATERAL), correlated
subqueries in the select list, WHERE, ON and HAVING, VALUES lists as tables, GROUP BY
DISTINCT. ERRORS: PostgreSQL's error for each, and Quiver's must contain the same message.
Some are checked against DuckDB as well where it agrees with PostgreSQL (test_duckdb_agrees).
"""

import subprocess

import pytest

import pg_oracle

SETUP = """
CREATE TABLE grp (id int, name text);
INSERT INTO grp VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL);
CREATE TABLE item (gid int, v int, w numeric(6, 2));
INSERT INTO item VALUES (1, 10, 1.5), (1, 20, 2.5), (1, 30, NULL), (2, 5, 0.25), (2, 15, 3),
  (3, 7, 7), (5, 1, 1), (NULL, 3, 3);
CREATE TABLE edges (src int, dst int);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 4), (2, 5), (5, 6), (6, 2), (10, 11);
"""


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


def _pg_text(v):
    """Quiver's dates and timestamps as PostgreSQL prints them (UTC, +00 when zoned)."""
    if hasattr(v, "isoformat") and not isinstance(v, str):
        text = v.isoformat(sep=" ") if hasattr(v, "hour") else v.isoformat()
        return text.replace("+00:00", "+00")
    return v


def quiver_rows(quiver_bin, sql):
    return [[_pg_text(v) for v in row]
            for row in pg_oracle.quiver_rows(quiver_bin, SETUP + sql)]


def quiver_error(quiver_bin, sql):
    proc = subprocess.run([str(quiver_bin), "sql", SETUP + sql], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode != 0, f"Quiver accepted {sql}:\n{proc.stdout}"
    return proc.stderr


def postgres_error(pg, sql):
    proc = pg.psql("-c", sql, check=False)
    assert proc.returncode != 0, f"PostgreSQL accepted {sql}:\n{proc.stdout}"
    return proc.stderr

QUERIES = [
    # generate_series over integers
    "SELECT * FROM generate_series(1, 5)",
    "SELECT * FROM generate_series(1, 10, 3)",
    "SELECT * FROM generate_series(10, 1, -3)",
    "SELECT * FROM generate_series(5, 1)",
    "SELECT * FROM generate_series(1, 1)",
    "SELECT * FROM generate_series(-3, 3, 2) AS g",
    "SELECT g FROM generate_series(1, 3) g",
    "SELECT x FROM generate_series(1, 3) AS g(x)",
    "SELECT * FROM generate_series(2147483640, 2147483647, 5)",
    "SELECT * FROM generate_series(-2147483647, -2147483648, -1)",
    "SELECT * FROM generate_series(9223372036854775800, 9223372036854775807, 4)",
    "SELECT * FROM generate_series(1, NULL)",
    "SELECT * FROM generate_series(NULL::int, 3)",
    "SELECT count(*), sum(g), min(g), max(g) FROM generate_series(1, 100000) g",
    "SELECT * FROM generate_series(1::bigint, 3)",
    # numerics
    "SELECT * FROM generate_series(0.5, 2, 0.25)",
    "SELECT * FROM generate_series(1, 2.5)",
    "SELECT * FROM generate_series(2.5, 1, -0.5)",
    "SELECT * FROM generate_series(-1.1, 1.1, 1.1)",
    # timestamps and dates with intervals
    "SELECT * FROM generate_series(TIMESTAMP '2024-01-31', TIMESTAMP '2024-06-30', "
    "INTERVAL '1 month')",
    "SELECT * FROM generate_series(TIMESTAMP '2024-02-27 12:00', TIMESTAMP '2024-03-02', "
    "INTERVAL '1 day')",
    "SELECT * FROM generate_series(TIMESTAMP '2023-02-28', TIMESTAMP '2023-03-01', "
    "INTERVAL '12 hours')",
    "SELECT * FROM generate_series(TIMESTAMP '2024-03-01', TIMESTAMP '2024-02-27', "
    "INTERVAL '-1 day')",
    "SELECT * FROM generate_series(TIMESTAMP '2020-02-29', TIMESTAMP '2024-03-01', "
    "INTERVAL '1 year')",
    "SELECT * FROM generate_series(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-01 01:00', "
    "INTERVAL '25 minutes')",
    "SELECT * FROM generate_series(TIMESTAMP '2024-01-31', TIMESTAMP '2024-01-01', "
    "INTERVAL '1 day')",
    "SELECT * FROM generate_series(TIMESTAMP '2024-01-01', TIMESTAMP '2024-03-31', "
    "INTERVAL '1 month 1 day')",
    "SELECT * FROM generate_series(DATE '2024-02-27', DATE '2024-03-02', INTERVAL '1 day')",
    "SELECT * FROM generate_series(TIMESTAMPTZ '2024-10-26 00:00+00', "
    "TIMESTAMPTZ '2024-10-28 00:00+00', INTERVAL '1 day')",
    "SELECT count(*) FROM generate_series(TIMESTAMP '2000-01-01', TIMESTAMP '2000-12-31', "
    "INTERVAL '1 day')",
    # WITH ORDINALITY
    "SELECT * FROM generate_series(10, 30, 10) WITH ORDINALITY",
    "SELECT * FROM generate_series(10, 30, 10) WITH ORDINALITY AS t(x, n)",
    "SELECT n, x FROM generate_series(5, 1, -2) WITH ORDINALITY AS t(x, n)",
    "SELECT * FROM generate_series(1, 0) WITH ORDINALITY",
    "SELECT t.* FROM generate_series(DATE '2024-02-28', DATE '2024-03-01', INTERVAL '1 day') "
    "WITH ORDINALITY t",
    # functions reading the FROM items on their left (implicit LATERAL)
    "SELECT id, g FROM grp, generate_series(1, id) g",
    "SELECT id, g FROM grp, LATERAL generate_series(id, 3) g",
    "SELECT id, g, n FROM grp, generate_series(1, id) WITH ORDINALITY AS s(g, n)",
    "SELECT id, g FROM grp CROSS JOIN LATERAL generate_series(1, id - 1) g",
    "SELECT id, g FROM grp LEFT JOIN LATERAL generate_series(1, id - 1) g ON true",
    "SELECT id, g FROM grp JOIN generate_series(1, 3) g ON g = id",
    "SELECT id, g FROM grp JOIN LATERAL generate_series(1, id) g ON g > 1",
    "SELECT a.x, b.y FROM generate_series(1, 3) a(x), generate_series(a.x, 3) b(y)",
    "SELECT gid, count(*) FROM item, generate_series(1, v) g GROUP BY gid",
    # LATERAL subqueries
    "SELECT g.id, t.v FROM grp g, LATERAL (SELECT v FROM item i WHERE i.gid = g.id "
    "ORDER BY v DESC LIMIT 2) t",
    "SELECT g.id, t.v FROM grp g, LATERAL (SELECT v FROM item i WHERE i.gid = g.id "
    "ORDER BY v LIMIT 1 OFFSET 1) t",
    "SELECT g.id, t.v FROM grp g LEFT JOIN LATERAL (SELECT v FROM item i WHERE i.gid = g.id "
    "AND v > 10 ORDER BY v LIMIT 1) t ON true",
    "SELECT g.id, t.s, t.c FROM grp g CROSS JOIN LATERAL (SELECT sum(v) s, count(*) c "
    "FROM item i WHERE i.gid = g.id) t",
    "SELECT g.id, t.x FROM grp g, LATERAL (SELECT g.id * 10 AS x) t",
    "SELECT g.id, t.n FROM grp g, LATERAL (SELECT count(*) n FROM generate_series(1, g.id)) t",
    "SELECT g.id, t.v, t.r FROM grp g, LATERAL (SELECT v, row_number() OVER (ORDER BY v DESC) r "
    "FROM item i WHERE i.gid = g.id) t",
    "SELECT g.id, t.v FROM grp g JOIN LATERAL (SELECT v FROM item i WHERE i.gid = g.id) t "
    "ON t.v > 10",
    "SELECT g.id, t.v FROM grp g LEFT JOIN LATERAL (SELECT v FROM item i WHERE i.gid = g.id) t "
    "ON t.v > 10",
    "SELECT g.name, t.m FROM grp g, LATERAL (SELECT max(w) m FROM item i WHERE i.gid = g.id "
    "AND i.v > g.id) t",
    "SELECT x, y FROM (VALUES (1), (2)) a(x), LATERAL (SELECT x + 1 AS y UNION ALL "
    "SELECT x + 2) b",
    "SELECT g.id, t.v FROM grp g, LATERAL (SELECT DISTINCT v % 2 AS v FROM item i "
    "WHERE i.gid = g.id) t",
    "SELECT * FROM grp g WHERE EXISTS (SELECT 1 FROM LATERAL (SELECT g.id AS k) s "
    "WHERE s.k > 2)",
    # correlated subqueries in every position
    "SELECT id, (SELECT max(v) FROM item i WHERE i.gid = g.id) FROM grp g",
    "SELECT id, (SELECT count(*) FROM item i WHERE i.gid = g.id AND i.v > 5) FROM grp g",
    "SELECT id, (SELECT v FROM item i WHERE i.gid = g.id ORDER BY v LIMIT 1) FROM grp g",
    "SELECT id, (SELECT max(x) FROM generate_series(1, g.id) x) FROM grp g",
    "SELECT id FROM grp g WHERE (SELECT sum(v) FROM item i WHERE i.gid = g.id) > 15",
    "SELECT id FROM grp g WHERE EXISTS (SELECT 1 FROM item i WHERE i.gid = g.id AND v < 10)",
    "SELECT id FROM grp g WHERE id NOT IN (SELECT gid FROM item i WHERE i.v > g.id * 10 "
    "AND gid IS NOT NULL)",
    "SELECT g.id, i.v FROM grp g JOIN item i ON i.v = (SELECT max(v) FROM item j "
    "WHERE j.gid = g.id)",
    "SELECT gid, sum(v) FROM item i GROUP BY gid HAVING sum(v) > (SELECT count(*) * 5 "
    "FROM grp g WHERE g.id <= i.gid)",
    "SELECT gid, count(*) FROM item GROUP BY gid HAVING count(*) >= ALL (SELECT count(*) "
    "FROM item GROUP BY gid)",
    "SELECT id, (SELECT string_agg(name, ',' ORDER BY name) FROM grp h WHERE h.id < g.id) "
    "FROM grp g",
    "SELECT id, (SELECT sum(v) FROM item i WHERE i.gid = g.id AND i.v > (SELECT min(v) "
    "FROM item k WHERE k.gid = i.gid)) FROM grp g",
    # VALUES lists as tables
    "SELECT * FROM (VALUES (1, 'x'), (2, NULL), (3, 'z')) AS v(a, b)",
    "SELECT a, b FROM (VALUES (1, 2.5), (2, 3)) v(a, b) WHERE a > 1",
    "SELECT v.a, g.name FROM (VALUES (1), (3), (7)) v(a) LEFT JOIN grp g ON g.id = v.a",
    "SELECT count(*), sum(column1) FROM (VALUES (1), (2), (NULL)) v",
    "SELECT * FROM (VALUES (DATE '2024-02-29'), (DATE '2023-02-28')) v(d) ORDER BY d",
    # GROUP BY DISTINCT
    "SELECT gid, v > 10 AS big, count(*) FROM item GROUP BY DISTINCT ROLLUP (gid), "
    "ROLLUP (gid, v > 10)",
    "SELECT gid, count(*) FROM item GROUP BY ALL ROLLUP (gid), ROLLUP (gid)",
    "SELECT gid, count(*) FROM item GROUP BY DISTINCT ROLLUP (gid), ROLLUP (gid)",
    "SELECT gid, count(*) FROM item GROUP BY DISTINCT GROUPING SETS ((gid), (gid), ())",
    "SELECT gid, count(*) FROM item GROUP BY DISTINCT gid",
    # a set-returning function in the select list (one call, no grouping): once per row
    "SELECT generate_series(1, 5)",
    "SELECT generate_series(1, 5) AS g ORDER BY g DESC",
    "SELECT id, generate_series(1, id) FROM grp",
    "SELECT id, generate_series(1, id) * 10 AS x, name FROM grp WHERE id <= 3",
    "SELECT generate_series(TIMESTAMP '2024-02-27', '2024-03-01', INTERVAL '1 day')::date",
    "SELECT generate_series(5, 1, -2)",
    "SELECT generate_series(1, 0)",
    "SELECT count(*) FROM (SELECT generate_series(1, 1000) AS n) s",
    "SELECT *, generate_series(1, 2) FROM item WHERE gid = 1",
    "SELECT g.id, generate_series(i.v, i.v + 1) FROM grp g JOIN item i ON i.gid = g.id",
    "SELECT generate_series(1, 3) FROM generate_series(1, 2)",
    "SELECT gid, generate_series(1, gid) FROM item",
    "SELECT generate_series(1.5, 3.5, 0.5)",
    "SELECT src, generate_series(src, dst) FROM edges WHERE src < dst",
]

ORDERED = {
    "SELECT generate_series(1, 5) AS g ORDER BY g DESC",
    "SELECT * FROM (VALUES (DATE '2024-02-29'), (DATE '2023-02-28')) v(d) ORDER BY d",
}

ERRORS = [
    "SELECT * FROM generate_series(1, 10, 0)",
    "SELECT * FROM generate_series(1.5, 10, 0)",
    "SELECT * FROM generate_series(TIMESTAMP '2024-01-01', TIMESTAMP '2024-02-01', "
    "INTERVAL '0 days')",
    "SELECT * FROM generate_series(1, 2, 3, 4)",
    "SELECT * FROM generate_series(1.5::float8, 3)",
    "SELECT * FROM generate_series(1, 3) AS g(a, b)",
    "SELECT * FROM grp g RIGHT JOIN LATERAL (SELECT * FROM item i WHERE i.gid = g.id) t ON true",
]


@pytest.mark.parametrize("sql", QUERIES)
def test_matches_postgres(quiver_bin, pg, sql):
    pg_oracle.assert_same_rows(quiver_rows(quiver_bin, sql), pg.query(sql), sql,
                               ordered=sql in ORDERED)


def _message(stderr):
    for line in stderr.splitlines():
        if line.startswith("ERROR:"):
            return line[len("ERROR:"):].strip()
    return stderr.strip()


@pytest.mark.parametrize("sql", ERRORS)
def test_errors_match_postgres(quiver_bin, pg, sql):
    theirs = _message(postgres_error(pg, sql))
    ours = quiver_error(quiver_bin, sql)
    assert theirs in ours, f"{sql}\nPostgreSQL: {theirs}\nQuiver: {ours}"


DUCKDB_QUERIES = [
    "SELECT * FROM generate_series(1, 10, 3)",
    "SELECT count(*), sum(g) FROM generate_series(1, 100000) g",
    "SELECT id, g FROM grp, generate_series(1, id) g",
    "SELECT g.id, t.v FROM grp g, LATERAL (SELECT v FROM item i WHERE i.gid = g.id "
    "ORDER BY v DESC LIMIT 2) t",
    "SELECT id, (SELECT max(v) FROM item i WHERE i.gid = g.id) FROM grp g",
]


@pytest.mark.parametrize("sql", DUCKDB_QUERIES)
def test_duckdb_agrees(quiver_bin, sql):
    import duckdb

    con = duckdb.connect()
    con.execute(SETUP)
    theirs = [list(r) for r in con.execute(sql).fetchall()]
    pg_oracle.assert_same_rows(quiver_rows(quiver_bin, sql), theirs, sql)


# Set-returning functions where PostgreSQL refuses them too (the answers of several calls,
# nested calls and calls beside GROUP BY, DISTINCT or windows: test_srf_pg.py).
@pytest.mark.parametrize("sql", [
    "SELECT CASE WHEN true THEN generate_series(1, 3) END",
    "SELECT coalesce(generate_series(1, 3), 0) FROM grp",
    "SELECT sum(generate_series(1, 3)) FROM grp",
])
def test_select_list_set_functions_refused_not_answered(quiver_bin, pg, sql):
    postgres_error(pg, sql)
    err = quiver_error(quiver_bin, sql)
    assert "unsupported" in err and "set-returning function" in err, err
