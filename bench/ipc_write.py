#!/usr/bin/env python3
"""Compressed Arrow IPC writes: Quiver against pyarrow's threaded writer, same file, one run.

    .venv/bin/python bench/ipc_write.py [--sf 3] [--repeat 3] [--baseline OLD_QUIVER]

Data: SSB lineorder at scale factor --sf (6M rows per SF, 17 columns), generated once with
`quiver gen ssb` into bench/data/ssb_sf<SF>/lineorder.arrow (uncompressed Arrow IPC file; the
same directory bench/parquet_io.py uses). Every peer reads that file and writes it again as an
Arrow IPC file with LZ4_FRAME or ZSTD body compression (default levels), batch for batch:
  quiver     `quiver convert lineorder.arrow out.arrow --compression C` (a subprocess: wall time,
             process start and the fsync + rename of its atomic output included)
  baseline   the same with another quiver binary (--baseline, e.g. a build of an older commit;
             --baseline-label says what it is in the table)
  pyarrow    memory-map the input, pyarrow.ipc.new_file with
             IpcWriteOptions(compression=C, use_threads=True), write every batch, fsync (in
             process; the fsync matches Quiver's durable output)
Each output is deleted before each run. Throughput is rows/s and GB/s of uncompressed batch
bytes (the input batches' buffers, the same for every peer). After timing, the script checks that
Quiver's and the baseline's outputs are byte-identical (the threaded writer must write what the
serial one wrote) and that pyarrow reads the same table from Quiver's output as from its own.
It prints markdown tables and rewrites its section of bench/RESULTS.md.
"""

import argparse
import datetime as dt
import filecmp
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc

from benchlib import machine_line, quiver_version, replace_section

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
SECTION_START = "<!-- ipc_write:start -->"
SECTION_END = "<!-- ipc_write:end -->"


def ensure_data(args):
    d = args.data_dir / f"ssb_sf{args.sf:g}"
    arrow = d / "lineorder.arrow"
    if not arrow.exists():
        print(f"generating SSB SF={args.sf:g} into {d} ...", file=sys.stderr, flush=True)
        subprocess.run([str(args.quiver), "gen", "ssb", "--sf", f"{args.sf:g}", "--out", str(d),
                        "--quiet"], check=True)
    return arrow


def input_stats(arrow):
    with pa.memory_map(str(arrow)) as source:
        reader = ipc.open_file(source)
        batches = [reader.get_batch(i) for i in range(reader.num_record_batches)]
        return (sum(b.num_rows for b in batches), sum(b.nbytes for b in batches), len(batches),
                reader.schema)


def write_quiver_binary(quiver):
    def run(arrow, out, codec):
        t0 = time.perf_counter()
        proc = subprocess.run([str(quiver), "convert", str(arrow), str(out), "--compression",
                               codec], capture_output=True, text=True)
        elapsed = time.perf_counter() - t0
        if proc.returncode != 0:
            raise RuntimeError(f"{quiver} convert failed: {proc.stderr.strip()}")
        return elapsed
    return run


def write_pyarrow(arrow, out, codec):
    t0 = time.perf_counter()
    options = ipc.IpcWriteOptions(compression=codec, use_threads=True)
    with pa.memory_map(str(arrow)) as source:
        reader = ipc.open_file(source)
        with open(out, "wb") as f:
            with ipc.new_file(f, reader.schema, options=options) as writer:
                for i in range(reader.num_record_batches):
                    writer.write_batch(reader.get_batch(i))
            f.flush()
            os.fsync(f.fileno())
    return time.perf_counter() - t0


def read_table(path):
    with pa.memory_map(str(path)) as source:
        return ipc.open_file(source).read_all()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sf", type=float, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--codecs", default="zstd,lz4")
    parser.add_argument("--quiver", type=Path, default=REPO_ROOT / "build/release/quiver")
    parser.add_argument("--baseline", type=Path,
                        help="another quiver binary to time alongside (e.g. an older build)")
    parser.add_argument("--baseline-label",
                        help="what the baseline is, for the table (default: its path)")
    parser.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data")
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    for binary in [args.quiver] + ([args.baseline] if args.baseline else []):
        if not os.access(binary, os.X_OK):
            sys.exit(f"error: no quiver binary at {binary}")
    codecs = [c for c in args.codecs.split(",") if c]
    arrow = ensure_data(args)
    rows, raw_bytes, num_batches, _ = input_stats(arrow)
    out_dir = args.data_dir / "out"
    out_dir.mkdir(parents=True, exist_ok=True)

    peers = [("quiver", "`quiver convert lineorder.arrow out.arrow --compression C`",
              write_quiver_binary(args.quiver))]
    if args.baseline:
        label = args.baseline_label or f"`{args.baseline}`"
        peers.append(("quiver baseline", f"the same with {label}",
                      write_quiver_binary(args.baseline)))
    peers.append(("pyarrow", "`ipc.new_file(…, IpcWriteOptions(compression=C, "
                  "use_threads=True))`, batch by batch, + fsync", write_pyarrow))
    names = [name for name, _, _ in peers]

    def out_path(name, codec):
        return out_dir / f"ipc_write.{name.replace(' ', '_')}.{codec}.arrow"

    with open(arrow, "rb") as f:  # warm the page cache
        while f.read(1 << 24):
            pass
    sections = []
    for codec in codecs:
        results = {name: [] for name in names}
        for rep in range(args.repeat):
            for name, _, fn in peers:
                out = out_path(name, codec)
                out.unlink(missing_ok=True)
                elapsed = fn(arrow, out, codec)
                results[name].append(elapsed)
                print(f"{codec} run {rep + 1}: {name:<16} {elapsed:.3f} s", file=sys.stderr,
                      flush=True)
        sizes = {name: out_path(name, codec).stat().st_size for name in names}
        q = statistics.median(results["quiver"])
        lines = [f"#### {codec}", "",
                 "| peer | what runs | median s | min s | rows/s | GB/s (uncompressed) | output MB "
                 "| ÷ Quiver |", "|---|---|---:|---:|---:|---:|---:|---:|"]
        for name, what, _ in peers:
            t = results[name]
            med = statistics.median(t)
            lines.append(f"| {name} | {what} | {med:.3f} | {min(t):.3f} | {rows / med / 1e6:.1f} M"
                         f" | {raw_bytes / med / 1e9:.2f} | {sizes[name] / 1e6:.1f} "
                         f"| {med / q:.2f} |")
        checks = []
        if args.baseline:
            same = filecmp.cmp(out_path("quiver", codec), out_path("quiver baseline", codec),
                               shallow=False)
            checks.append(f"Quiver's output byte-identical to the baseline's: "
                          f"{'yes' if same else 'NO'}.")
        quiver_table = read_table(out_path("quiver", codec))
        pyarrow_table = read_table(out_path("pyarrow", codec))
        if quiver_table.num_rows != rows or pyarrow_table.num_rows != rows:
            sys.exit(f"error: {codec}: rows {quiver_table.num_rows} (quiver), "
                     f"{pyarrow_table.num_rows} (pyarrow), expected {rows}")
        checks.append("pyarrow reads the same table from Quiver's output as from its own: "
                      f"{'yes' if quiver_table.equals(pyarrow_table) else 'NO'}.")
        del quiver_table, pyarrow_table
        sections += lines + ["", " ".join(checks), ""]

    command = [".venv/bin/python", "bench/ipc_write.py", *sys.argv[1:]]
    header = [
        f"## Arrow IPC compressed write ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Command: `{shlex.join(command)}`  ",
        f"Machine: {machine_line()}  ",
        f"Versions: {quiver_version(args.quiver)}, pyarrow {pa.__version__}, Python "
        f"{platform.python_version()}  ",
        f"Data: SSB lineorder SF={args.sf:g} from `quiver gen ssb` ({rows:,} rows in "
        f"{num_batches} batches, 17 columns, {raw_bytes / 1e9:.2f} GB uncompressed), an "
        "uncompressed Arrow IPC file read memory-mapped by every peer and written again with "
        f"body compression. Median of {args.repeat} runs, peers interleaved; all use every core. "
        "Quiver runs as a subprocess (process start, fsync + rename included); pyarrow runs in "
        "process and fsyncs its file. \"÷ Quiver\" above 1 means Quiver was faster.", "",
    ]
    markdown = "\n".join(header + sections)
    print(markdown)
    if not args.no_write:
        replace_section(args.results, SECTION_START, SECTION_END, markdown)
        print(f"wrote {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
