"""INSERT ... ON CONFLICT, ALTER TABLE and schemas on Quiver's tables,
against PostgreSQL 15 (issue 12 item 6, issue 14 item 2).

Each case runs the same statements on both, going on after errors as psql
does, and compares the rows each statement returned, the SQLSTATEs of the
failing ones in order, and the table's final rows (test_dml_pg.py's
harness): a statement that fails changes nothing.
"""

import pytest

import pg_oracle
from test_dml_pg import assert_same

KV = "CREATE TABLE tab (k int PRIMARY KEY, v text, n int DEFAULT 0)"
FILL = "INSERT INTO tab VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)"
PAIR = "CREATE TABLE tab (a int, b int, v text, PRIMARY KEY (a, b), UNIQUE (v))"

UPSERT = {
    "nothing_existing": [KV, FILL, "INSERT INTO tab VALUES (1, 'x'), (4, 'd') ON CONFLICT (k) DO NOTHING"],
    "nothing_bare": [KV, FILL, "INSERT INTO tab VALUES (2, 'x'), (5, 'e') ON CONFLICT DO NOTHING"],
    "nothing_within_statement": [
        KV, FILL, "INSERT INTO tab VALUES (7, 'first'), (7, 'second'), (8, 'h'), (7, 'third') "
                  "ON CONFLICT (k) DO NOTHING RETURNING *"],
    "nothing_returning": [KV, FILL, "INSERT INTO tab VALUES (1, 'x'), (4, 'd') "
                                    "ON CONFLICT (k) DO NOTHING RETURNING k, v"],
    "nothing_on_constraint": [KV, FILL, "INSERT INTO tab VALUES (3, 'x') "
                                        "ON CONFLICT ON CONSTRAINT tab_pkey DO NOTHING"],
    "nothing_unknown_constraint": [KV, FILL, "INSERT INTO tab VALUES (3, 'x') "
                                             "ON CONFLICT ON CONSTRAINT nope DO NOTHING"],
    "nothing_no_matching_constraint": [KV, FILL, "INSERT INTO tab VALUES (3, 'x') "
                                                 "ON CONFLICT (v) DO NOTHING"],
    "nothing_unknown_column": [KV, FILL, "INSERT INTO tab VALUES (3, 'x') ON CONFLICT (zz) DO NOTHING"],
    "nothing_no_constraints": ["CREATE TABLE tab (k int, v text)", "INSERT INTO tab VALUES (1, 'a')",
                               "INSERT INTO tab VALUES (1, 'a') ON CONFLICT DO NOTHING"],
    "nothing_two_constraints": [
        PAIR, "INSERT INTO tab VALUES (1, 1, 'x'), (1, 2, 'y')",
        "INSERT INTO tab VALUES (1, 1, 'new'), (2, 2, 'x'), (3, 3, 'z'), (3, 4, 'z'), (3, 3, 'w') "
        "ON CONFLICT DO NOTHING RETURNING *"],
    "nothing_composite_target": [
        PAIR, "INSERT INTO tab VALUES (1, 1, 'x')",
        "INSERT INTO tab VALUES (1, 1, 'p'), (1, 3, 'q') ON CONFLICT (b, a) DO NOTHING",
        "INSERT INTO tab VALUES (9, 9, 'x') ON CONFLICT (a, b) DO NOTHING"],
    "nothing_null_keys": [
        "CREATE TABLE tab (k int UNIQUE, v text)", "INSERT INTO tab VALUES (NULL, 'a'), (1, 'b')",
        "INSERT INTO tab VALUES (NULL, 'c'), (NULL, 'd'), (1, 'e') ON CONFLICT (k) DO NOTHING"],
    "nothing_not_null_checked": [
        "CREATE TABLE tab (k int PRIMARY KEY, v text NOT NULL)", "INSERT INTO tab VALUES (1, 'a')",
        "INSERT INTO tab VALUES (1, NULL) ON CONFLICT (k) DO NOTHING"],
    "nothing_check_checked": [
        "CREATE TABLE tab (k int PRIMARY KEY, n int CHECK (n > 0))", "INSERT INTO tab VALUES (1, 1)",
        "INSERT INTO tab VALUES (1, -1) ON CONFLICT DO NOTHING"],
    "nothing_select_source": [
        KV, FILL, "INSERT INTO tab SELECT g, 'g' || g FROM generate_series(1, 6) AS s(g) "
                  "ON CONFLICT (k) DO NOTHING"],
    "update_excluded": [
        KV, FILL, "INSERT INTO tab VALUES (1, 'x', 5), (4, 'd', 40) "
                  "ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = tab.n + excluded.n"],
    "update_returning": [
        KV, FILL, "INSERT INTO tab AS t VALUES (2, 'y', 1), (5, 'e', 50) ON CONFLICT (k) "
                  "DO UPDATE SET n = t.n * 100 RETURNING t.k, t.v, t.n"],
    "update_where": [
        KV, FILL, "INSERT INTO tab VALUES (1, 'x', 1), (2, 'y', 2), (6, 'f', 6) ON CONFLICT (k) "
                  "DO UPDATE SET v = excluded.v WHERE tab.n > 15 RETURNING *"],
    "update_where_excluded": [
        KV, FILL, "INSERT INTO tab VALUES (1, 'x', 100), (2, 'y', 2) ON CONFLICT (k) "
                  "DO UPDATE SET n = excluded.n WHERE excluded.n > tab.n"],
    "update_twice_in_statement": [
        KV, FILL, "INSERT INTO tab VALUES (1, 'x'), (1, 'y') ON CONFLICT (k) DO UPDATE SET v = excluded.v"],
    "update_twice_new_key": [
        KV, FILL, "INSERT INTO tab VALUES (8, 'x'), (8, 'y') ON CONFLICT (k) DO UPDATE SET v = excluded.v"],
    "update_requires_target": [KV, FILL, "INSERT INTO tab VALUES (1, 'x') ON CONFLICT DO UPDATE SET v = 'z'"],
    "update_on_constraint": [
        KV, FILL, "INSERT INTO tab VALUES (3, 'x') ON CONFLICT ON CONSTRAINT tab_pkey "
                  "DO UPDATE SET v = tab.v || excluded.v"],
    "update_unique_violation_other": [
        PAIR, "INSERT INTO tab VALUES (1, 1, 'x'), (2, 2, 'y')",
        "INSERT INTO tab VALUES (1, 1, 'q') ON CONFLICT (a, b) DO UPDATE SET v = 'y'"],
    "update_key_change": [
        KV, FILL, "INSERT INTO tab VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET k = 10 RETURNING *"],
    "update_not_null": [
        "CREATE TABLE tab (k int PRIMARY KEY, v text NOT NULL)", "INSERT INTO tab VALUES (1, 'a')",
        "INSERT INTO tab VALUES (1, 'b') ON CONFLICT (k) DO UPDATE SET v = NULL"],
    "update_check": [
        "CREATE TABLE tab (k int PRIMARY KEY, n int CHECK (n < 100))", "INSERT INTO tab VALUES (1, 50)",
        "INSERT INTO tab VALUES (1, 60) ON CONFLICT (k) DO UPDATE SET n = tab.n + excluded.n"],
    "update_ambiguous_column": [
        KV, FILL, "INSERT INTO tab VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET n = n + 1"],
    "update_subquery": [
        KV, FILL, "INSERT INTO tab VALUES (1, 'x') ON CONFLICT (k) "
                  "DO UPDATE SET n = (SELECT max(n) FROM tab) + 1"],
    "update_rollback": [
        KV, FILL, "BEGIN", "INSERT INTO tab VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = 'z'",
        "ROLLBACK"],
    "update_in_transaction": [
        KV, FILL, "BEGIN", "INSERT INTO tab VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = 'z'",
        "INSERT INTO tab VALUES (1, 'x') ON CONFLICT (k) DO UPDATE SET v = tab.v || '2'", "COMMIT"],
    "update_many_rows": [
        KV, "INSERT INTO tab SELECT g, 'old', g FROM generate_series(1, 5000) AS s(g)",
        "INSERT INTO tab SELECT g, 'new', -g FROM generate_series(2500, 7500) AS s(g) "
        "ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = tab.n + excluded.n",
        "SELECT v, count(*), sum(n) FROM tab GROUP BY v"],
    "nothing_many_rows": [
        KV, "INSERT INTO tab SELECT g, 'old', g FROM generate_series(1, 5000) AS s(g)",
        "INSERT INTO tab SELECT g % 7000, 'new', g FROM generate_series(2500, 12500) AS s(g) "
        "ON CONFLICT DO NOTHING",
        "SELECT v, count(*), sum(n) FROM tab GROUP BY v"],
}

ALTER = {
    "add_column_null": [KV, FILL, "ALTER TABLE tab ADD COLUMN extra text", "SELECT k, extra FROM tab"],
    "add_column_default": [KV, FILL, "ALTER TABLE tab ADD COLUMN d int DEFAULT 7",
                           "INSERT INTO tab (k) VALUES (9)", "SELECT k, d FROM tab"],
    "add_column_default_expression": [KV, FILL, "ALTER TABLE tab ADD COLUMN w text DEFAULT 'x' || 'y'"],
    "add_column_not_null_default": [KV, FILL, "ALTER TABLE tab ADD COLUMN d int NOT NULL DEFAULT 0",
                                    "INSERT INTO tab (k, d) VALUES (5, NULL)"],
    "add_column_not_null_over_rows": [KV, FILL, "ALTER TABLE tab ADD COLUMN d int NOT NULL"],
    "add_column_not_null_empty": [KV, "ALTER TABLE tab ADD COLUMN d int NOT NULL",
                                  "INSERT INTO tab (k, d) VALUES (1, 2)"],
    "add_column_exists": [KV, FILL, "ALTER TABLE tab ADD COLUMN v text"],
    "add_column_if_not_exists": [KV, FILL, "ALTER TABLE tab ADD COLUMN IF NOT EXISTS v int"],
    "add_column_without_keyword": [KV, FILL, "ALTER TABLE tab ADD e boolean DEFAULT true"],
    "drop_column": [KV, FILL, "ALTER TABLE tab DROP COLUMN v", "INSERT INTO tab VALUES (4, 40)"],
    "drop_column_missing": [KV, FILL, "ALTER TABLE tab DROP COLUMN nope"],
    "drop_column_if_exists": [KV, FILL, "ALTER TABLE tab DROP COLUMN IF EXISTS nope"],
    "drop_key_column_drops_key": [KV, FILL, "ALTER TABLE tab DROP COLUMN k",
                                  "INSERT INTO tab VALUES ('a', 10)"],
    "drop_check_column": ["CREATE TABLE tab (k int, n int CHECK (n > 0))",
                          "INSERT INTO tab VALUES (1, 1)", "ALTER TABLE tab DROP COLUMN n",
                          "INSERT INTO tab VALUES (2)"],
    "drop_then_add_same_name": [KV, FILL, "ALTER TABLE tab DROP COLUMN v",
                                "ALTER TABLE tab ADD COLUMN v text", "SELECT k, v FROM tab"],
    "rename_column": [KV, FILL, "ALTER TABLE tab RENAME COLUMN v TO label",
                      "SELECT label FROM tab WHERE k = 1", "SELECT v FROM tab"],
    "rename_column_missing": [KV, FILL, "ALTER TABLE tab RENAME COLUMN nope TO x"],
    "rename_column_taken": [KV, FILL, "ALTER TABLE tab RENAME COLUMN v TO n"],
    "rename_key_column_keeps_key": [KV, FILL, "ALTER TABLE tab RENAME k TO id",
                                    "INSERT INTO tab (id) VALUES (1)"],
    "rename_table": [KV, FILL, "ALTER TABLE tab RENAME TO other", "SELECT count(*) FROM other",
                     "SELECT * FROM tab", "ALTER TABLE other RENAME TO tab"],
    "rename_table_taken": [KV, FILL, "CREATE TABLE other (x int)", "ALTER TABLE tab RENAME TO other"],
    "alter_missing_table": ["ALTER TABLE nope ADD COLUMN x int"],
    "alter_if_exists_missing": ["ALTER TABLE IF EXISTS nope ADD COLUMN x int"],
    "alter_keeps_unique": [KV, FILL, "ALTER TABLE tab ADD COLUMN d int", "INSERT INTO tab VALUES (1)"],
    "alter_rollback": [KV, FILL, "BEGIN", "ALTER TABLE tab ADD COLUMN d int DEFAULT 1",
                       "ALTER TABLE tab DROP COLUMN v", "ROLLBACK"],
    "alter_commit": [KV, FILL, "BEGIN", "ALTER TABLE tab ADD COLUMN d int DEFAULT 1",
                     "UPDATE tab SET d = d + k", "COMMIT"],
}

SCHEMA = {
    "unknown_schema_select": [KV, FILL, "SELECT * FROM nosuch.tab", "SELECT count(*) FROM tab"],
    "unknown_schema_join": [KV, FILL, "SELECT * FROM tab JOIN nosuch.tab AS o USING (k)"],
}

# A name in a schema that does not exist, one statement at a time: Quiver
# finds most of these when it parses the script (so, unlike PostgreSQL, a
# script stops there even with --keep-going); the SQLSTATE is PostgreSQL's
# (42P01 where the statement reads or writes rows, else 3F000).
SCHEMA_ERRORS = [
    "INSERT INTO nosuch.tab VALUES (1)", "UPDATE nosuch.tab SET v = 'x'", "DELETE FROM nosuch.tab",
    "CREATE TABLE nosuch.t2 (a int)", "CREATE TABLE nosuch.t3 AS SELECT 1 AS a",
    "CREATE VIEW nosuch.v AS SELECT 1", "DROP TABLE nosuch.tab", "DROP VIEW nosuch.v",
    "ALTER TABLE nosuch.tab ADD COLUMN x int", "ALTER TABLE nosuch.tab RENAME TO u",
    "TRUNCATE nosuch.tab", "CREATE INDEX i ON nosuch.tab (k)", "SELECT * FROM nosuch.tab",
    "COPY nosuch.tab FROM '/nonexistent.csv'", "SELECT * FROM other.db.tab",
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("name", sorted(UPSERT))
def test_upsert_matches_postgres(pg, quiver_bin, name):
    assert_same(pg, quiver_bin, UPSERT[name])


# --- on a --db database (Iceberg tables): pyiceberg reads what was written

def test_upsert_on_db_tables(quiver_bin, tmp_path):
    from test_iceberg_db import assert_same as assert_iceberg_same, quiver_sql, catalog
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE u (k int PRIMARY KEY, v text, n int); "
                               "INSERT INTO u VALUES (1, 'a', 1), (2, 'b', 2)")
    # Only inserts: an append (one more snapshot, the old file kept).
    quiver_sql(quiver_bin, db, "INSERT INTO u VALUES (2, 'x', 0), (3, 'c', 3) ON CONFLICT DO NOTHING")
    # Updates and inserts: one commit.
    r = quiver_sql(quiver_bin, db, "INSERT INTO u VALUES (1, 'y', 10), (4, 'd', 4) ON CONFLICT (k) "
                                   "DO UPDATE SET v = excluded.v, n = u.n + excluded.n RETURNING k, v, n")
    assert "│     1 │ y      │    11 │" in r.stdout, r.stdout
    # A failing statement stores nothing.
    r = quiver_sql(quiver_bin, db, "INSERT INTO u VALUES (5, 'e', 5), (5, 'f', 6) ON CONFLICT (k) "
                                   "DO UPDATE SET v = excluded.v", check=False)
    assert r.returncode != 0 and "cannot affect row a second time" in r.stderr, r.stderr
    ours = assert_iceberg_same(quiver_bin, db, "u", "k")
    assert rows_of(ours) == [(1, "y", 11), (2, "b", 2), (3, "c", 3), (4, "d", 4)]
    snapshots = catalog(db).load_table("public.u").snapshots()
    # INSERT, the append of DO NOTHING, the overwrite of DO UPDATE (CREATE
    # TABLE of no rows makes none).
    assert [str(s.summary.operation) for s in snapshots][-2:] == ["Operation.APPEND", "Operation.OVERWRITE"], snapshots
    assert len(snapshots) == 3


def rows_of(table):
    return sorted(tuple(r.values()) for r in table.to_pylist())


@pytest.mark.parametrize("name", sorted(ALTER))
def test_alter_matches_postgres(pg, quiver_bin, name):
    assert_same(pg, quiver_bin, ALTER[name])


@pytest.mark.parametrize("sql", SCHEMA_ERRORS)
def test_unknown_schema_sqlstate(pg, quiver_bin, sql):
    import json
    import subprocess
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "json", KV + "; " + sql],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0, proc.stdout
    ours = [json.loads(l)["sqlstate"] for l in proc.stderr.splitlines() if l.startswith("{")]
    theirs = pg.sqlstate("DROP TABLE IF EXISTS tab; " + KV + "; " + sql)
    if sql.startswith("SELECT * FROM other.db"):
        theirs = "0A000"  # PostgreSQL: cross-database references are not implemented
    assert ours == [theirs], (sql, proc.stderr)


@pytest.mark.parametrize("name", sorted(SCHEMA))
def test_schema_qualified_matches_postgres(pg, quiver_bin, name):
    assert_same(pg, quiver_bin, SCHEMA[name])
