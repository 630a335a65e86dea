"""BEGIN / COMMIT / ROLLBACK / SAVEPOINT on Quiver's tables against
PostgreSQL 15 (issue 12 item 6): the same scripts on both (going on after
errors, as psql does) give the same SQLSTATEs in order and the same final
rows; a failed statement aborts the block (25P02) until ROLLBACK.
"""

import pytest

import pg_oracle
import script_oracle

SETUP = ["CREATE TABLE tab (k int PRIMARY KEY, v text)",
         "INSERT INTO tab VALUES (1, 'one'), (2, 'two')"]

CASES = {
    "rollback_insert": ["BEGIN", "INSERT INTO tab VALUES (3, 'three')", "ROLLBACK"],
    "commit_insert": ["BEGIN", "INSERT INTO tab VALUES (3, 'three')", "COMMIT"],
    "rollback_update_delete": ["BEGIN", "UPDATE tab SET v = 'x'", "DELETE FROM tab WHERE k = 1",
                               "INSERT INTO tab VALUES (1, 'new')", "ROLLBACK"],
    "rollback_truncate": ["BEGIN", "TRUNCATE tab", "ROLLBACK"],
    "commit_truncate": ["BEGIN", "TRUNCATE tab", "INSERT INTO tab VALUES (9, 'nine')", "COMMIT"],
    "reads_own_writes": ["BEGIN", "INSERT INTO tab VALUES (3, 'three')",
                         "CREATE TABLE copy AS SELECT * FROM tab", "DELETE FROM tab",
                         "INSERT INTO tab SELECT k + 10, v FROM copy", "COMMIT"],
    "aborted_block": ["BEGIN", "INSERT INTO tab VALUES (3, 'three')",
                      "INSERT INTO tab VALUES (1, 'dup')", "SELECT 1",
                      "INSERT INTO tab VALUES (4, 'four')", "COMMIT"],
    "aborted_then_rollback": ["BEGIN", "INSERT INTO tab VALUES (3, 'three')",
                              "SELECT 1 / 0", "SELECT 1", "ROLLBACK",
                              "INSERT INTO tab VALUES (5, 'five')"],
    "savepoint_rollback_to": ["BEGIN", "INSERT INTO tab VALUES (3, 'three')", "SAVEPOINT a",
                              "INSERT INTO tab VALUES (4, 'four')", "UPDATE tab SET v = 'u'",
                              "ROLLBACK TO SAVEPOINT a", "INSERT INTO tab VALUES (5, 'five')",
                              "COMMIT"],
    "savepoint_after_error": ["BEGIN", "SAVEPOINT a", "INSERT INTO tab VALUES (3, 'three')",
                              "SAVEPOINT b", "INSERT INTO tab VALUES (2, 'dup')",
                              "SELECT 1", "ROLLBACK TO b", "INSERT INTO tab VALUES (4, 'four')",
                              "COMMIT"],
    "savepoint_nested": ["BEGIN", "SAVEPOINT a", "INSERT INTO tab VALUES (3, 'c')",
                         "SAVEPOINT b", "INSERT INTO tab VALUES (4, 'd')", "SAVEPOINT c",
                         "DELETE FROM tab", "ROLLBACK TO b", "INSERT INTO tab VALUES (5, 'e')",
                         "RELEASE a", "COMMIT"],
    "savepoint_kept_after_rollback_to": [
        "BEGIN", "SAVEPOINT a", "INSERT INTO tab VALUES (3, 'c')", "ROLLBACK TO a",
        "INSERT INTO tab VALUES (4, 'd')", "ROLLBACK TO a", "COMMIT"],
    "savepoint_same_name": ["BEGIN", "SAVEPOINT a", "INSERT INTO tab VALUES (3, 'c')",
                            "SAVEPOINT a", "INSERT INTO tab VALUES (4, 'd')", "ROLLBACK TO a",
                            "RELEASE a", "ROLLBACK TO a", "COMMIT"],
    "release_then_rollback_to": ["BEGIN", "SAVEPOINT a", "RELEASE a", "ROLLBACK TO a",
                                 "ROLLBACK"],
    "rollback_to_unknown": ["BEGIN", "INSERT INTO tab VALUES (3, 'c')", "ROLLBACK TO nope",
                            "COMMIT"],
    "savepoint_outside_block": ["SAVEPOINT a", "RELEASE a", "ROLLBACK TO a",
                                "INSERT INTO tab VALUES (3, 'c')"],
    "commit_rollback_outside_block": ["COMMIT", "ROLLBACK", "INSERT INTO tab VALUES (3, 'c')"],
    "begin_twice": ["BEGIN", "INSERT INTO tab VALUES (3, 'c')", "BEGIN",
                    "INSERT INTO tab VALUES (4, 'd')", "COMMIT"],
    "ddl_rollback": ["BEGIN", "CREATE TABLE other (x int)", "INSERT INTO other VALUES (1)",
                     "DROP TABLE tab", "ROLLBACK", "SELECT * FROM other",
                     "INSERT INTO tab VALUES (3, 'c')"],
    "ddl_commit": ["BEGIN", "CREATE TABLE other (x int PRIMARY KEY)",
                   "INSERT INTO other VALUES (1), (2)", "INSERT INTO other VALUES (2)",
                   "ROLLBACK", "BEGIN", "CREATE TABLE other (x int PRIMARY KEY)",
                   "INSERT INTO other SELECT k FROM tab", "DROP TABLE tab",
                   "CREATE TABLE tab AS SELECT x AS k, 'from other' AS v FROM other", "COMMIT"],
    "drop_then_rollback_to": ["BEGIN", "SAVEPOINT a", "DROP TABLE tab", "ROLLBACK TO a",
                              "INSERT INTO tab VALUES (3, 'c')", "COMMIT"],
    "constraint_error_in_block_keeps_nothing": [
        "BEGIN", "INSERT INTO tab VALUES (3, 'c')",
        "INSERT INTO tab VALUES (4, 'd'), (5, 'e'), (1, 'dup')", "ROLLBACK TO nothing",
        "COMMIT"],
}

FINAL = "SELECT * FROM tab"


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("name", sorted(CASES))
def test_transaction_matches_postgres(pg, quiver_bin, name):
    script_oracle.assert_same(pg, quiver_bin, SETUP + CASES[name], FINAL, messages=True)


def test_aborted_block_message(pg, quiver_bin):
    errors, _ = script_oracle.run_quiver(
        quiver_bin, SETUP + ["BEGIN", "SELECT 1 / 0", "SELECT 1", "ROLLBACK"], None)
    assert errors[1] == ("25P02", "current transaction is aborted, commands ignored until end "
                         "of transaction block", None)
