"""`quiver serve --endpoints N`: a large result split into several endpoints.

A query that scans one table through WHERE and column expressions only gets
N endpoints, each ticket reading one part of the table; the parts together
must be exactly the query's rows (compared with DuckDB over the same data),
whether fetched one after the other or in parallel, through pyarrow.flight
and through ADBC (whose driver reads every endpoint). Other queries (ORDER
BY, LIMIT, aggregates, joins) keep one endpoint, and a server without the
option answers as before.
"""

import concurrent.futures

import adbc_driver_flightsql.dbapi as flight_sql
import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.flight as fl
import pyarrow.parquet as pq
import pytest

from flight_fixtures import Server, field_bytes

ROWS = 300_000


def make_table():
    rng = np.random.default_rng(11)
    return pa.table({
        "id": pa.array(np.arange(ROWS, dtype=np.int64)),
        "x": pa.array(rng.integers(-1000, 1000, ROWS), type=pa.int64()),
        "s": pa.array([f"s{i % 97}" for i in range(ROWS)]),
    })


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("endpoints")
    table = make_table()
    # Several row groups: the file's scan splits by them.
    pq.write_table(table, d / "events.parquet", row_group_size=ROWS // 6)
    return d, table


def load(client, data_dir):
    """mem: a table in the server's memory, made by several INSERTs (several
    stored batches); the file is the table `events` (--data)."""
    run(client, "CREATE TABLE mem (id BIGINT, x BIGINT, s TEXT)")
    for lo in range(0, ROWS, ROWS // 3):
        run(client, f"INSERT INTO mem SELECT * FROM events WHERE id >= {lo} AND id < {lo + ROWS // 3}")


def run(client, sql):
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    return info, [client.do_get(e.ticket).read_all() for e in info.endpoints]


@pytest.fixture(scope="module")
def split_server(quiver_bin, data):
    server = Server(quiver_bin, "--endpoints", "4", "--data", data[0])
    load(fl.FlightClient(server.uri), data[0])
    yield server
    server.stop()


def duck(table, sql):
    con = duckdb.connect()
    con.register("mem", table)
    con.register("events", table)
    return con.sql(sql).to_arrow_table()


def same_rows(parts, want):
    got = pa.concat_tables([p.cast(want.schema) for p in parts])
    assert got.num_rows == want.num_rows
    keys = [(name, "ascending") for name in want.column_names]
    assert got.sort_by(keys).equals(want.sort_by(keys))


@pytest.mark.parametrize("table_name", ["mem", "events"])
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM {t}",
        "SELECT id, x * 2 AS x2, upper(s) AS s FROM {t} WHERE x % 3 = 0",
        "SELECT s, id FROM {t} WHERE s = 's5' OR id < 10",
    ],
)
def test_parts_together_are_the_result(split_server, data, table_name, sql):
    sql = sql.format(t=table_name)
    client = fl.FlightClient(split_server.uri)
    info, parts = run(client, sql)
    assert len(info.endpoints) == 4
    assert len({e.ticket.ticket for e in info.endpoints}) == 4
    same_rows(parts, duck(data[1], sql))
    if sql.endswith("{t}".format(t=table_name)) and table_name == "mem":
        # The memory table splits by rows: four near-equal parts.
        assert [p.num_rows for p in parts] == [ROWS // 4] * 4
    if table_name == "events":
        # The file splits by row groups (6 of them over 4 parts).
        assert sum(1 for p in parts if p.num_rows > 0) >= 3


def test_parts_fetched_in_parallel_and_twice(split_server, data):
    client = fl.FlightClient(split_server.uri)
    sql = "SELECT id, x FROM mem WHERE x > 0"
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(lambda e: fl.FlightClient(split_server.uri).do_get(e.ticket).read_all(),
                              info.endpoints))
    want = duck(data[1], sql)
    same_rows(parts, want)
    # A second DoGet of each ticket runs its part again: the same rows.
    again = [client.do_get(e.ticket).read_all() for e in reversed(info.endpoints)]
    same_rows(again, want)


def test_parts_read_one_snapshot(split_server, data):
    """Rows inserted after GetFlightInfo show in no part: the parts share
    the scan planned when the query started."""
    client = fl.FlightClient(split_server.uri)
    run(client, "CREATE TABLE grow AS SELECT * FROM mem")
    info = client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT id FROM grow"))
    first = client.do_get(info.endpoints[0].ticket).read_all()
    run(client, "INSERT INTO grow SELECT * FROM mem")
    rest = [client.do_get(e.ticket).read_all() for e in info.endpoints[1:]]
    ids = pa.concat_tables([first] + rest).column("id").to_numpy()
    assert len(ids) == ROWS
    assert np.array_equal(np.sort(ids), np.arange(ROWS))


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM mem ORDER BY id",
        "SELECT * FROM mem ORDER BY id LIMIT 7",
        "SELECT * FROM mem LIMIT 1000",
        "SELECT s, count(*) AS n, sum(x) AS sx FROM mem GROUP BY s",
        "SELECT DISTINCT s FROM mem",
        "SELECT a.id FROM mem a JOIN events b ON a.id = b.id WHERE a.x > 990",
        "SELECT id FROM mem WHERE id IN (SELECT id FROM events WHERE x = 7)",
        "SELECT id, row_number() OVER (ORDER BY id) AS r FROM mem WHERE id < 50",
        "SELECT id FROM mem WHERE id < 5 UNION ALL SELECT id FROM events WHERE id < 5",
    ],
)
def test_other_queries_keep_one_endpoint(split_server, data, sql):
    client = fl.FlightClient(split_server.uri)
    info, parts = run(client, sql)
    assert len(info.endpoints) == 1
    want = duck(data[1], sql)
    if "ORDER BY id" in sql and "OVER" not in sql:
        assert parts[0].cast(want.schema).equals(want)  # order kept
    elif "LIMIT 1000" in sql:
        assert parts[0].num_rows == 1000
    else:
        same_rows(parts, want)


def test_adbc_reads_every_endpoint(split_server, data):
    sql = "SELECT id, x, s FROM mem WHERE x < 100"
    with flight_sql.connect(split_server.uri, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute(sql)
        got = cur.fetch_arrow_table()
        # A prepared statement with a bound parameter splits as well.
        cur.execute("SELECT id, x, s FROM mem WHERE x < ?", (100,))
        bound = cur.fetch_arrow_table()
    want = duck(data[1], sql)
    same_rows([got], want)
    same_rows([bound], want)


def test_default_server_has_one_ordered_endpoint(quiver_bin, data):
    server = Server(quiver_bin, "--data", data[0])
    try:
        client = fl.FlightClient(server.uri)
        info, parts = run(client, "SELECT * FROM events")
        assert len(info.endpoints) == 1
        assert info.ordered
        got = parts[0]
        assert got.num_rows == ROWS
        assert np.array_equal(got.column("id").to_numpy(), np.arange(ROWS))
    finally:
        server.stop()


def set_endpoints(client, value):
    entry = field_bytes(1, b"quiver.endpoints") + field_bytes(2, field_bytes(1, value))
    body = field_bytes(1, entry)
    return list(client.do_action(fl.Action("SetSessionOptions", body)))


def test_session_option_chooses_the_endpoints(quiver_bin, data):
    server = Server(quiver_bin, "--data", data[0])
    try:
        client = fl.FlightClient(server.uri)
        set_endpoints(client, b"3")
        info, parts = run(client, "SELECT id FROM events WHERE x >= 0")
        assert len(info.endpoints) == 3
        same_rows(parts, duck(data[1], "SELECT id FROM events WHERE x >= 0"))
        # Out of range or not a number: refused, the option stays as it was.
        for bad in (b"0", b"65", b"two"):
            result = set_endpoints(client, bad)
            assert b"quiver.endpoints" in result[0].body.to_pybytes()
        info, _ = run(client, "SELECT id FROM events")
        assert len(info.endpoints) == 3
        set_endpoints(client, b"1")
        info, _ = run(client, "SELECT id FROM events")
        assert len(info.endpoints) == 1
    finally:
        server.stop()


def test_endpoints_option_is_checked(quiver_bin):
    import subprocess

    for bad in ("0", "65", "x"):
        proc = subprocess.run([str(quiver_bin), "serve", "--port", "0", "--endpoints", bad],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0
        assert "--endpoints" in proc.stderr + proc.stdout
