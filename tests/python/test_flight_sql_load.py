"""`quiver serve` under load: many concurrent clients, and clients that
vanish mid-stream.

Expected answers come from DuckDB over the demo table as pyarrow reads it
from the file `quiver demo` writes (the generator and seed the server uses).
No timing assertions: memory is polled back down with a generous margin.
"""

import random
import subprocess
import threading
import time

import adbc_driver_flightsql.dbapi as flight_sql
import duckdb
import pyarrow as pa
import pyarrow.flight as fl
import pytest

from flight_fixtures import Server


@pytest.fixture(scope="module")
def demo_arrow(quiver_bin, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    subprocess.run([str(quiver_bin), "demo", "--dir", str(out)], check=True, capture_output=True)
    table = pa.ipc.open_file(out / "readings.arrow").read_all()
    return table.set_column(4, "status", table.column("status").cast(pa.string()))


# --- 32 concurrent clients x 50 mixed queries ------------------------------------------

# (kind, SQL for Quiver, SQL for DuckDB or None when the same, parameters or None).
# Every query has a total order, so results compare exactly.
AGGREGATES = [
    "SELECT sensor_id, count(*) AS n, min(ts) AS first, max(humidity) AS h FROM readings "
    "GROUP BY sensor_id ORDER BY sensor_id",
    "SELECT status, ok, count(*) AS n FROM readings GROUP BY status, ok ORDER BY status, ok",
    "SELECT count(*) AS n, count(DISTINCT sensor_id) AS sensors, min(temperature) AS lo, "
    "max(temperature) AS hi FROM readings WHERE ok",
]
JOINS = [
    # Each sensor's latest reading, joined back to its row.
    "SELECT a.sensor_id, a.ts, a.temperature FROM readings a JOIN "
    "(SELECT sensor_id, max(ts) AS mts FROM readings GROUP BY sensor_id) b "
    "ON a.sensor_id = b.sensor_id AND a.ts = b.mts ORDER BY a.sensor_id, a.ts",
    "SELECT a.status, count(*) AS n FROM readings a JOIN readings b "
    "ON a.sensor_id = b.sensor_id AND a.ts = b.ts WHERE a.sensor_id <= 8 GROUP BY a.status ORDER BY a.status",
]
POINT = "SELECT sensor_id, ts, temperature, status FROM readings WHERE sensor_id = {} ORDER BY ts LIMIT 5"
PREPARED = "SELECT sensor_id, ts, humidity FROM readings WHERE sensor_id = ? AND ok ORDER BY ts DESC LIMIT 3"
PREPARED_DUCK = "SELECT sensor_id, ts, humidity FROM readings WHERE sensor_id = $1 AND ok ORDER BY ts DESC LIMIT 3"
PREPARED2 = "SELECT count(*) AS n FROM readings WHERE sensor_id BETWEEN $1 AND $2 AND status = $3"

CLIENTS = 32
QUERIES_PER_CLIENT = 50


def make_plan(rng):
    """A client's 50 queries: (how, sql, parameters, expected key)."""
    plan = []
    for _ in range(QUERIES_PER_CLIENT):
        pick = rng.randrange(5)
        if pick == 0:
            sql = rng.choice(AGGREGATES)
            plan.append((rng.choice(["flight", "adbc"]), sql, None, ("sql", sql)))
        elif pick == 1:
            sql = rng.choice(JOINS)
            plan.append((rng.choice(["flight", "adbc"]), sql, None, ("sql", sql)))
        elif pick == 2:
            sql = POINT.format(rng.randint(1, 64))
            plan.append((rng.choice(["flight", "adbc"]), sql, None, ("sql", sql)))
        elif pick == 3:
            k = rng.randint(1, 64)
            plan.append(("adbc", PREPARED, (k,), ("prepared", k)))
        else:
            lo = rng.randint(1, 60)
            params = (lo, lo + rng.randint(0, 4), rng.choice(["ok", "warn", "fail"]))
            plan.append(("adbc", PREPARED2, params, ("prepared2", params)))
    return plan


def test_32_concurrent_clients_get_correct_results(quiver_bin, demo_arrow):
    duck = duckdb.connect()
    duck.register("readings", demo_arrow)
    statuses = set(demo_arrow.column("status").to_pylist())
    rng = random.Random(11)
    plans = [make_plan(random.Random(rng.random())) for _ in range(CLIENTS)]
    expected = {}
    for plan in plans:
        for _, sql, params, key in plan:
            if key in expected:
                continue
            if key[0] == "sql":
                expected[key] = duck.sql(sql).to_arrow_table().to_pylist()
            elif key[0] == "prepared":
                expected[key] = [tuple(r) for r in duck.execute(PREPARED_DUCK, list(params)).fetchall()]
            else:
                expected[key] = [tuple(r) for r in duck.execute(PREPARED2, list(params)).fetchall()]
    assert {"ok", "warn", "fail"} & statuses  # the plan's statuses exist in the data

    server = Server(quiver_bin)
    errors = []
    done = [0] * CLIENTS

    def client_main(i):
        try:
            flight = fl.FlightClient(server.uri)
            with flight_sql.connect(server.uri) as conn, conn.cursor() as cur:
                for how, sql, params, key in plans[i]:
                    if how == "flight":
                        info = flight.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
                        got = flight.do_get(info.endpoints[0].ticket).read_all().to_pylist()
                    elif params is None:
                        cur.execute(sql)
                        got = cur.fetch_arrow_table().to_pylist()
                    else:
                        cur.execute(sql, parameters=params)
                        got = cur.fetchall()
                    if got != expected[key]:
                        errors.append(f"client {i}: {sql} {params}: got {got[:3]}..., want {expected[key][:3]}...")
                        return
                    done[i] += 1
            flight.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"client {i}: {type(e).__name__}: {e}")

    try:
        threads = [threading.Thread(target=client_main, args=(i,)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        assert not any(t.is_alive() for t in threads), "a client hung"
        assert errors == []
        assert done == [QUERIES_PER_CLIENT] * CLIENTS
        assert server.alive()
    finally:
        server.stop()
    assert server.log.count(" ok sql=") >= CLIENTS * QUERIES_PER_CLIENT


# --- clients dropping a large DoGet mid-stream ---------------------------------------------

# 3M rows (100k readings x 30): far more than the queue and the socket hold.
BIG = "SELECT a.*, b.sensor_id AS other FROM readings a, (SELECT sensor_id FROM readings LIMIT 30) b"


def drop_mid_stream(server, how):
    client = fl.FlightClient(server.uri)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(BIG.encode()))
    reader = client.do_get(info.endpoints[0].ticket)
    chunk = reader.read_chunk()
    assert chunk.data.num_rows > 0
    if how == "cancel":
        reader.cancel()
    # "close": the client goes away with the stream unread.
    client.close()


def test_clients_dropping_a_stream_leave_the_server_healthy(quiver_bin):
    server = Server(quiver_bin)
    try:
        client = fl.FlightClient(server.uri)

        def serving():
            info = client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT count(*) AS n FROM readings"))
            return client.do_get(info.endpoints[0].ticket).read_all().to_pylist() == [{"n": 100000}]

        # Warm up (thread pools, allocator arenas), then take the baseline.
        drop_mid_stream(server, "cancel")
        assert serving()
        baseline = server.rss_kib()
        for i in range(20):
            drop_mid_stream(server, "cancel" if i % 2 else "close")
            assert server.alive()
        assert serving()
        # Every dropped query ends and frees its batches: RSS comes back near
        # the baseline (a generous 64 MiB margin for allocator caching).
        deadline = time.monotonic() + 60
        while server.rss_kib() > baseline + 64 * 1024:
            assert time.monotonic() < deadline, f"RSS {server.rss_kib()} KiB stays above {baseline} KiB + 64 MiB"
            time.sleep(0.2)
        # And the full stream still works after all that.
        info = client.get_flight_info(fl.FlightDescriptor.for_command(BIG.encode()))
        rows = sum(chunk.data.num_rows for chunk in client.do_get(info.endpoints[0].ticket))
        assert rows == 100000 * 30
    finally:
        server.stop()
    assert server.log.count('error="the client cancelled the call"') >= 1
