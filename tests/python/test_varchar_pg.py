"""varchar(n) / char(n) against PostgreSQL 15 (issue 12): an explicit cast
cuts the text to n characters (counted as characters, not bytes) without an
error, and n outside 1..10485760 is PostgreSQL's 22023 in casts and column
definitions.

Quiver keeps varchar(n) and char(n) as text: char(n) values are not padded
with blanks (PostgreSQL prints 'ab'::char(5) as 'ab   '), so the casts
tested to char(n) here are those whose result has n characters or is
compared after PostgreSQL's char -> text conversion drops the padding.

On assignment (INSERT VALUES / SELECT, UPDATE, COPY FROM, ON CONFLICT DO
UPDATE) a value longer than n characters is PostgreSQL's 22001 unless the
characters past n are all spaces (then it is cut to n): each ASSIGN case
runs the same script on both, going on after errors, and compares the
SQLSTATEs in order and the final rows. The lengths of a --db table survive
reopening it. CREATE TABLE AS keeps a column's length where PostgreSQL's
exprTypmod does (CTAS).
"""

import json
import subprocess

import pytest

import pg_oracle
import script_oracle

QUERIES = [
    "SELECT 'abcdef'::varchar(3), 'abcdef'::char(3), CAST('abcdef' AS character varying(4))",
    "SELECT CAST('üöäx' AS varchar(2)), 'ü€😀z'::varchar(3), 'ü€😀z'::character(3)",
    "SELECT 'ab'::varchar(5), 'abc'::varchar(3), ''::varchar(2), 'xy'::varchar, NULL::varchar(1)",
    "SELECT 'abc'::char, 'a'::character",
    "SELECT length('abcdef'::varchar(3)), 'abcdef'::varchar(3) || 'z', upper('abcdef'::varchar(2))",
    "SELECT v::varchar(2) FROM (VALUES ('hello'), (NULL), ('h'), ('hé!')) AS t(v)",
    "SELECT 12345::varchar(3), 1.5::varchar(2), true::varchar(1)",
    "SELECT 'abcdef'::varchar(3) = 'abc', 'abcd'::varchar(10) = 'abcd'",
    "SELECT count(*) FROM (VALUES ('abc1'), ('abc2'), ('abd')) AS t(v) GROUP BY v::varchar(3) ORDER BY 1",
]

REFUSED = [
    "SELECT 'a'::varchar(0)",
    "SELECT 'a'::char(0)",
    "SELECT 'a'::varchar(20000000)",
    "SELECT 'a'::character(10485761)",
    "CREATE TABLE tab (v varchar(0))",
    "CREATE TABLE tab (v char(0))",
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_varchar_casts_match_postgres(pg, quiver_bin, sql):
    pg_oracle.assert_same_rows(pg_oracle.quiver_rows(quiver_bin, sql), pg.query(sql), sql)


@pytest.mark.parametrize("sql", REFUSED)
def test_bad_lengths_match_postgres(pg, quiver_bin, sql):
    code = pg.sqlstate(sql)
    assert code is not None, sql
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "json", sql],
                          capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert json.loads(proc.stderr.strip().splitlines()[-1])["sqlstate"] == code, proc.stderr


def test_cast_column_names(quiver_bin):
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "json",
                           "SELECT 'abcdef'::varchar(3), 'x'::char(1)"],
                          capture_output=True, text=True, check=True)
    assert list(json.loads(proc.stdout.strip().splitlines()[-1]).items()) == [
        ("varchar", "abc"), ("bpchar", "x")]


VC = "CREATE TABLE tab (k int PRIMARY KEY, v varchar(3), c char(2))"
FINAL = "SELECT k, v, length(v) FROM tab ORDER BY k"

ASSIGN = {
    "insert_values": [VC, "INSERT INTO tab VALUES (1, 'abc', 'ab')",
                      "INSERT INTO tab VALUES (2, 'abcd', 'a')",
                      "INSERT INTO tab VALUES (3, 'a', 'abc')",
                      "INSERT INTO tab (k, v) VALUES (4, 'xy'), (5, 'toolong'), (6, 'z')"],
    "insert_select": [VC, "INSERT INTO tab SELECT g, repeat('x', g) FROM generate_series(1, 3) g",
                      "INSERT INTO tab SELECT g, repeat('y', g) FROM generate_series(4, 6) g",
                      "INSERT INTO tab (k, v) SELECT 10, v FROM tab WHERE k = 3"],
    "update": [VC, "INSERT INTO tab VALUES (1, 'ab', 'a'), (2, 'b', 'b')",
               "UPDATE tab SET v = v || 'c'", "UPDATE tab SET v = v || 'd' WHERE k = 2",
               "UPDATE tab SET c = 'xyz' WHERE k = 1", "UPDATE tab SET v = 'zz' WHERE k = 1"],
    "upsert": [VC, "INSERT INTO tab VALUES (1, 'ab', 'a')",
               "INSERT INTO tab VALUES (1, 'x', 'b') ON CONFLICT (k) DO UPDATE SET v = tab.v || 'cd'",
               "INSERT INTO tab VALUES (1, 'x', 'b') ON CONFLICT (k) DO UPDATE SET v = tab.v || 'c'",
               "INSERT INTO tab VALUES (2, 'wxyz', 'b') ON CONFLICT (k) DO NOTHING",
               "INSERT INTO tab VALUES (1, 'x', 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v"],
    "multibyte": [VC, "INSERT INTO tab VALUES (1, 'üöä', 'ü€')",
                  "INSERT INTO tab VALUES (2, 'ü€😀z', 'a')",
                  "INSERT INTO tab VALUES (3, '😀😀😀', '😀😀')",
                  "INSERT INTO tab VALUES (4, 'é', 'ééé')"],
    "trailing_spaces": [VC, "INSERT INTO tab VALUES (1, 'ab    ', 'a   ')",
                        "INSERT INTO tab VALUES (2, 'abc   ', 'ab  ')",
                        "INSERT INTO tab VALUES (3, 'abc  x', 'a')",
                        "INSERT INTO tab VALUES (4, 'ab	', 'a')",
                        "INSERT INTO tab VALUES (5, 'ü€😀   ', 'a')",
                        "UPDATE tab SET v = v || '      ' WHERE k = 1"],
    "nulls": [VC, "INSERT INTO tab VALUES (1, NULL, NULL), (2, 'abc', NULL)",
              "UPDATE tab SET v = NULL WHERE k = 2", "INSERT INTO tab (k) VALUES (3)",
              "INSERT INTO tab SELECT 4, NULL::text, NULL::text"],
    "explicit_cast_cuts": [VC, "INSERT INTO tab VALUES (1, 'abcdef'::varchar(3), 'xyz'::char(2))",
                           "UPDATE tab SET v = CAST('qrstu' AS varchar(2))"],
    "default": ["CREATE TABLE tab (k int, v varchar(3) DEFAULT 'abcd')",
                "INSERT INTO tab VALUES (1, 'a')", "INSERT INTO tab (k) VALUES (2)"],
    "char_no_length_is_one": ["CREATE TABLE tab (k int, v char, w character)",
                              "INSERT INTO tab VALUES (1, 'a', 'b')",
                              "INSERT INTO tab VALUES (2, 'ab', 'b')",
                              "INSERT INTO tab VALUES (3, 'a ', 'b')"],
    "non_text_values": [VC, "INSERT INTO tab VALUES (1, 123, 'ab')",
                        "INSERT INTO tab VALUES (2, 1234, 'ab')",
                        "INSERT INTO tab VALUES (3, 'a', 12)",
                        "INSERT INTO tab VALUES (4, 'a', 123)"],
    "alter_add_column": ["CREATE TABLE tab (k int, v text)", "INSERT INTO tab VALUES (1, 'long')",
                         "ALTER TABLE tab ADD COLUMN w varchar(2)",
                         "INSERT INTO tab VALUES (2, 'x', 'abc')",
                         "INSERT INTO tab VALUES (3, 'x', 'ab')",
                         "ALTER TABLE tab DROP COLUMN v",
                         "INSERT INTO tab VALUES (4, 'abc')"],
}


# CREATE TABLE AS keeps the varchar(n) / char(n) of a column read as it is
# and of an explicit cast, as PostgreSQL's exprTypmod (CASE / COALESCE /
# UNION whose branches agree too); other expressions make text. Each script
# then inserts values too long for the lengths PostgreSQL kept.
SRC = ["CREATE TABLE src (k int, v varchar(3), c char(4), x text)",
       "INSERT INTO src VALUES (1, 'abc', 'ab', 'long text'), (2, NULL, NULL, 'x')"]

CTAS = {
    "columns_and_casts": SRC + [
        "CREATE TABLE tab AS SELECT k, v, c, v::text AS vt, x::varchar(2) AS x2, "
        "v::varchar(5) AS v5, c::varchar(6) AS c6, x::char(3) AS x3, x::varchar AS xv, "
        "'abc'::varchar(4) AS lit FROM src",
        "INSERT INTO tab (k, v) VALUES (3, 'abcd')",
        "INSERT INTO tab (k, c) VALUES (4, 'abcde')",
        "INSERT INTO tab (k, vt) VALUES (5, 'abcdefgh')",
        "INSERT INTO tab (k, x2) VALUES (6, 'abc')",
        "INSERT INTO tab (k, v5) VALUES (7, 'abcdef')",
        "INSERT INTO tab (k, v5) VALUES (8, 'abcde')",
        "INSERT INTO tab (k, c6) VALUES (9, 'abcdefg')",
        "INSERT INTO tab (k, x3) VALUES (10, 'abcd')",
        "INSERT INTO tab (k, xv) VALUES (11, 'abcdefgh')",
        "INSERT INTO tab (k, lit) VALUES (12, 'abcde')",
        "UPDATE tab SET v = v || 'z' WHERE k = 1"],
    "expressions": SRC + [
        "CREATE TABLE tab AS SELECT k, CASE WHEN k > 0 THEN v ELSE v END AS cs, "
        "CASE WHEN k > 0 THEN v END AS cs2, coalesce(v, v) AS co, coalesce(v, x) AS co2, "
        "v || '' AS cat, upper(v) AS up, nullif(v, 'a') AS ni FROM src",
        "INSERT INTO tab (k, cs) VALUES (3, 'abcd')",
        "INSERT INTO tab (k, cs2) VALUES (4, 'abcd')",
        "INSERT INTO tab (k, co) VALUES (5, 'abcd')",
        "INSERT INTO tab (k, co2) VALUES (6, 'abcd')",
        "INSERT INTO tab (k, cat) VALUES (7, 'abcd')",
        "INSERT INTO tab (k, up) VALUES (8, 'abcd')",
        "INSERT INTO tab (k, ni) VALUES (9, 'abcd')"],
    "queries": SRC + [
        "CREATE TABLE u1 AS SELECT v FROM src UNION SELECT v FROM src",
        "INSERT INTO u1 VALUES ('abcd')",
        "CREATE TABLE u2 AS SELECT v FROM src UNION ALL SELECT x FROM src",
        "INSERT INTO u2 VALUES ('abcd')",
        "CREATE TABLE u3 AS SELECT v, max(v) AS m, count(*) AS n FROM src GROUP BY v",
        "INSERT INTO u3 VALUES ('abcd', 'x', 1)",
        "INSERT INTO u3 VALUES ('a', 'abcdef', 1)",
        "CREATE TABLE u7 AS SELECT v::text AS t, v::varchar(5) AS v5, v FROM src GROUP BY v",
        "INSERT INTO u7 VALUES ('abcdef', 'ab', 'a')",
        "INSERT INTO u7 VALUES ('a', 'abcdef', 'a')",
        "INSERT INTO u7 VALUES ('a', 'a', 'abcd')",
        "CREATE TABLE u4 AS SELECT DISTINCT s.v AS v FROM (SELECT v FROM src WHERE k > 0) s",
        "INSERT INTO u4 VALUES ('abcd')",
        "CREATE TABLE u5 AS SELECT b.v FROM src a JOIN src b USING (k) ORDER BY 1 LIMIT 5",
        "INSERT INTO u5 VALUES ('abcd')",
        "CREATE TABLE u6 AS WITH w AS (SELECT v, c FROM src) SELECT * FROM w",
        "INSERT INTO u6 VALUES ('abc', 'abcde')",
        "CREATE TABLE tab AS SELECT k, v FROM src WHERE k = 1",
        "INSERT INTO tab VALUES (3, 'abcd')"],
}


@pytest.mark.parametrize("name", sorted(CTAS))
def test_create_table_as_keeps_lengths_as_postgres(pg, quiver_bin, name):
    errors = script_oracle.assert_same(pg, quiver_bin, CTAS[name], "SELECT k, v FROM tab ORDER BY k"
                                       if name != "expressions" else "SELECT k, cs, co FROM tab ORDER BY k")
    assert "22001" in [e[0] for e in errors], name


def test_create_table_as_lengths_survive_reopening_db(quiver_bin, tmp_path):
    db = tmp_path / "db"

    def run(sql, check=True):
        return subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--format", "json", sql],
                              capture_output=True, text=True, check=check)

    run("CREATE TABLE src (k int, v varchar(3), t text)")
    run("INSERT INTO src VALUES (1, 'abc', 'long text')")
    run("CREATE TABLE tab AS SELECT k, v, t::varchar(4) AS t4, t FROM src")
    for sql in ["INSERT INTO tab VALUES (2, 'abcd', 'a', 'x')",
                "INSERT INTO tab VALUES (2, 'a', 'abcde', 'x')"]:
        proc = run(sql, check=False)
        assert proc.returncode != 0, sql
        assert json.loads(proc.stderr.strip().splitlines()[-1])["sqlstate"] == "22001", proc.stderr
    run("INSERT INTO tab VALUES (3, 'ab ', 'abcd  ', 'any length at all')")
    out = run("SELECT k, v, t4, t FROM tab ORDER BY k").stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert rows == [{"k": 1, "v": "abc", "t4": "long", "t": "long text"},
                    {"k": 3, "v": "ab ", "t4": "abcd", "t": "any length at all"}]


@pytest.mark.parametrize("name", sorted(ASSIGN))
def test_assignment_matches_postgres(pg, quiver_bin, name):
    statements = ASSIGN[name]
    final = FINAL if statements[0] == VC else "SELECT * FROM tab ORDER BY k"
    if name == "alter_add_column":
        final = "SELECT * FROM tab ORDER BY k"
    errors = script_oracle.assert_same(pg, quiver_bin, statements, final)
    if name not in ("nulls", "explicit_cast_cuts"):
        assert "22001" in [e[0] for e in errors], name


def test_assignment_messages_match_postgres(pg, quiver_bin):
    statements = [VC, "INSERT INTO tab VALUES (1, 'abcd', 'a')",
                  "INSERT INTO tab VALUES (2, 'a', 'abc')"]
    script_oracle.assert_same(pg, quiver_bin, statements, FINAL, messages=True)


def test_copy_from_csv_matches_postgres(pg, quiver_bin, tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("k,v,c\n1,abc,ab\n2,ü€😀,a\n3,ab   ,a  \n", encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text("k,v,c\n10,abc,ab\n11,abcd,ab\n", encoding="utf-8")
    bad_char = tmp_path / "bad_char.csv"
    bad_char.write_text("k,v,c\n20,a,abc\n", encoding="utf-8")
    # The PostgreSQL server may not read the test's files: psql's \\copy
    # sends them (the same COPY FROM STDIN on the server).
    files = [good, bad, bad_char]
    ours = [VC] + [f"COPY tab FROM '{f}' WITH (FORMAT csv, HEADER true)" for f in files]
    theirs = [VC] + [f"\\copy tab FROM '{f}' WITH (FORMAT csv, HEADER true)" for f in files]
    pg_errors, pg_rows = script_oracle.run_postgres(pg, theirs, FINAL)
    q_errors, q_rows = script_oracle.run_quiver(quiver_bin, ours, FINAL)
    assert [e[0] for e in pg_errors] == ["22001", "22001"], pg_errors
    assert [e[:2] for e in q_errors] == [e[:2] for e in pg_errors]
    pg_oracle.assert_same_rows(q_rows, pg_rows, "\n".join(ours))


def test_length_survives_reopening_db(quiver_bin, tmp_path):
    db = tmp_path / "db"

    def run(sql, check=True):
        return subprocess.run([str(quiver_bin), "sql", "--db", str(db), "--format", "json", sql],
                              capture_output=True, text=True, check=check)

    run("CREATE TABLE tab (k int, v varchar(3), c char(2), t text)")
    run("INSERT INTO tab VALUES (1, 'abc', 'ab', 'long text')")
    for sql in ["INSERT INTO tab VALUES (2, 'abcd', 'a', 'x')",
                "INSERT INTO tab VALUES (2, 'a', 'abc', 'x')",
                "UPDATE tab SET v = 'wxyz'"]:
        proc = run(sql, check=False)
        assert proc.returncode != 0, sql
        err = json.loads(proc.stderr.strip().splitlines()[-1])
        assert err["sqlstate"] == "22001", proc.stderr
    # Columns added and dropped keep the others' lengths (by field id).
    run("ALTER TABLE tab ADD COLUMN w varchar(2)")
    run("ALTER TABLE tab DROP COLUMN t")
    proc = run("INSERT INTO tab VALUES (3, 'abc', 'ab', 'abc')", check=False)
    assert json.loads(proc.stderr.strip().splitlines()[-1])["sqlstate"] == "22001"
    proc = run("INSERT INTO tab VALUES (3, 'abcd', 'ab', 'ab')", check=False)
    assert json.loads(proc.stderr.strip().splitlines()[-1])["sqlstate"] == "22001"
    run("INSERT INTO tab VALUES (3, 'ab  ', 'a ', 'ab')")
    out = run("SELECT k, v, c, w FROM tab ORDER BY k").stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert rows == [{"k": 1, "v": "abc", "c": "ab", "w": None},
                    {"k": 3, "v": "ab ", "c": "a ", "w": "ab"}]
