#!/usr/bin/env python3
"""Quiver's `--db` database (Iceberg tables) against DuckDB's database file and pyiceberg, in one run.

    .venv/bin/python bench/iceberg_bench.py                          # 10M rows, SSB SF10
    .venv/bin/python bench/iceberg_bench.py --rows 1M --ssb-sf 1 --no-write
    .venv/bin/python bench/iceberg_bench.py --parts insert --statements 1,10

Two measurements (issue 14's benchmark):

1. INSERT: the same --rows rows (id bigint, ts timestamp, device int, category text, value
   double precision) inserted into an empty table in 1, 10 and 1,000 statements (--statements),
   each statement one commit of 1/k of the rows, read from its own Parquet file (made once by
   DuckDB under <data-dir>):
     quiver     `quiver sql --db DIR -f script.sql`: CREATE TABLE, then k
                `INSERT INTO t SELECT * FROM read_parquet('part-j.parquet')`; the figure is the
                sum of the INSERT statements' own times (--timing), without process start
     duckdb     a DuckDB database file: the same CREATE TABLE and INSERT statements through
                one connection (autocommit: each INSERT commits, its WAL synced)
     pyiceberg  a SqlCatalog (SQLite) table: k times `table.append(pq.read_table(part))`
   Then a point-in-time read on the 10-statement tables: count(*) and sum(value) of the
   snapshot after the 5th INSERT (Quiver `read_iceberg('t', snapshot_id => ...)`, pyiceberg
   `scan(snapshot_id=...)` + pyarrow.compute), and of the current snapshot (DuckDB has no
   time travel over its own tables; it answers only the current read). Every system's
   row count and sums are checked equal.

2. SSB over Iceberg: the SSB tables of `quiver gen ssb --sf S` made `--db` tables by
   CREATE TABLE AS, then the 13 SSB queries (bench/queries/ssb) run by
     iceberg    `quiver sql --db DIR` over the tables (manifests read, files planned)
     parquet    `quiver sql` over views `read_parquet('<the same tables' data files>')`
   interleaved, query by query, answers checked equal; the ratio iceberg / parquet is what
   the table metadata costs (aim: < 5 %, geometric mean under 1.05).

Figures are medians of --repeat runs after one warm-up (INSERT: one run per system; a fresh
database each). Results replace this script's section of bench/RESULTS.md unless --no-write.
"""

import argparse
import datetime
import math
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from benchlib import machine_line, quiver_version, replace_section

ROOT = Path(__file__).resolve().parents[1]
SSB_TABLES = ["lineorder", "date", "part", "supplier", "customer"]
SECTION_START = "<!-- iceberg_bench:start -->"
SECTION_END = "<!-- iceberg_bench:end -->"
COLUMNS = "id bigint, ts timestamp, device int, category text, value double precision"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_count(s):
    s = s.strip().upper()
    mult = {"K": 1_000, "M": 1_000_000}.get(s[-1:], 1)
    return int(float(s[:-1] if mult != 1 else s) * mult)


def quiver_run(quiver, args, sql=None, script=None, timeout=7200):
    cmd = [str(quiver), "sql", *args]
    cmd += ["-f", str(script)] if script else [sql]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"quiver {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return proc


def statement_times(stderr):
    """{statement number: [run times]} from `--timing`'s lines."""
    out = {}
    for n, t in re.findall(r"^Statement (\d+) run \d+: ([0-9.]+) s", stderr, re.M):
        out.setdefault(int(n), []).append(float(t))
    return out


# ----------------------------------------------------------------------------------------------
# 1. INSERT in 1, 10 and 1,000 statements


def make_parts(data_dir, rows, statements):
    """<data-dir>/insert-<rows>/k<k>/part-NNNN.parquet: the rows in k files (made once)."""
    base = data_dir / f"insert-{rows}"
    con = duckdb.connect()
    con.sql(f"""CREATE TABLE src AS SELECT i::BIGINT AS id,
                  TIMESTAMP '2026-01-01' + to_seconds(i) AS ts,
                  (i % 1000)::INTEGER AS device,
                  'category-' || (i % 37)::VARCHAR AS category,
                  ((i * 7919) % 100000) / 100.0 AS value
                FROM range({rows}) t(i)""")
    out = {}
    for k in statements:
        d = base / f"k{k}"
        marker = d / ".complete"
        files = [d / f"part-{j:04d}.parquet" for j in range(k)]
        if not marker.exists():
            log(f"writing {rows:,} rows as {k} Parquet file(s) into {d} ...")
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
            step = -(-rows // k)
            for j, f in enumerate(files):
                con.sql(f"COPY (SELECT * FROM src WHERE id >= {j * step} AND id < {(j + 1) * step} "
                        f"ORDER BY id) TO '{f}' (FORMAT parquet)")
            marker.write_text("ok\n")
        out[k] = files
    return out


def quiver_insert(quiver, work, files):
    db = work / "quiver-db"
    shutil.rmtree(db, ignore_errors=True)
    script = work / "insert.sql"
    with open(script, "w") as f:
        f.write(f"CREATE TABLE t ({COLUMNS});\n")
        for p in files:
            f.write(f"INSERT INTO t SELECT * FROM read_parquet('{p}');\n")
    proc = quiver_run(quiver, ["--db", str(db), "--timing"], script=script)
    times = statement_times(proc.stderr)
    seconds = sum(sum(v) for n, v in times.items() if n >= 2)
    check = quiver_run(quiver, ["--db", str(db), "--format", "csv"],
                       sql="SELECT count(*), sum(id), sum(value) FROM t").stdout.splitlines()[1]
    return seconds, check, db


def duckdb_insert(work, files):
    path = work / "duck.duckdb"
    for p in (path, Path(str(path) + ".wal")):
        p.unlink(missing_ok=True)
    con = duckdb.connect(str(path))
    con.sql(f"CREATE TABLE t ({COLUMNS})")
    t0 = time.perf_counter()
    for p in files:
        con.execute(f"INSERT INTO t SELECT * FROM read_parquet('{p}')")
    seconds = time.perf_counter() - t0
    n, s_id, s_v = con.sql("SELECT count(*), sum(id), sum(value) FROM t").fetchall()[0]
    return seconds, con, (n, s_id, s_v)


def pyiceberg_catalog(work):
    from pyiceberg.catalog.sql import SqlCatalog
    d = work / "pyiceberg"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    cat = SqlCatalog("bench", uri=f"sqlite:///{d}/catalog.db", warehouse=f"file://{d}")
    cat.create_namespace("public")
    return cat


def pyiceberg_insert(work, files, budget):
    cat = pyiceberg_catalog(work)
    schema = pq.read_schema(files[0])
    tbl = cat.create_table("public.t", schema=schema)
    t0 = time.perf_counter()
    done = 0
    for p in files:
        tbl.append(pq.read_table(p))
        done += 1
        if time.perf_counter() - t0 > budget:
            break
    seconds = time.perf_counter() - t0
    return seconds, done, tbl


def measure_inserts(args, quiver, parts, work):
    rows = []
    pit = None
    for k, files in parts.items():
        log(f"INSERT {args.rows:,} rows in {k} statement(s) ...")
        q_s, q_check, q_db = quiver_insert(quiver, work, files)
        d_s, con, d_check = duckdb_insert(work, files)
        p_s, p_done, tbl = pyiceberg_insert(work, files, args.pyiceberg_budget)
        q_n, q_id, q_v = q_check.split(",")
        if int(q_n) != d_check[0] or int(q_id) != d_check[1] or \
                not math.isclose(float(q_v), d_check[2], rel_tol=1e-9):
            raise RuntimeError(f"k={k}: Quiver has {q_check}, DuckDB {d_check}")
        if p_done == k:
            scan = tbl.scan().to_arrow()
            if scan.num_rows != d_check[0] or pc.sum(scan["id"]).as_py() != d_check[1]:
                raise RuntimeError(f"k={k}: pyiceberg has {scan.num_rows} rows")
        per_file = p_s / p_done * k  # extrapolated when the budget stopped it early
        rows.append({"k": k, "quiver": q_s, "duckdb": d_s, "pyiceberg": per_file,
                     "pyiceberg_done": p_done})
        log(f"  quiver {q_s:.3f} s, duckdb {d_s:.3f} s, pyiceberg {p_s:.3f} s ({p_done}/{k} appends)")
        if k == 10:
            pit = measure_point_in_time(args, quiver, q_db, con, tbl, p_done)
        con.close()
    return rows, pit


def median_time(fn, repeat):
    fn()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def measure_point_in_time(args, quiver, q_db, con, tbl, p_done):
    """count(*), sum(value) of the snapshot after the 5th of 10 INSERTs, and of the current one."""
    snaps = quiver_run(quiver, ["--db", str(q_db), "--format", "csv"],
                       sql="SELECT snapshot_id FROM quiver_snapshots('t') "
                           "WHERE operation = 'append' ORDER BY committed_at").stdout.split()[1:]
    q_snap = snaps[4]
    res = {}
    for label, src in (("snapshot 5 of 10", f"read_iceberg('t', snapshot_id => {q_snap})"),
                       ("current", "t")):
        sql = f"SELECT count(*), sum(value) FROM {src}"
        proc = quiver_run(quiver, ["--db", str(q_db), "--format", "csv", "--timing",
                                   "--repeat", str(args.repeat + 1)], sql=sql)
        times = statement_times(proc.stderr)[1][1:]
        res[label] = {"quiver": statistics.median(times),
                      "quiver_answer": proc.stdout.splitlines()[1]}
    p_snaps = [s.snapshot_id for s in tbl.snapshots()]
    if p_done == 10:
        def p_read(snapshot_id):
            t = tbl.scan(snapshot_id=snapshot_id, selected_fields=("value",)).to_arrow()
            return t.num_rows, pc.sum(t["value"]).as_py()

        res["snapshot 5 of 10"]["pyiceberg"] = median_time(lambda: p_read(p_snaps[4]), args.repeat)
        res["current"]["pyiceberg"] = median_time(lambda: p_read(p_snaps[-1]), args.repeat)
        n, s = p_read(p_snaps[4])
        qn, qs = res["snapshot 5 of 10"]["quiver_answer"].split(",")
        if n != int(qn) or not math.isclose(s, float(qs), rel_tol=1e-9):
            raise RuntimeError(f"snapshot 5: pyiceberg {n}, {s}; Quiver {qn}, {qs}")
    res["current"]["duckdb"] = median_time(
        lambda: con.sql("SELECT count(*), sum(value) FROM t").fetchall(), args.repeat)
    return res


# ----------------------------------------------------------------------------------------------
# 2. SSB over Iceberg tables vs the same Parquet files


def prepare_ssb(args, quiver, work):
    src = args.data_dir / f"ssb-parquet-sf{args.ssb_sf:g}"
    if not (src / ".complete").exists():
        log(f"quiver gen ssb --sf {args.ssb_sf:g} --format parquet into {src} ...")
        shutil.rmtree(src, ignore_errors=True)
        subprocess.run([str(quiver), "gen", "ssb", "--sf", str(args.ssb_sf), "--format", "parquet",
                        "--out", str(src)], check=True)
        (src / ".complete").write_text("ok\n")
    db = args.data_dir / f"ssb-iceberg-sf{args.ssb_sf:g}"
    if not (db / ".complete").exists():
        log(f"CREATE TABLE ... AS SELECT into the --db database {db} ...")
        shutil.rmtree(db, ignore_errors=True)
        sql = "".join(f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{src}/{t}*.parquet');"
                      for t in SSB_TABLES)
        quiver_run(quiver, ["--db", str(db)], sql=sql)
        (db / ".complete").write_text("ok\n")
    views = []
    for t in SSB_TABLES:
        files = sorted(db.glob(f"*.db/{t}-*/data/*.parquet"))
        if not files:
            raise RuntimeError(f"no data files of {t} under {db}")
        dirs = {f.parent for f in files}
        if len(dirs) != 1:
            raise RuntimeError(f"the data files of {t} lie in several directories: {sorted(dirs)}")
        views.append(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{files[0].parent}/*.parquet');")
    return db, "\n".join(views) + "\n"


def measure_ssb(args, quiver, work):
    db, views = prepare_ssb(args, quiver, work)
    results = []
    for qfile in sorted((ROOT / "bench" / "queries" / "ssb").glob("q*.sql")):
        sql = qfile.read_text()
        runs = {"iceberg": [], "parquet": []}
        answers = {}
        # Alternate the two, a warm-up each first, so that load drifts hit both alike.
        for rnd in range(args.repeat + 1):
            for how in ("iceberg", "parquet"):
                if how == "iceberg":
                    proc = quiver_run(quiver, ["--db", str(db), "--read-only", "--timing",
                                               "--format", "csv"], sql=sql)
                else:
                    proc = quiver_run(quiver, ["--timing", "--format", "csv"], sql=views + sql)
                t = statement_times(proc.stderr)
                if rnd > 0:
                    runs[how].append(t[max(t)][0])
                # The views' "CREATE VIEW" lines come first: the query's rows are after them.
                answers[how] = proc.stdout.split("CREATE VIEW\n")[-1]
        if answers["iceberg"] != answers["parquet"]:
            raise RuntimeError(f"{qfile.name}: answers differ")
        r = {"query": qfile.stem, "iceberg": statistics.median(runs["iceberg"]),
             "parquet": statistics.median(runs["parquet"])}
        log(f"  {r['query']}: iceberg {r['iceberg']:.3f} s, parquet {r['parquet']:.3f} s, "
            f"ratio {r['iceberg'] / r['parquet']:.3f}")
        results.append(r)
    return results


# ----------------------------------------------------------------------------------------------


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def markdown(args, quiver, started, inserts, pit, ssb):
    out = [f"## Iceberg tables (`--db`): INSERT, point-in-time read, SSB vs Parquet "
           f"({started:%Y-%m-%d %H:%M} UTC)", "",
           f"`{' '.join(['.venv/bin/python', 'bench/iceberg_bench.py'] + sys.argv[1:])}` on "
           f"{machine_line()}; {quiver_version(quiver)}; DuckDB {duckdb.__version__}; pyiceberg "
           f"{__import__('pyiceberg').__version__}. Figures drift on this shared machine: read "
           f"the ratios.", ""]
    if inserts:
        out += [f"### INSERT of {args.rows:,} rows into an empty table", "",
                "Each statement one commit; seconds for all statements (Quiver: the statements' "
                "own times; DuckDB: its own database file, autocommit; pyiceberg: `append` of "
                "each part read with pyarrow). \"÷ Quiver\" above 1: Quiver is faster.", "",
                "| statements | rows each | Quiver s | DuckDB s | ÷ Quiver | pyiceberg s | ÷ Quiver |",
                "|---:|---:|---:|---:|---:|---:|---:|"]
        for r in inserts:
            note = "" if r["pyiceberg_done"] == r["k"] else \
                f" (extrapolated from {r['pyiceberg_done']} appends)"
            out.append(f"| {r['k']:,} | {args.rows // r['k']:,} | {r['quiver']:.3f} | "
                       f"{r['duckdb']:.3f} | {r['duckdb'] / r['quiver']:.2f} | "
                       f"{r['pyiceberg']:.3f}{note} | {r['pyiceberg'] / r['quiver']:.2f} |")
        out.append("")
    if pit:
        out += ["### Point-in-time read (the 10-statement tables): count(*), sum(value)", "",
                "| snapshot | Quiver s | pyiceberg s | ÷ Quiver | DuckDB s | ÷ Quiver |",
                "|---|---:|---:|---:|---:|---:|"]
        for label, r in pit.items():
            p = r.get("pyiceberg")
            d = r.get("duckdb")
            out.append(f"| {label} | {r['quiver']:.4f} | "
                       + (f"{p:.4f} | {p / r['quiver']:.1f}" if p else "– | –") + " | "
                       + (f"{d:.4f} | {d / r['quiver']:.2f}" if d else "– (no time travel) | –")
                       + " |")
        out.append("")
    if ssb:
        g = geomean([r["iceberg"] / r["parquet"] for r in ssb])
        out += [f"### SSB SF{args.ssb_sf:g}: Iceberg tables vs the same Parquet files", "",
                "Seconds (engine time per statement, median); ratio = Iceberg ÷ Parquet "
                "(what reading the table's metadata and planning by field id cost).", "",
                "| query | Iceberg s | Parquet s | ratio |", "|---|---:|---:|---:|"]
        for r in ssb:
            out.append(f"| {r['query']} | {r['iceberg']:.3f} | {r['parquet']:.3f} | "
                       f"{r['iceberg'] / r['parquet']:.3f} |")
        out += [f"| **geometric mean** | | | **{g:.3f}** |", "",
                f"Aim: metadata costs < 5 % (geometric mean < 1.05): "
                f"{'met' if g < 1.05 else '**not met**'}.", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quiver", default=str(ROOT / "build" / "release" / "quiver"))
    ap.add_argument("--rows", default="10M", help="rows inserted (e.g. 1M, 10M)")
    ap.add_argument("--statements", default="1,10,1000", help="comma list of statement counts")
    ap.add_argument("--ssb-sf", type=float, default=10)
    ap.add_argument("--parts", default="insert,ssb", help="insert, ssb or both")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pyiceberg-budget", type=float, default=300,
                    help="seconds after which pyiceberg's appends stop (the rest extrapolated)")
    ap.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "data")
    ap.add_argument("--no-write", action="store_true", help="print only; leave bench/RESULTS.md alone")
    args = ap.parse_args()
    args.rows = parse_count(args.rows)
    args.data_dir = args.data_dir.resolve()
    quiver = Path(args.quiver).resolve()
    parts = set(args.parts.split(","))
    started = datetime.datetime.now(datetime.timezone.utc)
    work = args.data_dir / "iceberg-bench-work"
    work.mkdir(parents=True, exist_ok=True)
    inserts = pit = ssb = None
    try:
        if "insert" in parts:
            statements = [int(x) for x in args.statements.split(",")]
            inserts, pit = measure_inserts(args, quiver, make_parts(args.data_dir, args.rows, statements),
                                           work)
        if "ssb" in parts:
            ssb = measure_ssb(args, quiver, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    md = markdown(args, quiver, started, inserts, pit, ssb)
    print(md)
    if not args.no_write:
        replace_section(ROOT / "bench" / "RESULTS.md", SECTION_START, SECTION_END, md)


if __name__ == "__main__":
    main()
