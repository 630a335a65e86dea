"""PostgreSQL 15 as the oracle for SQL semantics, shared by the test modules.

A module that compares Quiver with PostgreSQL starts one throwaway cluster
(Debian's postgresql-15: initdb + pg_ctl under a temporary directory, as the
`postgres` user when the tests run as root) and stops it at the end:

    @pytest.fixture(scope="module")
    def pg():
        with pg_oracle.postgres() as server:
            server.execute(SETUP)
            yield server

`server.query(sql)` returns PostgreSQL's rows as lists of text (NULL as
None); `quiver_rows` runs the same SQL through `quiver sql --format arrow`;
`assert_same_rows` compares the two as multisets, numbers by value.
"""

import contextlib
import decimal
import math
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pyarrow.ipc as ipc
import pytest

PG_BIN = Path("/usr/lib/postgresql/15/bin")
NULL_TEXT = "\\N"


def available():
    return (PG_BIN / "initdb").exists() and shutil.which("psql") is not None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throwaway PostgreSQL 15 cluster. It listens on a Unix socket in its
    directory, and on 127.0.0.1 too when `tcp` (for psycopg)."""

    def __init__(self, locale="C", tcp=False):
        self.dir = Path(tempfile.mkdtemp(prefix="quiver-pg-"))
        os.chmod(self.dir, 0o755)
        self.root = os.geteuid() == 0
        if self.root:
            # initdb refuses root; the postgres user owns the cluster.
            shutil.chown(self.dir, "postgres", "postgres")
        self.port = _free_port()
        data = self.dir / "data"
        try:
            self._run([PG_BIN / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E",
                       "UTF8", f"--locale={locale}", "--no-sync"])
            listen = "127.0.0.1" if tcp else "''"
            opts = (f"-p {self.port} -k {self.dir} -c listen_addresses={listen} -c fsync=off "
                    "-c shared_buffers=16MB -c autovacuum=off")
            self._run([PG_BIN / "pg_ctl", "-D", data, "-l", self.dir / "server.log", "-w",
                       "-t", "60", "-o", opts, "start"], new_session=True)
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        self._psql = ["psql", "-X", "-q", "-h", str(self.dir), "-p", str(self.port),
                      "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1"]

    def _run(self, cmd, new_session=False):
        cmd = [str(c) for c in cmd]
        if self.root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        # pg_ctl's server must not die with the test's process group on Ctrl-C.
        subprocess.run(cmd, check=True, capture_output=True, timeout=120,
                       start_new_session=new_session)

    def psql(self, *args, check=True):
        """psql with `args` (e.g. "-c", sql); the completed process."""
        proc = subprocess.run(self._psql + list(args), capture_output=True, text=True,
                              timeout=60, env={**os.environ, "PGTZ": "UTC"})
        if check:
            assert proc.returncode == 0, f"PostgreSQL failed on {args}:\n{proc.stderr}"
        return proc

    def execute(self, sql):
        """Runs statements (one string, several statements allowed) for their effect."""
        self.psql("-c", sql)

    def query(self, sql):
        """PostgreSQL's rows for `sql`, each a list of text values, NULL as None."""
        # ASCII's record and unit separators: values may hold newlines and tabs.
        out = self.psql("-A", "-t", "-R", "\x1e", "-F", "\x1f", "-P", f"null={NULL_TEXT}",
                        "-c", sql).stdout
        out = out[:-1] if out.endswith("\n") else out
        return [[None if v == NULL_TEXT else v for v in record.split("\x1f")]
                for record in out.split("\x1e") if record != ""]

    def sqlstate(self, sql):
        """The SQLSTATE of the error `sql` raises; None when it succeeds."""
        proc = subprocess.run(self._psql + ["-v", "VERBOSITY=verbose"], input=sql + ";\n",
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PGTZ": "UTC"})
        if proc.returncode == 0:
            return None
        for line in proc.stderr.splitlines():
            if line.startswith("ERROR:"):
                return line.split()[1].rstrip(":")
        raise AssertionError(f"no SQLSTATE in PostgreSQL's error for {sql}:\n{proc.stderr}")

    __call__ = query

    def csv(self, setup, query):
        """The result of `query` as PostgreSQL's COPY ... TO STDOUT (FORMAT csv)
        writes it, after the `setup` statements, in a fresh schema per call (so
        one test's tables do not leak into another's)."""
        args = ["-c", "SET TimeZone = 'UTC'", "-c", "DROP SCHEMA IF EXISTS t CASCADE",
                "-c", "CREATE SCHEMA t", "-c", "SET search_path = t"]
        for stmt in setup:
            args += ["-c", stmt]
        args += ["-c", f"COPY ({query}) TO STDOUT WITH (FORMAT csv)"]
        return self.psql(*args).stdout

    def connect(self, **kwargs):
        """A psycopg connection (needs `tcp=True`)."""
        import psycopg
        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                               dbname="postgres", **kwargs)

    def stop(self):
        try:
            self._run([PG_BIN / "pg_ctl", "-D", self.dir / "data", "-m", "immediate", "-w",
                       "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


@contextlib.contextmanager
def postgres(locale="C", tcp=False):
    """A started cluster for the with-block; skips the tests where PostgreSQL
    15 is not installed."""
    if not available():
        pytest.skip("PostgreSQL 15 (Debian's postgresql-15 and psql) is not installed")
    server = Postgres(locale=locale, tcp=tcp)
    try:
        yield server
    finally:
        server.stop()


def quiver_rows(quiver_bin, sql, timeout=120):
    """Quiver's rows for `sql` (through --format arrow), by column position:
    several columns may share a name (rank, rank)."""
    proc = subprocess.run([str(quiver_bin), "sql", "--format", "arrow", sql],
                          capture_output=True, timeout=timeout)
    assert proc.returncode == 0, f"Quiver failed on {sql}:\n{proc.stderr.decode()}"
    table = ipc.open_stream(proc.stdout).read_all()
    return [list(r) for r in zip(*(c.to_pylist() for c in table.columns))]


def norm(v):
    """A value as a comparable key: None, a float, or exact text as PostgreSQL prints it."""
    if v is None or v == NULL_TEXT:
        return None
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, float):
        return v
    if isinstance(v, (int, decimal.Decimal)):
        return str(v)
    if isinstance(v, bytes):
        return "\\x" + v.hex()  # bytea as PostgreSQL prints it (hex)
    return v


def same(a, b):
    """Two normalized values are equal: floats within 1e-9 relative (NaN equals
    NaN), numbers by value (PostgreSQL prints numeric with its scale, Quiver's
    may carry another), everything else as text."""
    if a is None or b is None:
        return a is b
    if isinstance(a, float) or isinstance(b, float):
        try:
            x, y = float(a), float(b)
        except ValueError:
            return False
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    if a == b:
        return True
    try:
        return decimal.Decimal(a) == decimal.Decimal(b)
    except decimal.InvalidOperation:
        return False


def sort_key(row):
    return [("" if v is None else str(v)) for v in row]


def assert_same_rows(ours, theirs, sql, ordered=False):
    """Quiver's rows equal PostgreSQL's: in order when `ordered`, else as
    multisets (each of ours matched to an equal row of theirs)."""
    ours = [[norm(v) for v in r] for r in ours]
    theirs = [[norm(v) for v in r] for r in theirs]
    assert len(ours) == len(theirs), f"{sql}\nquiver {ours}\npostgres {theirs}"

    def equal(row, cand):
        return len(cand) == len(row) and all(same(a, b) for a, b in zip(row, cand))

    if ordered:
        for i, (row, cand) in enumerate(zip(ours, theirs)):
            assert equal(row, cand), f"{sql}\nrow {i}: quiver {row}, postgres {cand}"
        return
    remaining = sorted(theirs, key=sort_key)
    for row in sorted(ours, key=sort_key):
        for i, cand in enumerate(remaining):
            if equal(row, cand):
                del remaining[i]
                break
        else:
            pytest.fail(f"{sql}\nQuiver row {row} is not in PostgreSQL's answer:\n"
                        + "\n".join(map(str, sorted(theirs, key=sort_key))))
