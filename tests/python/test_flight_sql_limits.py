"""`quiver serve`'s limits and refusals, seen from real clients.

Each test starts the server it needs on a free loopback port (flight_fixtures.Server)
with the option under test: --query-timeout, --memory-limit, --read-only,
--data (file access confined to the data directories), --max-connections,
and cancellation through ActionCancelFlightInfo. No timing assertions: where
something must happen "eventually" (a token expiring, a connection slot
freeing), the test polls with a generous bound.
"""

import os
import threading
import time

import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.flight as fl
import pytest

from flight_fixtures import Server, field_bytes

# A query that runs for many seconds on the demo table and checks for
# cancellation often: a hash join fanning out to ~156M rows (64 sensors).
LONG_QUERY = "SELECT sum(a.temperature * b.humidity) FROM readings a JOIN readings b ON a.sensor_id = b.sensor_id"


def run_query(client, sql, options=None):
    options = options or fl.FlightCallOptions()
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()), options)
    return client.do_get(info.endpoints[0].ticket, options).read_all()


def assert_serving(server):
    assert server.alive()
    assert run_query(fl.FlightClient(server.uri), "SELECT 6 * 7 AS x").to_pylist() == [{"x": 42}]


def poll(condition, what, limit_s=60):
    """Waits until condition() is true (a bound, not a timing assertion)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {limit_s} s")


# --- per-statement limits ------------------------------------------------------------


def test_query_timeout_is_deadline_exceeded(quiver_bin):
    server = Server(quiver_bin, "--query-timeout", "0.5")
    try:
        client = fl.FlightClient(server.uri)
        with pytest.raises(fl.FlightTimedOutError, match="canceling statement due to statement timeout"):
            run_query(client, LONG_QUERY)
        # A nested loop join whose blocks yield no rows (10^10 pairs).
        with pytest.raises(fl.FlightTimedOutError, match="canceling statement due to statement timeout"):
            run_query(client, "SELECT count(*) FROM readings a, readings b WHERE a.temperature + b.temperature > 1e9")
        # The same through ADBC, and the server goes on serving short queries.
        with flight_sql.connect(server.uri) as conn, conn.cursor() as cur:
            with pytest.raises(adbc_driver_manager.Error, match="statement timeout"):
                cur.execute(LONG_QUERY)
                cur.fetchall()
            cur.execute("SELECT count(*) FROM readings")
            assert cur.fetchall() == [(100000,)]
        assert_serving(server)
    finally:
        server.stop()
    assert 'error="canceling statement due to statement timeout"' in server.log


def test_memory_limit_is_resource_exhausted(quiver_bin):
    server = Server(quiver_bin, "--memory-limit", "2MB")
    try:
        client = fl.FlightClient(server.uri)
        # 100k groups need more than 2 MB of hash table.
        with pytest.raises(pa.ArrowException, match="resource exhausted.*memory limit of 2 MiB"):
            run_query(client, "SELECT ts, temperature, count(*) FROM readings GROUP BY 1, 2")
        # Small queries still fit.
        got = run_query(client, "SELECT status, count(*) AS n FROM readings GROUP BY status ORDER BY status")
        assert sum(got.column("n").to_pylist()) == 100000
        assert_serving(server)
    finally:
        server.stop()


def test_read_only_refuses_writes_and_ingest(quiver_bin):
    server = Server(quiver_bin, "--read-only")
    try:
        client = fl.FlightClient(server.uri)
        with pytest.raises(fl.FlightUnauthorizedError, match="cannot execute INSERT in a read-only transaction"):
            run_query(client, "INSERT INTO readings SELECT * FROM readings LIMIT 1")
        with flight_sql.connect(server.uri) as conn, conn.cursor() as cur:
            for sql in ["CREATE TABLE t (a int)", "DELETE FROM readings", "UPDATE readings SET ok = false",
                        "DROP TABLE readings"]:
                with pytest.raises(adbc_driver_manager.Error, match="read-only"):
                    cur.execute(sql)
            with pytest.raises(adbc_driver_manager.Error, match="read-only"):
                cur.adbc_ingest("ing", pa.table({"a": [1, 2]}), mode="create")
            cur.execute("SELECT count(*) FROM readings")
            assert cur.fetchall() == [(100000,)]
        # Nothing was written.
        assert run_query(client, "SELECT count(*) AS n FROM readings").to_pylist() == [{"n": 100000}]
    finally:
        server.stop()


def test_files_outside_the_data_directories_are_refused(quiver_bin, tmp_path):
    lake = tmp_path / "lake"
    outside = tmp_path / "outside"
    lake.mkdir()
    outside.mkdir()
    pacsv.write_csv(pa.table({"a": [1, 2, 3]}), lake / "inside.csv")
    pacsv.write_csv(pa.table({"secret": ["s1", "s2"]}), outside / "secret.csv")
    os.symlink(outside / "secret.csv", lake / "link.csv")
    os.symlink(outside, lake / "linkdir")
    server = Server(quiver_bin, "--data", lake)
    try:
        client = fl.FlightClient(server.uri)
        # A file inside the data directory works, by path and as a table.
        assert run_query(client, f"SELECT sum(a) AS s FROM read_csv('{lake}/inside.csv')").to_pylist() == [{"s": 6}]
        assert run_query(client, "SELECT sum(a) AS s FROM inside").to_pylist() == [{"s": 6}]
        refused = [
            "SELECT * FROM read_csv('/etc/passwd')",
            "SELECT * FROM read_parquet('/etc/passwd')",
            f"SELECT * FROM read_csv('{lake}/../outside/secret.csv')",
            f"SELECT * FROM read_csv('{lake}/link.csv')",
            f"SELECT * FROM read_csv('{lake}/linkdir/secret.csv')",
            f"CREATE TABLE leak AS SELECT * FROM read_csv('/etc/passwd')",
            f"COPY (SELECT 1 AS x) TO '{outside}/out.csv'",
        ]
        for sql in refused:
            with pytest.raises(fl.FlightUnauthorizedError, match="permission denied for file"):
                run_query(client, sql)
        # The symlink in the data directory was not served as a table either.
        with pytest.raises(pa.ArrowInvalid, match='relation "link" does not exist'):
            run_query(client, "SELECT * FROM link")
        assert not (outside / "out.csv").exists()
        # COPY TO inside the data directory is allowed.
        run_query(client, f"COPY (SELECT 1 AS x) TO '{lake}/out.csv'")
        assert pacsv.read_csv(lake / "out.csv").to_pylist() == [{"x": 1}]
        assert_serving(server)
    finally:
        server.stop()


def test_without_data_directories_no_file_is_read_or_written(quiver_bin, tmp_path):
    # The demo server (no --data) serves its in-memory table and touches no file.
    victim = tmp_path / "victim.csv"
    pacsv.write_csv(pa.table({"secret": ["s1"]}), victim)
    server = Server(quiver_bin)
    try:
        client = fl.FlightClient(server.uri)
        for sql in [f"SELECT * FROM read_csv('{victim}')", "SELECT * FROM read_csv('/etc/passwd')",
                    f"COPY (SELECT 1 AS x) TO '{tmp_path}/out.csv'"]:
            with pytest.raises(fl.FlightUnauthorizedError, match="permission denied for file"):
                run_query(client, sql)
        assert not (tmp_path / "out.csv").exists()
        assert run_query(client, "SELECT count(*) AS n FROM readings").to_pylist() == [{"n": 100000}]
    finally:
        server.stop()


# --- cancellation ----------------------------------------------------------------------


def cancel_flight_info(client, info):
    """ActionCancelFlightInfo with CancelFlightInfoRequest{info} (field 1)."""
    results = list(client.do_action(fl.Action("CancelFlightInfo", field_bytes(1, info.serialize()))))
    assert len(results) == 1
    return results[0].body.to_pybytes()


def start_fetch(client, info):
    """DoGet of info's first endpoint on a thread; outcome gets "table" or "error"."""
    outcome = {}

    def fetch():
        # read_chunk, not read_all: pyarrow turns an ArrowCancelled
        # (FlightCancelledError is one) raised inside read_all into a
        # simulated Ctrl-C of the whole process.
        try:
            reader = client.do_get(info.endpoints[0].ticket)
            while True:
                reader.read_chunk()
        except StopIteration:
            outcome["table"] = "complete"
        except Exception as e:  # noqa: BLE001 - the test inspects it
            outcome["error"] = e

    reader = threading.Thread(target=fetch)
    reader.start()
    return reader, outcome


def test_cancel_flight_info_stops_a_running_query(quiver_bin):
    server = Server(quiver_bin, "--verbose")
    try:
        client = fl.FlightClient(server.uri)
        dogets = 0
        for _ in range(2):
            info = client.get_flight_info(fl.FlightDescriptor.for_command(LONG_QUERY.encode()))
            reader, outcome = start_fetch(client, info)
            # --verbose logs each RPC as it starts: cancel once the DoGet runs.
            dogets += 1
            poll(lambda: server.log.count("DoGet peer=") >= dogets or not reader.is_alive(), "the DoGet")
            # CancelFlightInfoResult{status = CANCEL_STATUS_CANCELLED (1)}.
            assert cancel_flight_info(client, info) == b"\x08\x01"
            reader.join(timeout=120)
            assert not reader.is_alive(), "the cancelled DoGet did not end"
            assert "table" not in outcome, "the query ran to completion"
            assert isinstance(outcome["error"], fl.FlightCancelledError), outcome["error"]
            assert "canceling statement due to user request" in str(outcome["error"])
        assert_serving(server)
    finally:
        server.stop()
    assert 'error="canceling statement due to user request"' in server.log


# A query whose hash table keeps growing (every row its own group) for far
# longer than the test waits: past 1 GiB within seconds. (generate_series
# streams, so a query over few groups would hold little memory and finish.)
HEAVY_QUERY = "SELECT x AS k, count(*) AS n FROM generate_series(1, 400000000) s(x) GROUP BY 1"


def test_cancel_flight_info_frees_the_query_memory(quiver_bin):
    server = Server(quiver_bin, "--verbose")
    try:
        client = fl.FlightClient(server.uri)
        assert_serving(server)
        baseline = server.rss_kib()
        info = client.get_flight_info(fl.FlightDescriptor.for_command(HEAVY_QUERY.encode()))
        reader, outcome = start_fetch(client, info)
        # The query holds its hash table (well over 1 GiB) before it is cancelled.
        poll(lambda: server.rss_kib() > baseline + 1024 * 1024 or not reader.is_alive(), "the query's memory")
        assert reader.is_alive(), outcome
        assert cancel_flight_info(client, info) == b"\x08\x01"
        reader.join(timeout=120)
        assert not reader.is_alive(), "the cancelled DoGet did not end"
        assert isinstance(outcome.get("error"), fl.FlightCancelledError), outcome
        # Its memory (over 1 GiB when cancelled) goes back; the margin covers the
        # allocator's per-thread caches and arenas kept below the trim
        # threshold (80 MiB above the baseline was seen).
        poll(lambda: server.rss_kib() < baseline + 192 * 1024,
             f"RSS back near {baseline} KiB (now {server.rss_kib()} KiB)")
        assert_serving(server)
    finally:
        server.stop()


def test_adbc_cancel_stops_a_running_query(quiver_bin):
    server = Server(quiver_bin, "--verbose")
    try:
        with flight_sql.connect(server.uri) as conn, conn.cursor() as cur:
            outcome = {}

            def fetch():
                try:
                    cur.execute(LONG_QUERY)
                    outcome["rows"] = cur.fetchall()
                except Exception as e:  # noqa: BLE001
                    outcome["error"] = e

            dogets = server.log.count("DoGet peer=")  # connecting fetched GetSqlInfo
            reader = threading.Thread(target=fetch)
            reader.start()
            # --verbose logs each RPC as it starts: cancel once the DoGet runs.
            poll(lambda: server.log.count("DoGet peer=") > dogets or not reader.is_alive(), "the DoGet")
            while reader.is_alive():
                cur.adbc_cancel()
                reader.join(timeout=0.2)
            assert "rows" not in outcome, "the query ran to completion"
            assert isinstance(outcome["error"], adbc_driver_manager.Error)
            assert "cancel" in str(outcome["error"]).lower()
        assert_serving(server)
    finally:
        server.stop()
    assert "the client cancelled the call" in server.log or "canceling statement" in server.log, server.log


# --- connections -------------------------------------------------------------------------


def test_max_connections_is_enforced(quiver_bin):
    server = Server(quiver_bin, "--max-connections", "2")
    try:
        first, second = fl.FlightClient(server.uri), fl.FlightClient(server.uri)
        run_query(first, "SELECT 1")
        run_query(second, "SELECT 1")
        third = fl.FlightClient(server.uri)
        with pytest.raises(pa.ArrowException, match="sorry, too many clients already"):
            run_query(third, "SELECT 1")
        # Admitted clients keep working, call after call.
        for client in (first, second, first):
            assert run_query(client, "SELECT 2 AS x").to_pylist() == [{"x": 2}]
        # Once a client closes its connection, its slot frees up (the server
        # notices closed connections within its idle window).
        first.close()

        def third_admitted():
            try:
                run_query(third, "SELECT 1")
                return True
            except pa.ArrowException as e:
                assert "too many clients" in str(e)
                return False

        poll(third_admitted, "a freed connection slot")
    finally:
        server.stop()
    assert "refused connection from" in server.log
