#!/usr/bin/env python3
"""Tables over files: what statistics and file-name pruning save (issue 13), Quiver vs DuckDB.

One selective query, SSB lineorder restricted to one quarter of 1994:

    SELECT sum(lo_extendedprice * lo_discount), count(*) FROM lineorder
    WHERE <one quarter> AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25

over the same rows laid out several ways (all generated once into --data-dir/files-sf<N>/):

  sorted.arrow        lineorder sorted by lo_orderdate, Arrow IPC, no statistics
  sorted_stats.arrow  the same with PG-Strom min/max statistics on lo_orderdate
                      (`COPY ... (FORMAT arrow, STATS 'lo_orderdate')`)
  sorted.parquet      the same as Parquet (zstd, 122,880-row row groups: DuckDB's default)
  monthly/lo_YYYYMM.arrow   one Arrow file per month, a foreign table with a virtual column
                      (`pattern 'lo_@{ym}.arrow'`), the quarter asked as `ym BETWEEN ...`
  hive/ym=YYYYMM/*.parquet  one directory per month written by DuckDB (PARTITION_BY), read
                      by both with Hive partitioning, the quarter asked as `ym BETWEEN ...`

Quiver's times are its engine's (`quiver sql --timing --repeat`), DuckDB's `con.sql(q).fetchall()`,
both with a warm page cache, median after a warm-up run. For Quiver the table also shows what
EXPLAIN ANALYZE reports: record batches / row groups loaded and skipped, files opened and skipped,
and bytes read. Every variant's answer is checked equal before anything is timed.

    .venv/bin/python bench/file_tables.py --sf 10            # the figures in RESULTS.md
    .venv/bin/python bench/file_tables.py --sf 1 --no-write  # quick look
"""

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.ipc as ipc

from benchlib import machine_line, quiver_version, replace_section

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- file_tables:start -->", "<!-- file_tables:end -->"

COLUMNS = ("lo_orderkey bigint, lo_linenumber integer, lo_custkey integer, lo_partkey integer, "
           "lo_suppkey integer, lo_orderdate integer, lo_orderpriority text, lo_shippriority integer, "
           "lo_quantity integer, lo_extendedprice integer, lo_ordtotalprice integer, lo_discount integer, "
           "lo_revenue integer, lo_supplycost integer, lo_tax integer, lo_commitdate integer, lo_shipmode text")
BY_DATE = "lo_orderdate BETWEEN 19940101 AND 19940331"
BY_MONTH = "ym BETWEEN 199401 AND 199403"
QUERY = ("SELECT sum(lo_extendedprice * lo_discount) AS revenue, count(*) AS n FROM {table} "
         "WHERE {where} AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25")

HINT = re.compile(r"Stats-Hint: .* \[loaded: (\d+), skipped: (\d+)\]")
FILES = re.compile(r"files: (\d+) read, (\d+) skipped by virtual columns")
READ = re.compile(r"\(read: ([0-9.]+)(B|KB|MB|GB), size: ")
UNITS = re.compile(r"units=(\d+) pruned=(\d+)")
SCALE = {"B": 1e-6, "KB": 1e-3, "MB": 1.0, "GB": 1e3}


def quiver(q, sql, *flags):
    proc = subprocess.run([q, "sql", *flags, sql], capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"quiver sql failed: {proc.stderr}\n{sql[:500]}")
    return proc


def prepare(q, sf, data_root):
    """Generates lineorder and its layouts once (a `.complete` marker per step)."""
    gen = data_root / f"ssb-sf{sf:g}"
    if not (gen / ".complete").exists():
        gen.mkdir(parents=True, exist_ok=True)
        print(f"generating ssb sf {sf:g} into {gen} ...", file=sys.stderr)
        subprocess.run([q, "gen", "ssb", "--sf", str(sf), "--out", str(gen)], check=True)
        (gen / ".complete").write_text("ok\n")
    out = data_root / f"files-sf{sf:g}"
    out.mkdir(parents=True, exist_ok=True)
    src = gen / "lineorder.arrow"
    if not (out / ".complete").exists():
        print(f"writing the sorted and monthly layouts into {out} ...", file=sys.stderr)
        order = f"(SELECT * FROM '{src}' ORDER BY lo_orderdate)"
        quiver(q, f"COPY {order} TO '{out}/sorted.arrow' (FORMAT arrow);"
                  f"COPY {order} TO '{out}/sorted_stats.arrow' (FORMAT arrow, STATS 'lo_orderdate');"
                  f"COPY {order} TO '{out}/sorted.parquet' (FORMAT parquet, ROW_GROUP_SIZE 122880)")
        months = [r[0] for r in duckdb.sql(
            f"SELECT DISTINCT lo_orderdate // 100 FROM '{out}/sorted.parquet' ORDER BY 1").fetchall()]
        (out / "monthly").mkdir(exist_ok=True)
        quiver(q, "".join(f"COPY (SELECT * FROM '{src}' WHERE lo_orderdate / 100 = {m}) "
                          f"TO '{out}/monthly/lo_{m}.arrow' (FORMAT arrow);" for m in months))
        duckdb.sql(f"COPY (SELECT *, lo_orderdate // 100 AS ym FROM '{out}/sorted.parquet') TO '{out}/hive' "
                   f"(FORMAT parquet, PARTITION_BY (ym), OVERWRITE_OR_IGNORE)")
        (out / ".complete").write_text("ok\n")
    return out


def variants(d):
    """(label, engine, SQL prelude for Quiver or None, the query)."""
    def foreign(opts, extra=""):
        return f"CREATE FOREIGN TABLE lo ({COLUMNS}{extra}) SERVER arrow_fdw OPTIONS ({opts});"
    hive = f"read_parquet('{d}/hive/*/*.parquet', hive_partitioning = true)"
    return [
        ("Arrow, sorted, no statistics", "quiver", foreign(f"file '{d}/sorted.arrow'"),
         QUERY.format(table="lo", where=BY_DATE)),
        ("Arrow, sorted, min/max statistics", "quiver", foreign(f"file '{d}/sorted_stats.arrow'"),
         QUERY.format(table="lo", where=BY_DATE)),
        ("Arrow, sorted (DuckDB over pyarrow.dataset)", "duckdb-arrow", None,
         QUERY.format(table="lo_dataset", where=BY_DATE)),
        ("Parquet, sorted, row-group statistics", "quiver", "",
         QUERY.format(table=f"'{d}/sorted.parquet'", where=BY_DATE)),
        ("Parquet, sorted, row-group statistics", "duckdb", None,
         QUERY.format(table=f"'{d}/sorted.parquet'", where=BY_DATE)),
        ("monthly Arrow files, virtual column", "quiver",
         foreign(f"dir '{d}/monthly', pattern 'lo_@{{ym}}.arrow'", ", ym bigint OPTIONS (virtual 'ym')"),
         QUERY.format(table="lo", where=BY_MONTH)),
        ("monthly Hive Parquet directories", "quiver", "",
         QUERY.format(table=f"read_parquet('{d}/hive')", where=BY_MONTH)),
        ("monthly Hive Parquet directories", "duckdb", None, QUERY.format(table=hive, where=BY_MONTH)),
    ]


def explain_numbers(q, prelude, sql):
    out = quiver(q, prelude + "EXPLAIN ANALYZE " + sql).stdout
    hint, files, units = HINT.search(out), FILES.search(out), UNITS.search(out)
    loaded = skipped = None
    if hint:
        loaded, skipped = int(hint.group(1)), int(hint.group(2))
    elif units:  # no statistics: every unit read
        loaded, skipped = int(units.group(1)) - int(units.group(2)), int(units.group(2))
    mb = sum(float(v) * SCALE[u] for v, u in READ.findall(out))
    return {"loaded": loaded, "skipped": skipped, "files": (int(files.group(1)), int(files.group(2))) if files else None,
            "mb": mb if READ.search(out) else None}


def quiver_times(q, prelude, sql, repeat):
    proc = quiver(q, prelude + sql, "--format", "csv", "--timing", "--repeat", str(repeat + 1))
    times = [float(m) for m in re.findall(r"^Statement \d+ run \d+: ([0-9.]+) s", proc.stderr, re.M)]
    return times[-(repeat + 1):][1:]


def duck_times(con, sql, repeat):
    out = []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        con.sql(sql).fetchall()
        if i:
            out.append(time.perf_counter() - t0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sf", type=float, default=10)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quiver", default=str(ROOT / "build" / "release" / "quiver"))
    ap.add_argument("--data-dir", default=str(ROOT / "bench" / "data"))
    ap.add_argument("--results", default=str(ROOT / "bench" / "RESULTS.md"))
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    args = ap.parse_args()
    q = args.quiver
    d = prepare(q, args.sf, Path(args.data_dir))
    con = duckdb.connect()
    con.register("lo_dataset", ds.dataset(str(d / "sorted.arrow"), format="ipc"))

    answers, rows = {}, []
    for label, engine, prelude, sql in variants(d):
        if engine == "quiver":
            proc = subprocess.run([q, "sql", "--format", "arrow", prelude + sql], capture_output=True, timeout=3600)
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr.decode())
            got = ipc.open_stream(proc.stdout).read_all()
        else:
            got = con.sql(sql).to_arrow_table()
        answers[(label, engine)] = tuple(got.to_pylist()[0].values())
    distinct = set(answers.values())
    if len(distinct) != 1:
        raise SystemExit(f"the variants disagree: {answers}")
    print(f"every variant answers {distinct.pop()}", file=sys.stderr)

    for label, engine, prelude, sql in variants(d):
        if engine == "quiver":
            t = statistics.median(quiver_times(q, prelude, sql, args.repeat))
            info = explain_numbers(q, prelude, sql)
        else:
            t = statistics.median(duck_times(con, sql, args.repeat))
            info = {}
        rows.append((label, engine, t, info))
        print(f"{label} [{engine}]: {t:.4f} s {info}", file=sys.stderr)

    duck = {label: t for label, engine, t, _ in rows if engine == "duckdb"}
    full = next(t for label, engine, t, _ in rows if engine == "quiver" and "no statistics" in label)
    lines = ["| layout | engine | time | Quiver ÷ DuckDB | Quiver full scan ÷ this | batches / row groups loaded, skipped "
             "| files read, skipped | MB read |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for label, engine, t, info in rows:
        ratio = f"{t / duck[label]:.2f}" if engine == "quiver" and label in duck else ""
        ls = f"{info['loaded']}, {info['skipped']}" if info.get("loaded") is not None else ""
        fs = f"{info['files'][0]}, {info['files'][1]}" if info.get("files") else ""
        mb = f"{info['mb']:.1f}" if info.get("mb") is not None else ""
        name = {"quiver": "Quiver", "duckdb": "DuckDB", "duckdb-arrow": "DuckDB"}[engine]
        lines.append(f"| {label} | {name} | {t:.4f} s | {ratio} | {full / t:.1f} | {ls} | {fs} | {mb} |")
    table = "\n".join(lines)
    print(table)
    if args.no_write:
        return
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md = "\n".join([
        f"## Tables over files: statistics and file-name pruning vs DuckDB ({now})", "",
        f"Command: `.venv/bin/python bench/file_tables.py --sf {args.sf:g} --repeat {args.repeat}`  ",
        f"Machine: {machine_line()}; {quiver_version(q)}, DuckDB {duckdb.__version__}, pyarrow {pa.__version__}.  ",
        f"Query: `{QUERY.format(table='lineorder', where=BY_DATE)}` (SSB lineorder SF {args.sf:g}, "
        f"{os.path.getsize(d / 'sorted.arrow') / 1e9:.1f} GB as Arrow); the monthly layouts ask `{BY_MONTH}`. "
        "Every variant's answer is checked equal first. Warm page cache, median of the runs after a warm-up; "
        "Quiver's time is the engine's, DuckDB's `fetchall()`. The loaded / skipped, files and MB columns are "
        "Quiver's EXPLAIN ANALYZE. \"Quiver full scan ÷ this\" is the speed-up over Quiver reading the file "
        "without statistics.", "",
        table])
    replace_section(args.results, START, END, md)


if __name__ == "__main__":
    main()
