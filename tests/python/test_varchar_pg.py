"""varchar(n) / char(n) against PostgreSQL 15 (issue 12): an explicit cast
cuts the text to n characters (counted as characters, not bytes) without an
error, and n outside 1..10485760 is PostgreSQL's 22023 in casts and column
definitions.

Quiver keeps varchar(n) and char(n) as text: char(n) values are not padded
with blanks (PostgreSQL prints 'ab'::char(5) as 'ab   '), so the casts
tested to char(n) here are those whose result has n characters or is
compared after PostgreSQL's char -> text conversion drops the padding. An
INSERT / UPDATE of a longer value into a varchar(n) column is not yet
checked (PostgreSQL's 22001); see README.
"""

import json
import subprocess

import pytest

import pg_oracle

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
