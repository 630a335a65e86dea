"""RETURNING, UPDATE ... FROM and DELETE ... USING on Quiver's tables against
PostgreSQL 15 (issue 12 item 6).

Each case runs the same statements on both (going on after errors, as psql
does) and compares, statement by statement, the rows each one returned (as
multisets: PostgreSQL returns an UPDATE's rows in heap order, which moves
updated rows), the SQLSTATEs of the failing statements in order, and the
table's final rows: a statement that fails changes nothing.
"""

import json
import re
import subprocess

import pytest

import pg_oracle

KV = "CREATE TABLE tab (k int PRIMARY KEY, v text DEFAULT 'dflt', n int DEFAULT 2 * 3)"
FILL = "INSERT INTO tab VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)"
SRC = ["CREATE TABLE src (k int, w text, m int)",
       "INSERT INTO src VALUES (1, 'x', 100), (3, 'y', 300), (3, 'z', 301), (9, 'q', 900)"]

CASES = {
    # RETURNING on INSERT
    "insert_returning_defaults": [KV, "INSERT INTO tab (k) VALUES (1), (2) RETURNING *"],
    "insert_returning_expressions": [
        KV, "INSERT INTO tab VALUES (5, 'five', 1) RETURNING k * 10 AS k10, upper(v), n + k, "
            "v || '!' AS shout"],
    "insert_returning_partial_defaults": [
        KV, "INSERT INTO tab (k, n) VALUES (7, NULL), (8, 80) RETURNING v, n, k"],
    "insert_select_returning": [
        KV, "INSERT INTO tab SELECT g, 'g' || g, g * g FROM generate_series(1, 5) AS s(g) "
            "RETURNING k, n"],
    "insert_alias_returning": [
        KV, "INSERT INTO tab AS t VALUES (4, 'd', 40) RETURNING t.k AS key, t.*"],
    "insert_returning_constants": [
        KV, "INSERT INTO tab (k) VALUES (1) RETURNING 42 AS answer, NULL::int AS nothing, "
            "'lit' AS word, k IS NULL AS missing"],
    "insert_returning_subquery": [
        KV, FILL, "INSERT INTO tab VALUES (4, 'd', 40) RETURNING k, "
                  "(SELECT count(*) FROM tab) AS before"],
    "insert_returning_duplicate_key": [
        KV, FILL, "INSERT INTO tab VALUES (4, 'd', 40), (1, 'dup', 0) RETURNING *"],
    "insert_returning_not_null": [
        "CREATE TABLE tab (k int NOT NULL, v text)",
        "INSERT INTO tab VALUES (1, 'a'), (NULL, 'b') RETURNING k"],
    "insert_returning_check": [
        "CREATE TABLE tab (k int CHECK (k > 0), v text)",
        "INSERT INTO tab VALUES (1, 'a') RETURNING *",
        "INSERT INTO tab VALUES (2, 'b'), (-2, 'c') RETURNING *"],
    "returning_aggregate_refused": [KV, "INSERT INTO tab VALUES (1) RETURNING count(*)"],
    "returning_window_refused": [KV, "INSERT INTO tab VALUES (1) RETURNING row_number() OVER ()"],
    "returning_unknown_column": [KV, FILL, "INSERT INTO tab VALUES (4) RETURNING nope"],
    "returning_other_table": [KV, FILL, *SRC, "DELETE FROM tab WHERE k = 1 RETURNING src.k"],
    "returning_division_by_zero": [KV, FILL, "UPDATE tab SET n = 0 WHERE k = 2 RETURNING 1 / n"],
    # RETURNING on UPDATE and DELETE
    "update_returning_new_values": [
        KV, FILL, "UPDATE tab SET v = v || '!', n = n + 1 WHERE k >= 2 RETURNING k, v, n"],
    "update_returning_no_match": [KV, FILL, "UPDATE tab SET v = 'z' WHERE k > 100 RETURNING *"],
    "update_alias_returning": [
        KV, FILL, "UPDATE tab AS t SET n = t.n * 2 WHERE t.k = 1 RETURNING t.n, t.v"],
    "update_returning_all_rows": [KV, FILL, "UPDATE tab SET n = -n RETURNING n, k"],
    "update_returning_duplicate_key": [KV, FILL, "UPDATE tab SET k = 1 WHERE k = 3 RETURNING *"],
    "delete_returning_star": [KV, FILL, "DELETE FROM tab WHERE k <> 2 RETURNING *, k + 1 AS next"],
    "delete_returning_none": [KV, FILL, "DELETE FROM tab WHERE v IS NULL RETURNING k"],
    "delete_alias_returning": [KV, FILL, "DELETE FROM tab t WHERE t.n > 15 RETURNING t.k"],
    "delete_returning_subquery_where": [
        KV, FILL, *SRC, "DELETE FROM tab WHERE k IN (SELECT k FROM src) RETURNING v"],
    # UPDATE ... FROM
    "update_from": [KV, FILL, *SRC, "UPDATE tab SET v = src.w, n = tab.n + src.m FROM src "
                                    "WHERE src.k = tab.k AND src.k = 1"],
    "update_from_returning": [
        KV, FILL, *SRC, "UPDATE tab SET v = s.w FROM src AS s WHERE s.k = tab.k AND s.m < 200 "
                        "RETURNING tab.k, tab.v, s.m, s.w AS sw"],
    "update_from_no_match": [KV, FILL, *SRC, "UPDATE tab SET v = 'none' FROM src "
                                             "WHERE src.k = tab.k AND src.m > 1000 RETURNING *"],
    "update_from_several_matches": [
        # k = 3 joins two source rows: it is updated once (with either), and
        # counted once.
        KV, FILL, *SRC, "UPDATE tab SET n = 0 FROM src WHERE src.k = tab.k RETURNING tab.k, tab.n",
    ],
    "update_from_expression_join": [
        KV, FILL, *SRC, "UPDATE tab t SET n = t.n * 10 FROM src WHERE src.k - 2 = t.k"],
    "update_from_two_tables": [
        KV, FILL, *SRC, "CREATE TABLE third (k int, z int)", "INSERT INTO third VALUES (1, 5)",
        "UPDATE tab SET n = src.m + third.z FROM src, third "
        "WHERE src.k = tab.k AND third.k = src.k"],
    "update_from_subquery": [
        KV, FILL, *SRC, "UPDATE tab SET n = agg.total FROM (SELECT k, sum(m) AS total FROM src "
                        "GROUP BY k) AS agg WHERE agg.k = tab.k RETURNING tab.k, tab.n"],
    "update_from_self": [
        KV, FILL, "UPDATE tab SET n = other.n FROM tab AS other WHERE other.k = tab.k + 1"],
    "update_from_without_where": [
        KV, FILL, "CREATE TABLE one (x int)", "INSERT INTO one VALUES (7)",
        "UPDATE tab SET n = one.x FROM one RETURNING tab.n"],
    "update_from_check_violation": [
        "CREATE TABLE tab (k int PRIMARY KEY, n int CHECK (n < 250))",
        "INSERT INTO tab VALUES (1, 1), (3, 3)", *SRC,
        "UPDATE tab SET n = src.m FROM src WHERE src.k = tab.k"],
    "update_from_duplicate_key": [
        KV, FILL, *SRC, "UPDATE tab SET k = 2 FROM src WHERE src.k = tab.k AND src.k = 1"],
    "update_from_not_null": [
        "CREATE TABLE tab (k int PRIMARY KEY, v text NOT NULL)",
        "INSERT INTO tab VALUES (1, 'a'), (2, 'b')", *SRC,
        "UPDATE tab SET v = NULL FROM src WHERE src.k = tab.k"],
    "update_from_unknown_column": [KV, FILL, *SRC,
                                   "UPDATE tab SET v = src.nope FROM src WHERE src.k = tab.k"],
    "update_from_ambiguous": [KV, FILL, *SRC, "UPDATE tab SET v = 'x' FROM src WHERE k = 1"],
    "update_from_rollback": [KV, FILL, *SRC, "BEGIN",
                             "UPDATE tab SET v = src.w FROM src WHERE src.k = tab.k", "ROLLBACK"],
    "update_from_commit": [KV, FILL, *SRC, "BEGIN",
                           "UPDATE tab SET v = src.w FROM src WHERE src.k = tab.k AND src.k = 1",
                           "DELETE FROM tab USING src WHERE src.k = tab.k AND src.m > 250",
                           "COMMIT"],
    # DELETE ... USING
    "delete_using": [KV, FILL, *SRC, "DELETE FROM tab USING src WHERE src.k = tab.k"],
    "delete_using_returning": [
        KV, FILL, *SRC, "DELETE FROM tab USING src WHERE src.k = tab.k AND src.w <> 'z' "
                        "RETURNING tab.*, src.w"],
    "delete_using_no_match": [KV, FILL, *SRC,
                              "DELETE FROM tab USING src WHERE src.k = tab.k AND src.m < 0"],
    "delete_using_self_join": [
        KV, "INSERT INTO tab VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3), (4, 'b', 4), "
            "(5, 'c', 5)",
        "DELETE FROM tab t USING tab u WHERE t.v = u.v AND t.k > u.k RETURNING t.k"],
    "delete_using_several_matches": [
        KV, FILL, *SRC, "DELETE FROM tab USING src WHERE src.k = tab.k RETURNING tab.k"],
    "delete_using_rollback": [KV, FILL, *SRC, "BEGIN",
                              "DELETE FROM tab USING src WHERE src.k = tab.k", "SELECT count(*) FROM tab",
                              "ROLLBACK"],
    "delete_using_then_insert": [KV, FILL, *SRC,
                                 "DELETE FROM tab USING src WHERE src.k = tab.k",
                                 "INSERT INTO tab VALUES (1, 'again', 0)",
                                 "INSERT INTO tab VALUES (2, 'dup', 0)"],
    # RETURNING inside transactions
    "returning_rollback": [
        KV, FILL, "BEGIN", "INSERT INTO tab VALUES (4, 'd', 40) RETURNING k",
        "UPDATE tab SET v = 'u' RETURNING v", "DELETE FROM tab WHERE k = 1 RETURNING k",
        "ROLLBACK"],
    "returning_commit": [
        KV, FILL, "BEGIN", "INSERT INTO tab VALUES (4, 'd', 40) RETURNING k",
        "DELETE FROM tab WHERE k = 1 RETURNING k", "COMMIT"],
    "returning_error_aborts_block": [
        KV, FILL, "BEGIN", "INSERT INTO tab VALUES (4) RETURNING k",
        "INSERT INTO tab VALUES (1) RETURNING k", "SELECT 1", "ROLLBACK"],
}

FINAL = "SELECT * FROM tab"

_ERROR = re.compile(r"(?:psql:.*?: )?ERROR:  ([0-9A-Z]{5}): ")


def _marker(i):
    return f"SELECT 'marker{i}' AS marker"


def _split(rows, count):
    """Rows of the statements, split at the marker rows: one list per
    statement (a marker that failed, in an aborted transaction block, is
    missing: the rows after it belong to the statement after the next one)."""
    out = [[] for _ in range(count)]
    current = 0
    for r in rows:
        if len(r) == 1 and isinstance(r[0], str) and re.fullmatch(r"marker\d+", r[0]):
            current = int(r[0][6:]) + 1
            continue
        assert current < count, rows
        out[current].append(r)
    return out


def run_postgres(pg, statements):
    args = ["-q", "-A", "-t", "-F", "\t", "-P", "null=\\N", "-v", "ON_ERROR_STOP=0",
            "-c", "DROP SCHEMA IF EXISTS s CASCADE", "-c", "CREATE SCHEMA s",
            "-c", "SET search_path = s", "-c", "\\set VERBOSITY verbose"]
    for i, stmt in enumerate(statements + [FINAL]):
        args += ["-c", stmt, "-c", _marker(i)]
    proc = pg.psql(*args, check=False)
    errors = [m.group(1) for m in map(_ERROR.match, proc.stderr.splitlines()) if m]
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    return errors, _split(rows, len(statements) + 1)


def run_quiver(quiver_bin, statements):
    parts = []
    for i, stmt in enumerate(statements + [FINAL]):
        parts += [stmt, _marker(i)]
    proc = subprocess.run([str(quiver_bin), "sql", "--keep-going", "--format", "json",
                           ";\n".join(parts) + ";"],
                          capture_output=True, text=True, timeout=300)
    errors = []
    for line in proc.stderr.splitlines():
        line = line.strip()
        if line.startswith("{"):
            errors.append(json.loads(line)["sqlstate"])
    rows = [list(json.loads(line).values()) for line in proc.stdout.splitlines()
            if line.strip().startswith("{")]
    return errors, _split(rows, len(statements) + 1)


def assert_same(pg, quiver_bin, statements):
    pg_errors, pg_rows = run_postgres(pg, statements)
    q_errors, q_rows = run_quiver(quiver_bin, statements)
    script = "\n".join(statements)
    assert q_errors == pg_errors, f"{script}\nquiver {q_errors}\npostgres {pg_errors}"
    for stmt, ours, theirs in zip(statements + [FINAL], q_rows, pg_rows):
        pg_oracle.assert_same_rows(ours, theirs, f"{script}\n-- at: {stmt}")
    return pg_errors, pg_rows


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("name", sorted(CASES))
def test_dml_matches_postgres(pg, quiver_bin, name):
    assert_same(pg, quiver_bin, CASES[name])


def test_returning_column_names(quiver_bin):
    """RETURNING's columns are named as PostgreSQL names them (the column,
    the function, ?column?, or the alias)."""
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--format", "json",
         KV + "; INSERT INTO tab (k) VALUES (1) RETURNING k, upper(v), n + 1, k AS key"],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    assert list(row) == ["k", "upper", "?column?", "key"]
    assert list(row.values()) == [1, "DFLT", 7, 1]
