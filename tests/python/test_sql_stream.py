"""`quiver sql` prints from the engine's result stream: a large SELECT to
--format csv / arrow runs in bounded memory, and Ctrl-C cancels the running
query with PostgreSQL's message (checked against pyarrow, not Quiver's own
output)."""

import os
import signal
import subprocess
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

# 10M rows of three BIGINTs: 240 MB as columns, 164 MB as CSV.
BIG = ("SELECT a.x, b.y, a.x * b.y AS p FROM generate_series(1, 10000) a(x), "
       "generate_series(1, 1000) b(y)")


# Runs argv[2:] with stdout to the file argv[1]; prints its exit status and peak RSS
# (KiB). A fresh Python process, so RUSAGE_CHILDREN sees that one child alone.
MEASURE = """
import resource, subprocess, sys
with open(sys.argv[1], "wb") as f:
    p = subprocess.run(sys.argv[2:], stdout=f)
print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def test_large_csv_and_arrow_output_run_in_bounded_memory(quiver_bin, tmp_path):
    for fmt in ["csv", "arrow"]:
        out = tmp_path / f"out.{fmt}"
        proc = subprocess.run([sys.executable, "-c", MEASURE, str(out), str(quiver_bin), "sql",
                               "--format", fmt, BIG], capture_output=True, text=True,
                              timeout=300)
        rc, peak_kb = map(int, proc.stdout.split())
        assert rc == 0, proc.stderr
        if fmt == "arrow":
            table = ipc.open_stream(pa.memory_map(str(out))).read_all()
            assert table.num_rows == 10_000_000
            assert table.column("p").to_pylist()[-1] == 10_000_000
        else:
            assert os.path.getsize(out) > 150_000_000
            with open(out, "rb") as f:
                f.seek(-40, os.SEEK_END)
                assert f.read().splitlines()[-1] == b"10000,1000,10000000"
        # Materialized, the result alone would be 240 MB.
        assert peak_kb < 100_000, f"--format {fmt}: peak RSS {peak_kb} KiB"
        out.unlink()


def test_ctrl_c_cancels_the_running_query(quiver_bin):
    sql = ("SELECT a.x, b.y FROM generate_series(1, 100000) a(x), "
           "generate_series(1, 100000) b(y)")  # 10^10 rows: never ends by itself
    proc = subprocess.Popen([str(quiver_bin), "sql", "--format", "csv", sql],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # Rows arriving means the query is streaming (and the handler installed).
        assert proc.stdout.readline().strip() == b"x,y"
        # No ORDER BY: which row comes first depends on the threads.
        x, y = map(int, proc.stdout.readline().strip().split(b","))
        assert 1 <= x <= 100000 and 1 <= y <= 100000
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1
    assert "canceling statement due to user request" in err.decode()
