"""The lazy scan of a `--db` table and of read_iceberg (issue 14 item 2):
files planned from the manifests, pruned by their column bounds and null
counts, the survivors scanned through the Parquet scan; a SELECT never
materializes the table.

Answers are compared with DuckDB over pyiceberg's own scan of the table.
"""

import re
import resource
import subprocess

import duckdb
import pyarrow as pa
import pytest

pyiceberg_sql = pytest.importorskip("pyiceberg.catalog.sql")

from test_iceberg_db import quiver_arrow, catalog  # noqa: E402


def quiver_sql(quiver_bin, db, sql, *extra):
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--db", str(db), *extra, sql],
        capture_output=True, text=True, timeout=300,
    )
    if proc.returncode != 0:
        pytest.fail(f"quiver sql failed ({proc.returncode}): {sql}\n{proc.stderr}", pytrace=False)
    return proc.stdout




def scan_counts(explain):
    """(files, files_pruned, units read) of the one SCAN line."""
    line = next(ln for ln in explain.splitlines() if "SCAN" in ln)
    files = int(re.search(r"\bfiles=(\d+)", line).group(1))
    pruned = int(re.search(r"\bfiles_pruned=(\d+)", line).group(1))
    read = int(re.search(r"\bread=(\d+)", line).group(1))
    return files, pruned, read


def build_events(quiver_bin, db):
    """Seven INSERTs (seven data files) with disjoint key ranges; the last
    one's note column is all NULL."""
    stmts = ["CREATE TABLE ev (k bigint, grp text, v double precision, note text)"]
    for i in range(7):
        lo = i * 10000
        note = "NULL" if i == 6 else "CASE WHEN g % 11 = 0 THEN NULL ELSE 'n' || g END"
        stmts.append(
            f"INSERT INTO ev SELECT g, 'g' || (g % 7), g * 0.5, {note} "
            f"FROM generate_series({lo}, {lo + 9999}) AS g"
        )
    quiver_sql(quiver_bin, db, "; ".join(stmts))


QUERIES = [
    # (where clause, data files left after the manifests' pruning)
    ("k BETWEEN 25000 AND 34999", 2),
    ("k = 12345", 1),
    ("k >= 55000 AND note IS NOT NULL", 1),  # the last file: all NULL notes
    ("note IS NULL AND k < 5000", 1),
    ("k < 0", 0),
    ("grp = 'g3'", 7),  # every file holds g0..g6
    ("k IN (5, 65000)", 2),
]


def test_filtered_queries_read_only_matching_files(quiver_bin, tmp_path):
    db = tmp_path / "db"
    build_events(quiver_bin, db)
    theirs = catalog(db).load_table("public.ev").scan().to_arrow()
    assert theirs.num_rows == 70000
    for where, kept in QUERIES:
        sql = f"SELECT count(*) AS n, sum(v) AS s, count(note) AS c, min(k) AS lo FROM ev WHERE {where}"
        files, pruned, read = scan_counts(quiver_sql(quiver_bin, db, "EXPLAIN ANALYZE " + sql))
        assert (files, files - pruned) == (7, kept), where
        assert read <= kept, where  # row groups of the files left, at most one each
        ours = quiver_arrow(quiver_bin, db, sql).to_pylist()
        expected = duckdb.sql(sql.replace("FROM ev", "FROM theirs")).to_arrow_table().to_pylist()
        assert ours == expected, where
    # The same pruning through read_iceberg over the table's name and path.
    location = catalog(db).load_table("public.ev").metadata.location.removeprefix("file://")
    for source in ("read_iceberg('ev')", f"read_iceberg('{location}')"):
        out = quiver_sql(quiver_bin, db,
                         f"EXPLAIN ANALYZE SELECT count(*) FROM {source} WHERE k BETWEEN 25000 AND 34999")
        assert scan_counts(out)[:2] == (7, 5), out
        n = quiver_arrow(quiver_bin, db,
                         f"SELECT count(*) AS n FROM {source} WHERE k BETWEEN 25000 AND 34999")
        assert n.column("n").to_pylist() == [10000]


def test_scan_after_update_delete_and_pyiceberg_append(quiver_bin, tmp_path):
    db = tmp_path / "db"
    build_events(quiver_bin, db)
    quiver_sql(quiver_bin, db, "DELETE FROM ev WHERE k % 3 = 0; UPDATE ev SET v = -v WHERE k < 100")
    table = catalog(db).load_table("public.ev")
    table.append(pa.table({"k": pa.array([100000, 100001], pa.int64()),
                           "grp": ["late", None], "v": [1.0, 2.0], "note": [None, "x"]}))
    theirs = catalog(db).load_table("public.ev").scan().to_arrow()
    for where in ("k >= 100000", "k < 100", "grp = 'late'", "true"):
        sql = f"SELECT count(*) AS n, sum(v) AS s, count(note) AS c, max(grp) AS g FROM ev WHERE {where}"
        ours = quiver_arrow(quiver_bin, db, sql).to_pylist()
        expected = duckdb.sql(sql.replace("FROM ev", "FROM theirs")).to_arrow_table().to_pylist()
        assert ours == expected, where
    out = quiver_sql(quiver_bin, db, "EXPLAIN ANALYZE SELECT count(*) FROM ev WHERE k >= 100000")
    files, pruned, _ = scan_counts(out)
    assert files - pruned == 1, out


def child_max_rss_kb(cmd):
    """The peak resident set of one child process (getrusage of children
    reports the largest child so far: each measurement runs in a fresh
    interpreter)."""
    code = (
        "import resource, subprocess, sys\n"
        f"subprocess.run({cmd!r}, check=True, stdout=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(["python3", "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_select_over_a_big_table_does_not_materialize_it(quiver_bin, tmp_path):
    """Ten times the data costs a scan about the same memory: it holds a row
    group or two at a time, never the table (which used to be read whole at
    open: main's binary before the lazy scan peaked at 406 MB for 10 files)."""
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE big (k bigint, s text)")
    # 100K rows of ~200-byte strings per INSERT: ~20 MB in memory per file,
    # far less on disk; 20 files: ~410 MB.
    insert = ("INSERT INTO big SELECT g, repeat('x', 200) || (g % 1000)::text "
              "FROM generate_series({lo}, {hi}) AS g")
    query = "SELECT max(s) AS m, sum(length(s)) AS n FROM big"

    def rss():
        return child_max_rss_kb([str(quiver_bin), "sql", "--db", str(db), "--threads", "1", query])

    quiver_sql(quiver_bin, db, "; ".join(insert.format(lo=i * 100000, hi=i * 100000 + 99999)
                                         for i in range(2)))
    small = rss()
    quiver_sql(quiver_bin, db, "; ".join(insert.format(lo=i * 100000, hi=i * 100000 + 99999)
                                         for i in range(2, 20)))
    large = rss()
    # Scanned, the peak stays near that of two files (allocator noise: tens
    # of MB); materialized, the ~410 MB of rows would be resident.
    assert large < small + 150000, (small, large)
    n = quiver_arrow(quiver_bin, db, query).column("n").to_pylist()
    assert n == [sum(200 + len(str(g % 1000)) for g in range(1000)) * 2000]
