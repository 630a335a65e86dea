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
CREATE TABLE t (id int, ts timestamp, tz timestamptz, d date);
INSERT INTO t VALUES
  (1, '2024-02-29 13:05:09.123456', '2024-02-29 13:05:09.123456+00', '2024-02-29'),
  (2, '2023-12-31 00:00:00', '2023-12-31 23:59:59.999999+00', '2023-01-01'),
  (3, '2021-01-03 12:00:00', '2021-01-03 00:00:01+00', '2020-12-31'),
  (4, NULL, NULL, NULL),
  (5, '0001-01-01 01:02:03', '1999-07-11 11:30:00+00', '2000-03-01'),
  (6, '2008-12-29 23:59:59.5', '2010-01-03 06:00:00+00', '1970-01-01');
"""

# Newlines shown as '/' keep the failure messages readable.
def nl(expr):
    return f"replace({expr}, chr(10), '/')"


# Numbers for to_char: integer, bigint, numeric, double precision and real
# edge values (zero, negatives, both ends of the integer types, values that
# round or overflow the template, many digits, NaN and infinities).
NUMS = """(VALUES
  (1, 0::int, 0::bigint, 0::numeric, 0::float8, 0::real),
  (2, 5, 12345678901, 1.5, 0.5, 2.5),
  (3, -12, -9223372036854775808, -12.345, -12.345, -1.5),
  (4, 1234, 9223372036854775807, 99.995, 123456.789, 0.001),
  (5, -1234567, 1000000000000000, 0.0005, 'NaN'::float8, 'NaN'::real),
  (6, 2147483647, -1, -0.0004, 'Infinity'::float8, 'Infinity'::real),
  (7, NULL, NULL, NULL, '-Infinity'::float8, '-Infinity'::real),
  (8, 3999, 4000, 1234567890.123456789012345678, 1000000000000000.0, 12345678.9),
  (9, 11, 112, -999.999, 0.000001234, -0.0::real),
  (10, -2147483648, 23, 3999.5, 2.5, 99.5)) AS v(id, i, b, n, f, r)"""


QUERIES = [
    # the operators, column and constant patterns
    "SELECT id, s ~ p, s !~ p, s ~* upper(p), s !~* upper(p) FROM r",
    "SELECT id, s ~ '^a', s ~ 'l+o', s ~* 'WORLD', s ~ 'ï', s ~* 'CAFÉ', s ~ '^$' FROM r",
    "SELECT id, s ~ '[[:upper:]]', s ~ '^[[:alpha:] ]+$', s ~ '\\w+\\s\\w+', s ~ '\\yWorld\\y' FROM r",
    "SELECT id, s ~ '\\d', s ~ '^\\D+$', s ~ '[^a-z]', s ~ 'a{2,}', s ~ '(an){2}' FROM r",
    "SELECT id, s ~ 'line1.line2', s ~ '^line2', s ~ 'e1$', s ~ '\\.b\\*', s ~ '[.]' FROM r",
    "SELECT id, s ~ '\\x41', s ~* '\\x41', s ~ '\\u00e9', s ~ 'caf\\u00e9' FROM r",
    # ILIKE lowers both sides as PostgreSQL's lower() does in a UTF-8 database
    "SELECT id, s ILIKE '%É%', s ILIKE 'NAÏVE%', s ILIKE '%CAFÉ_%', s NOT ILIKE '%été', s ILIKE p, s ILIKE upper(p), s ILIKE '%\\%%' FROM r",
    "SELECT id, s ILIKE '_ELLO%', s ILIKE 'n_ïve%', upper(s) ILIKE s, s ~~* 'ABC', s !~~* '%A%' FROM r",
    # COLLATE with the byte-order collations, which are the only ones Quiver has
    "SELECT id, s COLLATE \"C\" < 'b', s COLLATE \"POSIX\" >= 'a', (s COLLATE ucs_basic) = 'abc', s COLLATE \"default\" FROM r",
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
    # translate, concat_ws, concat over any type, quote_*
    "SELECT id, translate(s, 'ao', 'AO'), translate(s, 'abé', 'x'), translate(s, p, '#'), translate(s, '', 'x') FROM r",
    "SELECT id, concat_ws(',', s, p, id), concat_ws(p, s, s), concat_ws(NULL, s), concat_ws('-', NULL) FROM r",
    "SELECT id, concat(s, id, true, 1.50, NULL, -2, DATE '2024-02-29'), concat_ws('|', false, 2.5::float8, s) FROM r",
    "SELECT id, quote_ident(s), quote_literal(s), quote_nullable(s), quote_literal(id), quote_nullable(p) FROM r",
    "SELECT quote_ident('select'), quote_ident('Foo'), quote_ident('a b'), quote_ident('_x1'), quote_ident(''), "
    "quote_ident('a\"b'), quote_ident('user'), quote_ident('name'), quote_ident('é')",
    "SELECT quote_literal('it''s'), quote_literal('back\\slash'), quote_literal(''), quote_nullable(NULL), "
    "quote_literal(true), quote_literal(1.5), quote_nullable(42)",
    # format
    "SELECT id, format('%s-%s', s, p), format('%I', p), format('%L', s), format('[%5s|%-5s]', id, p) FROM r WHERE p IS NOT NULL",
    "SELECT format('%s, %s', 'a', NULL), format('%L', NULL), format('%2$s %1$s %s', 'a', 'b'), format('%%'), "
    "format('%*s|%-*s|', 4, 'x', 3, 'y'), format('%*s', -4, 'x'), format('%1$*2$s', 'ab', 5), format('%s', true), "
    "format('abc'), format(NULL), format('%s %s', 1, 2, 3), format('%3$s', 1, 2, 3), format('é%sé', 'ü')",
    # md5, sha*, encode / decode
    "SELECT id, md5(s), encode(sha256(s::bytea), 'hex'), encode(sha224(s::bytea), 'base64') FROM r",
    "SELECT md5(''), sha256(''), sha384('abc'), sha512('abc'), md5('abc'::bytea), sha256('\\x00ff'::bytea)",
    "SELECT encode('hello'::bytea, 'hex'), encode('hello world, and a longer text to wrap the base64 output over two lines'::bytea, 'base64'), "
    "decode('68656C6c6f', 'hex'), decode('aGVsbG8=', 'base64'), decode(' 68 65 ', 'hex'), encode(decode('', 'hex'), 'base64')",
    # width_bucket: doubles and numerics exactly, both directions, out of range
    "SELECT width_bucket(0.3, 0.1, 0.5, 2), width_bucket(0.3::float8, 0.1, 0.5, 2), width_bucket(5.35, 0.024, 10.06, 5), "
    "width_bucket(-1, 0, 10, 5), width_bucket(10, 0, 10, 5), width_bucket(0, 0, 10, 5), width_bucket(5, 10, 0, 5), "
    "width_bucket(10, 10, 0, 5), width_bucket(0, 10, 0, 5), width_bucket(-0.5, -1, 0, 4), width_bucket(1e300, -1e308, 1e308, 10)",
    "SELECT id, width_bucket(id, 0, 10, 4), width_bucket(id::numeric / 3, 0.5, 3.5, 6), width_bucket(id * 1.5, 15, 0, 3) FROM r",
    # to_char over timestamps, timestamptz and dates
    "SELECT id, to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US'), to_char(ts, 'DD Mon YYYY HH12:MI:SS AM'), to_char(ts, 'FMDD FMMonth YYYY, FMDay') FROM t",
    "SELECT id, to_char(ts, 'Month|MONTH|month|Mon|MON|mon|Day|DAY|day|Dy|DY|dy'), to_char(ts, 'YYY YY Y Y,YYY CC Q') FROM t",
    "SELECT id, to_char(ts, 'DDD D ID IDDD WW W IW IYYY IYY IY I J'), to_char(ts, 'HH HH12 HH24 MI SS MS US SSSS SSSSS') FROM t",
    "SELECT id, to_char(ts, 'am pm a.m. p.m. AD BC ad a.d. B.C.'), to_char(ts, 'DDth DDTH FMDDth MMth Yth'), to_char(ts, 'RM rm FMRM') FROM t",
    "SELECT id, to_char(ts, '\"Year\" YYYY \"at\" HH24\"h\"'), to_char(ts, 'FF1 FF2 FF3 FF4 FF5 FF6'), to_char(ts, 'FMHH12:FMMI FMSS FMMS FMUS') FROM t",
    "SELECT id, to_char(tz, 'YYYY-MM-DD HH24:MI:SS TZ tz OF TZH:TZM'), to_char(ts, 'TZ|OF|'), to_char(d, 'YYYY/MM/DD Dy'), to_char(tz, '') FROM t",
    "SELECT id, to_char(ts, 'xyz-YYYY!MM?DD§é'), to_char(ts, 'FMyyyy-fmmm-dd hh24:mi'), to_char(ts, 'FXYYYY TMMonth') FROM t",
    "SELECT to_char(DATE '2024-02-29', 'FMDay, FMDDth \"of\" FMMonth YYYY'), to_char(TIMESTAMP '2020-01-01 00:00:00', 'IYYY-IW-ID'), "
    "to_char(TIMESTAMP '1999-12-31 12:00:00', 'HH12 AM CC'), to_char(TIMESTAMP '2000-01-01 00:00:00', 'CC FMCC')",
    # to_date / to_timestamp
    "SELECT to_date('2024-02-29', 'YYYY-MM-DD')::text, to_date('29 Feb 2024', 'DD Mon YYYY')::text, to_date('20240229', 'YYYYMMDD')::text, "
    "to_date('February 29, 2024', 'Month DD, YYYY')::text, to_date('2024/2/9', 'YYYY/MM/DD')::text, to_date('24-02-29', 'YY-MM-DD')::text, "
    "to_date('99-12-31', 'YY-MM-DD')::text, to_date('2024 060', 'YYYY DDD')::text, to_date('2460370', 'J')::text, to_date('  2024-02-29', 'YYYY-MM-DD')::text, to_date('2024-01-01 junk', 'YYYY-MM-DD')::text",
    "SELECT to_timestamp('2024-02-29 13:05:09', 'YYYY-MM-DD HH24:MI:SS')::text, to_timestamp('29.02.2024 01:05 PM', 'DD.MM.YYYY HH12:MI AM')::text, "
    "to_timestamp('2024-02-29 13:05:09.123456', 'YYYY-MM-DD HH24:MI:SS.US')::text, to_timestamp('2024-02-29 13:05:09.12', 'YYYY-MM-DD HH24:MI:SS.MS')::text, "
    "to_timestamp('12:00 AM 2024-01-01', 'HH12:MI AM YYYY-MM-DD')::text, to_timestamp('2024-01-01 12:30 pm', 'YYYY-MM-DD HH:MI pm')::text, "
    "to_timestamp('0001-01-01 BC', 'YYYY-MM-DD BC')::text, to_timestamp('2024 XII 25', 'YYYY RM DD')::text",
    "SELECT to_timestamp(0)::text, to_timestamp(1709211909.123456)::text, to_timestamp(-1.5)::text, to_timestamp(951782400)::text",
    # to_char of numbers: digits, zeros, point, group, signs, FM, overflow '#'
    f"SELECT id, to_char(i, '99999'), to_char(i, 'FM9,999,999,999'), to_char(i, '0000000000'), to_char(i, 'S9999') FROM {NUMS}",
    f"SELECT id, to_char(b, '9999999999999999999'), to_char(b, 'FM9G999G999G999G999G999G999'), to_char(b, '99999PR'), to_char(b, 'SG99999999') FROM {NUMS}",
    f"SELECT id, to_char(n, '9999.99'), to_char(n, 'FM9999.99'), to_char(n, 'FM0000.000'), to_char(n, '9,999,999,999.999999999999999999') FROM {NUMS}",
    f"SELECT id, to_char(n, '.99'), to_char(n, '0.9'), to_char(n, '99.0MI'), to_char(n, 'PL999.9'), to_char(n, 'FM999.9PR'), to_char(n, '999D99S') FROM {NUMS}",
    f"SELECT id, to_char(f, '999999.999'), to_char(f, 'FM999999999999999.99999'), to_char(f, '9.99EEEE'), to_char(f, 'S0.000') FROM {NUMS}",
    f"SELECT id, to_char(r, '999999.999'), to_char(r, 'FM99999999.99'), to_char(r, '9.9EEEE'), to_char(r, 'MI99.99') FROM {NUMS}",
    # Roman numerals, ordinals, V (times ten to the n), EEEE, literals, L / B / C
    f"SELECT id, to_char(i, 'RN'), to_char(n, 'FMrn'), to_char(f, 'FMRN'), to_char(i, '999th'), to_char(b, 'FM999TH') FROM {NUMS} WHERE id <> 3",
    f"SELECT id, to_char(i, '99V99'), to_char(n, '999V9'), to_char(f, '9V999'), to_char(r, 'FM99V9') FROM {NUMS}",
    f"SELECT id, to_char(i, '9.999EEEE'), to_char(b, '9.99EEEE'), to_char(n, '9.9EEEE'), to_char(n, '9EEEE') FROM {NUMS}",
    f"SELECT id, to_char(i, '\"Total:\" 999,999 \"units\"'), to_char(n, 'L9,999.99'), to_char(n, 'FML99'), to_char(i, 'B9C9é9SP9') FROM {NUMS}",
    "SELECT to_char(0.1, '9.9'), to_char(0.1, 'FM9.9'), to_char(0, 'FM9.99'), to_char(0, 'FM0.99'), to_char(-0.5, 'FM9.9PR'), "
    "to_char(485, '9 9 9'), to_char(485, '999MI'), to_char(-485, '999MI'), to_char(-485, 'FM999MI'), to_char(485, 'PL999'), "
    "to_char(9.99, '9.9EEEE'), to_char(12, ''), to_char(1.5::numeric(3, 1), '99.99'), to_char(32767::smallint, '999,999')",
    # to_number: the digits the template reads, signs where PostgreSQL reads them
    "SELECT to_number('1.5', '9.99'), to_number('-12,345.678', '99G999D999'), to_number('12345', '99'), to_number('1 -', '9S'), "
    "to_number('$1,234.50', 'L9,999.99'), to_number('  12.3-', '999.9MI'), to_number('<12>', '99PR'), to_number('12', '99V9'), "
    "to_number('-.5', '9.9'), to_number('7+', '9S'), to_number('0001.2300', '9999.9999'), to_number('12th', '99th'), to_number('1', '')",
    "SELECT s, to_number(s, '999,999.99'), to_number(s, 'FMS999.99'), to_number(s, '\"ab\"999MI') FROM "
    "(VALUES ('123'), ('-12.5'), ('1.234'), ('ab12-'), ('12,3'), (NULL), ('  9.999'), ('-1,2'), ('ab-1')) AS v(s)",
    # make_timestamp, make_interval (named and positional), justify_*, date_bin, age
    "SELECT make_timestamp(2024, 2, 29, 13, 5, 9.5)::text, make_timestamp(-44, 3, 15, 0, 0, 0)::text, make_timestamp(2023, 12, 31, 24, 0, 0)::text, "
    "make_timestamptz(2024, 1, 1, 0, 0, 0.000001)::text, make_timestamp(1, 1, 1, 23, 59, 59.9999996)::text",
    "SELECT make_interval()::text, make_interval(1, 2, 3, 4, 5, 6, 7.5)::text, make_interval(days => 10)::text, "
    "make_interval(hours => -25, secs => 0.25)::text, make_interval(years => 1, weeks => -1)::text, make_interval(0, 14)::text",
    "SELECT justify_days(interval '65 days')::text, justify_days(interval '-65 days 3 hours')::text, justify_days(interval '1 month -40 days')::text, "
    "justify_hours(interval '50 hours')::text, justify_hours(interval '-1 day 30 hours')::text, justify_hours(interval '1 day -3 hours')::text, "
    "justify_interval(interval '1 month -1 hour')::text, justify_interval(interval '-1 month 35 days 50 hours')::text, justify_interval(interval '400 days -1 second')::text",
    "SELECT id, date_bin('15 minutes', ts, TIMESTAMP '2001-01-01')::text, date_bin('1 day 2 hours', ts, TIMESTAMP '2024-01-01 00:07')::text, "
    "date_bin('7 days', tz, TIMESTAMPTZ '2020-01-06 00:00+00')::text FROM t",
    "SELECT id, age(ts, TIMESTAMP '2000-02-29')::text, age(TIMESTAMP '2000-02-29', ts)::text, age(ts, ts)::text, "
    "age(tz, TIMESTAMPTZ '2024-03-31 12:00+00')::text FROM t",
    # age(x) counts from today's midnight (a run across midnight UTC could see two days)
    "SELECT id, age(ts)::text, age(tz)::text, age(d::timestamp)::text FROM t",
    "SELECT age(TIMESTAMP '2024-03-31', TIMESTAMP '2024-02-29')::text, age(TIMESTAMP '2024-03-01', TIMESTAMP '2024-01-31')::text, "
    "age(TIMESTAMP '2023-03-01', TIMESTAMP '2024-01-31 12:00')::text, age(TIMESTAMP '2001-04-10', TIMESTAMP '1957-06-13')::text",
    # numeric literals with exponents are exact numerics (1e-5 once bound as 0, 15e-1 as 2)
    "SELECT -1e-5, 1.5e-3, 15e-1, 1.5e1, 1e5, 2.5E+2, '1e-5'::numeric, 0.5e0, .5e1, 5.e-1, 1e-38, 12345678901234567890e-10, 1e-5 * 3, pg_typeof(1e-5), 1e-300::float8",
    # session and value information, small integer and text helpers
    "SELECT current_setting('TimeZone'), current_setting('server_encoding'), current_setting('standard_conforming_strings'), current_setting('no.such', true)",
    "SELECT pg_typeof(1), pg_typeof(1.5), pg_typeof('a'::text), pg_typeof(now()), pg_typeof(2::bigint), pg_typeof(NULL::date), pg_typeof(true), pg_typeof(1.5::float8), pg_typeof(interval '1 day')",
    "SELECT num_nulls(1, NULL, 'a', NULL::text), num_nonnulls(1, NULL, 'a', NULL::date), num_nulls(NULL), num_nonnulls(1)",
    "SELECT bit_length('é'), bit_length(''), bit_length(NULL::text), bit_length('abc'::bytea)",
    'SELECT to_hex(255), to_hex(-1), to_hex(-1::bigint), to_hex(0), to_hex(2147483647::bigint * 4), to_hex(NULL::int)',
    'SELECT gcd(12, 18), gcd(-12, 18), gcd(0, 0), gcd(0, -5), gcd(7::bigint, 21), lcm(4, 6), lcm(-4, 6), lcm(0, 5), lcm(12::bigint, 18), gcd(NULL, 1)',
    "SELECT overlay('Txxxxas' placing 'hom' from 2 for 4), overlay('abc' placing 'X' from 2), overlay('abc' placing 'XYZ' from 5), overlay('naïve' placing 'I' from 3 for 1), overlay('abc' placing '' from 1 for 0), overlay('abc' placing 'Z' from 1 for 10)",
    "SELECT clock_timestamp() >= now() - interval '1 minute', pg_backend_pid() > 0",
    # two-variable statistics (Youngs-Cramer sums as PostgreSQL's float8 aggregates), grouped, empty, constant, windowed
    'SELECT corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_count(y, x), regr_slope(y, x), regr_intercept(y, x), regr_r2(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM (VALUES (1, 2.0), (2, 4.5), (3, 5.9), (NULL, 1), (4, NULL), (5, 11)) v(x, y)',
    'SELECT g, corr(y, x), covar_samp(y, x), regr_slope(y, x), regr_r2(y, x), regr_count(y, x) FROM (VALUES (1, 1, 2.0), (1, 2, 4.0), (2, 1, 1.0), (2, 1, 3.0), (3, 5, 5.0), (4, NULL, 1.0)) v(g, x, y) GROUP BY g ORDER BY g',
    'SELECT corr(y, x), covar_pop(y, x), regr_count(y, x) FROM (VALUES (1.0, 2.0)) v(x, y) WHERE x > 5',
    'SELECT corr(y, x), regr_r2(y, x), regr_slope(y, x) FROM (VALUES (1, 3.0), (2, 3.0), (3, 3.0)) v(x, y)',
    'SELECT x, covar_pop(x, x) OVER (ORDER BY x ROWS 1 PRECEDING), regr_count(x, x) OVER () FROM (VALUES (1.0), (2.0), (4.0)) v(x) ORDER BY x',
    # AT TIME ZONE with IANA names, across DST transitions (gaps and repeated hours)
    "SELECT id, (tz AT TIME ZONE 'America/New_York')::text, (tz AT TIME ZONE 'Europe/Berlin')::text, (tz AT TIME ZONE 'Asia/Kolkata')::text, "
    "(ts AT TIME ZONE 'America/New_York')::text, (ts AT TIME ZONE 'Australia/Lord_Howe')::text, (ts AT TIME ZONE 'UTC')::text FROM t",
    "SELECT (TIMESTAMP '2024-03-10 02:30' AT TIME ZONE 'America/New_York')::text, (TIMESTAMP '2024-11-03 01:30' AT TIME ZONE 'America/New_York')::text, "
    "(TIMESTAMP '2024-03-31 02:30' AT TIME ZONE 'Europe/Berlin')::text, (TIMESTAMP '2024-10-27 02:30' AT TIME ZONE 'Europe/Berlin')::text, "
    "(TIMESTAMP '2024-03-10 01:59:59' AT TIME ZONE 'America/New_York')::text, (TIMESTAMP '2024-03-10 03:00' AT TIME ZONE 'America/New_York')::text, "
    "(TIMESTAMPTZ '2024-11-03 05:30+00' AT TIME ZONE 'America/New_York')::text, (TIMESTAMPTZ '2024-11-03 06:30+00' AT TIME ZONE 'America/New_York')::text, "
    "(TIMESTAMP '1900-01-01 00:00' AT TIME ZONE 'Europe/Amsterdam')::text, timezone('Asia/Tokyo', TIMESTAMPTZ '2024-02-29 20:00+00')::text",
    "SELECT id, to_char((tz AT TIME ZONE 'America/Los_Angeles') + interval '1 day', 'YYYY-MM-DD HH24:MI') FROM t",
    "SELECT id, to_char(to_timestamp(to_char(tz, 'YYYY-MM-DD HH24:MI:SS.US'), 'YYYY-MM-DD HH24:MI:SS.US'), 'YYYY-MM-DD HH24:MI:SS.US') FROM t",
    # Row-wise comparison (left to right, the first unequal or NULL pair deciding), row IN lists
    "SELECT a, b, (a, b) = (1, 2), (a, b) <> (1, 2), (a, b) < (1, 2), (a, b) <= (1, 2), (a, b) > (1, 2), (a, b) >= (1, 2), "
    "(a, b) IS DISTINCT FROM (1, NULL), (a, b) IS NOT DISTINCT FROM (1, NULL), (a, b) IN ((1, 2), (2, NULL)), "
    "(a, b) NOT IN ((1, 2), (0, 5)), ROW(a, b, 1) < ROW(1, 2, 2) "
    "FROM (VALUES (1, 2), (1, 3), (0, 9), (2, NULL), (NULL, 1), (1, NULL), (NULL, NULL)) v(a, b) ORDER BY a NULLS LAST, b NULLS LAST",
    "SELECT id, s FROM r WHERE (length(s), s) > (3, 'abc') ORDER BY id",
    # Operators PostgreSQL defines through functions; log with a base
    "SELECT |/ 16.0, ||/ 27.0, @ (-5), @ (-2.5), 'abc' ^@ 'ab', 'abc' ^@ 'b', log(2, 8), log(10, 1000), log(2, 10), log(0.5, 0.25)",
    "SELECT id, s ^@ p FROM r",
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
    "SELECT format('%s %s', 'a')",
    "SELECT format('%x', 1)",
    "SELECT format('%', 1)",
    "SELECT format('%0$s', 1)",
    "SELECT format('%I', NULL)",
    "SELECT format('%*s', 'x', 'y')",
    "SELECT decode('abc', 'hex')",
    "SELECT decode('zz', 'hex')",
    "SELECT decode('a', 'base32')",
    "SELECT encode('a'::bytea, 'rot13')",
    "SELECT width_bucket(1, 0, 10, 0)",
    "SELECT width_bucket(1, 5, 5, 2)",
    "SELECT width_bucket(1.0, 5.0, 5.0, 2)",
    "SELECT width_bucket('NaN'::float8, 0, 1, 2)",
    "SELECT width_bucket(1, 0, 'Infinity'::float8, 2)",
    "SELECT sha256('abc'::text)",
    "SELECT concat_ws('-')",
    "SELECT to_date('2024-02-30', 'YYYY-MM-DD')",
    "SELECT to_date('2024-13-01', 'YYYY-MM-DD')",
    "SELECT to_date('abcd-01-01', 'YYYY-MM-DD')",
    "SELECT to_date('2024-Foo-01', 'YYYY-Mon-DD')",
    "SELECT to_timestamp('2024-01-01 25:00', 'YYYY-MM-DD HH24:MI')",
    "SELECT to_timestamp('13:00', 'HH12:MI')",
    "SELECT to_timestamp('NaN'::float8)",
    "SELECT to_timestamp(1e20)",
    "SELECT make_timestamp(2023, 2, 29, 0, 0, 0)",
    "SELECT make_timestamp(0, 1, 1, 0, 0, 0)",
    "SELECT make_timestamp(2024, 1, 1, 24, 0, 1)",
    "SELECT make_timestamp(2024, 1, 1, 0, 60, 0)",
    "SELECT date_bin('1 month', TIMESTAMP '2024-01-01', TIMESTAMP '2000-01-01')",
    "SELECT date_bin('0 seconds', TIMESTAMP '2024-01-01', TIMESTAMP '2000-01-01')",
    "SELECT TIMESTAMP '2024-01-01' AT TIME ZONE 'Mars/Olympus_Mons'",
    "SELECT make_interval(days => 1, days => 2)",
    # numeric template errors (42601) and what to_char / to_number refuse
    "SELECT to_char(1, '9.9.9')",
    "SELECT to_char(1, '99V9.9')",
    "SELECT to_char(1.5, '9EEEE9')",
    "SELECT to_char(1, 'S99S')",
    "SELECT to_char(1, 'S99MI')",
    "SELECT to_char(1, '99PR9')",
    "SELECT to_char(1, 'FM9.9EEEE')",
    "SELECT to_char(1, '99MIPR')",
    "SELECT to_char(9223372036854775807, 'RN')",
    "SELECT to_char('NaN'::float8, '999th')",
    "SELECT to_number('1.5', '9.9EEEE')",
    "SELECT to_number('XII', 'RN')",
    "SELECT to_number('abc', '999')",
    "SELECT to_number('12', '9.9')",
    "SELECT 'a' COLLATE \"xx_NO_SUCH\" < 'b'",
    "SELECT current_setting('nope')",
    'SELECT gcd((-2147483648)::int, 0)',
    'SELECT lcm(2147483647, 2147483646)',
    "SELECT overlay('abc' placing 'x' from 0)",
    "SELECT (1, 2) = (1, 2, 3)",
    "SELECT (1, 2) < (1, 2, 3)",
    "SELECT log(0, 8)",
    "SELECT log(-2, 8)",
    "SELECT log(1, 8)",
    "SELECT |/ -4.0",
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


@pytest.mark.parametrize("sql,near", [
    ("SELECT id, regexp_replce(s, 'a', 'b') FROM r", "regexp_replace"),
    ("SELECT id, md6(s) FROM r", "md5"),
    ("SELECT id, to_chr(ts, 'YYYY') FROM t", "to_char"),
    ("SELECT id, translat(s, 'a', 'b') FROM r", "translate"),
])
def test_unknown_function_says_where_and_what_is_near(pg, run_quiver, sql, near):
    assert pg.sqlstate(sql) == "42883"
    err = quiver_error(run_quiver, sql)
    assert err["sqlstate"] == "42883", err
    name = sql.split(", ")[1].split("(")[0]
    # The position is that of the call in the statement (1-based, as psql's caret).
    assert err["position"] == sql.index(name) + 1 + len(SETUP), err
    assert f'Perhaps you meant to call the function "{near}"' in err["hint"], err


def test_collations_that_sort_differently_are_refused(run_quiver):
    # PostgreSQL has en_US etc. where the OS has the locale; Quiver compares
    # bytes, so a linguistic collation is refused rather than ignored.
    err = quiver_error(run_quiver, "SELECT s FROM r ORDER BY s COLLATE \"en_US.utf8\"")
    assert err["sqlstate"] == "42704", err
    assert 'collation "en_US.utf8"' in err["error"] and "byte-wise" in err["hint"], err


def test_session_information(run_quiver):
    p = run_quiver("sql", "--format", "csv", "SELECT version(), current_database(), current_schema(), "
                   "current_catalog, current_schema, current_setting('TimeZone')")
    assert p.stdout.splitlines()[1].startswith("Quiver (PostgreSQL 15 dialect) on "), p.stdout
    assert p.stdout.splitlines()[1].endswith(",quiver,public,quiver,public,UTC"), p.stdout
