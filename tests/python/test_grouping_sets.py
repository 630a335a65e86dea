"""GROUPING SETS, ROLLUP, CUBE and grouping() against PostgreSQL 15 itself.

Every query in QUERIES runs on the same small table in Quiver (`quiver sql
--format arrow`) and in a PostgreSQL 15 server this module starts under a
temporary directory (Debian's postgresql-15, as test_window.py does); the
answers must be equal as multisets of rows, and in the same order where the
query's ORDER BY fixes it (ORDERED). The data has NULLs in the grouping keys,
so a NULL in the data and a rolled-up NULL must stay apart (grouping() and
the group counts tell them apart). REFUSED lists what Quiver does not do
yet: each must fail with an "unsupported: ..." error, never give an answer.
"""

import subprocess

import pytest

import pg_oracle

SETUP = """
CREATE TABLE s (id int, a int, b text, c int, x double precision);
INSERT INTO s VALUES
  (1, 1, 'x', 10, 1.5), (2, 1, 'y', 20, 2.5), (3, 2, 'x', 30, NULL), (4, NULL, 'z', 40, 4.0),
  (5, 2, NULL, 50, -1.0), (6, 1, 'x', NULL, 0.5), (7, NULL, NULL, 70, 7.0), (8, 3, 'y', 80, 8.0);
CREATE TABLE e (a int, b text, c int);
"""

QUERIES = [
    # GROUP BY DISTINCT: the repeated sets of ROLLUP(a, b) x ROLLUP(a) appear once
    "SELECT a, b, count(*) FROM s GROUP BY DISTINCT ROLLUP(a, b), ROLLUP(a)",
    "SELECT a, b, count(*) FROM s GROUP BY ALL ROLLUP(a, b), ROLLUP(a)",
    # ROLLUP, CUBE, GROUPING SETS with every listed aggregate.
    "SELECT a, b, count(*), count(c), sum(c), min(c), max(c), avg(c) FROM s GROUP BY ROLLUP(a, b)",
    # string_agg's order is the input's (ORDER BY inside it is lane X's item-0
    # defect): its length is order-independent.
    "SELECT a, b, count(*), sum(c), length(string_agg(b, ',')) FROM s GROUP BY CUBE(a, b)",
    "SELECT a, b, sum(x), avg(x), grouping(a, b) FROM s GROUP BY GROUPING SETS ((a, b), (a), ())",
    "SELECT a, b, count(*) FROM s GROUP BY GROUPING SETS (a, b)",
    "SELECT a, b, c, count(*) FROM s GROUP BY GROUPING SETS ((a), (b, c), ())",
    # grouping() bitmasks, alone and in expressions, in several argument orders.
    "SELECT a, b, grouping(a), grouping(b), grouping(a, b), grouping(b, a), count(*) "
    "FROM s GROUP BY CUBE(a, b)",
    "SELECT a, grouping(a) * 10 + count(*) AS g FROM s GROUP BY ROLLUP(a)",
    "SELECT grouping(a), count(*) FROM s GROUP BY a",  # a plain GROUP BY: always 0
    # Mixed plain and rolled-up keys, and several rollups multiplied.
    "SELECT a, b, sum(c) FROM s GROUP BY a, ROLLUP(b)",
    "SELECT a, b, c, count(*) FROM s GROUP BY ROLLUP(a), ROLLUP(b, c)",
    "SELECT a, b, c, count(*) FROM s GROUP BY a, CUBE(b, c)",
    "SELECT a, b, count(*) FROM s GROUP BY ROLLUP((a, b))",
    "SELECT a, b, c, count(*) FROM s GROUP BY ROLLUP(a, (b, c))",
    "SELECT a, b, count(*) FROM s GROUP BY GROUPING SETS (ROLLUP(a), CUBE(b), ())",
    "SELECT a, count(*) FROM s GROUP BY GROUPING SETS ((a), (a), ())",  # duplicate sets twice
    # Empty grouping set: one row even over no input; none for the other sets.
    "SELECT count(*), sum(c) FROM s GROUP BY ()",
    "SELECT a, count(*), sum(c) FROM e GROUP BY ROLLUP(a)",
    "SELECT a, b, count(*) FROM e GROUP BY CUBE(a, b)",
    "SELECT a, count(*) FROM e GROUP BY GROUPING SETS ((a))",
    "SELECT a, count(*) FROM s WHERE c > 1000 GROUP BY ROLLUP(a)",
    # HAVING over keys, aggregates and grouping() (a filter on a key must
    # also judge the empty set's row).
    "SELECT a, b, sum(c) FROM s GROUP BY ROLLUP(a, b) HAVING sum(c) > 50",
    "SELECT a, b, count(*) FROM s GROUP BY ROLLUP(a, b) HAVING a IS NULL",
    "SELECT a, b, count(*) FROM s GROUP BY ROLLUP(a, b) HAVING a = 1",
    "SELECT a, count(*) FROM e GROUP BY ROLLUP(a) HAVING a = 1",
    "SELECT a, b, count(*) FROM s GROUP BY CUBE(a, b) HAVING grouping(a, b) = 2",
    # Expressions as keys, and the select list over them.
    "SELECT a % 2 AS p, upper(b), count(*) FROM s GROUP BY ROLLUP(a % 2, upper(b))",
    "SELECT coalesce(b, '(all)') AS label, grouping(b), sum(c) FROM s GROUP BY ROLLUP(b)",
    "SELECT a + 1, sum(c) FROM s GROUP BY ROLLUP(a + 1)",
    # Keys that share an output name ("?column?") are still different keys.
    "SELECT a + 1, c * 2, count(*) FROM s GROUP BY ROLLUP(a + 1, c * 2)",
    "SELECT count(*), sum(c) FROM s GROUP BY CUBE(a % 2, c % 3)",
    # Keys by position and by output name; DISTINCT aggregates.
    "SELECT a, b AS bb, count(*) FROM s GROUP BY ROLLUP(1, bb)",
    "SELECT a, count(DISTINCT b), count(DISTINCT c) FROM s GROUP BY ROLLUP(a)",
    # Over a join and a subquery.
    "SELECT s.a, t.b, count(*) FROM s JOIN s AS t ON s.id = t.id GROUP BY ROLLUP(s.a, t.b)",
    "SELECT k, count(*) FROM (SELECT a AS k, c FROM s WHERE c IS NOT NULL) q GROUP BY CUBE(k)",
    "SELECT * FROM (SELECT a, sum(c) AS total FROM s GROUP BY ROLLUP(a)) r WHERE total > 60",
    # Window functions over the grouped rows.
    "SELECT a, sum(c), rank() OVER (ORDER BY sum(c) DESC), "
    "sum(sum(c)) OVER (PARTITION BY grouping(a)) FROM s GROUP BY ROLLUP(a)",
    # Aggregates whose states own memory or are combined specially, rolled
    # up from the finest groups: text min/max, ordered string_agg, FILTER,
    # variance, bool_and; DISTINCT mixed with others (a cross-product plan).
    "SELECT a, min(b), max(b), string_agg(b, ',' ORDER BY b DESC), count(*) FILTER (WHERE c > 20), "
    "stddev_samp(c), bool_and(c > 15) FROM s GROUP BY ROLLUP(a)",
    "SELECT a, count(DISTINCT b), sum(c), max(b) FROM s GROUP BY ROLLUP(a)",
    "SELECT b, a, avg(x), var_pop(x) FROM s GROUP BY CUBE(b, a)",
    # Filters above the aggregate: on a rolled-up key they must stay above
    # (its NULL rows are not the data's); on a key in every set they may go below.
    "SELECT * FROM (SELECT a, b, count(*) AS n FROM s GROUP BY ROLLUP(a, b)) r WHERE a = 1",
    "SELECT * FROM (SELECT a, b, count(*) AS n FROM s GROUP BY ROLLUP(a, b)) r WHERE b IS NULL",
    "SELECT * FROM (SELECT a, b, count(*) AS n FROM s GROUP BY a, ROLLUP(b)) r WHERE a = 1",
    "SELECT r.a, r.n FROM (SELECT a, count(*) AS n FROM s GROUP BY ROLLUP(a)) r JOIN s ON r.a = s.id",
    # A correlated subquery over grouping sets (without the empty set: see REFUSED).
    "SELECT id, (SELECT count(*) FROM (SELECT a, b, count(*) FROM s t WHERE t.c > s.c "
    "GROUP BY GROUPING SETS ((a), (b))) q) FROM s",
    # Many groups over many threads' partitions.
    "SELECT x % 7, x % 3, count(*), sum(x), min(x) FROM generate_series(1, 100000) g(x) "
    "GROUP BY CUBE(x % 7, x % 3)",
    "SELECT x % 1000, x % 3, count(*), sum(x) FROM generate_series(1, 50000) g(x) "
    "GROUP BY ROLLUP(x % 1000, x % 3)",
    # A CTE read twice.
    "WITH r AS (SELECT a, b, sum(c) AS t FROM s GROUP BY CUBE(a, b)) "
    "SELECT x.a, x.b, x.t, y.t FROM r x JOIN r y ON x.t = y.t AND x.a IS NOT DISTINCT FROM y.a",
]

# ORDER BY over grouped output, compared in order (the keys make it total).
ORDERED = [
    "SELECT a, b, sum(c), grouping(a, b) FROM s GROUP BY ROLLUP(a, b) ORDER BY grouping(a, b), a, b",
    "SELECT a, b, count(*) FROM s GROUP BY CUBE(a, b) ORDER BY a NULLS FIRST, b DESC, 3",
    "SELECT a, sum(c) AS total FROM s GROUP BY ROLLUP(a) ORDER BY total DESC, a LIMIT 3",
    "SELECT a, b, count(*) FROM s GROUP BY ROLLUP(a, b) "
    "ORDER BY grouping(a), grouping(b), a NULLS LAST, b NULLS LAST",
]

REFUSED = [
    # PostgreSQL gives the () row for every outer row, matched or not.
    ("SELECT id, (SELECT count(*) FROM (SELECT a, count(*) FROM s t WHERE t.c > s.c "
     "GROUP BY ROLLUP(a)) q) FROM s",
     "unsupported: correlated subqueries over grouping sets that include the empty set ()"),
]

ERRORS = [
    ("SELECT a, grouping(c) FROM s GROUP BY ROLLUP(a)",
     "arguments to GROUPING must be grouping expressions of the associated query level"),
    ("SELECT a FROM s WHERE grouping(a) = 0 GROUP BY ROLLUP(a)",
     "grouping operations are not allowed"),
    ("SELECT c, count(*) FROM s GROUP BY ROLLUP(a)",
     'column "c" must appear in the GROUP BY clause'),
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_grouping_sets_match_postgres(quiver_bin, pg, sql):
    pg_oracle.assert_same_rows(pg_oracle.quiver_rows(quiver_bin, SETUP + sql), pg(sql), sql)


@pytest.mark.parametrize("sql", ORDERED)
def test_grouping_sets_order_matches_postgres(quiver_bin, pg, sql):
    pg_oracle.assert_same_rows(pg_oracle.quiver_rows(quiver_bin, SETUP + sql), pg(sql), sql,
                               ordered=True)


def test_grouping_sets_read_the_input_once(quiver_bin):
    """Without DISTINCT aggregates, the sets are rolled up from one
    aggregation of the input (no cross product with the set ids)."""
    def plan(sql):
        proc = subprocess.run([str(quiver_bin), "sql", SETUP + "EXPLAIN " + sql],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout
    rolled = plan("SELECT a, b, sum(c), max(b) FROM s GROUP BY ROLLUP(a, b)")
    assert "CROSS_PRODUCT" not in rolled, rolled
    assert "rolled up into 3 grouping sets" in rolled, rolled
    crossed = plan("SELECT a, count(DISTINCT b) FROM s GROUP BY ROLLUP(a)")
    assert "CROSS_PRODUCT" in crossed, crossed


@pytest.mark.parametrize("sql,message", REFUSED + ERRORS)
def test_grouping_sets_errors(quiver_bin, sql, message):
    proc = subprocess.run([str(quiver_bin), "sql", SETUP + sql], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode != 0, f"{sql} should fail, gave:\n{proc.stdout}"
    assert message in proc.stderr, proc.stderr
