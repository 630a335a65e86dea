#!/usr/bin/env python3
"""CSV -> columnar benchmark: Quiver against pyarrow and DuckDB, side by side in one run.

    .venv/bin/python bench/csv_to_arrow.py [--rows 5000000] [--repeat 5]

Data sets (generated once into bench/data/, reused while the row count matches):
  bigint  two random BIGINT columns in [0, 10^16]                   (~170 MB for 5M rows)
  mixed   10 columns: ints, doubles, a date, a timestamp, short strings (~510 MB for 5M rows)

Peers, run interleaved within each repetition so that machine noise hits all of them alike:
  quiver              `quiver convert in.csv out.arrow` (a subprocess; wall time)
  pyarrow             pyarrow.csv.read_csv + pyarrow.ipc.new_file write (in process)
  duckdb -> parquet   COPY (SELECT * FROM read_csv('in.csv')) TO 'out.parquet' (FORMAT parquet)
  duckdb -> table     CREATE TABLE t AS SELECT * FROM read_csv('in.csv') (in-memory database)

Every peer uses all cores (its default). The script checks each peer produced the same number
of rows, and whether Quiver's Arrow file holds the same values as pyarrow's read of the CSV,
prints a markdown table per data set (median of --repeat runs) and writes it, with the
command, date, machine and versions, into its section of bench/RESULTS.md.
"""

import argparse
import datetime as dt
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from benchlib import replace_section

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
SECTION_START = "<!-- csv_to_arrow:start -->"
SECTION_END = "<!-- csv_to_arrow:end -->"


# ------------------------------------------------------------------------------------------
# Data generation
# ------------------------------------------------------------------------------------------


def _bigint_table(rows, rng):
    # integers() excludes the upper bound, so 10**16 + 1 makes [0, 10^16] inclusive.
    return pa.table({
        "a": rng.integers(0, 10**16 + 1, rows, dtype=np.int64),
        "b": rng.integers(0, 10**16 + 1, rows, dtype=np.int64),
    })


def _mixed_table(rows, rng):
    countries = np.array(["US", "DE", "FR", "JP", "BR", "IN", "CN", "GB", "NG", "AU"])
    statuses = np.array(["new", "paid", "shipped", "returned", "cancelled"])
    letters = np.frombuffer(b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789", dtype="S1")
    sku_chars = rng.choice(letters, size=(rows, 8)).view("S8").ravel()
    start = np.datetime64("2020-01-01T00:00:00", "s")
    return pa.table({
        "id": np.arange(rows, dtype=np.int64),
        "user_id": rng.integers(0, 2_000_000, rows, dtype=np.int32),
        "qty": rng.integers(1, 100, rows, dtype=np.int32),
        "amount": np.round(rng.uniform(0, 10_000, rows), 2),
        "score": rng.standard_normal(rows),
        "day": pa.array((start + rng.integers(0, 1826, rows) * 86_400).astype("datetime64[D]")),
        "created": pa.array(start + rng.integers(0, 5 * 365 * 86_400, rows)),
        "country": pa.array(countries[rng.integers(0, len(countries), rows)]),
        "status": pa.array(statuses[rng.integers(0, len(statuses), rows)]),
        "sku": pa.array(sku_chars.astype(str)),
    })


DATASETS = {
    "bigint": ("2 BIGINT columns in [0, 10^16]", _bigint_table),
    "mixed": ("10 columns: 3 ints, 2 doubles, date, timestamp, 3 short strings", _mixed_table),
}


def ensure_csv(data_dir, name, rows):
    """bench/data/<name>_<rows>.csv, generated in chunks on first use (atomically)."""
    path = data_dir / f"{name}_{rows}.csv"
    if path.exists():
        return path
    _, make = DATASETS[name]
    rng = np.random.default_rng(20261202)
    tmp = path.with_suffix(".csv.tmp")
    print(f"generating {path} ...", file=sys.stderr, flush=True)
    chunk = 1_000_000
    with pa.OSFile(str(tmp), "wb") as sink:
        for start in range(0, rows, chunk):
            table = make(min(chunk, rows - start), rng)
            if name == "mixed":  # keep ids unique across chunks
                table = table.set_column(0, "id", pa.array(
                    np.arange(start, start + table.num_rows, dtype=np.int64)))
            options = pacsv.WriteOptions(include_header=(start == 0), quoting_style="needed")
            pacsv.write_csv(table, sink, write_options=options)
    tmp.rename(path)
    return path


# ------------------------------------------------------------------------------------------
# Peers: each returns the number of rows it produced (checked outside the timed region)
# ------------------------------------------------------------------------------------------


def run_quiver(csv_path, out_dir, quiver):
    out = out_dir / "quiver.arrow"
    t0 = time.perf_counter()
    proc = subprocess.run([str(quiver), "convert", str(csv_path), str(out)],
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"quiver convert failed ({proc.returncode}): {proc.stderr.strip()}")
    with pa.memory_map(str(out)) as source:
        rows = ipc.open_file(source).read_all().num_rows
    return elapsed, rows


def run_pyarrow(csv_path, out_dir, quiver=None):
    out = out_dir / "pyarrow.arrow"
    t0 = time.perf_counter()
    table = pacsv.read_csv(str(csv_path))
    with ipc.new_file(str(out), table.schema) as writer:
        writer.write_table(table)
    elapsed = time.perf_counter() - t0
    return elapsed, table.num_rows


def _sql_path(path):
    return str(path).replace("'", "''")


def run_duckdb_parquet(csv_path, out_dir, quiver=None):
    out = out_dir / "duckdb.parquet"
    con = duckdb.connect()
    t0 = time.perf_counter()
    con.execute(f"COPY (SELECT * FROM read_csv('{_sql_path(csv_path)}')) "
                f"TO '{_sql_path(out)}' (FORMAT parquet)")
    elapsed = time.perf_counter() - t0
    con.close()
    return elapsed, pq.ParquetFile(str(out)).metadata.num_rows


def run_duckdb_table(csv_path, out_dir, quiver=None):
    con = duckdb.connect()  # in-memory database: a load into DuckDB's own storage
    t0 = time.perf_counter()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv('{_sql_path(csv_path)}')")
    elapsed = time.perf_counter() - t0
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    con.close()
    return elapsed, rows


PEERS = [
    # (label, what runs, function(csv_path, out_dir, quiver) -> (seconds, rows))
    ("quiver", "`quiver convert in.csv out.arrow`", run_quiver),
    ("pyarrow", "`csv.read_csv` + `ipc.new_file` write", run_pyarrow),
    ("duckdb → parquet", "`COPY (SELECT * FROM read_csv(…)) TO 'out.parquet'`", run_duckdb_parquet),
    ("duckdb → table", "`CREATE TABLE t AS SELECT * FROM read_csv(…)` (in memory)",
     run_duckdb_table),
]


# ------------------------------------------------------------------------------------------
# Reporting
# ------------------------------------------------------------------------------------------


def compare_with_pyarrow(out_dir):
    """Does Quiver's Arrow file hold the values pyarrow read from the same CSV?"""
    with pa.memory_map(str(out_dir / "quiver.arrow")) as a, \
            pa.memory_map(str(out_dir / "pyarrow.arrow")) as b:
        q, p = ipc.open_file(a).read_all(), ipc.open_file(b).read_all()
        if q.schema.remove_metadata() != p.schema.remove_metadata():
            diffs = [f"{fp.name}: quiver {fq.type} vs pyarrow {fp.type}"
                     for fq, fp in zip(q.schema, p.schema) if fq.type != fp.type]
            return "different types (" + "; ".join(diffs or ["field names/count"]) + ")"
        return "yes" if q.equals(p) else "no: same types, different values"


def machine_info():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return cpu, os.cpu_count()


def quiver_version(quiver):
    proc = subprocess.run([str(quiver), "--version"], capture_output=True, text=True)
    version = proc.stdout.strip() if proc.returncode == 0 else ""
    version = version or "quiver (version unknown)"
    try:
        rev = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        rev = ""
    return f"{version} ({rev})" if rev else version


def fmt_rate(x):
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"


def render(results, args, command, csv_sizes, checks):
    cpu, ncpu = machine_info()
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    lines = [
        f"## CSV → columnar ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Command: `{shlex.join(command)}`  ",
        f"Machine: `nproc` = {nproc} ({ncpu} CPUs), {cpu}, {platform.system()} "
        f"{platform.release()}  ",
        f"Versions: {quiver_version(args.quiver)}, pyarrow {pa.__version__}, "
        f"duckdb {duckdb.__version__}, Python {platform.python_version()}  ",
        f"Median of {args.repeat} runs per peer, peers interleaved within each run; "
        "every peer uses all cores. \"÷ Quiver\" is the peer's median time divided by "
        "Quiver's: above 1 means Quiver was faster. Quiver's time includes process start and "
        "the fsync + rename of its atomic output; pyarrow runs in process and does not fsync.",
        "",
    ]
    for name, peers in results.items():
        desc, _ = DATASETS[name]
        rows = args.rows
        size_mb = csv_sizes[name] / 1e6
        lines += [f"### {name}: {rows:,} rows, {desc} ({size_mb:.0f} MB CSV)", "",
                  "| peer | what runs | median s | min s | rows/s | MB/s | ÷ Quiver |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        q_median = statistics.median(peers["quiver"]) if peers.get("quiver") else None
        for label, what, _ in PEERS:
            times = peers.get(label)
            if not times:
                continue
            med = statistics.median(times)
            ratio = f"{med / q_median:.2f}" if q_median else "–"
            lines.append(f"| {label} | {what} | {med:.3f} | {min(times):.3f} | "
                         f"{fmt_rate(rows / med)} | {size_mb / med:.0f} | {ratio} |")
        lines += ["", f"Rows produced: {checks[name]['rows']}. "
                      f"Quiver's Arrow file equals pyarrow's: {checks[name]['equal']}.", ""]
    return "\n".join(lines)


def write_results(markdown, path):
    replace_section(path, SECTION_START, SECTION_END, markdown)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--datasets", default="bigint,mixed",
                        help="comma list of: " + ", ".join(DATASETS))
    parser.add_argument("--quiver", type=Path, default=REPO_ROOT / "build/release/quiver")
    parser.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data")
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md",
                        help="markdown file whose csv_to_arrow section is rewritten")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()

    if not os.access(args.quiver, os.X_OK):
        sys.exit(f"error: no quiver binary at {args.quiver} (run scripts/quickstart first)")
    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        sys.exit(f"error: unknown data set(s) {unknown}; choose from {list(DATASETS)}")

    args.data_dir.mkdir(parents=True, exist_ok=True)
    out_dir = args.data_dir / "out"
    out_dir.mkdir(exist_ok=True)
    results, csv_sizes, checks = {}, {}, {}
    for name in names:
        csv_path = ensure_csv(args.data_dir, name, args.rows)
        csv_sizes[name] = csv_path.stat().st_size
        with open(csv_path, "rb") as f:  # warm the page cache so run 1 is not an outlier
            while f.read(1 << 24):
                pass
        times = {label: [] for label, _, _ in PEERS}
        row_counts = {}
        for rep in range(args.repeat):
            for label, _, fn in PEERS:
                elapsed, rows = fn(csv_path, out_dir, args.quiver)
                times[label].append(elapsed)
                row_counts.setdefault(label, set()).add(rows)
                print(f"{name} run {rep + 1}/{args.repeat}: {label:<18} {elapsed:8.3f} s "
                      f"({rows:,} rows)", file=sys.stderr, flush=True)
        counts = {label: sorted(c) for label, c in row_counts.items()}
        if any(c != [args.rows] for c in counts.values()):
            sys.exit(f"error: {name}: peers disagree on the row count "
                     f"(expected {args.rows}): {counts}")
        checks[name] = {"rows": f"{args.rows:,} by every peer",
                        "equal": compare_with_pyarrow(out_dir)}
        results[name] = times

    command = [".venv/bin/python", "bench/csv_to_arrow.py", *sys.argv[1:]]
    markdown = render(results, args, command, csv_sizes, checks)
    print(markdown)
    if not args.no_write:
        write_results(markdown, args.results)
        print(f"\nwrote {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
