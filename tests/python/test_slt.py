"""`quiver slt`: the sqllogictest runner, on small hand-written scripts.

Each test writes a script, runs the real binary and reads its report. Result
hashes are computed here with hashlib, independently of the runner: MD5 over
every rendered value followed by "\\n", as SQLite's reference runner does.
"""

import hashlib
import re
import textwrap

import pytest

SUMMARY = re.compile(
    r"^(?P<file>.+): (?P<passed>\d+) passed, (?P<failed>\d+) failed, "
    r"(?P<skipped>\d+) skipped \((?P<rate>[\d.]+)%\)", re.M)
TOTAL = re.compile(
    r"^total: (?P<passed>\d+) passed, (?P<failed>\d+) failed, "
    r"(?P<skipped>\d+) skipped \((?P<rate>[\d.]+)%\) in (?P<files>\d+) file", re.M)


def md5_of(values):
    h = hashlib.md5()
    for v in values:
        h.update(v.encode() + b"\n")
    return h.hexdigest()


@pytest.fixture
def slt(run_quiver, tmp_path):
    """slt(script, *args) -> (counts of the file, completed process)."""

    def run(script, *args, check=True, name="t.test"):
        path = tmp_path / name
        path.write_text(textwrap.dedent(script).lstrip("\n"))
        proc = run_quiver("slt", path, *args, check=check)
        m = SUMMARY.search(proc.stdout)
        assert m, proc.stdout + proc.stderr
        counts = {k: int(m[k]) for k in ("passed", "failed", "skipped")}
        return counts, proc

    return run


def test_every_record_kind(slt):
    counts, proc = slt("""
        # a comment line; comments also vanish inside records
        hash-threshold 4

        statement ok
        CREATE TABLE t1(a INTEGER, b INTEGER, c VARCHAR(10))

        statement ok
        INSERT INTO t1 VALUES (1, 10, 'x'), (2, 20, 'y'), (3, NULL, '')

        statement error
        SELECT no_such_column FROM t1

        query I
        SELECT count(*) FROM t1
        ----
        3

        query IIT nosort
        SELECT a, b, c
        # this line is not part of the SQL
          FROM t1 ORDER BY a
        ----
        1
        10
        x
        2
        20
        y
        3
        NULL
        (empty)

        query I
        SELECT a FROM t1 WHERE a > 100

        halt

        statement ok
        this is not SQL, but halt stops the script before it
        """)
    assert counts == {"passed": 6, "failed": 0, "skipped": 0}, proc.stdout
    assert "100.0%" in proc.stdout and "halted" in proc.stdout
    total = TOTAL.search(proc.stdout)
    assert total and total["passed"] == "6" and total["files"] == "1"


def test_crlf_and_whitespace_only_separators(slt):
    script = "statement ok\r\nCREATE TABLE t(x INTEGER)\r\n   \r\nquery I\r\nSELECT 7\r\n----\r\n7\r\n"
    counts, proc = slt(script)
    assert counts == {"passed": 2, "failed": 0, "skipped": 0}, proc.stdout


def test_sort_modes(slt):
    counts, proc = slt("""
        statement ok
        CREATE TABLE t(a INTEGER, b VARCHAR(5))

        statement ok
        INSERT INTO t VALUES (9, 'b'), (10, 'a'), (2, 'c')

        # rowsort: rows ordered by strcmp of their values, so 10 before 2 before 9
        query IT rowsort
        SELECT a, b FROM t
        ----
        10
        a
        2
        c
        9
        b

        # valuesort: all values sorted on their own, rows forgotten
        query IT valuesort
        SELECT a, b FROM t
        ----
        10
        2
        9
        a
        b
        c

        # nosort keeps the engine's order
        query I nosort
        SELECT a FROM t ORDER BY a DESC
        ----
        10
        9
        2

        query I nosort
        SELECT a FROM t ORDER BY a
        ----
        10
        2
        9
        """)
    assert counts == {"passed": 5, "failed": 1, "skipped": 0}, proc.stdout
    assert re.search(r"FAIL .*t\.test:37: wrong result", proc.stdout), proc.stdout


def test_hashing(slt):
    values = [str(i) for i in range(1, 11)]
    rowsorted = sorted(values)  # strcmp order: 1, 10, 2, ...
    good = md5_of(rowsorted)
    wrong = md5_of(values)  # the unsorted order hashes differently
    counts, proc = slt(f"""
        hash-threshold 8

        query I rowsort
        SELECT * FROM generate_series(1, 10)
        ----
        10 values hashing to {good}

        query I rowsort
        SELECT * FROM generate_series(1, 10)
        ----
        10 values hashing to {wrong}

        query I nosort
        SELECT 42
        ----
        1 values hashing to {md5_of(["42"])}

        query I rowsort
        SELECT * FROM generate_series(1, 10)
        ----
        11 values hashing to {good}
        """)
    assert counts == {"passed": 2, "failed": 2, "skipped": 0}, proc.stdout
    assert f"expected 10 values hashing to {wrong}, got 10 values hashing to {good}" in proc.stdout
    assert f"expected 11 values hashing to {good}" in proc.stdout


def test_labels(slt):
    counts, proc = slt(f"""
        query I nosort label-one
        SELECT 1
        ----
        1

        query I nosort label-one
        SELECT 2 - 1
        ----
        1

        query I nosort label-one
        SELECT 2
        ----
        2

        skipif postgresql
        query I nosort label-two
        SELECT 5
        ----
        5

        query I nosort label-two
        SELECT 6
        ----
        6

        query I nosort label-two
        SELECT 5
        ----
        5
        """)
    # The third query matches its own expected value but not label-one's
    # result; label-two is fixed by the skipped record's expected values.
    assert counts == {"passed": 3, "failed": 2, "skipped": 1}, proc.stdout
    assert "labeled result [label-one] does not agree with the result at line 1" in proc.stdout
    assert "labeled result [label-two] does not agree with the result at line 17" in proc.stdout


def test_skipif_onlyif(slt):
    counts, proc = slt("""
        skipif postgresql
        statement ok
        this would fail

        onlyif mysql
        statement ok
        this would fail too

        onlyif PostgreSQL
        query I
        SELECT 1
        ----
        1

        skipif mysql
        skipif sqlite
        query I
        SELECT 2
        ----
        2

        onlyif mssql
        halt

        query I
        SELECT 3
        ----
        3
        """)
    assert counts == {"passed": 3, "failed": 0, "skipped": 2}, proc.stdout
    assert "halted" not in proc.stdout
    # Acting as another engine flips the choice.
    counts, proc = slt("""
        onlyif mysql
        query I
        SELECT 1
        ----
        1

        skipif mysql
        statement ok
        this would fail
        """, "--engine", "mysql")
    assert counts == {"passed": 1, "failed": 0, "skipped": 1}, proc.stdout


def test_statement_error(slt):
    counts, proc = slt("""
        statement error
        SELEKT 1

        statement error
        SELECT 1

        statement ok
        SELECT * FROM missing_table
        """)
    assert counts == {"passed": 1, "failed": 2, "skipped": 0}, proc.stdout
    assert "t.test:4: statement succeeded, but an error was expected" in proc.stdout
    assert re.search(r"t\.test:7: .*missing_table", proc.stdout), proc.stdout


def test_wrong_value_is_reported(slt, run_quiver, tmp_path):
    script = """
        query II nosort
        SELECT 1, 2
        ----
        1
        3
        """
    counts, proc = slt(script)
    assert counts == {"passed": 0, "failed": 1, "skipped": 0}, proc.stdout
    out = proc.stdout
    assert "FAIL" in out and "t.test:1: wrong result" in out
    assert "SELECT 1, 2" in out
    assert re.search(r"expected \(2 values\):\n\s+1 \| 3\n", out), out
    assert re.search(r"actual \(2 values, hashing to [0-9a-f]{32}\):\n\s+1 \| 2\n", out), out
    assert "first difference: value 2 (row 1, column 2): expected '3', got '2'" in out
    assert proc.returncode == 0  # failures alone do not fail the command
    # --fail-under turns a low pass rate into exit status 1.
    proc = run_quiver("slt", tmp_path / "t.test", "--fail-under", "50", check=False)
    assert proc.returncode == 1 and "below --fail-under" in proc.stderr


def test_value_rendering(slt):
    counts, proc = slt("""
        query IIIIIR nosort
        SELECT CAST(2.5 AS numeric), CAST(-2.5 AS numeric), CAST(7.9 AS double precision), 1 < 2, NULL, 2
        ----
        2
        -2
        7
        1
        NULL
        2.000

        query RRRT nosort
        SELECT 1.0 / 3, CAST(-0.0001 AS double precision), CAST(2.71828 AS numeric(10,5)), 1 > 2
        ----
        0.333
        -0.000
        2.718
        0

        query TTTT nosort
        SELECT '', 'a' || chr(9) || 'b', 'caf' || chr(233), CAST(NULL AS text)
        ----
        (empty)
        a@b
        caf@@
        NULL
        """)
    assert counts == {"passed": 3, "failed": 0, "skipped": 0}, proc.stdout


def test_malformed_records_and_summary(slt, run_quiver, tmp_path):
    counts, proc = slt("""
        frobnicate the table

        query I sideways
        SELECT 1

        query II
        SELECT 1
        ----
        1

        query I
        SELECT 1
        ----
        1
        """, "--error-summary", "5")
    assert counts == {"passed": 1, "failed": 3, "skipped": 0}, proc.stdout
    assert "unknown record type 'frobnicate'" in proc.stdout
    assert "unknown sort mode 'sideways'" in proc.stdout
    assert "expected 2 column(s) (type string 'II'), the query returned 1" in proc.stdout
    assert "most common failures" in proc.stdout


def test_directories_stop_on_fail_and_show_failures(run_quiver, tmp_path):
    (tmp_path / "sub").mkdir()
    bad = "".join(f"query I\nSELECT {i}\n----\n0\n\n" for i in range(1, 8))
    (tmp_path / "sub" / "a.test").write_text(bad)
    (tmp_path / "sub" / "b.test").write_text("query I\nSELECT 1\n----\n1\n")
    (tmp_path / "sub" / "ignored.txt").write_text("not a script")

    proc = run_quiver("slt", tmp_path / "sub", "--show-failures", "2")
    assert proc.stdout.count("  FAIL ") == 2 and "5 more failures" in proc.stdout
    total = TOTAL.search(proc.stdout)
    assert (total["passed"], total["failed"], total["files"]) == ("1", "7", "2"), proc.stdout
    assert total["rate"] == "12.5"

    proc = run_quiver("slt", tmp_path / "sub", "--stop-on-fail")
    assert "stopped at first failure" in proc.stdout
    total = TOTAL.search(proc.stdout)
    assert (total["passed"], total["failed"]) == ("0", "1"), proc.stdout

    proc = run_quiver("slt", tmp_path / "missing.test", check=False)
    assert proc.returncode == 1 and "missing.test" in proc.stderr


def test_timeout_ends_only_that_file(run_quiver, tmp_path):
    # A runaway query is killed with the child process running its file; the
    # next file still runs. (An engine crash is handled the same way.)
    (tmp_path / "a_slow.test").write_text(
        "query I\nSELECT 1\n----\n1\n\n"
        "query I\nSELECT sum(x % 7) FROM generate_series(1, 1000000000000) AS g(x)\n----\n0\n\n"
        "query I\nSELECT 2\n----\n2\n")
    (tmp_path / "b_fast.test").write_text("query I\nSELECT 3\n----\n3\n")
    proc = run_quiver("slt", tmp_path, "--timeout", "1", timeout=60)
    assert re.search(r"a_slow\.test: 1 passed, 1 failed, 0 skipped .*ABORTED: timed out after 1 s at line 6",
                     proc.stdout), proc.stdout
    assert re.search(r"a_slow\.test:6: timed out after 1 s\n\s+\| SELECT sum", proc.stdout), proc.stdout
    assert re.search(r"b_fast\.test: 1 passed, 0 failed", proc.stdout), proc.stdout


def test_in_process_and_verbose(slt):
    script = """
        query I
        SELECT 1
        ----
        1

        skipif postgresql
        query I
        SELECT 2
        ----
        2

        query I
        SELECT 3
        ----
        4
        """
    for mode in ([], ["--in-process"]):
        counts, proc = slt(script, "--verbose", *mode)
        assert counts == {"passed": 1, "failed": 1, "skipped": 1}, proc.stdout
        assert re.search(r"t\.test:1: ok SELECT 1\n.*t\.test:7: skip SELECT 2\n.*t\.test:12: FAIL SELECT 3\n",
                         proc.stdout), proc.stdout
        assert "expected '4', got '3'" in proc.stdout
