"""Crash safety of `quiver sql --db DIR` (issue 14): a commit killed at any
point leaves the table as it was before the statement, for Quiver, for
`read_iceberg` over the table's path and for pyiceberg's SqlCatalog.

The oracles are independent of Quiver: a Python model of the statements
(which rows each prefix of them leaves), Python's sqlite3 reading the catalog
row, the files on disk, and pyiceberg's scan.
"""

import random
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("pyiceberg.catalog.sql")

from test_iceberg_db import catalog, quiver_arrow, quiver_sql  # noqa: E402


def catalog_location(db, name):
    """The metadata file the catalog row names (Python's sqlite3)."""
    con = sqlite3.connect(f"file:{db}/catalog.db?mode=ro", uri=True)
    try:
        (loc,) = con.execute(
            "SELECT metadata_location FROM iceberg_tables WHERE table_name = ?", (name,)
        ).fetchone()
    finally:
        con.close()
    return loc.removeprefix("file://")


def metadata_versions(table_dir):
    """N of every vN.metadata.json in the table's metadata directory."""
    out = []
    for p in (Path(table_dir) / "metadata").iterdir():
        if p.name.startswith("v") and p.name.endswith(".metadata.json"):
            out.append(int(p.name[1:-len(".metadata.json")]))
    return sorted(out)


def temp_files(table_dir):
    return sorted(str(p) for p in Path(table_dir).rglob("*.tmp-*"))


def sorted_rows(table, *cols):
    return sorted(tuple(r[c] for c in cols) for r in table.to_pylist())


def test_killed_commit_metadata_is_not_read(quiver_bin, tmp_path):
    """What a commit killed after writing its metadata file but before the
    catalog swap leaves (its data file, manifest, manifest list, the next
    vN.metadata.json, temporary files) is invisible to every reader, and a
    writer's open removes the metadata and temporary files; VACUUM the rest."""
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE t (k int); INSERT INTO t VALUES (1)")
    table_dir = catalog(db).load_table("public.t").metadata.location.removeprefix("file://")
    before = {p for p in Path(table_dir).rglob("*") if p.is_file()}
    saved = (db / "catalog.db").read_bytes()
    quiver_sql(quiver_bin, db, "INSERT INTO t VALUES (2)")
    # The catalog as it was before the second commit's swap: the state a kill
    # between step 3 and step 4 of a commit leaves.
    (db / "catalog.db").write_bytes(saved)
    killed = {p for p in Path(table_dir).rglob("*") if p.is_file()} - before
    stale = Path(table_dir) / "metadata" / "v3.metadata.json"
    assert stale in killed and len(killed) == 4  # + data file, manifest, manifest list
    killed_files = killed - {stale}
    # Temporary files of a commit killed while writing.
    (Path(table_dir) / "metadata" / "v4.metadata.json.tmp-0badf00d").write_text("{")
    (Path(table_dir) / "data" / "00004-x.parquet.tmp-1234abcd").write_bytes(b"PAR1")
    assert metadata_versions(table_dir) == [1, 2, 3]

    def read_path(extra=()):
        proc = subprocess.run(
            [str(quiver_bin), "sql", *extra, "--format", "csv",
             f"SELECT k FROM read_iceberg('{table_dir}') ORDER BY k"],
            capture_output=True, text=True, timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split()[1:]

    # Nobody has opened the database since: the catalog still decides.
    assert sorted(catalog(db).load_table("public.t").scan().to_arrow().column("k").to_pylist()) == [1]
    assert read_path() == ["1"]
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--db", str(db), "--read-only", "--format", "csv",
         "SELECT k FROM t ORDER BY k"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["k", "1"], proc.stderr
    assert stale.exists()  # a reader removes nothing
    # A writer's open removes the stale metadata and temporary files; the
    # highest-numbered metadata file is the committed one again.
    assert quiver_arrow(quiver_bin, db, "SELECT k FROM t").to_pydict() == {"k": [1]}
    assert not stale.exists()
    assert temp_files(table_dir) == []
    assert metadata_versions(table_dir) == [1, 2]
    assert catalog_location(db, "t").endswith("/v2.metadata.json")
    assert all(p.exists() for p in killed_files)  # until VACUUM
    # The next commit takes the number again.
    quiver_sql(quiver_bin, db, "INSERT INTO t VALUES (3)")
    assert catalog_location(db, "t").endswith("/v3.metadata.json")
    assert read_path() == ["1", "3"]
    theirs = catalog(db).load_table("public.t").scan().to_arrow()
    assert sorted(theirs.column("k").to_pylist()) == [1, 3]
    quiver_sql(quiver_bin, db, "VACUUM t")
    assert not any(p.exists() for p in killed_files)
    assert sorted(quiver_arrow(quiver_bin, db, "SELECT k FROM t").column("k").to_pylist()) == [1, 3]


def test_other_engines_metadata_is_left_alone(quiver_bin, tmp_path):
    """pyiceberg names its metadata files NNNNN-<uuid>.metadata.json and may be
    committing while Quiver opens: Quiver removes only files of its own naming."""
    import pyarrow as pa

    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE w (id bigint); INSERT INTO w VALUES (1)")
    table = catalog(db).load_table("public.w")
    table_dir = table.metadata.location.removeprefix("file://")
    table.append(pa.table({"id": pa.array([2], pa.int64())}))
    # A pyiceberg commit in flight (metadata written, catalog not yet swapped).
    inflight = Path(table_dir) / "metadata" / "00099-5e0e6f1d-0000-0000-0000-000000000000.metadata.json"
    shutil.copy(catalog_location(db, "w"), inflight)
    assert quiver_arrow(quiver_bin, db, "SELECT count(*) AS n FROM w").to_pydict() == {"n": [2]}
    assert inflight.exists()
    # read_iceberg over the path follows the catalog, not the highest number.
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--format", "csv",
         f"SELECT count(*) AS n FROM read_iceberg('{table_dir}')"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["n", "2"], proc.stderr


# ---- 50 runs killed with SIGKILL at random moments ----

# Long enough that a run rarely finishes before its kill.
STMTS_PER_SCRIPT = 100


def statement(n, copy_dir, rng_seed=1414):
    """Statement number n (n >= 1) of the endless workload: mostly INSERTs of a
    recognisable batch (k rows tagged n), COPY FROM of such a batch (its CSV
    file written into copy_dir), some UPDATEs, DELETEs of an earlier batch,
    VACUUM and expire_snapshots. Deterministic in n."""
    r = random.Random(rng_seed * 1_000_003 + n)
    kind = r.random()
    if kind < 0.52 or n < 3:
        k = r.randint(1, 300)
        return ("insert", k), (
            f"INSERT INTO c SELECT {n}, g, 'v{n}' FROM generate_series(1, {k}) AS g")
    if kind < 0.62:
        k = r.randint(1, 300)
        path = Path(copy_dir) / f"copy{n}.csv"
        if not path.exists():
            path.write_text("".join(f"{n},{g},v{n}\n" for g in range(1, k + 1)))
        return ("insert", k), f"COPY c FROM '{path}' (FORMAT csv, HEADER false)"
    if kind < 0.74:
        m = r.randint(0, 3)
        return ("update", m), f"UPDATE c SET v = v || '+{n}' WHERE stmt % 4 = {m} AND i % 3 = 0"
    if kind < 0.86:
        victim = r.randint(1, n - 1)
        return ("delete", victim), f"DELETE FROM c WHERE stmt = {victim} OR i = {n % 7 + 290}"
    if kind < 0.95:
        return ("noop", None), "VACUUM c"
    return ("noop", None), (
        "CALL expire_snapshots('c', older_than => now() - interval '1 second', retain_last => 3)")


def apply(rows, n, op):
    kind, arg = op
    if kind == "insert":
        return rows + [(n, g, f"v{n}") for g in range(1, arg + 1)]
    if kind == "update":
        return [(s, i, v + f"+{n}" if s % 4 == arg and i % 3 == 0 else v) for (s, i, v) in rows]
    if kind == "delete":
        return [(s, i, v) for (s, i, v) in rows if not (s == arg or i == n % 7 + 290)]
    return rows


def test_sigkill_50_runs_leave_a_prefix_of_statements(quiver_bin, tmp_path):
    """Each run starts `quiver sql --db` on the next statements (INSERT, COPY
    FROM, UPDATE, DELETE, VACUUM, expire_snapshots) and kills it
    with SIGKILL at a random moment. Afterwards the table is exactly what a
    prefix of the statements makes (each fully applied or not at all), the
    database opens for writing again, read_iceberg over the table's path reads
    the same rows, no metadata file above the committed one is left, and
    pyiceberg agrees (every tenth run and at the end)."""
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE c (stmt int NOT NULL, i int NOT NULL, v text)")
    table_dir = catalog(db).load_table("public.c").metadata.location.removeprefix("file://")
    rng = random.Random(14)
    done = 0        # statements committed so far
    model = []      # the rows they leave
    kills = 0
    for run in range(50):
        # The states each prefix of this run's statements leaves.
        states = [model]
        ops = []
        for n in range(done + 1, done + STMTS_PER_SCRIPT + 1):
            op, sql = statement(n, tmp_path)
            ops.append(sql)
            states.append(apply(states[-1], n, op))
        script = tmp_path / "script.sql"
        script.write_text("".join(s + ";\n" for s in ops))
        proc = subprocess.Popen(
            [str(quiver_bin), "sql", "--db", str(db), "-f", str(script)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        # Kill times spread from before the database opens to late in the script.
        time.sleep(rng.choice([rng.uniform(0.0, 0.05), rng.uniform(0.02, 0.6)]))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        _, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), err.decode()

        # Reopened as a writer (a stale lock would refuse it): the catalog's
        # view and read_iceberg over the table's path, in one process.
        both = quiver_arrow(
            quiver_bin, db,
            "SELECT 'db' AS src, stmt, i, v FROM c UNION ALL "
            f"SELECT 'path' AS src, stmt, i, v FROM read_iceberg('{table_dir}')")
        ours = sorted((r["stmt"], r["i"], r["v"]) for r in both.to_pylist() if r["src"] == "db")
        by_path = sorted((r["stmt"], r["i"], r["v"]) for r in both.to_pylist() if r["src"] == "path")
        matches = [p for p, s in enumerate(states) if len(s) == len(ours) and sorted(s) == ours]
        assert matches, (
            f"run {run}: the table is no prefix of statements {done + 1}..; "
            f"{len(ours)} rows, last statement seen {max((r[0] for r in ours), default=None)}")
        assert by_path == ours, f"run {run}: read_iceberg over the path differs from the table"
        # The open removed any killed commit's metadata file.
        current = catalog_location(db, "c")
        assert Path(current).name == f"v{metadata_versions(table_dir)[-1]}.metadata.json", run
        assert temp_files(table_dir) == []
        p = matches[-1]  # equal states: the statements between changed nothing
        done += p
        model = states[p]
        if run % 10 == 9:
            theirs = catalog(db).load_table("public.c").scan().to_arrow()
            assert sorted_rows(theirs, "stmt", "i", "v") == ours, f"run {run}: pyiceberg differs"
    print(f"{kills} of 50 runs killed, {done} statements committed")
    # Half the kill times fall before the first commit can finish, the
    # others in a script of 100 commits: most runs are killed, not finished.
    assert kills >= 25
    assert done > 50     # and the workload went on across them
    quiver_sql(quiver_bin, db, "VACUUM c")
    theirs = catalog(db).load_table("public.c").scan().to_arrow()
    assert sorted_rows(theirs, "stmt", "i", "v") == sorted(model)
    ours = quiver_arrow(quiver_bin, db, "SELECT stmt, i, v FROM c")
    assert sorted_rows(ours, "stmt", "i", "v") == sorted(model)
