"""NOT NULL, CHECK, PRIMARY KEY, UNIQUE and DEFAULT on Quiver's tables
against PostgreSQL 15 (issue 12 item 6).

Each case runs the same statements on both (going on after errors, as psql
does) and compares the SQLSTATEs of the failing statements, in order, and
the table's final rows: a statement that fails half way changes nothing.
Cases marked `messages` also compare the message and DETAIL texts.
"""

import subprocess
import time

import pytest

import pg_oracle
import script_oracle

KV = "CREATE TABLE tab (k int PRIMARY KEY, v text NOT NULL)"

CASES = {
    # PRIMARY KEY
    "pk_duplicate": ([KV, "INSERT INTO tab VALUES (1, 'a')", "INSERT INTO tab VALUES (1, 'b')"],
                     True),
    "pk_duplicate_in_statement": (
        [KV, "INSERT INTO tab VALUES (1, 'a'), (2, 'b'), (2, 'c'), (3, 'd')"], True),
    "pk_duplicate_half_way": (
        [KV, "INSERT INTO tab VALUES (5, 'x')",
         "INSERT INTO tab VALUES (1, 'a'), (2, 'b'), (5, 'c'), (6, 'd')"], True),
    "pk_null": ([KV, "INSERT INTO tab VALUES (NULL, 'a')"], True),
    "pk_insert_select": (
        [KV, "INSERT INTO tab VALUES (3, 'x')",
         "INSERT INTO tab SELECT g, 'n' FROM generate_series(1, 100) AS s(g)"], True),
    "pk_composite": (
        ["CREATE TABLE tab (a int, b int, c text, PRIMARY KEY (a, b))",
         "INSERT INTO tab VALUES (1, 1, 'x'), (1, 2, 'y'), (2, 1, 'z')",
         "INSERT INTO tab VALUES (1, 2, 'again')", "INSERT INTO tab VALUES (1, NULL, 'n')"], True),
    "pk_text": (["CREATE TABLE tab (k text PRIMARY KEY, n int)",
                 "INSERT INTO tab VALUES ('a', 1), ('b', 2)",
                 "INSERT INTO tab VALUES ('c', 3), ('a', 4)"], True),
    "pk_named": (["CREATE TABLE tab (k int, CONSTRAINT my_pk PRIMARY KEY (k))",
                  "INSERT INTO tab VALUES (1), (1)"], True),
    "pk_after_delete": ([KV, "INSERT INTO tab VALUES (1, 'a'), (2, 'b')",
                         "DELETE FROM tab WHERE k = 1", "INSERT INTO tab VALUES (1, 'c')",
                         "INSERT INTO tab VALUES (2, 'd')"], True),
    "pk_after_truncate": ([KV, "INSERT INTO tab VALUES (1, 'a')", "TRUNCATE tab",
                           "INSERT INTO tab VALUES (1, 'b')"], True),
    "pk_update_duplicate": ([KV, "INSERT INTO tab VALUES (1, 'a'), (2, 'b'), (3, 'c')",
                             "UPDATE tab SET k = 1 WHERE k = 3", "UPDATE tab SET v = 'z'"], True),
    "pk_update_to_null": ([KV, "INSERT INTO tab VALUES (1, 'a')",
                           "UPDATE tab SET k = NULL"], True),
    "pk_bigint_and_float": (
        ["CREATE TABLE tab (k bigint PRIMARY KEY, f double precision UNIQUE)",
         "INSERT INTO tab VALUES (9000000000, 1.5), (1, 2.5)",
         "INSERT INTO tab VALUES (9000000000, 3.5)", "INSERT INTO tab VALUES (7, 2.5)"], True),
    "pk_date": (["CREATE TABLE tab (d date PRIMARY KEY)",
                 "INSERT INTO tab VALUES ('2024-02-29'), ('2024-03-01')",
                 "INSERT INTO tab VALUES ('2024-02-29')"], True),
    # UNIQUE
    "unique_nulls_distinct": (
        ["CREATE TABLE tab (k int, u int UNIQUE)",
         "INSERT INTO tab VALUES (1, NULL), (2, NULL), (3, 7)",
         "INSERT INTO tab VALUES (4, NULL)", "INSERT INTO tab VALUES (5, 7)"], True),
    "unique_table_constraint": (
        ["CREATE TABLE tab (a int, b text, UNIQUE (a, b))",
         "INSERT INTO tab VALUES (1, 'x'), (1, 'y'), (NULL, 'x'), (NULL, 'x')",
         "INSERT INTO tab VALUES (1, 'y')"], True),
    "unique_and_pk": (
        ["CREATE TABLE tab (k int PRIMARY KEY, u int UNIQUE)",
         "INSERT INTO tab VALUES (1, 10), (2, 20)", "INSERT INTO tab VALUES (3, 10)",
         "INSERT INTO tab VALUES (1, 30)"], True),
    # NOT NULL
    "not_null": ([KV, "INSERT INTO tab VALUES (1, NULL)"], True),
    "not_null_half_way": ([KV, "INSERT INTO tab VALUES (9, 'x')",
                           "INSERT INTO tab VALUES (1, 'a'), (2, NULL), (3, 'c')"], True),
    "not_null_missing_column": ([KV, "INSERT INTO tab (k) VALUES (1)"], True),
    "not_null_update": ([KV, "INSERT INTO tab VALUES (1, 'a'), (2, 'b')",
                         "UPDATE tab SET v = NULL WHERE k = 2"], True),
    # CHECK
    "check_column": (["CREATE TABLE tab (k int CHECK (k > 0), v text)",
                      "INSERT INTO tab VALUES (1, 'a')", "INSERT INTO tab VALUES (-1, 'b')",
                      "INSERT INTO tab VALUES (NULL, 'null passes')"], True),
    "check_half_way": (["CREATE TABLE tab (k int CHECK (k > 0))", "INSERT INTO tab VALUES (7)",
                        "INSERT INTO tab VALUES (1), (2), (0), (3)"], True),
    "check_table": (["CREATE TABLE tab (lo int, hi int, CHECK (lo <= hi))",
                     "INSERT INTO tab VALUES (1, 2), (3, 3)", "INSERT INTO tab VALUES (5, 4)"],
                    True),
    "check_named": (["CREATE TABLE tab (k int, CONSTRAINT positive CHECK (k > 0))",
                     "INSERT INTO tab VALUES (0)"], True),
    "check_two": (["CREATE TABLE tab (k int CHECK (k > 0) CHECK (k < 10))",
                   "INSERT INTO tab VALUES (5)", "INSERT INTO tab VALUES (10)",
                   "INSERT INTO tab VALUES (-3)"], True),
    "check_text": (["CREATE TABLE tab (s text CHECK (length(s) <= 3))",
                    "INSERT INTO tab VALUES ('abc')", "INSERT INTO tab VALUES ('a b c')"], True),
    "check_update": (["CREATE TABLE tab (k int, v int CHECK (v >= 0))",
                      "INSERT INTO tab VALUES (1, 5), (2, 1)", "UPDATE tab SET v = v - 3",
                      "UPDATE tab SET v = v - 1 WHERE k = 1"], True),
    # DEFAULT
    "default_values": (
        ["CREATE TABLE tab (k int, v text DEFAULT 'none', n int DEFAULT 1 + 2, "
         "d date DEFAULT DATE '2024-01-01')",
         "INSERT INTO tab (k) VALUES (1)", "INSERT INTO tab (k, n) VALUES (2, 9)",
         "INSERT INTO tab (k, v) SELECT g, 'g' FROM generate_series(3, 4) AS s(g)"], True),
    "default_with_check": (
        ["CREATE TABLE tab (k int, v int DEFAULT -1 CHECK (v >= 0))",
         "INSERT INTO tab (k) VALUES (1)", "INSERT INTO tab VALUES (2, 2)"], True),
    # CREATE TABLE errors
    "two_primary_keys": (["CREATE TABLE tab (a int PRIMARY KEY, b int PRIMARY KEY)"], True),
    "key_column_missing": (["CREATE TABLE tab (a int, PRIMARY KEY (b))"], True),
    "check_not_boolean": (["CREATE TABLE tab (a int CHECK (a + 1))"], False),
    "check_subquery": (["CREATE TABLE tab (a int CHECK (a IN (SELECT 1)))"], False),
    "check_unknown_column": (["CREATE TABLE tab (a int CHECK (b > 0))"], True),
    "duplicate_constraint_name": (
        ["CREATE TABLE tab (a int CONSTRAINT c CHECK (a > 0), b int CONSTRAINT c CHECK (b > 0))"],
        False),
    "default_wrong_type": (["CREATE TABLE tab (a int DEFAULT now())"], False),
    # other errors in the same scripts
    "undefined_column_insert": ([KV, "INSERT INTO tab (k, nope) VALUES (1, 'a')"], True),
}

FINAL = "SELECT * FROM tab"


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("name", sorted(CASES))
def test_constraint_matches_postgres(pg, quiver_bin, name):
    statements, messages = CASES[name]
    creates = statements[0].startswith("CREATE TABLE tab (") and len(statements) > 1
    script_oracle.assert_same(pg, quiver_bin, statements, FINAL if creates else None,
                              messages=messages)


def test_at_least_30_error_cases(pg, quiver_bin):
    errors = 0
    for statements, _ in CASES.values():
        errors += len(script_oracle.run_postgres(pg, statements, None)[0])
    assert errors >= 30


def _quiver(quiver_bin, sql, timeout=600):
    return subprocess.run([str(quiver_bin), "sql", "--format", "json", sql],
                          capture_output=True, text=True, timeout=timeout)


def test_ten_million_rows_checked_in_seconds(quiver_bin):
    """A 10M-row insert into a table with a two-column key is checked for the
    whole statement with hashing: seconds, not a probe per stored row."""
    base = ("CREATE TABLE big (a int, b int, PRIMARY KEY (a, b)); "
            "INSERT INTO big SELECT g % 1000, g / 1000 FROM generate_series(0, 9999999) AS s(g); ")
    start = time.monotonic()
    p = _quiver(quiver_bin, base + "SELECT count(*) AS n FROM big")
    elapsed = time.monotonic() - start
    assert p.returncode == 0, p.stderr
    assert '"n": 10000000' in p.stdout
    assert elapsed < 60, f"10M keys took {elapsed:.1f} s"
    # One duplicate pair among the 10M new rows: nothing is written.
    p = _quiver(quiver_bin, base.replace("AS s(g)", "AS s(g) UNION ALL SELECT 5, 5")
                + "SELECT 1")
    assert p.returncode != 0
    assert '"sqlstate": "23505"' in p.stderr and "Key (a, b)=(5, 5) already exists." in p.stderr


def test_many_small_inserts_stay_linear(quiver_bin):
    """Single-row inserts reuse the key index of the table's current version
    (no rebuild per statement): 5000 of them run in seconds."""
    stmts = ["CREATE TABLE t (k int PRIMARY KEY)"]
    stmts += [f"INSERT INTO t VALUES ({i})" for i in range(5000)]
    stmts += ["INSERT INTO t VALUES (4321)"]
    start = time.monotonic()
    p = subprocess.run([str(quiver_bin), "sql", "--format", "json", "--keep-going"],
                       input=";\n".join(stmts + ["SELECT count(*) AS n FROM t"]) + ";",
                       capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - start
    assert '"n": 5000' in p.stdout, p.stderr[-2000:]
    assert p.stderr.count('"sqlstate": "23505"') == 1
    assert elapsed < 60, f"5000 inserts took {elapsed:.1f} s"
