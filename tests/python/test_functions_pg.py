"""The everyday function library (issue 12 item 5) against PostgreSQL 15 itself.

Each query runs on the same small table in Quiver (`quiver sql --format
arrow`) and in a PostgreSQL 15 server started under a temporary directory
(pg_oracle.py) with a C.UTF-8 locale, as a PostgreSQL user's UTF-8 database
(Quiver's upper / lower and regular expression classes follow such a
locale); the answers must be equal row for row (each query selects the row
id). The rows hold the edge values: NULL, empty strings, Unicode, newlines,
repeated and overlapping matches.

ERRORS: statements both must refuse, with PostgreSQL's SQLSTATE. REFUSED:
what PostgreSQL does and Quiver knowingly does not (RE2 has no
back-references or lookaround, and cannot give PostgreSQL's match preference
to patterns mixing greedy and non-greedy quantifiers); each must fail with
an "unsupported" error, never give a different answer.
"""

import json

import pytest

import pg_oracle

SETUP = """
CREATE TABLE r (id int, s text, p text);
INSERT INTO r VALUES
  (1, 'abc', 'b'),
  (2, 'Hello World', 'o'),
  (3, '', ''),
  (4, NULL, 'a'),
  (5, 'aaa', NULL),
  (6, 'naïve café ÉTÉ', 'é'),
  (7, 'line1' || chr(10) || 'line2', '^line2'),
  (8, 'banana', 'an'),
  (9, 'a.b*c', '.'),
  (10, 'x_y%z', '_');
"""

# Newlines shown as '/' keep the failure messages readable.
def nl(expr):
    return f"replace({expr}, chr(10), '/')"


QUERIES = [
    # the operators, column and constant patterns
    "SELECT id, s ~ p, s !~ p, s ~* upper(p), s !~* upper(p) FROM r",
    "SELECT id, s ~ '^a', s ~ 'l+o', s ~* 'WORLD', s ~ 'ï', s ~* 'CAFÉ', s ~ '^$' FROM r",
    "SELECT id, s ~ '[[:upper:]]', s ~ '^[[:alpha:] ]+$', s ~ '\\w+\\s\\w+', s ~ '\\yWorld\\y' FROM r",
    "SELECT id, s ~ '\\d', s ~ '^\\D+$', s ~ '[^a-z]', s ~ 'a{2,}', s ~ '(an){2}' FROM r",
    "SELECT id, s ~ 'line1.line2', s ~ '^line2', s ~ 'e1$', s ~ '\\.b\\*', s ~ '[.]' FROM r",
    "SELECT id, s ~ '\\x41', s ~* '\\x41', s ~ '\\u00e9', s ~ 'caf\\u00e9' FROM r",
    # SIMILAR TO
    "SELECT id, s SIMILAR TO '%o%', s SIMILAR TO '(a|b)%', s SIMILAR TO '[a-c]*', s SIMILAR TO 'a_c' FROM r",
    "SELECT id, s NOT SIMILAR TO '%a%', s SIMILAR TO 'x#_y%' ESCAPE '#', s SIMILAR TO '%.%', s SIMILAR TO '' FROM r",
    "SELECT id, s SIMILAR TO '%(na)+', s SIMILAR TO 'a*', s SIMILAR TO 'a+', s SIMILAR TO '%\\%%' FROM r",
    "SELECT id, s SIMILAR TO p, s SIMILAR TO '%' || p || '%' FROM r",
    # regexp_replace
    "SELECT id, regexp_replace(s, 'o', '0'), regexp_replace(s, 'o', '0', 'g'), regexp_replace(s, p, '<\\&>', 'g') FROM r",
    "SELECT id, regexp_replace(s, '(l+)(o)', '<\\2\\1>'), regexp_replace(s, '(a)|(n)', '[\\1\\2]', 'g') FROM r",
    "SELECT id, regexp_replace(s, 'x*', '-', 'g'), regexp_replace(s, '', '-', 'g'), regexp_replace(s, '$', '!') FROM r",
    "SELECT id, regexp_replace(s, '[aeiou]', '#', 1, 2), regexp_replace(s, '[aeiou]', '#', 3), regexp_replace(s, '[aeiou]', '#', 2, 0) FROM r",
    "SELECT id, regexp_replace(s, 'A', '*', 1, 0, 'i'), regexp_replace(s, 'É', 'e', 'gi'), regexp_replace(s, '\\\\', 'x') FROM r",
    "SELECT id, regexp_replace(s, 'a', '\\\\ \\9 \\x', 'g'), regexp_replace(s, '.', '-', 'gq') FROM r",
    "SELECT id, " + ", ".join(nl(e) for e in [
        "regexp_replace(s, '^line2', 'X', 'n')", "regexp_replace(s, '^line2', 'X')",
        "regexp_replace(s, '1.l', '_', 'n')", "regexp_replace(s, '1[^x]l', '_', 'p')",
        "regexp_replace(s, '1.l', '_')", "regexp_replace(s, '1[^x]l', '_')"]) + " FROM r",
    "SELECT id, " + ", ".join(nl(e) for e in [
        "regexp_replace(s, 'e1$', 'X', 'w')", "regexp_replace(s, 'e1$', 'X', 's')",
        "regexp_replace(s, '.$', '!', 'ng')", "regexp_replace(s, '(?n)^l', 'L', 'g')"]) + " FROM r",
    "SELECT id, regexp_replace(s, 'a (n) a  # comment', '_\\1_', 'xg') FROM r",
    # leftmost-longest: alternation and greedy quantifiers as POSIX
    "SELECT id, regexp_replace(s, '(a|an)(an|a)', '[\\1|\\2]', 'g'), regexp_replace(s, 'b|ba|ban', '<\\&>') FROM r",
    "SELECT id, regexp_substr(s, 'x|xy|xy%', 1), regexp_replace(s, '(a*)(n*)', '[\\1,\\2]') FROM r",
    # only non-greedy quantifiers: the shortest match
    "SELECT id, regexp_replace(s, 'a+?', 'X'), regexp_substr(s, 'l.*?o'), regexp_replace(s, 'n.*?a', '_', 'g') FROM r",
    # regexp_count / regexp_instr / regexp_substr / regexp_like
    "SELECT id, regexp_count(s, '[aeiou]'), regexp_count(s, 'a', 2), regexp_count(s, 'A', 1, 'i'), regexp_count(s, '') FROM r",
    "SELECT id, regexp_count(s, p), regexp_count(s, 'ana'), regexp_count(s, 'a*') FROM r",
    "SELECT id, regexp_instr(s, 'o'), regexp_instr(s, '[aeiou]', 1, 2), regexp_instr(s, '[aeiou]', 1, 2, 1), regexp_instr(s, 'a', 3) FROM r",
    "SELECT id, regexp_instr(s, '(l)(o)', 1, 1, 0, '', 2), regexp_instr(s, '(a)(x)?', 1, 1, 0, '', 2), regexp_instr(s, 'É', 1, 1, 0, 'i') FROM r",
    "SELECT id, regexp_instr(s, 'a', 1, 9), regexp_instr(s, '(a)', 1, 1, 0, '', 5), regexp_instr(s, 'é') FROM r",
    "SELECT id, regexp_substr(s, '[a-z]+'), regexp_substr(s, '[a-z]+', 1, 2), regexp_substr(s, '(\\w)(\\w)', 1, 1, '', 2) FROM r",
    "SELECT id, regexp_substr(s, '[[:alpha:]]+', 3), regexp_substr(s, 'a(x)?', 1, 1, '', 1), regexp_substr(s, 'É.', 1, 1, 'i') FROM r",
    "SELECT id, regexp_like(s, '^h', 'i'), regexp_like(s, '^h'), regexp_like(s, p), regexp_like(s, 'A', 'c') FROM r",
    # substring with a pattern
    "SELECT id, substring(s from '[a-z]+'), substring(s from '(o)'), substring(s from 'a(x)?'), substring(s, p) FROM r",
    "SELECT id, substring(s similar '%#\"o_#\"%' escape '#'), substring(s similar 'a#\"%#\"' escape '#'), substring(s similar '%' escape '#') FROM r",
    "SELECT id, substring(s similar '%#\"a_*#\"%' escape '#'), substring(s similar '_#\"%#\"_' escape '#') FROM r",
    # filters use the operators' select kernels
    "SELECT id FROM r WHERE s ~ 'a'",
    "SELECT id FROM r WHERE s !~* 'A' AND s NOT SIMILAR TO '%o%'",
    "SELECT count(*) FROM r WHERE s ~ p",
]

ERRORS = [
    "SELECT regexp_replace('a', '(', 'x')",
    "SELECT 'a' ~ 'a{3,1}'",
    "SELECT regexp_like('a', 'a', 'g')",
    "SELECT regexp_count('a', 'a', 1, 'g')",
    "SELECT regexp_like('a', 'a', 'z')",
    "SELECT regexp_count('a', 'a', 0)",
    "SELECT regexp_instr('a', 'a', 1, 0)",
    "SELECT regexp_instr('a', 'a', 1, 1, 2)",
    "SELECT regexp_instr('a', 'a', 1, 1, 0, '', -1)",
    "SELECT regexp_replace('a', 'a', 'b', 0)",
    "SELECT regexp_replace('a', 'a', 'b', 1, -1)",
    "SELECT 'a' SIMILAR TO 'a' ESCAPE 'xy'",
    "SELECT substring('abc' similar 'a#\"b#\"c#\"' escape '#')",
]

REFUSED = [
    ("SELECT 'aa' ~ '(a)\\1'", "back-references"),
    ("SELECT 'ab' ~ 'a(?=b)'", "lookahead"),
    ("SELECT 'a b' ~ '\\ma'", "\\m and \\M"),
    ("SELECT regexp_replace('xyy', 'x*?y+', 'z')", "mixing non-greedy"),
    ("SELECT 'a' ~ 'a' FROM r WHERE regexp_like(s, 'a', 'b')", "basic regular expressions"),
]


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres(locale="C.UTF-8") as server:
        server.execute(SETUP)
        yield server


@pytest.mark.parametrize("sql", QUERIES)
def test_functions_match_postgres(quiver_bin, pg, sql):
    ours = pg_oracle.quiver_rows(quiver_bin, SETUP + sql)
    pg_oracle.assert_same_rows(ours, pg.query(sql), sql)


def quiver_error(run_quiver, sql):
    p = run_quiver("sql", "--format", "json", SETUP + sql, check=False)
    assert p.returncode == 1, (sql, p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == 1, p.stderr
    return json.loads(lines[0])


@pytest.mark.parametrize("sql", ERRORS)
def test_errors_match_postgres(pg, run_quiver, sql):
    code = pg.sqlstate(sql)
    assert code is not None, f"PostgreSQL accepts {sql}"
    assert quiver_error(run_quiver, sql)["sqlstate"] == code, sql


@pytest.mark.parametrize("sql,message", REFUSED)
def test_refused_not_answered(pg, run_quiver, sql, message):
    err = quiver_error(run_quiver, sql)
    assert err["sqlstate"] == "0A000" and message in err["error"], err
