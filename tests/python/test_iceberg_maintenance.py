"""VACUUM and CALL expire_snapshots on `--db` tables (issue 14 item 2):
compaction in one commit, files nothing refers to removed, pyiceberg reads
the same content afterwards, time travel to an expired snapshot is a clear
error."""

import os
import subprocess
import time

import pyarrow as pa
import pytest

pyiceberg_sql = pytest.importorskip("pyiceberg.catalog.sql")

from test_iceberg_db import quiver_arrow, catalog, rows  # noqa: E402


def quiver_sql(quiver_bin, db, sql, check=True):
    proc = subprocess.run(
        [str(quiver_bin), "sql", "--db", str(db), sql],
        capture_output=True, text=True, timeout=120,
    )
    if check and proc.returncode != 0:
        pytest.fail(f"quiver sql failed ({proc.returncode}): {sql}\n{proc.stderr}", pytrace=False)
    return proc if not check else proc.stdout





def snapshot_ids(quiver_bin, db, table):
    out = quiver_arrow(quiver_bin, db, f"SELECT snapshot_id, committed_at FROM quiver_snapshots('{table}')")
    return out.column("snapshot_id").to_pylist()


def table_files(db):
    """Every file under the table directories of DIR."""
    return sorted(str(p) for p in (db / "public.db").rglob("*") if p.is_file())


def referenced_files(db, name):
    """The files pyiceberg's metadata of table `name` leads to: metadata
    file and its log, every snapshot's manifest list, manifests, data files."""
    table = catalog(db).load_table(f"public.{name}")
    io = table.io
    out = {table.metadata_location}
    out |= {m.metadata_file for m in table.metadata.metadata_log}
    for snap in table.metadata.snapshots:
        out.add(snap.manifest_list)
        for m in snap.manifests(io):
            out.add(m.manifest_path)
            for e in m.fetch_manifest_entry(io):
                out.add(e.data_file.file_path)
    return sorted(p.removeprefix("file://") for p in out)


def referenced_by_kind(db, name):
    """The files pyiceberg's metadata of table `name` leads to, by kind."""
    table = catalog(db).load_table(f"public.{name}")
    io = table.io
    out = {"manifest_lists": set(), "manifests": set(), "data": set(), "position_deletes": set(),
           "equality_deletes": set()}
    kinds = {0: "data", 1: "position_deletes", 2: "equality_deletes"}
    for snap in table.metadata.snapshots:
        out["manifest_lists"].add(snap.manifest_list)
        for m in snap.manifests(io):
            out["manifests"].add(m.manifest_path)
            for e in m.fetch_manifest_entry(io, discard_deleted=False):
                out[kinds[int(e.data_file.content)]].add(e.data_file.file_path)
    return out


def expected_counts(before, after, orphans=0):
    """The counts a maintenance statement reports, from pyiceberg's view of
    the metadata before and after it."""
    gone = {k: len(before[k] - after[k]) for k in before}
    return {
        "deleted_data_files_count": gone["data"],
        "deleted_position_delete_files_count": gone["position_deletes"],
        "deleted_equality_delete_files_count": gone["equality_deletes"],
        "deleted_manifest_files_count": gone["manifests"],
        "deleted_manifest_lists_count": gone["manifest_lists"],
        "deleted_orphan_files_count": orphans,
    }


def test_vacuum_compacts_small_files(quiver_bin, tmp_path):
    db = tmp_path / "db"
    stmts = ["CREATE TABLE v (k bigint, s text)"]
    stmts += [f"INSERT INTO v SELECT g, 's' || g FROM generate_series({i * 100}, {i * 100 + 99}) AS g"
              for i in range(12)]
    stmts.append("DELETE FROM v WHERE k % 10 = 0")  # an overwrite: one file
    stmts += [f"INSERT INTO v VALUES ({2000 + i}, 'late')" for i in range(5)]
    quiver_sql(quiver_bin, db, "; ".join(stmts))
    before = catalog(db).load_table("public.v").scan().to_arrow()
    # An orphan a crashed commit would leave (not referenced by any metadata).
    location = catalog(db).load_table("public.v").metadata.location.removeprefix("file://")
    orphan = f"{location}/data/99999-orphan.parquet"
    open(orphan, "wb").write(b"PAR1")
    n_snaps = len(snapshot_ids(quiver_bin, db, "v"))
    data_files = lambda: len(list(catalog(db).load_table("public.v").scan().plan_files()))  # noqa: E731
    assert data_files() == 6
    refs_before = referenced_by_kind(db, "v")
    out = quiver_arrow(quiver_bin, db, "VACUUM v").to_pylist()
    # Six small files rewritten into one; only the orphan goes (the older
    # snapshots still list the files rewritten).
    assert out == [{"table_name": "v", "rewritten_data_files_count": 6,
                    "added_data_files_count": 1,
                    **expected_counts(refs_before, referenced_by_kind(db, "v"), orphans=1)}]
    assert out[0]["deleted_data_files_count"] == 0
    assert data_files() == 1
    snaps = quiver_arrow(quiver_bin, db, "SELECT operation, is_current FROM quiver_snapshots('v')")
    assert len(snaps) == n_snaps + 1
    assert snaps.to_pylist()[-1] == {"operation": "replace", "is_current": True}
    after = catalog(db).load_table("public.v").scan().to_arrow()
    assert rows(after, "k") == rows(before, "k")
    assert rows(quiver_arrow(quiver_bin, db, "SELECT * FROM v"), "k") == rows(before, "k")
    # The orphan is gone, every file left is one the metadata refers to.
    assert not os.path.exists(orphan)
    assert table_files(db) == referenced_files(db, "v")
    # A second VACUUM has nothing to compact: no new snapshot.
    quiver_sql(quiver_bin, db, "VACUUM")
    assert len(snapshot_ids(quiver_bin, db, "v")) == n_snaps + 1


def test_expire_snapshots(quiver_bin, tmp_path):
    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE x (k int); INSERT INTO x VALUES (1)")
    quiver_sql(quiver_bin, db, "INSERT INTO x VALUES (2)")
    quiver_sql(quiver_bin, db, "DELETE FROM x WHERE k = 1")
    time.sleep(0.05)
    cut = quiver_arrow(quiver_bin, db, "SELECT now() AS t").column("t")[0].as_py()
    time.sleep(0.05)
    quiver_sql(quiver_bin, db, "INSERT INTO x VALUES (3)")
    snaps = snapshot_ids(quiver_bin, db, "x")
    assert len(snaps) == 4
    old = snaps[0]
    assert quiver_arrow(quiver_bin, db, f"SELECT k FROM read_iceberg('x', snapshot_id => {old})"
                        ).to_pylist() == [{"k": 1}]
    files_before = table_files(db)
    # Before the cut: the first three; retain_last => 2 keeps the third too.
    refs_before = referenced_by_kind(db, "x")
    out = quiver_arrow(quiver_bin, db,
                       f"CALL expire_snapshots('x', older_than => TIMESTAMPTZ '{cut}', "
                       "retain_last => 2)").to_pylist()
    assert out == [{"table_name": "x", "expired_snapshots_count": 2,
                    **expected_counts(refs_before, referenced_by_kind(db, "x"))}]
    # The first INSERT's file and the one DELETE rewrote away, with their
    # manifests and the two manifest lists.
    assert out[0]["deleted_data_files_count"] == 2
    assert out[0]["deleted_manifest_lists_count"] == 2
    # The two snapshots' manifest lists, manifests and data files are gone.
    assert len(table_files(db)) == len(files_before) - 6 + 1  # + the new metadata file
    assert snapshot_ids(quiver_bin, db, "x") == snaps[2:]
    assert table_files(db) == referenced_files(db, "x")
    # Content unchanged, for Quiver and pyiceberg.
    assert sorted(quiver_arrow(quiver_bin, db, "SELECT k FROM x").column("k").to_pylist()) == [2, 3]
    theirs = catalog(db).load_table("public.x").scan().to_arrow()
    assert sorted(theirs.column("k").to_pylist()) == [2, 3]
    # Time travel to an expired snapshot: a clear error.
    r = quiver_sql(quiver_bin, db, f"SELECT * FROM read_iceberg('x', snapshot_id => {old})", check=False)
    assert r.returncode != 0 and "expired" in r.stderr, r.stderr
    r = quiver_sql(quiver_bin, db,
                   "SELECT * FROM read_iceberg('x', as_of => TIMESTAMPTZ '2000-01-01 00:00:00+00')",
                   check=False)
    assert r.returncode != 0 and "expired" in r.stderr, r.stderr
    # The snapshots kept still read.
    assert quiver_arrow(quiver_bin, db, f"SELECT k FROM read_iceberg('x', snapshot_id => {snaps[2]})"
                        ).to_pylist() == [{"k": 2}]
    # Everything older: the current snapshot stays (default retain_last 1).
    quiver_sql(quiver_bin, db, "CALL expire_snapshots('x', older_than => now() + interval '1 day')")
    assert snapshot_ids(quiver_bin, db, "x") == snaps[3:]
    assert sorted(catalog(db).load_table("public.x").scan().to_arrow().column("k").to_pylist()) == [2, 3]
    for sql, message in [
        ("CALL expire_snapshots('x')", "older_than"),
        ("CALL expire_snapshots('x', older_than => now(), retain_last => 0)", "at least 1"),
        ("CALL expire_snapshots('nope', older_than => now())", 'relation "nope" does not exist'),
        ("CALL expire_snapshots('x', older_than => now(), keep => 1)", 'no argument "keep"'),
        ("CALL nothing_here()", "procedure nothing_here() does not exist"),
        ("VACUUM FULL x", "VACUUM options"),
    ]:
        r = quiver_sql(quiver_bin, db, sql, check=False)
        assert r.returncode != 0 and message in r.stderr, (sql, r.stderr)


def test_counts_over_flight_sql_and_in_memory(quiver_bin, tmp_path):
    """The result rows reach a Flight SQL client (the prepared statement
    announces their columns); tables held in memory have nothing to report."""
    from adbc_driver_flightsql import dbapi as flightsql
    from flight_fixtures import Server

    db = tmp_path / "db"
    quiver_sql(quiver_bin, db, "CREATE TABLE f (k int); INSERT INTO f VALUES (1); "
               "INSERT INTO f VALUES (2); DELETE FROM f WHERE k = 1")
    refs_before = referenced_by_kind(db, "f")
    server = Server(quiver_bin, "--db", db)
    try:
        with flightsql.connect(server.uri) as conn:
            cur = conn.cursor()
            cur.execute("CALL expire_snapshots('f', older_than => now() + interval '1 day')")
            got = cur.fetch_arrow_table().to_pylist()
            cur.execute("VACUUM")
            vacuum = cur.fetch_arrow_table()
            cur.close()
    finally:
        server.stop()
    assert got == [{"table_name": "f", "expired_snapshots_count": 2,
                    **expected_counts(refs_before, referenced_by_kind(db, "f"))}]
    assert got[0]["deleted_data_files_count"] == 2
    assert vacuum.num_rows == 1 and vacuum.column("rewritten_data_files_count")[0].as_py() == 0
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "csv", "CREATE TABLE m (a int); VACUUM"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("table_name,rewritten_data_files_count")
