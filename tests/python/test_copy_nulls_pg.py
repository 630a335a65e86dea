"""COPY FROM ... (FORMAT csv) reads nulls as PostgreSQL 15 does: an unquoted
field equal to the NULL string (default: the empty string) is null in every
column type, a quoted one never is (`""` is an empty string); spellings such
as NA, null or NaN are values. PostgreSQL is the oracle (psql's \\copy sends
the file, since the server may not read the test's directory)."""

import pytest

import pg_oracle
import script_oracle

pytestmark = pytest.mark.skipif(not pg_oracle.available(), reason="PostgreSQL 15 not installed")

TABLE = "CREATE TABLE tab (k int, b text, n int, f float8, d date, ok boolean)"
FINAL = ("SELECT k, b, b IS NULL AS b_null, n, f IS NULL AS f_null, f > 1e300 AS f_nan, d, ok "
         "FROM tab ORDER BY k")


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres() as server:
        yield server


def compare(pg, quiver_bin, tmp_path, files, options, want_errors=None):
    paths = []
    for i, text in enumerate(files):
        p = tmp_path / f"f{i}.csv"
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    ours = [TABLE] + [f"COPY tab FROM '{p}' WITH ({options})" for p in paths]
    theirs = [TABLE] + [f"\\copy tab FROM '{p}' WITH ({options})" for p in paths]
    pg_errors, pg_rows = script_oracle.run_postgres(pg, theirs, FINAL)
    q_errors, q_rows = script_oracle.run_quiver(quiver_bin, ours, FINAL)
    if want_errors is not None:
        assert [e[0] for e in pg_errors] == want_errors, pg_errors
    # The same statements fail, with the same SQLSTATEs.
    assert [e[0] for e in q_errors] == [e[0] for e in pg_errors], (q_errors, pg_errors)
    assert pg_rows, "PostgreSQL loaded no rows"
    pg_oracle.assert_same_rows(q_rows, pg_rows, "\n".join(ours), ordered=True)
    return q_rows


def test_unquoted_empty_is_null_quoted_empty_is_text(pg, quiver_bin, tmp_path):
    rows = compare(pg, quiver_bin, tmp_path, [
        "k,b,n,f,d,ok\n"
        "1,,,,,\n"
        '2,"",7,1.5,2024-02-29,true\n'
        "3,NA,8,NaN,2024-01-01,false\n"
        "4,null,9,2.5,2024-01-02,t\n"
        '5,"NULL",10,"3",2024-01-03,\n'
        "6,x y,11,-0.5,2024-01-04,f\n"
    ], "FORMAT csv, HEADER true", want_errors=[])
    by_key = {int(r[0]): r for r in rows}
    assert by_key[1][1] is None and by_key[2][1] == "" and by_key[3][1] == "NA"


def test_quoted_empty_in_a_number_column_is_an_error(pg, quiver_bin, tmp_path):
    compare(pg, quiver_bin, tmp_path, [
        "k,b,n,f,d,ok\n1,a,1,1,2024-01-01,true\n",
        'k,b,n,f,d,ok\n2,a,"",1,2024-01-01,true\n',
    ], "FORMAT csv, HEADER true", want_errors=["22P02"])


def test_null_option_matches_unquoted_fields_only(pg, quiver_bin, tmp_path):
    rows = compare(pg, quiver_bin, tmp_path, [
        "k,b,n,f,d,ok\n"
        "1,NA,NA,NA,NA,NA\n"
        '2,"NA",5,1,2024-01-01,true\n'
        "3,,6,2,2024-01-02,false\n",
    ], "FORMAT csv, HEADER true, NULL 'NA'", want_errors=[])
    by_key = {int(r[0]): r for r in rows}
    assert by_key[1][1] is None and by_key[2][1] == "NA" and by_key[3][1] == ""


def test_booleans_spelled_as_postgresql_reads_them(pg, quiver_bin, tmp_path):
    spellings = ["t", "TRUE", "Tr", "y", "Yes", "on", "ON", "1",
                 "f", "False", "fAl", "n", "NO", "of", "Off", "0"]
    body = "".join(f"{i},a,{i},1,2024-01-01,{s}\n" for i, s in enumerate(spellings))
    compare(pg, quiver_bin, tmp_path, ["k,b,n,f,d,ok\n" + body,
                                       "k,b,n,f,d,ok\n100,a,1,1,2024-01-01,o\n"],
            "FORMAT csv, HEADER true", want_errors=["22P02"])
