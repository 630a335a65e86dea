#!/usr/bin/env python3
"""SSB, TPC-H, SQL features and JSON: Quiver vs DuckDB on the same Arrow files, in one run.

    .venv/bin/python bench/sql_bench.py                       # SSB SF1, SSB SF10, TPC-H SF1
    .venv/bin/python bench/sql_bench.py --suites ssb:1 --repeat 5 --no-write
    .venv/bin/python bench/sql_bench.py --suites ssb:1,tpch:1 --baseline-quiver OLD/quiver --baseline-label 73c0bc9
    .venv/bin/python bench/sql_bench.py --suites ssb_olap:10,json:10 --data-dir /work/benchdata

Suites: ssb and tpch (the benchmarks' queries), ssb_olap (windows, ROLLUP and CUBE over SSB
lineorder), json (field extraction over JSON text; its "sf" is millions of rows, made by
bench/json_data.py). Where DuckDB's SQL differs from Quiver's (PostgreSQL's), the query
has a sibling NAME.duckdb.sql that DuckDB runs instead; both must give the same answer.

For each suite the data is generated once with `quiver gen` (json: bench/json_data.py) into
<data-dir>/<data set>-sf<N>/ (default bench/data; reused afterwards, a .complete file marks it
done). Only the tables the suite's queries name are loaded. Then every query runs, in turn
for each system (so a noisy neighbour slows all of them alike):

  quiver            `quiver sql --timing --repeat R` over views on the files;
                    the engine's own per-statement time (parse to last row),
                    without process start-up
  duckdb native     DuckDB's own tables, loaded from the files (CREATE TABLE AS)
  duckdb arrow      DuckDB scanning the Arrow tables in memory (pyarrow, registered)
  baseline          (with --baseline-quiver) another Quiver binary, e.g. an older commit's,
                    run the same way in the same interleaving: before/after in one run

Each figure is the median of R runs after one warm-up run; all systems use
every core. Ratios are Quiver's time divided by the peer's (below 1: Quiver is
faster); the geometric mean summarises a suite. Results (with command, machine
and versions) replace this suite's section of bench/RESULTS.md.
"""

import argparse
import datetime
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc

ROOT = Path(__file__).resolve().parents[1]
SSB_TABLES = ["lineorder", "date", "part", "supplier", "customer"]
# suite: (the `quiver gen` data set it runs on, its tables); queries are bench/queries/<suite>/*.sql
SUITES = {"ssb": ("ssb", SSB_TABLES),
          "ssb_olap": ("ssb", SSB_TABLES),  # windows, ROLLUP and CUBE over SSB (issue 12)
          "json": ("json", ["events"]),  # JSON field extraction over text (issue 12)
          "tpch": ("tpch", ["region", "nation", "supplier", "customer", "part", "partsupp", "orders",
                            "lineitem"])}
# The RESULTS.md section each suite's table goes to.
SECTIONS = {"ssb": "SQL: SSB and TPC-H vs DuckDB", "tpch": "SQL: SSB and TPC-H vs DuckDB",
            "ssb_olap": "SQL: windows, ROLLUP and CUBE vs DuckDB",
            "json": "SQL: JSON field extraction vs DuckDB"}
sys.path.insert(0, str(ROOT / "tests" / "python"))
from result_compare import assert_same_result  # noqa: E402


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def generate(quiver, bench, sf, data_root):
    out = data_root / f"{bench}-sf{sf:g}"
    marker = out / ".complete"
    if not marker.exists():
        out.mkdir(parents=True, exist_ok=True)
        print(f"generating {bench} sf {sf:g} into {out} ...", file=sys.stderr)
        if bench == "json":
            subprocess.run([sys.executable, str(ROOT / "bench" / "json_data.py"), "--millions", str(sf),
                            "--out", str(out)], check=True)
        else:
            subprocess.run([quiver, "gen", bench, "--sf", str(sf), "--out", str(out)], check=True)
        marker.write_text("ok\n")
    return out


def quiver_times(quiver, prelude, sql, repeat):
    """Per-run engine times of `sql` (first run is the warm-up)."""
    proc = subprocess.run([quiver, "sql", "--format", "csv", "--timing", "--repeat", str(repeat + 1), prelude + sql],
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    times = [float(m) for m in re.findall(r"^Statement \d+ run \d+: ([0-9.]+) s", proc.stderr, re.M)]
    # The prelude's CREATE VIEW statements come first; the query's runs last.
    return times[-(repeat + 1):][1:]


def check_answer(quiver, prelude, sql, con, duck_sql, label):
    """Quiver's answer equals DuckDB's (types, values, order where ORDER BY fixes it):
    a benchmark of a wrong answer measures nothing."""
    proc = subprocess.run([quiver, "sql", "--format", "arrow", prelude + sql], capture_output=True,
                          timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode())
    ours = ipc.open_stream(proc.stdout).read_all()
    assert_same_result(ours, con.sql(duck_sql).to_arrow_table(), duck_sql, label)


def duck_times(con, sql, repeat):
    out = []
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        con.sql(sql).fetchall()
        dt = time.perf_counter() - t0
        if i > 0:
            out.append(dt)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suites", default="ssb:1,ssb:10,tpch:1", help="comma list of bench:sf")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quiver", default=str(ROOT / "build" / "release" / "quiver"))
    ap.add_argument("--data-dir", default=str(ROOT / "bench" / "data"))
    ap.add_argument("--queries", default="", help="comma list of query names to run (default all)")
    ap.add_argument("--no-write", action="store_true", help="print the tables only")
    ap.add_argument("--no-arrow-scan", action="store_true",
                    help="leave out the DuckDB-over-Arrow peer (halves a long run; its columns show -)")
    ap.add_argument("--results", default=str(ROOT / "bench" / "RESULTS.md"))
    ap.add_argument("--baseline-quiver", default="",
                    help="also run this Quiver binary (e.g. an older build) in the same interleaving")
    ap.add_argument("--baseline-label", default="baseline", help="the baseline's name in the tables")
    args = ap.parse_args()
    base = args.baseline_quiver
    only = set(filter(None, args.queries.split(",")))
    sections = {}  # RESULTS.md section title -> the suites' tables
    for spec in args.suites.split(","):
        bench, sf = spec.split(":")
        sf = float(sf)
        gen, tables = SUITES[bench]
        datadir = generate(args.quiver, gen, sf, Path(args.data_dir))
        queries = []  # (name, Quiver's SQL, DuckDB's SQL)
        for qf in sorted((ROOT / "bench" / "queries" / bench).glob("*.sql")):
            if qf.name.endswith(".duckdb.sql") or (only and qf.stem not in only):
                continue
            duck = qf.with_name(qf.stem + ".duckdb.sql")
            queries.append((qf.stem, qf.read_text(), duck.read_text() if duck.exists() else qf.read_text()))
        text = " ".join(q[1] + q[2] for q in queries).lower()
        tables = [t for t in tables if re.search(rf"\b{t}\b", text)]
        prelude = "".join(f'CREATE VIEW "{t}" AS SELECT * FROM read_arrow(\'{datadir}/{t}.arrow\');' for t in tables)
        # Memory-mapped: the Arrow-scan peer reads the page cache, no copy (SF 10 is 5 GB).
        arrow = {t: ipc.open_file(pa.memory_map(f"{datadir}/{t}.arrow")).read_all() for t in tables}
        native = duckdb.connect()
        for t, tab in arrow.items():
            native.register("src_" + t, tab)
            native.execute(f'CREATE TABLE "{t}" AS SELECT * FROM src_{t}')
            native.unregister("src_" + t)
        scan = duckdb.connect()
        for t, tab in arrow.items():
            if not args.no_arrow_scan:
                scan.register(t, tab)
        rows = []
        for name, sql, duck_sql in queries:
            check_answer(args.quiver, prelude, sql, native, duck_sql, f"{bench} sf{sf:g} {name}")
            q = statistics.median(quiver_times(args.quiver, prelude, sql, args.repeat))
            n = statistics.median(duck_times(native, duck_sql, args.repeat))
            a = math.nan if args.no_arrow_scan else statistics.median(duck_times(scan, duck_sql, args.repeat))
            b = statistics.median(quiver_times(base, prelude, sql, args.repeat)) if base else None
            rows.append((name, q, n, a, b))
            print(f"{bench} sf{sf:g} {name}: quiver {q:.3f}s  duckdb native {n:.3f}s ({q / n:.2f})  "
                  f"duckdb arrow {a:.3f}s ({q / a:.2f})"
                  + (f"  {args.baseline_label} {b:.3f}s ({q / b:.2f})" if base else ""), file=sys.stderr)
        geo_n = math.exp(sum(math.log(r[1] / r[2]) for r in rows) / len(rows))
        geo_a = math.nan if args.no_arrow_scan else math.exp(sum(math.log(r[1] / r[3]) for r in rows) / len(rows))
        head = "| query | Quiver | DuckDB native | Quiver ÷ native | DuckDB Arrow scan | Quiver ÷ Arrow scan |"
        rule = "|---|---:|---:|---:|---:|---:|"
        if base:
            head += f" Quiver {args.baseline_label} | Quiver ÷ {args.baseline_label} |"
            rule += "---:|---:|"
        lines = [f"### {bench.upper()} SF{sf:g}", "", head, rule]
        for name, q, n, a, b in rows:
            line = (f"| {name} | {q:.3f} s | {n:.3f} s | {q / n:.2f} | " +
                    ("- | - |" if math.isnan(a) else f"{a:.3f} s | {q / a:.2f} |"))
            if base:
                line += f" {b:.3f} s | {q / b:.2f} |"
            lines.append(line)
        geo = f"| **geometric mean** | | | **{geo_n:.2f}** | | **" + ("-" if math.isnan(geo_a) else f"{geo_a:.2f}") + "** |"
        if base:
            geo_b = math.exp(sum(math.log(r[1] / r[4]) for r in rows) / len(rows))
            geo += f" | **{geo_b:.2f}** |"
        lines.append(geo)
        sections.setdefault(SECTIONS[bench], []).append("\n".join(lines))
        print("\n".join(lines))
    if args.no_write:
        return
    for title, tables in sections.items():
        write_section(args, base, title, tables)


def write_section(args, base, title, tables):
    """Replaces (or appends) the section `title` of RESULTS.md."""
    suites = ",".join(s for s in args.suites.split(",") if SECTIONS[s.split(":")[0]] == title)
    header = [f"## {title} (`bench/sql_bench.py`)", "",
              f"Command: `.venv/bin/python bench/sql_bench.py --suites {suites} --repeat {args.repeat}"
              + (" --no-arrow-scan" if args.no_arrow_scan else "")
              + (f" --baseline-quiver <{args.baseline_label} build> --baseline-label {args.baseline_label}" if base else "")
              + "`  ",
              f"Date: {datetime.date.today()}, machine: {os.cpu_count()} cores ({cpu_model()}), "
              f"DuckDB {duckdb.__version__}, pyarrow {pa.__version__}.  ",
              "Median of the runs after one warm-up; Quiver's time is the engine's (parse to last row) without "
              "process start-up; DuckDB's is `con.sql(q).fetchall()`. Ratios below 1 mean Quiver is faster. "
              "Before timing, each query's answer (`--format arrow`) is checked equal to DuckDB's.", ""]
    body = "\n".join(header) + "\n" + "\n\n".join(tables) + "\n"
    path = Path(args.results)
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    marker = f"## {title}"
    if marker in text:
        start = text.index(marker)
        nxt = text.find("\n## ", start + 1)
        text = text[:start] + body + (text[nxt + 1:] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + body
    path.write_text(text)


if __name__ == "__main__":
    main()
