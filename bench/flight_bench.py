#!/usr/bin/env python3
"""Fetching large results: Quiver over Arrow Flight SQL against MariaDB and PostgreSQL, one run.

    .venv/bin/python bench/flight_bench.py                  # 1M, 5M, 10M rows x 3 shapes
    .venv/bin/python bench/flight_bench.py --quick          # 100k rows, a smoke run
    .venv/bin/python bench/flight_bench.py --shapes int20 --sizes 1M --repeat 5 --no-write

Data (generated once, deterministically, into bench/data/flight/: a Parquet file for Quiver
and a CSV file for the row stores, both from the same Arrow batches):
  int1    1 BIGINT column
  int20   20 BIGINT columns
  str20   20 VARCHAR columns (random [a-z0-9] strings of 1 to 32 characters)
BIGINT values have a random number of digits (1 to 18) and a random sign.

Systems, started by this script on loopback under a temporary directory and stopped at the end
(also on Ctrl-C or failure):
  quiver      `quiver serve --data bench/data/flight/parquet` (tables created through the
              server with CREATE TABLE ... AS SELECT * FROM read_parquet(...), kept in its memory)
  mariadb     Debian's mariadbd with its own datadir, socket and port (InnoDB, LOAD DATA)
  postgres    PostgreSQL 15 from Debian: initdb + pg_ctl in the temporary directory (COPY FROM)
Missing Debian packages (mariadb-server, postgresql-15) are installed with apt-get when the
script runs as root (the services the packages ship are kept from starting); --no-install
refuses instead. PyMySQL and psycopg come from requirements.txt (.venv).

Measured, every query `SELECT * FROM t` over TCP on 127.0.0.1:
  raw fetch   quiver: ADBC cursor.execute + fetch_arrow_table()
              quiver, lightest client: pyarrow.flight get_flight_info + do_get(...).read_all()
              of every endpoint (the server's throughput with a C++ client; the loopback
              aim is judged on it, see below)
              mariadb: `mysql --quick -e "SELECT ..." > /dev/null` (a subprocess)
              postgres: `psql -c "COPY (SELECT ...) TO STDOUT" > /dev/null` (a subprocess)
  pandas      pd.read_sql(sql, conn) with an ADBC Flight SQL, a PyMySQL and a psycopg connection
  plain TCP   the result's Arrow IPC bytes sent by a Python sender process to a receiver that
              reads them into a fresh buffer (interleaved with the fetches): the loopback ceiling
              Quiver's fetch is compared with.
              Both Quiver fetches are reported next to it; the aim (>= 50 %) is judged on the
              pyarrow.flight one, because the ADBC figure adds the Go driver's receive, decode
              and import, which take more CPU than the server's whole share (measured: about
              14 ms of client CPU per 8 MB int1 fetch against 4 ms in the server).
Each system gets one warm-up query, then the peers run interleaved, --repeat times (a peer
stops repeating once its runs took --budget seconds; measurements whose runs take under 0.1 s,
such as int1's fetches and plain TCP, run five times as often: one 8 MB fetch scatters 2-3x
between runs on a shared machine). Python clients run in a worker process
of their own (connection set up outside the timing). Figures are medians; ratios are the peer's
time divided by Quiver's (above 1: Quiver is faster). The script checks that every system holds
the same data (row count, min and max of the first and last column) and that every fetch
returns every row. It prints markdown and rewrites its section of bench/RESULTS.md.
"""

import argparse
import datetime as dt
import gc
import json
import multiprocessing as mp
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import machine_line, quiver_version, replace_section  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
SECTION_START = "<!-- flight_bench:start -->"
SECTION_END = "<!-- flight_bench:end -->"

SHAPES = {  # name: (column type, number of columns, description)
    "int1": ("bigint", 1, "1 BIGINT column"),
    "int20": ("bigint", 20, "20 BIGINT columns"),
    "str20": ("varchar", 20, "20 VARCHAR columns"),
}
FAST_SECONDS, FAST_FACTOR = 0.1, 5  # see measure_dataset
GEN_BATCH = 1_000_000  # rows per generated batch (the data of N rows is a prefix of larger N)
SEED = 20261203
STR_MAX = 32
ALPHABET = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8)
BENCH_USER = "bench"
BENCH_PASSWORD = "bench"
BENCH_DB = "bench"
APT_PACKAGES = {"mariadb": ["mariadb-server", "mariadb-client"],
                "postgres": ["postgresql-15", "postgresql-client-15"]}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# Data


def gen_batch(shape, start, n):
    kind, ncols, _ = SHAPES[shape]
    rng = np.random.default_rng([SEED, list(SHAPES).index(shape), start // GEN_BATCH])
    cols = []
    for _ in range(ncols):
        if kind == "bigint":
            digits = rng.integers(1, 19, n)
            values = rng.integers(0, np.power(10, digits, dtype=np.int64))
            values[rng.integers(0, 2, n, dtype=np.int8) == 1] *= -1
            cols.append(pa.array(values, pa.int64()))
        else:
            lengths = rng.integers(1, STR_MAX + 1, n, dtype=np.int32)
            offsets = np.zeros(n + 1, dtype=np.int32)
            np.cumsum(lengths, out=offsets[1:])
            chars = ALPHABET[rng.integers(0, len(ALPHABET), int(offsets[-1]), dtype=np.uint8)]
            cols.append(pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(chars)))
    return pa.RecordBatch.from_arrays(cols, names=[f"c{i}" for i in range(ncols)])


def ensure_data(data_dir, shape, rows):
    """Writes parquet/<shape>_<rows>.parquet and csv/<shape>_<rows>.csv under data_dir (once)
    and returns the data set's description (<shape>_<rows>.json): paths, Arrow IPC stream bytes
    and the expected min/max of the first and last column. Quiver's --data is the parquet/
    directory, which holds nothing else (the server makes a table of every file in it)."""
    name = f"{shape}_{rows}"
    parquet, csv = data_dir / "parquet" / f"{name}.parquet", data_dir / "csv" / f"{name}.csv"
    meta_path = data_dir / f"{name}.json"
    if meta_path.exists() and parquet.exists() and csv.exists():
        return json.loads(meta_path.read_text())
    parquet.parent.mkdir(parents=True, exist_ok=True)
    csv.parent.mkdir(parents=True, exist_ok=True)
    log(f"generating {shape} x {rows:,} rows into {data_dir} ...")
    schema = gen_batch(shape, 0, 1).schema
    parquet_tmp, csv_tmp = data_dir / f"{name}.parquet.tmp", data_dir / f"{name}.csv.tmp"
    sink = pa.MockOutputStream()
    stats = {}
    with pq.ParquetWriter(parquet_tmp, schema, compression="zstd") as pw, \
            pacsv.CSVWriter(csv_tmp, schema, write_options=pacsv.WriteOptions(
                include_header=False, quoting_style="none")) as cw, \
            pa.ipc.new_stream(sink, schema) as iw:
        for start in range(0, rows, GEN_BATCH):
            batch = gen_batch(shape, start, min(GEN_BATCH, rows - start))
            pw.write_batch(batch, row_group_size=GEN_BATCH)
            cw.write_batch(batch)
            iw.write_batch(batch)
            for name in (schema.names[0], schema.names[-1]):
                mm = pc.min_max(batch.column(name))
                lo, hi = mm["min"].as_py(), mm["max"].as_py()
                old = stats.get(name)
                stats[name] = [lo, hi] if old is None else [min(old[0], lo), max(old[1], hi)]
    parquet_tmp.rename(parquet)
    csv_tmp.rename(csv)
    meta = {"shape": shape, "rows": rows, "parquet": str(parquet), "csv": str(csv),
            "ipc_bytes": sink.size(), "csv_bytes": csv.stat().st_size, "minmax": stats}
    meta_path.write_text(json.dumps(meta, indent=1))
    return meta


def check_sql(shape):
    _, ncols, _ = SHAPES[shape]
    last = f"c{ncols - 1}"
    return f"SELECT COUNT(*), MIN(c0), MAX(c0), MIN({last}), MAX({last}) FROM "


def expected_check(meta):
    _, ncols, _ = SHAPES[meta["shape"]]
    mm = meta["minmax"]
    return [meta["rows"], *mm["c0"], *mm[f"c{ncols - 1}"]]


def normalise(values, kind):
    return [int(v) if (i == 0 or kind == "bigint") else str(v) for i, v in enumerate(values)]


# ----------------------------------------------------------------------------------------------
# Processes and the machine


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc=None, timeout=60, what="server"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode} while starting")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout} s")


def stop_process(proc, what, timeout=60):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        log(f"{what} did not stop within {timeout} s; killing it")
        proc.kill()
        proc.wait()


def is_root():
    return os.geteuid() == 0


def run(cmd, **kw):
    kw.setdefault("check", True)
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    try:
        return subprocess.run(cmd, **kw)
    except subprocess.CalledProcessError as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise RuntimeError(f"{shlex.join(map(str, cmd))} failed ({e.returncode}):\n{err[-2000:]}") from None


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def pg_bindir():
    root = "/usr/lib/postgresql"
    for v in ["15"] + (sorted(os.listdir(root), reverse=True) if os.path.isdir(root) else []):
        d = Path(f"/usr/lib/postgresql/{v}/bin")
        if (d / "initdb").exists() and (d / "pg_ctl").exists():
            return d
    return None


def mysql_client():
    return shutil.which("mysql") or shutil.which("mariadb")


def missing_packages(peers):
    missing = []
    if "mariadb" in peers and not (shutil.which("mariadbd") or Path("/usr/sbin/mariadbd").exists()) \
            or "mariadb" in peers and not (shutil.which("mariadb-install-db") and mysql_client()):
        missing += APT_PACKAGES["mariadb"]
    if "postgres" in peers and not (pg_bindir() and shutil.which("psql")):
        missing += APT_PACKAGES["postgres"]
    return missing


def ensure_packages(peers, allow_install):
    missing = missing_packages(peers)
    if not missing:
        return
    if not allow_install:
        sys.exit(f"error: missing Debian packages: {' '.join(missing)} (install them, or run as "
                 "root without --no-install)")
    if not is_root():
        sys.exit(f"error: missing Debian packages: {' '.join(missing)}; run as root to let the "
                 "script apt-get them, or install them by hand")
    log(f"installing with apt-get: {' '.join(missing)}")
    # Debian's maintainer scripts start the packaged service unless policy-rc.d says no; the
    # benchmark runs its own servers and must leave nothing running.
    policy = Path("/usr/sbin/policy-rc.d")
    made_policy = not policy.exists()
    if made_policy:
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    try:
        run(["apt-get", "update", "-qq"], env=env)
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], env=env)
    finally:
        if made_policy:
            policy.unlink()
    still = missing_packages(peers)
    if still:
        sys.exit(f"error: still missing after apt-get: {' '.join(still)}")


# ----------------------------------------------------------------------------------------------
# The systems. Each: start(), load(table, meta), check(table, shape), drop(table), stop(), and
# client(): the connection parameters for a worker; MariaDB and PostgreSQL also raw_cmd(sql).


class Quiver:
    """The Quiver side: `quiver serve` on loopback over the benchmark's data directory, tables
    created through the server. Everything that depends on the server's CLI is here."""

    name = "quiver"

    def __init__(self, binary, tmp, data_dir, uri=None, endpoints=1):
        self.endpoints = endpoints
        self.binary, self.tmp, self.data_dir = Path(binary), tmp, data_dir
        self.uri, self.external = uri, uri is not None
        self.proc = None
        self.version = None

    def unavailable(self):
        """Why the Quiver side cannot run (None when it can)."""
        if self.external:
            return None
        if not os.access(self.binary, os.X_OK):
            return f"no quiver binary at {self.binary}"
        if subprocess.run([str(self.binary), "help", "serve"], capture_output=True).returncode != 0:
            return (f"{self.binary} has no 'serve' command yet (the Flight SQL server, issue 11, "
                    "is not in this build)")
        try:
            import adbc_driver_flightsql.dbapi  # noqa: F401
        except ImportError:
            return "the ADBC Flight SQL driver is not installed (pip install -r requirements.txt)"
        return None

    def start(self):
        if not self.external:
            port = free_port()
            logf = open(self.tmp / "quiver.log", "wb")
            self.proc = subprocess.Popen(
                [str(self.binary), "serve", "--data", str(self.data_dir), "--host", "127.0.0.1",
                 "--port", str(port)] + (["--endpoints", str(self.endpoints)] if self.endpoints > 1 else []),
                stdout=logf, stderr=subprocess.STDOUT,
                start_new_session=True)
            wait_port(port, self.proc, what="quiver serve")
            self.uri = f"grpc://127.0.0.1:{port}"
        self.version = quiver_version(self.binary) if not self.external else f"quiver at {self.uri}"

    def client(self):
        return {"kind": "adbc", "uri": self.uri}

    def _execute(self, sql):
        import adbc_driver_flightsql.dbapi as flight_sql
        with flight_sql.connect(self.uri, autocommit=True) as conn, conn.cursor() as cur:
            cur.execute(sql)
            try:
                return cur.fetchall()
            except Exception:  # a statement without a result set
                return None

    def load(self, table, meta):
        path = Path(meta["parquet"]).resolve()
        sql = f"CREATE TABLE {table} AS SELECT * FROM read_parquet('{path}')"
        try:
            self._execute(sql)
        except Exception as first:  # e.g. the server wants paths relative to --data
            try:
                self._execute(sql.replace(str(path), path.name))
            except Exception:
                raise RuntimeError(f"quiver: {sql} failed: {first}") from None

    def check(self, table, shape):
        return list(self._execute(check_sql(shape) + table)[0])

    def drop(self, table):
        self._execute(f"DROP TABLE IF EXISTS {table}")

    def stop(self):
        stop_process(self.proc, "quiver serve")
        self.proc = None


class MariaDB:
    name = "mariadb"

    def __init__(self, tmp, buffer_pool):
        self.tmp, self.buffer_pool = tmp, buffer_pool
        self.dir = tmp / "mariadb"
        self.sock = self.dir / "mysqld.sock"
        self.port = None
        self.proc = None
        self.version = None
        self.client_bin = mysql_client()

    def start(self):
        self.dir.mkdir()
        datadir = self.dir / "data"
        as_user = ["--user=mysql"] if is_root() else []
        if is_root():
            shutil.chown(self.dir, "mysql", "mysql")
        run(["mariadb-install-db", "--no-defaults", f"--datadir={datadir}", *as_user,
             "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"])
        self.port = free_port()
        mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        logf = open(self.tmp / "mariadb.log", "wb")
        self.proc = subprocess.Popen(
            [mariadbd, "--no-defaults", f"--datadir={datadir}", *as_user, f"--socket={self.sock}",
             f"--port={self.port}", "--bind-address=127.0.0.1", f"--pid-file={self.dir}/mysqld.pid",
             "--skip-name-resolve", "--skip-log-bin", "--local-infile=1",
             f"--innodb-buffer-pool-size={self.buffer_pool}", "--innodb-log-file-size=512M",
             "--innodb-flush-log-at-trx-commit=2", "--innodb-doublewrite=0",
             "--max-allowed-packet=1G"],
            stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
        wait_port(self.port, self.proc, what="mariadbd")
        root = [self.client_bin, "--no-defaults", f"--socket={self.sock}", "-uroot", "-e"]
        run(root + [f"CREATE DATABASE {BENCH_DB}; CREATE USER '{BENCH_USER}'@'127.0.0.1' "
                    f"IDENTIFIED BY '{BENCH_PASSWORD}'; GRANT ALL ON *.* TO "
                    f"'{BENCH_USER}'@'127.0.0.1'"])
        self.version = "MariaDB " + self.sql("SELECT VERSION()")[0][0]

    def base(self):
        return [self.client_bin, "--no-defaults", "--protocol=TCP", "-h127.0.0.1", f"-P{self.port}",
                f"-u{BENCH_USER}", f"-p{BENCH_PASSWORD}", f"-D{BENCH_DB}"]

    def sql(self, sql):
        out = run(self.base() + ["--batch", "--skip-column-names", "-e", sql]).stdout
        return [line.split("\t") for line in out.splitlines()]

    def raw_cmd(self, sql):
        return self.base()[:1] + ["--no-defaults", "--quick"] + self.base()[2:] + ["-e", sql]


    def client(self):
        return {"kind": "pymysql", "port": self.port}

    def load(self, table, meta):
        kind, ncols, _ = SHAPES[meta["shape"]]
        typ = "BIGINT" if kind == "bigint" else f"VARCHAR({STR_MAX})"
        cols = ", ".join(f"c{i} {typ}" for i in range(ncols))
        self.sql(f"CREATE TABLE {table} ({cols}) ENGINE=InnoDB")
        run(self.base() + ["--local-infile=1", "-e",
                           f"LOAD DATA LOCAL INFILE '{meta['csv']}' INTO TABLE {table} "
                           "FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n'; "
                           f"ANALYZE TABLE {table}"])

    def check(self, table, shape):
        return self.sql(check_sql(shape) + table)[0]

    def drop(self, table):
        self.sql(f"DROP TABLE IF EXISTS {table}")

    def stop(self):
        stop_process(self.proc, "mariadbd", timeout=120)
        self.proc = None


class Postgres:
    name = "postgres"

    def __init__(self, tmp, shared_buffers):
        self.tmp, self.shared_buffers = tmp, shared_buffers
        self.dir = tmp / "postgres"
        self.bindir = pg_bindir()
        self.port = None
        self.started = False
        self.version = None

    def as_pg(self, cmd):
        return ["runuser", "-u", "postgres", "--", *map(str, cmd)] if is_root() else list(map(str, cmd))

    def start(self):
        self.dir.mkdir()
        if is_root():
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        run(self.as_pg([self.bindir / "initdb", "-D", data, "-U", "postgres", "--auth=trust",
                        "-E", "UTF8", "--locale=C", "--no-sync"]))
        self.port = free_port()
        opts = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                f"-c shared_buffers={self.shared_buffers // (1 << 20)}MB -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_wal_size=8GB "
                "-c autovacuum=off")
        run(self.as_pg([self.bindir / "pg_ctl", "-D", data, "-l", self.dir / "server.log", "-w",
                        "-t", "120", "-o", opts, "start"]), start_new_session=True)
        self.started = True
        run(["psql", "-X", "-q", "-h", str(self.dir), "-p", str(self.port), "-U", "postgres",
             "-d", "postgres", "-c", f"CREATE ROLE {BENCH_USER} LOGIN SUPERUSER",
             "-c", f"CREATE DATABASE {BENCH_DB} OWNER {BENCH_USER}"])
        self.version = "PostgreSQL " + self.sql("SHOW server_version")[0][0]

    def base(self):
        return ["psql", "-X", "-q", "-h", "127.0.0.1", "-p", str(self.port), "-U", BENCH_USER,
                "-d", BENCH_DB]

    def sql(self, sql):
        out = run(self.base() + ["-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql]).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    def raw_cmd(self, sql):
        return self.base() + ["-c", f"COPY ({sql}) TO STDOUT"]


    def client(self):
        return {"kind": "psycopg", "port": self.port}

    def load(self, table, meta):
        kind, ncols, _ = SHAPES[meta["shape"]]
        typ = "BIGINT" if kind == "bigint" else f"VARCHAR({STR_MAX})"
        cols = ", ".join(f"c{i} {typ}" for i in range(ncols))
        self.sql(f"CREATE TABLE {table} ({cols})")
        with open(meta["csv"], "rb") as f:
            run(self.base() + ["-v", "ON_ERROR_STOP=1", "-c", f"COPY {table} FROM STDIN (FORMAT csv)"],
                stdin=f, text=False)
        self.sql(f"VACUUM (FREEZE, ANALYZE) {table}")  # hint bits set now, not in the first fetch

    def check(self, table, shape):
        return self.sql(check_sql(shape) + table)[0]

    def drop(self, table):
        self.sql(f"DROP TABLE IF EXISTS {table}")

    def stop(self):
        if self.started:
            subprocess.run(self.as_pg([self.bindir / "pg_ctl", "-D", self.dir / "data", "-m", "fast",
                                       "-w", "stop"]), capture_output=True)
            self.started = False


# ----------------------------------------------------------------------------------------------
# Python client workers: one process per measured client and data set; the connection is made
# before any timing, each run's result is dropped before the next.


def worker_main(params, sql, pipe):
    warnings.filterwarnings("ignore")  # pandas warns about DB-API connections without SQLAlchemy
    kind, mode = params["kind"], params["mode"]
    if kind == "adbc":
        import adbc_driver_flightsql.dbapi as flight_sql
        conn = flight_sql.connect(params["uri"], autocommit=True)
    elif kind == "pyflight":
        import pyarrow.flight as flight
        conn = flight.FlightClient(params["uri"])
        conn.wait_for_available()
    elif kind == "pymysql":
        import pymysql
        conn = pymysql.connect(host="127.0.0.1", port=params["port"], user=BENCH_USER,
                               password=BENCH_PASSWORD, database=BENCH_DB)
    else:
        import psycopg
        conn = psycopg.connect(host="127.0.0.1", port=params["port"], user=BENCH_USER,
                               dbname=BENCH_DB)
    pipe.send(("ready",))
    try:
        worker_loop(conn, mode, sql, pipe)
    except (EOFError, KeyboardInterrupt):  # the benchmark stopped
        pass
    conn.close()


_POOL = []


def endpoint_pool():
    """Threads that fetch a FlightInfo's endpoints at once (pyarrow releases the GIL)."""
    if not _POOL:
        import concurrent.futures
        _POOL.append(concurrent.futures.ThreadPoolExecutor(16))
    return _POOL[0]


def worker_loop(conn, mode, sql, pipe):
    import pandas as pd
    while pipe.recv() == "run":
        gc.collect()
        t0 = time.perf_counter()
        if mode == "pyflight":
            import pyarrow.flight as flight
            info = conn.get_flight_info(flight.FlightDescriptor.for_command(sql.encode()))
            if len(info.endpoints) > 1:  # `quiver serve --endpoints N`: fetched in parallel
                result = list(endpoint_pool().map(lambda ep: conn.do_get(ep.ticket).read_all(),
                                                  info.endpoints))
            else:
                result = [conn.do_get(ep.ticket).read_all() for ep in info.endpoints]
            elapsed = time.perf_counter() - t0
            n = sum(t.num_rows for t in result)
        elif mode == "fetch":
            cur = conn.cursor()
            cur.execute(sql)
            result = cur.fetch_arrow_table()
            elapsed = time.perf_counter() - t0
            n = result.num_rows
            cur.close()
        else:
            result = pd.read_sql(sql, conn)
            elapsed = time.perf_counter() - t0
            n = len(result)
        del result
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10
        pipe.send(("done", elapsed, n, peak))


class Worker:
    def __init__(self, params, sql):
        ctx = mp.get_context("spawn")
        self.pipe, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(params, sql, child), daemon=True)
        self.proc.start()
        child.close()
        self._expect("ready")

    def _expect(self, what):
        try:
            msg = self.pipe.recv()
        except EOFError:
            self.proc.join(5)
            raise RuntimeError(f"the client process died (exit status {self.proc.exitcode}; "
                               "out of memory?)") from None
        assert msg[0] == what, msg
        return msg

    def run(self):
        self.pipe.send("run")
        _, elapsed, n, self.peak_rss = self._expect("done")
        return elapsed, n

    def close(self):
        try:
            self.pipe.send("stop")
        except (OSError, BrokenPipeError):
            pass
        self.proc.join(30)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


# Peak memory of a row client's worker per fetched value (Python objects of the rows, then the
# DataFrame; psycopg also holds libpq's text result), measured at 1M rows (int20: PyMySQL
# 1.45 GB, psycopg 2.04 GB; str20: 2.49 GB and 3.19 GB) plus a margin.
ROW_CLIENT_BYTES_PER_VALUE = {"mariadb": {"bigint": 80, "varchar": 140},
                              "postgres": {"bigint": 110, "varchar": 180}}


def row_client_memory(system, meta):
    kind, ncols, _ = SHAPES[meta["shape"]]
    return meta["rows"] * ncols * ROW_CLIENT_BYTES_PER_VALUE[system][kind] + (200 << 20)


# ----------------------------------------------------------------------------------------------
# Plain TCP on loopback


TCP_SENDER = r"""
import socket, struct, sys
chunk = memoryview(bytes(range(256)) * (16 << 12))   # 16 MiB
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
print(srv.getsockname()[1], flush=True)
while True:
    conn, _ = srv.accept()
    hdr = b""
    while len(hdr) < 8:
        part = conn.recv(8 - len(hdr))
        if not part: break
        hdr += part
    if len(hdr) < 8: break
    (n,) = struct.unpack("!Q", hdr)
    if n == 0: break
    while n > 0:
        k = min(n, len(chunk)); conn.sendall(chunk[:k]); n -= k
    conn.close()
"""


class TcpSender:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", TCP_SENDER], stdout=subprocess.PIPE,
                                     text=True, start_new_session=True)
        self.port = int(self.proc.stdout.readline())

    def transfer(self, nbytes):
        """Seconds from connect to the last of `nbytes` received into one fresh buffer."""
        buf = bytearray(nbytes)
        view = memoryview(buf)
        t0 = time.perf_counter()
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            s.sendall(nbytes.to_bytes(8, "big"))
            got = 0
            while got < nbytes:
                k = s.recv_into(view[got:], min(nbytes - got, 16 << 20))
                if k == 0:
                    raise RuntimeError("plain TCP sender closed early")
                got += k
        elapsed = time.perf_counter() - t0
        del view, buf
        return elapsed

    def stop(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                s.sendall((0).to_bytes(8, "big"))
        except OSError:
            pass
        stop_process(self.proc, "TCP sender", timeout=10)


# ----------------------------------------------------------------------------------------------
# One data set


def time_subprocess(cmd):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed: {proc.stderr.decode()[-1000:]}")
    return elapsed


def count_lines(cmd):
    """Runs a text client once and counts its output lines (the warm-up, which also verifies)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = 0
    while chunk := proc.stdout.read(1 << 20):
        lines += chunk.count(b"\n")
    err = proc.stderr.read()
    if proc.wait() != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed: {err.decode()[-1000:]}")
    return lines


def measure_dataset(args, systems, meta, tcp):
    shape, rows = meta["shape"], meta["rows"]
    kind = SHAPES[shape][0]
    table = f"bench_{shape}_{rows}"
    sql = f"SELECT * FROM {table}"
    expected = normalise(expected_check(meta), kind)
    res = {"shape": shape, "rows": rows, "ipc_bytes": meta["ipc_bytes"], "times": {}, "notes": {}}
    loaded = []
    try:
        for s in systems.values():
            t0 = time.perf_counter()
            s.drop(table)
            s.load(table, meta)
            loaded.append(s)
            got = normalise(s.check(table, shape), kind)
            if got != expected:
                raise RuntimeError(f"{s.name} holds different data in {table}: {got} != {expected}")
            log(f"{shape} {rows:,}: loaded into {s.name} in {time.perf_counter() - t0:.1f} s")

        # Measurements: (label, how). Row clients are skipped when their Python objects would
        # not fit in memory.
        peers = []
        try:
            if "quiver" in systems:
                peers += [("quiver fetch", Worker(dict(systems["quiver"].client(), mode="fetch"), sql)),
                          ("quiver pyflight", Worker(dict(systems["quiver"].client(), kind="pyflight",
                                                          mode="pyflight"), sql)),
                          ("quiver pandas", Worker(dict(systems["quiver"].client(), mode="pandas"), sql))]
            # Plain TCP runs interleaved with the fetches, so that both see the same load.
            peers.append(("plain tcp", tcp))
            for name in ("mariadb", "postgres"):
                if name in systems:
                    peers.append((f"{name} raw", systems[name].raw_cmd(sql)))
            for name in ("mariadb", "postgres"):
                if name not in systems:
                    continue
                need, avail = row_client_memory(name, meta), mem_available()
                if need > 0.8 * avail:
                    res["notes"][f"{name} pandas"] = (f"skipped: needs ~{need / 1e9:.1f} GB of Python "
                                                      f"objects, {avail / 1e9:.1f} GB available")
                    log(f"{shape} {rows:,}: {name} pandas {res['notes'][f'{name} pandas']}")
                    continue
                peers.append((f"{name} pandas", Worker(dict(systems[name].client(), mode="pandas"), sql)))
            # Warm-up: one untimed fetch per system (fills the servers' caches), verified.
            for label, how in peers:
                if isinstance(how, Worker) and label.endswith(("fetch", "pyflight")):
                    _, n = how.run()
                elif label.endswith("raw"):
                    n = count_lines(how) - (1 if label.startswith("mariadb") else 0)
                else:
                    continue
                if n != rows:
                    raise RuntimeError(f"{label} returned {n} rows, expected {rows}")
            times = {label: [] for label, _ in peers}
            spent = {label: 0.0 for label, _ in peers}
            # Fetches that take under FAST_SECONDS (int1's) scatter by a factor of 2-3 on a
            # shared machine: they get FAST_FACTOR times as many runs, still interleaved.
            for rep in range(args.repeat * FAST_FACTOR):
                for label, how in peers:
                    if label in res["notes"] or (times[label] and spent[label] >= args.budget):
                        continue
                    if rep >= args.repeat and statistics.median(times[label] or [0]) >= FAST_SECONDS:
                        continue
                    try:
                        extra = ""
                        if isinstance(how, Worker):
                            elapsed, n = how.run()
                            if n != rows:
                                raise RuntimeError(f"{label} returned {n} rows, expected {rows}")
                            extra = f"  (client peak RSS {how.peak_rss / 1e9:.2f} GB)"
                        elif how is tcp:
                            elapsed = tcp.transfer(meta["ipc_bytes"])
                        else:
                            elapsed = time_subprocess(how)
                    except RuntimeError as e:
                        res["notes"][label] = f"failed: {str(e).splitlines()[0]}"
                        log(f"{shape} {rows:,}: {label} {res['notes'][label]}")
                        continue
                    times[label].append(elapsed)
                    spent[label] += elapsed
                    log(f"{shape} {rows:,} run {rep + 1}: {label:<16} {elapsed:8.3f} s{extra}")
            res["times"] = {k: v for k, v in times.items() if v}
        finally:
            for _, how in peers:
                if isinstance(how, Worker):
                    how.close()
        if res["times"].get("plain tcp"):
            log(f"{shape} {rows:,}: plain TCP {meta['ipc_bytes'] / 1e6:.0f} MB in "
                f"{statistics.median(res['times']['plain tcp']):.3f} s")
    finally:
        for s in loaded:
            try:
                s.drop(table)
            except Exception as e:  # keep going: the servers are stopped anyway
                log(f"dropping {table} in {s.name} failed: {e}")
    return res


# ----------------------------------------------------------------------------------------------
# Report


def med(res, label):
    t = res["times"].get(label)
    return statistics.median(t) if t else None


def fmt_time(res, label, repeat):
    t = res["times"].get(label)
    if not t:
        note = res["notes"].get(label)
        return f"– ({note})" if note else "–"
    s = f"{statistics.median(t):.3f}"
    return s + (f" ({len(t)} run{'s' if len(t) > 1 else ''})" if len(t) < repeat else "")


def ratio(res, peer, quiver):
    p, q = med(res, peer), med(res, quiver)
    return f"{p / q:.1f}" if p and q else "–"


def report(args, results, quiver_note):
    lines = ["#### Raw fetch: seconds (median), peer ÷ Quiver", "",
             "| data | rows | Quiver ADBC `fetch_arrow_table()` | `mysql --quick` | ÷ Quiver | "
             "`psql` COPY TO STDOUT | ÷ Quiver |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['shape']} | {r['rows']:,} | {fmt_time(r, 'quiver fetch', args.repeat)} | "
                     f"{fmt_time(r, 'mariadb raw', args.repeat)} | {ratio(r, 'mariadb raw', 'quiver fetch')} | "
                     f"{fmt_time(r, 'postgres raw', args.repeat)} | {ratio(r, 'postgres raw', 'quiver fetch')} |")
    lines += ["", "#### `pd.read_sql`: seconds (median), peer ÷ Quiver", "",
              "| data | rows | Quiver (ADBC) | PyMySQL | ÷ Quiver | psycopg | ÷ Quiver |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['shape']} | {r['rows']:,} | {fmt_time(r, 'quiver pandas', args.repeat)} | "
                     f"{fmt_time(r, 'mariadb pandas', args.repeat)} | {ratio(r, 'mariadb pandas', 'quiver pandas')} | "
                     f"{fmt_time(r, 'postgres pandas', args.repeat)} | {ratio(r, 'postgres pandas', 'quiver pandas')} |")
    lines += ["", "#### Loopback throughput: Arrow IPC bytes of the result", "",
              "| data | rows | bytes | plain TCP GB/s | Quiver pyarrow.flight GB/s | ÷ TCP | "
              "Quiver ADBC GB/s | ÷ TCP |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        t = med(r, "plain tcp")
        cells = []
        for label in ("quiver pyflight", "quiver fetch"):
            q = med(r, label)
            cells += [f"{r['ipc_bytes'] / q / 1e9:.2f}" if q else "–", f"{t / q * 100:.0f} %" if q else "–"]
        lines.append(f"| {r['shape']} | {r['rows']:,} | {r['ipc_bytes'] / 1e6:,.0f} MB | "
                     f"{r['ipc_bytes'] / t / 1e9:.2f} | {' | '.join(cells)} |")
    lines += ["", "The pyarrow.flight column is the server's throughput with the lightest client "
              "(C++ gRPC, `do_get(...).read_all()`); the ADBC column adds the Go driver's receive, "
              "decode and C-interface import in the client, which on this machine cost more CPU than "
              "the server's side. The ≥ 50 % aim is judged on pyarrow.flight; ADBC is shown beside it."]
    # Aims of issue 11: worst case over the sizes measured.
    aims = [("raw fetch ≥ 10x `mysql --quick`", ["int1", "int20"], "mariadb raw", "quiver fetch", 10),
            ("raw fetch ≥ 4x `mysql --quick`", ["str20"], "mariadb raw", "quiver fetch", 4),
            ("`pd.read_sql` ≥ 50x PyMySQL", ["int1", "int20"], "mariadb pandas", "quiver pandas", 50),
            ("≥ 50 % of plain TCP throughput (pyarrow.flight, judged)", list(SHAPES), "quiver pyflight",
             "plain tcp", 0.5),
            ("≥ 50 % of plain TCP throughput (ADBC, for reference)", list(SHAPES), "quiver fetch",
             "plain tcp", 0.5)]
    lines += ["", "#### Aims (issue 11), worst case over the sizes measured", "",
              "| aim | data | measured | met |", "|---|---|---:|---|"]
    for text, shapes, peer, base, goal in aims:
        for shape in shapes:
            # Each aim as a factor that must reach `goal`: a peer's time over Quiver's, or for
            # throughput Quiver's rate over plain TCP's (the TCP time over Quiver's).
            vals = [med(r, peer) / med(r, base) if base != "plain tcp" else med(r, base) / med(r, peer)
                    for r in results if r["shape"] == shape and med(r, peer) and med(r, base)]
            if not any(r["shape"] == shape for r in results):
                continue
            if not vals:
                lines.append(f"| {text} | {shape} | not measured | – |")
                continue
            worst = min(vals)
            shown = f"{worst * 100:.0f} %" if base == "plain tcp" else f"{worst:.1f}x"
            lines.append(f"| {text} | {shape} | {shown} | {'yes' if worst >= goal else '**no**'} |")
    if quiver_note:
        lines += ["", f"Quiver not measured: {quiver_note}."]
    return lines


def parse_size(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgG]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 100k, 1M, 2500000)")
    return int(float(m.group(1)) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[m.group(2).lower()])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1M,5M,10M", help="comma list of row counts (default 1M,5M,10M)")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma list of int1,int20,str20")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed runs per measurement (default 3; five times as many for "
                    "measurements whose runs take under 0.1 s)")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="stop repeating a measurement once its runs took this many seconds (default 60)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 100k rows, --budget 10, nothing written to RESULTS.md")
    ap.add_argument("--peers", default="quiver,mariadb,postgres", help="systems to run")
    ap.add_argument("--quiver", default=str(REPO_ROOT / "build" / "release" / "quiver"))
    ap.add_argument("--quiver-uri", help="use this running Flight SQL server instead of starting "
                    "`quiver serve` (it must read --data-dir's files)")
    ap.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data" / "flight")
    ap.add_argument("--tmp-dir", type=Path, help="where the servers' temporary directory goes")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the servers' directory (logs)")
    ap.add_argument("--buffer-memory", type=parse_size,
                    help="InnoDB buffer pool in bytes, e.g. 4G (default: enough for the largest "
                    "table, at most 30%% of available memory); PostgreSQL's shared_buffers is the "
                    "same, at most 2G")
    ap.add_argument("--no-install", action="store_true", help="never call apt-get")
    ap.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true", help="print the tables only")
    ap.add_argument("--endpoints", type=int, default=1,
                    help="start quiver serve with --endpoints N: SELECT * leaves in N endpoints, "
                         "which ADBC and the pyarrow.flight client (a thread each) fetch in parallel")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.budget, args.no_write = "100k", min(args.budget, 10.0), True
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    peers = args.peers.split(",")
    for s in shapes:
        if s not in SHAPES:
            sys.exit(f"error: unknown shape {s!r} (known: {', '.join(SHAPES)})")
    for p in peers:
        if p not in ("quiver", "mariadb", "postgres"):
            sys.exit(f"error: unknown peer {p!r}")
    args.data_dir = args.data_dir.resolve()

    ensure_packages([p for p in peers if p != "quiver"], not args.no_install)
    metas = [ensure_data(args.data_dir, shape, rows) for shape in shapes for rows in sizes]

    if args.buffer_memory is None:
        per_row = {"int1": 60, "int20": 220, "str20": 420}
        largest = max(per_row[m["shape"]] * m["rows"] for m in metas)
        args.buffer_memory = int(min(max(1.3 * largest, 256 << 20), 0.3 * mem_available()))
    args.buffer_memory = args.buffer_memory // (1 << 20) << 20

    tmp = Path(tempfile.mkdtemp(prefix="quiver-flight-bench-", dir=args.tmp_dir))
    tmp.chmod(0o755)  # the mysql and postgres users must reach their directories
    log(f"servers' directory: {tmp}")

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    systems, started, tcp, results = {}, [], None, []
    quiver_note = None
    try:
        if "quiver" in peers:
            q = Quiver(args.quiver, tmp, args.data_dir / "parquet", args.quiver_uri, args.endpoints)
            quiver_note = q.unavailable()
            if quiver_note:
                log(f"QUIVER SKIPPED: {quiver_note}; measuring the peers only")
            else:
                systems["quiver"] = q
        if "mariadb" in peers:
            systems["mariadb"] = MariaDB(tmp, args.buffer_memory)
        if "postgres" in peers:
            # Sequential scans of tables above a quarter of shared_buffers go through a small
            # ring and the OS page cache anyway; a larger shared_buffers only takes memory.
            systems["postgres"] = Postgres(tmp, min(args.buffer_memory, 2 << 30))
        for s in systems.values():
            log(f"starting {s.name} ...")
            started.append(s)
            s.start()
            log(f"{s.name}: {s.version}")
        tcp = TcpSender()
        for meta in metas:
            results.append(measure_dataset(args, systems, meta, tcp))
        versions = [s.version for s in systems.values()]
    finally:
        if tcp:
            tcp.stop()
        for s in reversed(started):
            try:
                s.stop()
            except Exception as e:
                log(f"stopping {s.name} failed: {e}")
        if args.keep_tmp:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    from importlib.metadata import version as pkg_version

    import pandas as pd
    command = [".venv/bin/python", "bench/flight_bench.py", *sys.argv[1:]]
    data_lines = ", ".join(f"{s} ({SHAPES[s][2]})" for s in shapes)
    header = [
        f"## Flight SQL fetch vs MariaDB and PostgreSQL ({dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Command: `{shlex.join(command)}`  ",
        f"Machine: {machine_line()}  ",
        f"Versions: {'; '.join(versions)}; pyarrow {pa.__version__}, pandas {pd.__version__}, "
        f"adbc-driver-flightsql {pkg_version('adbc-driver-flightsql')}, PyMySQL "
        f"{pkg_version('PyMySQL')}, psycopg {pkg_version('psycopg')}, Python {platform.python_version()}  ",
        f"Data: {data_lines}; the same rows in every system (loaded from one Parquet/CSV pair, "
        "checked by count, min and max): in Quiver a table in the server's memory made by "
        "`CREATE TABLE … AS SELECT * FROM read_parquet(…)`, in MariaDB an InnoDB table (buffer pool "
        f"{args.buffer_memory / 2**30:.1f} GiB), in PostgreSQL a heap table (shared_buffers "
        f"{min(args.buffer_memory, 2 << 30) / 2**30:.1f} GiB). "
        "Query `SELECT * FROM t` over TCP on 127.0.0.1. Median of "
        f"up to {args.repeat} runs ({args.repeat * FAST_FACTOR} for measurements whose runs take "
        f"under {FAST_SECONDS:g} s) after one warm-up per system, peers interleaved (a measurement "
        f"stops repeating once its runs took {args.budget:g} s). `mysql` and `psql` run as "
        "subprocesses writing to /dev/null (process start included); the Python clients run in a "
        "worker process with the connection made beforehand. \"÷ Quiver\" above 1 means Quiver "
        "was faster.",
        "",
    ]
    markdown = "\n".join(header + report(args, results, quiver_note))
    print(markdown)
    if args.no_write:
        return
    if quiver_note:
        log("not writing RESULTS.md: Quiver was not measured")
        return
    replace_section(args.results, SECTION_START, SECTION_END, markdown)
    log(f"wrote {args.results}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted (the servers were stopped)")
    except RuntimeError as e:  # a server or client failed; the message says which and how
        sys.exit(f"error: {e}\n(the servers were stopped)")
