"""DEFAULT as a value against PostgreSQL 15 (issue 12): INSERT ... DEFAULT
VALUES, DEFAULT inside an INSERT's VALUES rows (one row or many, mixed with
values), UPDATE ... SET c = DEFAULT and ON CONFLICT DO UPDATE SET c =
DEFAULT, and DEFAULT where PostgreSQL does not allow it (42601).

Each case runs the same statements on both and compares, statement by
statement, the rows returned, the SQLSTATEs of the failing statements, and
the table's final rows (test_dml_pg.assert_same). The misplaced DEFAULTs are
refused while binding, so under --keep-going the statements after them run.
"""

import pytest

import pg_oracle
from test_dml_pg import assert_same

TAB = "CREATE TABLE tab (a int, b text DEFAULT 'dflt', c numeric(6,2) DEFAULT 1.5 * 2)"

CASES = {
    "default_values": [
        TAB,
        "INSERT INTO tab DEFAULT VALUES",
        "INSERT INTO tab DEFAULT VALUES RETURNING a, b, c",
    ],
    "default_in_one_row": [
        TAB,
        "INSERT INTO tab VALUES (1, DEFAULT, DEFAULT)",
        "INSERT INTO tab VALUES (DEFAULT, 'x', 7)",
        "INSERT INTO tab VALUES (DEFAULT)",
        "INSERT INTO tab VALUES (2, DEFAULT)",
    ],
    "default_in_many_rows": [
        TAB,
        "INSERT INTO tab VALUES (1, DEFAULT, 3), (2, 'two', DEFAULT), (DEFAULT, DEFAULT, DEFAULT)",
        "INSERT INTO tab VALUES (3, DEFAULT, DEFAULT), (4, DEFAULT, DEFAULT) RETURNING *",
    ],
    "default_with_column_list": [
        TAB,
        "INSERT INTO tab (c, a) VALUES (DEFAULT, 1), (9, DEFAULT)",
        "INSERT INTO tab (b) VALUES (DEFAULT)",
        "INSERT INTO tab (b, a) VALUES (DEFAULT, 5) RETURNING b, a",
    ],
    "default_typed_literals_in_other_rows": [
        "CREATE TABLE tab (d date DEFAULT '2024-02-29', t text DEFAULT 'x' || 'y', n int DEFAULT 42)",
        "INSERT INTO tab VALUES ('2020-01-01', DEFAULT, '7'), (DEFAULT, 'z', DEFAULT)",
        "INSERT INTO tab VALUES (DEFAULT, NULL, NULL), (NULL, DEFAULT, NULL)",
    ],
    "default_no_default_is_null": [
        "CREATE TABLE tab (a int, b text)",
        "INSERT INTO tab VALUES (DEFAULT, DEFAULT), (1, DEFAULT)",
        "INSERT INTO tab DEFAULT VALUES",
    ],
    "default_and_not_null": [
        "CREATE TABLE tab (a int NOT NULL, b text DEFAULT 'd')",
        "INSERT INTO tab VALUES (DEFAULT, 'x')",
        "INSERT INTO tab DEFAULT VALUES",
        "INSERT INTO tab VALUES (1, DEFAULT)",
    ],
    "default_and_check": [
        "CREATE TABLE tab (a int DEFAULT -1 CHECK (a > 0), b text)",
        "INSERT INTO tab VALUES (DEFAULT, 'x')",
        "INSERT INTO tab VALUES (1, DEFAULT)",
    ],
    "default_serial": [
        "CREATE TABLE tab (id serial, v text DEFAULT 'v')",
        "INSERT INTO tab VALUES (DEFAULT, 'a'), (DEFAULT, 'b')",
        "INSERT INTO tab DEFAULT VALUES RETURNING id, v",
        "INSERT INTO tab VALUES (DEFAULT, DEFAULT) RETURNING id",
        "INSERT INTO tab VALUES (100, 'x'), (DEFAULT, 'y')",
        "INSERT INTO tab (v) VALUES (DEFAULT) RETURNING id, v",
    ],
    "default_identity_always": [
        "CREATE TABLE tab (id int GENERATED ALWAYS AS IDENTITY, v text)",
        "INSERT INTO tab VALUES (DEFAULT, 'a'), (DEFAULT, 'b')",
        "INSERT INTO tab VALUES (DEFAULT, 'c'), (7, 'd')",
        "INSERT INTO tab DEFAULT VALUES",
        "UPDATE tab SET v = 'x' WHERE id = 1",
    ],
    "default_primary_key": [
        "CREATE TABLE tab (k int PRIMARY KEY DEFAULT 1, v text)",
        "INSERT INTO tab VALUES (DEFAULT, 'a')",
        "INSERT INTO tab VALUES (DEFAULT, 'b')",
        "INSERT INTO tab DEFAULT VALUES",
    ],
    "update_set_default": [
        TAB,
        "INSERT INTO tab VALUES (1, 'one', 10), (2, 'two', 20), (3, NULL, NULL)",
        "UPDATE tab SET b = DEFAULT WHERE a = 1",
        "UPDATE tab SET b = DEFAULT, c = DEFAULT WHERE a >= 2 RETURNING a, b, c",
        "UPDATE tab SET a = DEFAULT WHERE a = 3",
    ],
    "update_from_set_default": [
        TAB,
        "CREATE TABLE src (k int)",
        "INSERT INTO src VALUES (2)",
        "INSERT INTO tab VALUES (1, 'one', 10), (2, 'two', 20)",
        "UPDATE tab SET b = DEFAULT FROM src WHERE src.k = tab.a",
    ],
    "upsert_set_default": [
        "CREATE TABLE tab (k int PRIMARY KEY, v text DEFAULT 'dflt')",
        "INSERT INTO tab VALUES (1, 'one'), (2, 'two')",
        "INSERT INTO tab VALUES (1, 'new') ON CONFLICT (k) DO UPDATE SET v = DEFAULT",
        "INSERT INTO tab VALUES (3, DEFAULT) ON CONFLICT (k) DO NOTHING",
    ],
    # Where PostgreSQL does not allow DEFAULT: 42601, and the script goes on.
    "default_misplaced": [
        TAB,
        "INSERT INTO tab SELECT DEFAULT",
        "INSERT INTO tab VALUES (DEFAULT + 1)",
        "INSERT INTO tab VALUES (1) UNION VALUES (DEFAULT)",
        "INSERT INTO tab (SELECT * FROM (VALUES (DEFAULT, 'x', 1)) v)",
        "SELECT * FROM (VALUES (DEFAULT)) v",
        "SELECT coalesce(DEFAULT, 1)",
        "UPDATE tab SET a = DEFAULT + 1",
        "INSERT INTO tab VALUES (1, 'after')",
    ],
    "default_wrong_widths": [
        TAB,
        "INSERT INTO tab VALUES (1, DEFAULT, DEFAULT, DEFAULT)",
        "INSERT INTO tab (a) VALUES (DEFAULT, 1)",
        "INSERT INTO tab VALUES (1), (DEFAULT, 'x')",
        "INSERT INTO tab (a, b) VALUES (DEFAULT)",
        "INSERT INTO tab VALUES (2)",
    ],
}


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_matches_postgres(pg, quiver_bin, name):
    assert_same(pg, quiver_bin, CASES[name])


def test_update_sequence_column_to_default_is_refused(quiver_bin):
    # PostgreSQL draws from the sequence for the rows updated; Quiver's
    # UPDATE would draw for every row, so it refuses (0A000) rather than
    # give other numbers.
    import json
    import subprocess
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--format", "json",
         "CREATE TABLE t (id serial, v text); INSERT INTO t (v) VALUES ('a'); "
         "UPDATE t SET id = DEFAULT"],
        capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert json.loads(proc.stderr.strip().splitlines()[-1])["sqlstate"] == "0A000", proc.stderr
