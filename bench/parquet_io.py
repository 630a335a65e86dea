#!/usr/bin/env python3
"""Parquet read and write throughput: Quiver against pyarrow and DuckDB, same files, one run.

    .venv/bin/python bench/parquet_io.py [--sf 10] [--repeat 3]

Data: SSB lineorder at scale factor --sf (6M rows per SF, 17 columns), generated once with
`quiver gen ssb` into bench/data/ssb_sf<SF>/ and written as Parquet by pyarrow with zstd and
with snappy (1M-row row groups). The same Parquet files are read by every peer.

Reads (every peer uses all cores):
  quiver    `quiver parquet-meta F --read [--columns a,b,c]`: decodes into Arrow arrays
  pyarrow   pyarrow.parquet.read_table(F[, columns=...])
  duckdb    SELECT * (or the 3 columns) FROM read_parquet(F), fetched as an Arrow table
  full scan and a 3-column projection (lo_quantity, lo_extendedprice, lo_discount).
Writes (Arrow IPC lineorder -> Parquet, same codec, 1M-row row groups):
  quiver    `quiver convert lineorder.arrow out.parquet --compression C`
  pyarrow   read the Arrow file (memory-mapped) + pyarrow.parquet.write_table
Throughput is given in rows/s and in uncompressed GB/s, the bytes being the sum of the
Parquet column chunks' total_uncompressed_size (the same measure for every peer).
The script prints markdown tables and rewrites its section of bench/RESULTS.md.
"""

import argparse
import datetime as dt
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from benchlib import machine_line, quiver_version, replace_section

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
SECTION_START = "<!-- parquet_io:start -->"
SECTION_END = "<!-- parquet_io:end -->"
PROJECTION = ["lo_quantity", "lo_extendedprice", "lo_discount"]
CODECS = ["zstd", "snappy"]
ROW_GROUP = 1 << 20


def ensure_data(args):
    d = args.data_dir / f"ssb_sf{args.sf:g}"
    arrow = d / "lineorder.arrow"
    if not arrow.exists():
        print(f"generating SSB SF={args.sf:g} into {d} ...", file=sys.stderr, flush=True)
        subprocess.run([str(args.quiver), "gen", "ssb", "--sf", f"{args.sf:g}", "--out", str(d),
                        "--quiet"], check=True)
    files = {}
    for codec in CODECS:
        path = d / f"lineorder.{codec}.parquet"
        if not path.exists():
            print(f"writing {path} with pyarrow ...", file=sys.stderr, flush=True)
            with pa.memory_map(str(arrow)) as source:
                table = ipc.open_file(source).read_all()
            tmp = path.with_suffix(".tmp")
            pq.write_table(table, tmp, compression=codec, row_group_size=ROW_GROUP)
            tmp.rename(path)
        files[codec] = path
    return arrow, files


def uncompressed_bytes(path, columns=None):
    md = pq.ParquetFile(str(path)).metadata
    total = 0
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for c in range(rg.num_columns):
            col = rg.column(c)
            if columns is None or col.path_in_schema in columns:
                total += col.total_uncompressed_size
    return total


def _sql(path):
    return str(path).replace("'", "''")


def read_quiver(path, columns, quiver):
    cmd = [str(quiver), "parquet-meta", str(path), "--read"]
    if columns:
        cmd += ["--columns", ",".join(columns)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"quiver failed: {proc.stderr.strip()}")
    rows = int(re.search(r"read (\d+) rows", proc.stdout).group(1))
    return elapsed, rows


def read_pyarrow(path, columns, quiver=None):
    t0 = time.perf_counter()
    table = pq.read_table(str(path), columns=columns)
    elapsed = time.perf_counter() - t0
    return elapsed, table.num_rows


def read_duckdb(path, columns, quiver=None):
    con = duckdb.connect()
    cols = ", ".join(columns) if columns else "*"
    t0 = time.perf_counter()
    table = con.sql(f"SELECT {cols} FROM read_parquet('{_sql(path)}')").to_arrow_table()
    elapsed = time.perf_counter() - t0
    con.close()
    return elapsed, table.num_rows


def write_quiver(arrow, out, codec, quiver):
    t0 = time.perf_counter()
    proc = subprocess.run([str(quiver), "convert", str(arrow), str(out), "--compression", codec,
                           "--row-group-rows", str(ROW_GROUP)], capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"quiver convert failed: {proc.stderr.strip()}")
    return elapsed, pq.ParquetFile(str(out)).metadata.num_rows


def write_pyarrow(arrow, out, codec, quiver=None):
    t0 = time.perf_counter()
    with pa.memory_map(str(arrow)) as source:
        table = ipc.open_file(source).read_all()
        pq.write_table(table, str(out), compression=codec, row_group_size=ROW_GROUP)
    elapsed = time.perf_counter() - t0
    return elapsed, table.num_rows


READERS = [("quiver", read_quiver), ("pyarrow", read_pyarrow), ("duckdb", read_duckdb)]
WRITERS = [("quiver", write_quiver), ("pyarrow", write_pyarrow)]


def table_md(title, rows_count, byte_count, results, names):
    lines = [f"#### {title}", "", "| peer | median s | min s | rows/s | GB/s (uncompressed) | ÷ Quiver |",
             "|---|---:|---:|---:|---:|---:|"]
    q = statistics.median(results["quiver"])
    for name in names:
        t = results[name]
        med = statistics.median(t)
        lines.append(f"| {name} | {med:.3f} | {min(t):.3f} | {rows_count / med / 1e6:.1f} M | "
                     f"{byte_count / med / 1e9:.2f} | {med / q:.2f} |")
    return lines + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sf", type=float, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quiver", type=Path, default=REPO_ROOT / "build/release/quiver")
    parser.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data")
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    if not os.access(args.quiver, os.X_OK):
        sys.exit(f"error: no quiver binary at {args.quiver}")
    arrow, files = ensure_data(args)
    out_dir = args.data_dir / "out"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = pq.ParquetFile(str(files["zstd"])).metadata.num_rows

    sections = []
    for codec in CODECS:
        path = files[codec]
        for columns, label in ((None, "full scan (17 columns)"),
                               (PROJECTION, "3-column projection (" + ", ".join(PROJECTION) + ")")):
            for _ in range(2):  # warm the page cache
                with open(path, "rb") as f:
                    while f.read(1 << 24):
                        pass
            results = {name: [] for name, _ in READERS}
            for rep in range(args.repeat):
                for name, fn in READERS:
                    elapsed, n = fn(path, columns, args.quiver)
                    if n != rows:
                        sys.exit(f"error: {name} read {n} rows, expected {rows}")
                    results[name].append(elapsed)
                    print(f"read {codec} {label[:12]} run {rep + 1}: {name:<8} {elapsed:.3f} s",
                          file=sys.stderr, flush=True)
            sections += table_md(f"Read, {codec}: {label}", rows, uncompressed_bytes(path, columns),
                                 results, [n for n, _ in READERS])
    for codec in CODECS:
        results = {name: [] for name, _ in WRITERS}
        for rep in range(args.repeat):
            for name, fn in WRITERS:
                elapsed, n = fn(arrow, out_dir / f"{name}.{codec}.parquet", codec, args.quiver)
                if n != rows:
                    sys.exit(f"error: {name} wrote {n} rows, expected {rows}")
                results[name].append(elapsed)
                print(f"write {codec} run {rep + 1}: {name:<8} {elapsed:.3f} s", file=sys.stderr,
                      flush=True)
        sizes = {n: (out_dir / f"{n}.{codec}.parquet").stat().st_size for n, _ in WRITERS}
        sections += table_md(f"Write, {codec}: Arrow IPC file -> Parquet", rows,
                             uncompressed_bytes(files[codec]), results, [n for n, _ in WRITERS])
        sections += [f"Output sizes: quiver {sizes['quiver'] / 1e6:.0f} MB, pyarrow "
                     f"{sizes['pyarrow'] / 1e6:.0f} MB.", ""]

    command = [".venv/bin/python", "bench/parquet_io.py", *sys.argv[1:]]
    header = [
        f"## Parquet read/write ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
        f"Command: `{shlex.join(command)}`  ",
        f"Machine: {machine_line()}  ",
        f"Versions: {quiver_version(args.quiver)}, pyarrow {pa.__version__}, duckdb "
        f"{duckdb.__version__}  ",
        f"Data: SSB lineorder SF={args.sf:g} ({rows:,} rows, 17 columns) from `quiver gen ssb`, "
        "written to Parquet by pyarrow (1M-row row groups); every reader reads the same file. "
        f"Median of {args.repeat} runs, peers interleaved; all use every core. Quiver runs as a "
        "subprocess (its times include process start; writes include fsync + rename); pyarrow "
        "and DuckDB run in process. \"÷ Quiver\" above 1 means Quiver was faster.", "",
    ]
    markdown = "\n".join(header + sections)
    print(markdown)
    if not args.no_write:
        replace_section(args.results, SECTION_START, SECTION_END, markdown)
        print(f"wrote {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
