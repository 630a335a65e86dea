"""`quiver serve` with the clients users already run, unchanged.

A server is started on a free loopback port; the clients are the real ones
from PyPI: adbc_driver_flightsql (Go driver behind the ADBC DB-API),
pyarrow.flight and pandas. Expected answers come from DuckDB or pyarrow over
the same data (the demo data set as written by `quiver demo`, or files the
test writes with pyarrow), never from Quiver itself.
"""

import decimal

import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager
import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.flight as fl
import pyarrow.parquet as pq
import pytest

from flight_fixtures import Server, field_bytes, pack_any, parse_fields, statement_query, unpack_any


@pytest.fixture(scope="module")
def demo_server(quiver_bin):
    server = Server(quiver_bin)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def demo_arrow(quiver_bin, tmp_path_factory):
    """The demo table as pyarrow reads it from the file `quiver demo` writes
    (the same generator and seed the server uses)."""
    out = tmp_path_factory.mktemp("demo")
    import subprocess

    subprocess.run([str(quiver_bin), "demo", "--dir", str(out)], check=True, capture_output=True)
    table = pa.ipc.open_file(out / "readings.arrow").read_all()
    # The server's table holds engine types: the status dictionary is text.
    return table.set_column(4, "status", table.column("status").cast(pa.string()))


def duck(table, sql):
    con = duckdb.connect()
    con.register("readings", table)
    return con.sql(sql).to_arrow_table()


# --- pyarrow.flight: SQL text in a command descriptor -----------------------------


def test_pyarrow_flight_sql_text(demo_server, demo_arrow):
    client = fl.FlightClient(demo_server.uri)
    sql = "SELECT sensor_id, count(*) AS n, sum(temperature) AS s FROM readings GROUP BY sensor_id ORDER BY sensor_id"
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    assert info.schema.names == ["sensor_id", "n", "s"]
    assert len(info.endpoints) == 1
    got = client.do_get(info.endpoints[0].ticket).read_all()
    want = duck(demo_arrow, sql)
    assert got.column("sensor_id").to_pylist() == want.column("sensor_id").to_pylist()
    assert got.column("n").to_pylist() == want.column("n").to_pylist()
    assert got.column("s").to_pylist() == pytest.approx(want.column("s").to_pylist(), rel=1e-12)


def test_do_get_streams_batches_into_parquet_writer(demo_server, demo_arrow, tmp_path):
    client = fl.FlightClient(demo_server.uri)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT * FROM readings"))
    reader = client.do_get(info.endpoints[0].ticket)
    out = tmp_path / "readings.parquet"
    batches = 0
    with pq.ParquetWriter(out, reader.schema) as writer:
        for chunk in reader:
            writer.write_batch(chunk.data)
            batches += 1
    assert batches >= 2  # streamed batch by batch, not one blob
    # ... and the engine's vectors of 2048 rows merged into bigger messages
    assert batches < -(-demo_arrow.num_rows // 2048)
    back = pq.read_table(out)
    assert back.num_rows == demo_arrow.num_rows
    assert back.column_names == demo_arrow.column_names
    for name in demo_arrow.column_names:
        assert back.column(name).to_pylist() == demo_arrow.column(name).to_pylist(), name


NARROW = "CREATE TABLE narrow AS SELECT i::BIGINT * 3 AS v FROM generate_series(1, 1000000) AS g(i)"


def narrow_values(table):
    assert table.column_names == ["v"]
    return table.column("v").to_numpy()


def test_narrow_rows_leave_in_few_big_messages(quiver_bin):
    """1M rows of one BIGINT (8 MB) leave in messages of up to --batch-bytes
    (4 MB by default; the query's threads hand out 1 MiB batches, merged
    further only where that needs no copy), not in 16 messages of a 64K-row
    cap; with a smaller --batch-bytes, bigger batches leave in slices of
    about it."""
    import numpy as np

    want = np.arange(1, 1_000_001, dtype=np.int64) * 3
    for args, most_bytes, fewest, most in (((), 5 << 20, 2, 8), (("--batch-bytes", "100KB"), 130_000, 60, 200)):
        server = Server(quiver_bin, *args)
        try:
            client = fl.FlightClient(server.uri)
            info = client.get_flight_info(fl.FlightDescriptor.for_command(NARROW.encode()))
            client.do_get(info.endpoints[0].ticket).read_all()
            info = client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT v FROM narrow"))
            chunks = [c.data for c in client.do_get(info.endpoints[0].ticket)]
            assert fewest <= len(chunks) <= most, (args, [c.num_rows for c in chunks])
            assert max(c.nbytes for c in chunks) <= most_bytes, (args, [c.nbytes for c in chunks])
            got = narrow_values(pa.Table.from_batches(chunks))
            assert np.array_equal(got, want), args
        finally:
            server.stop()


def test_ticket_fetched_twice_and_late_gives_the_same_rows(demo_server, demo_arrow):
    """GetFlightInfo starts the query for the DoGet that follows; a second DoGet
    of the same ticket, and one after the early query was dropped (5 s), run
    it again with the same result."""
    import time

    client = fl.FlightClient(demo_server.uri)
    sql = "SELECT sensor_id, ts, temperature FROM readings ORDER BY ts, sensor_id"
    want = duck(demo_arrow, sql)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    for _ in range(2):
        got = client.do_get(info.endpoints[0].ticket).read_all()
        assert got.to_pylist() == want.to_pylist()
    info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
    time.sleep(6)
    got = client.do_get(info.endpoints[0].ticket).read_all()
    assert got.to_pylist() == want.to_pylist()


def test_path_descriptor_names_a_table(demo_server, demo_arrow):
    client = fl.FlightClient(demo_server.uri)
    info = client.get_flight_info(fl.FlightDescriptor.for_path("readings"))
    got = client.do_get(info.endpoints[0].ticket).read_all()
    assert got.num_rows == demo_arrow.num_rows


def test_flight_sql_statement_query_and_schema(demo_server):
    client = fl.FlightClient(demo_server.uri)
    cmd = fl.FlightDescriptor.for_command(statement_query("SELECT 1::int AS one, 'x' AS t"))
    schema = client.get_schema(cmd).schema
    assert schema.names == ["one", "t"]
    assert schema.field("one").type == pa.int32()
    info = client.get_flight_info(cmd)
    assert info.schema == schema
    got = client.do_get(info.endpoints[0].ticket).read_all()
    assert got.to_pylist() == [{"one": 1, "t": "x"}]


def test_list_actions_and_flights(demo_server):
    client = fl.FlightClient(demo_server.uri)
    actions = {a.type for a in client.list_actions()}
    assert {"CreatePreparedStatement", "ClosePreparedStatement", "CancelFlightInfo",
            "BeginTransaction", "EndTransaction", "CloseSession"} <= actions
    assert list(client.list_flights()) == []


# --- errors ------------------------------------------------------------------------


def test_bad_sql_is_invalid_argument_with_postgres_text(demo_server):
    client = fl.FlightClient(demo_server.uri)
    with pytest.raises(pa.ArrowInvalid, match='syntax error at or near "SELEC"'):
        client.get_flight_info(fl.FlightDescriptor.for_command(b"SELEC 1 FROM readings"))
    with pytest.raises(pa.ArrowInvalid, match='relation "nope" does not exist'):
        client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT * FROM nope"))


def test_sql_transaction_blocks_are_refused_and_constraints_enforced(demo_server):
    """Clients share the database's session, so BEGIN / ROLLBACK / SAVEPOINT
    in SQL text are refused rather than opening a block other clients'
    statements would join; constraints hold as in quiver sql."""
    client = fl.FlightClient(demo_server.uri)
    for sql in (b"BEGIN", b"ROLLBACK", b"SAVEPOINT a", b"COMMIT"):
        with pytest.raises(pa.ArrowNotImplementedError, match="transaction blocks"):
            client.get_flight_info(fl.FlightDescriptor.for_command(sql))
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE txn_pk (k int PRIMARY KEY, v text DEFAULT 'd')")
        cur.execute("INSERT INTO txn_pk (k) VALUES (1), (2)")
        with pytest.raises(Exception, match="duplicate key value violates unique constraint"):
            cur.execute("INSERT INTO txn_pk VALUES (3, 'c'), (1, 'again')")
        cur.execute("SELECT k, v FROM txn_pk ORDER BY k")
        assert cur.fetchall() == [(1, "d"), (2, "d")]
        cur.execute("DROP TABLE txn_pk")


def test_unknown_command_and_action_are_unimplemented_and_named(demo_server):
    client = fl.FlightClient(demo_server.uri)
    with pytest.raises(NotImplementedError, match="CommandFrobnicate"):
        client.get_flight_info(fl.FlightDescriptor.for_command(pack_any("CommandFrobnicate")))
    with pytest.raises(NotImplementedError, match="Frobnicate"):
        list(client.do_action(fl.Action("Frobnicate", b"")))
    with pytest.raises(NotImplementedError, match="Substrait"):
        client.get_flight_info(fl.FlightDescriptor.for_command(pack_any("CommandStatementSubstraitPlan")))
    with pytest.raises(NotImplementedError, match="DoExchange"):
        writer, reader = client.do_exchange(fl.FlightDescriptor.for_command(b"x"))
        reader.read_all()


def test_hostile_requests_get_clear_errors(demo_server):
    client = fl.FlightClient(demo_server.uri)
    with pytest.raises(pa.ArrowInvalid, match="ticket"):
        client.do_get(fl.Ticket(b"\xff\x00garbage")).read_all()
    with pytest.raises(pa.ArrowInvalid, match="unknown or expired ticket"):
        ticket = pack_any("TicketStatementQuery", field_bytes(1, b"0123"))
        client.do_get(fl.Ticket(ticket)).read_all()
    with pytest.raises(pa.ArrowInvalid, match="neither"):
        client.get_flight_info(fl.FlightDescriptor.for_command(b"\xff\xfe\x00"))
    with pytest.raises(pa.ArrowInvalid, match="malformed"):
        # A truncated CommandGetTables inside a valid Any.
        client.get_flight_info(fl.FlightDescriptor.for_command(pack_any("CommandGetTables", b"\x0a\xff")))
    assert demo_server.alive()


# --- ADBC DB-API and pandas ------------------------------------------------------


def test_adbc_cursor_fetch_paths(demo_server, demo_arrow):
    sql = "SELECT sensor_id, ts, temperature, humidity, status, ok FROM readings WHERE sensor_id = 7 ORDER BY ts"
    want = duck(demo_arrow, sql)
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute(sql)
        table = cur.fetch_arrow_table()
        assert table.schema.names == want.schema.names
        assert table.to_pylist() == want.to_pylist()
        cur.execute(sql)
        reader = cur.fetch_record_batch()
        assert pa.Table.from_batches(list(reader), reader.schema).to_pylist() == want.to_pylist()
        cur.execute("SELECT count(*) AS n, min(sensor_id), max(sensor_id) FROM readings")
        assert cur.fetchall() == [(demo_arrow.num_rows, 1, 64)]


def test_pandas_read_sql(demo_server, demo_arrow):
    sql = "SELECT status, count(*) AS n, avg(humidity) AS h FROM readings GROUP BY status ORDER BY status"
    want = duck(demo_arrow, sql).to_pandas()
    with flight_sql.connect(demo_server.uri) as conn:
        got = pd.read_sql(sql, conn)
    assert list(got.columns) == ["status", "n", "h"]
    assert got["status"].tolist() == want["status"].tolist()
    assert got["n"].tolist() == want["n"].tolist()
    assert got["h"].tolist() == pytest.approx(want["h"].tolist(), rel=1e-6)


def test_adbc_ddl_dml_and_prepared_parameters(demo_server):
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE prep_t (id int, name text, score double precision)")
        cur.execute("INSERT INTO prep_t VALUES (1, 'a', 0.5), (2, 'b', 1.5)")
        assert cur.rowcount == 2
        # One prepared statement, several parameter rows.
        cur.executemany("INSERT INTO prep_t VALUES (?, ?, ?)", [(3, "c", 2.5), (4, "d", None), (5, None, 4.5)])
        cur.execute("SELECT id, name, score FROM prep_t WHERE id >= ? ORDER BY id", parameters=(2,))
        assert cur.fetchall() == [(2, "b", 1.5), (3, "c", 2.5), (4, "d", None), (5, None, 4.5)]
        cur.execute("SELECT count(*) FROM prep_t WHERE name = $1 OR id = $2", parameters=("a", 5))
        assert cur.fetchall() == [(2,)]
        cur.execute("UPDATE prep_t SET score = score * 2 WHERE id < 3")
        assert cur.rowcount == 2
        cur.execute("SELECT sum(score) FROM prep_t")
        assert cur.fetchall() == [(1.0 + 3.0 + 2.5 + 4.5,)]
        cur.execute("DROP TABLE prep_t")
        conn.commit()


def test_adbc_returning(demo_server):
    """INSERT / UPDATE / DELETE ... RETURNING over Flight SQL return their
    rows, plain and prepared with parameters, and change the table."""
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE ret_t (id int PRIMARY KEY, name text DEFAULT 'none')")
        cur.execute("INSERT INTO ret_t (id) VALUES (1), (2) RETURNING id, name")
        assert sorted(cur.fetchall()) == [(1, "none"), (2, "none")]
        cur.execute("UPDATE ret_t SET name = ? WHERE id = ? RETURNING id, upper(name)",
                    parameters=("x", 2))
        assert cur.fetchall() == [(2, "X")]
        cur.execute("DELETE FROM ret_t WHERE id = 1 RETURNING *")
        assert cur.fetchall() == [(1, "none")]
        cur.execute("SELECT * FROM ret_t")
        assert cur.fetchall() == [(2, "x")]
        cur.execute("DROP TABLE ret_t")
        conn.commit()


def test_array_values_over_flight_sql(demo_server):
    """Arrays leave as Arrow lists; a list-typed parameter, which the engine
    cannot bind as one value yet, is refused rather than bound as NULL."""
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute("SELECT ARRAY[1, 2, NULL] AS a, ARRAY['x', 'y z'] AS b")
        t = cur.fetch_arrow_table()
        assert t.column("a").to_pylist() == [[1, 2, None]]
        assert t.column("b").to_pylist() == [["x", "y z"]]
        assert pa.types.is_list(t.schema.field("a").type)
        with pytest.raises(adbc_driver_manager.Error, match="parameter \\$1 of type"):
            cur.execute("SELECT cardinality(?::int[])", parameters=([1, 2],))
            cur.fetchall()


def test_adbc_ingest_modes(demo_server):
    df = pd.DataFrame({"k": [1, 2, 3], "v": ["x", "y", None], "d": [decimal.Decimal("1.25")] * 3})
    table = pa.Table.from_pandas(df, preserve_index=False)
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        assert cur.adbc_ingest("ing", table, mode="create") == 3
        cur.execute("SELECT k, v FROM ing ORDER BY k")
        assert cur.fetchall() == [(1, "x"), (2, "y"), (3, None)]
        with pytest.raises(adbc_driver_manager.Error, match="already exists"):
            cur.adbc_ingest("ing", table, mode="create")
        assert cur.adbc_ingest("ing", table, mode="append") == 3
        cur.execute("SELECT count(*) FROM ing")
        assert cur.fetchall() == [(6,)]
        assert cur.adbc_ingest("ing", table.slice(0, 1), mode="replace") == 1
        cur.execute("SELECT count(*) FROM ing")
        assert cur.fetchall() == [(1,)]
        assert cur.adbc_ingest("ing2", table, mode="create_append") == 3
        assert cur.adbc_ingest("ing2", table, mode="create_append") == 3
        cur.execute("SELECT sum(k), sum(d) FROM ing2")
        assert cur.fetchall() == [(12, decimal.Decimal("7.50"))]
        # All or nothing: a batch that does not fit the table leaves it as it was.
        bad = pa.table({"k": pa.array([7, 8]), "zzz": pa.array([1, 2])})
        with pytest.raises(adbc_driver_manager.Error, match='column "zzz"'):
            cur.adbc_ingest("ing2", bad, mode="append")
        cur.execute("SELECT count(*) FROM ing2")
        assert cur.fetchall() == [(6,)]
        with pytest.raises(adbc_driver_manager.Error, match="schema"):
            cur.adbc_ingest("ing3", table, mode="create", db_schema_name="elsewhere")


def test_adbc_ingest_does_not_bypass_varchar_length(demo_server):
    """Appended batches do not pass INSERT's 22001 check of varchar(n): ingest
    into such a table is refused and the rows stay as they were."""
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE ing_len (k bigint, v varchar(3))")
        long_rows = pa.table({"k": pa.array([1], pa.int64()), "v": pa.array(["abcd"])})
        with pytest.raises(adbc_driver_manager.Error, match="varchar"):
            cur.adbc_ingest("ing_len", long_rows, mode="append")
        cur.execute("SELECT count(*) FROM ing_len")
        assert cur.fetchall() == [(0,)]
        with pytest.raises(adbc_driver_manager.Error, match="value too long"):
            cur.execute("INSERT INTO ing_len VALUES (1, 'abcd')")


def test_adbc_get_objects_and_table_schema(demo_server, tmp_path):
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE obj_t (a bigint NOT NULL, b varchar, c numeric(10, 2), d date)")
        cur.execute("CREATE VIEW obj_v AS SELECT a, b FROM obj_t")
        objects = conn.adbc_get_objects().read_all().to_pylist()
        tables = {}
        for catalog in objects:
            for schema in catalog["catalog_db_schemas"]:
                assert schema["db_schema_name"] == "public"
                for t in schema["db_schema_tables"]:
                    tables[t["table_name"]] = t
        assert tables["obj_t"]["table_type"] == "TABLE"
        assert tables["obj_v"]["table_type"] == "VIEW"
        assert tables["readings"]["table_type"] == "TABLE"
        assert [c["column_name"] for c in tables["obj_t"]["table_columns"]] == ["a", "b", "c", "d"]
        assert [c["column_name"] for c in tables["obj_v"]["table_columns"]] == ["a", "b"]
        schema = conn.adbc_get_table_schema("obj_t")
        assert schema.names == ["a", "b", "c", "d"]
        assert schema.types == [pa.int64(), pa.string(), pa.decimal128(10, 2), pa.date32()]
        assert not schema.field("a").nullable
        assert conn.adbc_get_table_schema("obj_v").types == [pa.int64(), pa.string()]
        assert set(conn.adbc_get_table_types()) == {"TABLE", "VIEW"}
        # LIKE patterns on names: % and _, and \ escaping _.
        filtered = conn.adbc_get_objects(depth="tables", table_name_filter="obj\\_%").read_all().to_pylist()
        names = {t["table_name"] for c in filtered for s in c["catalog_db_schemas"] for t in s["db_schema_tables"]}
        assert names == {"obj_t", "obj_v"}
        only_views = conn.adbc_get_objects(depth="tables", table_types_filter=["VIEW"]).read_all().to_pylist()
        names = {t["table_name"] for c in only_views for s in c["catalog_db_schemas"] for t in s["db_schema_tables"]}
        assert names == {"obj_v"}
        cur.execute("DROP VIEW obj_v")
        cur.execute("DROP TABLE obj_t")


def test_schemas_over_flight_sql(demo_server):
    """A schema made with CREATE SCHEMA is a db_schema of Flight SQL's
    metadata (GetDbSchemas, GetTables, ADBC get_objects / get_table_schema),
    and ADBC ingest into it creates s.t."""
    with flight_sql.connect(demo_server.uri) as conn, conn.cursor() as cur:
        cur.execute("CREATE SCHEMA fs")
        cur.execute("CREATE TABLE fs.t (a int, b text)")
        cur.execute("CREATE TABLE fs_public (z int)")
        objects = conn.adbc_get_objects(depth="tables").read_all().to_pylist()
        found = {(s["db_schema_name"], t["table_name"])
                 for c in objects for s in c["catalog_db_schemas"] for t in s["db_schema_tables"] or []}
        assert ("fs", "t") in found and ("public", "fs_public") in found
        assert not any(name == "t" and schema == "public" for schema, name in found)
        assert not any("." in name for _, name in found)
        only_fs = conn.adbc_get_objects(depth="tables", db_schema_filter="fs").read_all().to_pylist()
        assert {(s["db_schema_name"], t["table_name"]) for c in only_fs for s in c["catalog_db_schemas"]
                for t in s["db_schema_tables"] or []} == {("fs", "t")}
        assert conn.adbc_get_table_schema("t", db_schema_filter="fs").names == ["a", "b"]
        table = pa.table({"k": pa.array([1, 2], pa.int64())})
        assert cur.adbc_ingest("ing_s", table, mode="create", db_schema_name="fs") == 2
        cur.execute("SELECT sum(k) FROM fs.ing_s")
        assert cur.fetchall() == [(3,)]
        cur.execute("DROP SCHEMA fs CASCADE")
        cur.execute("DROP TABLE fs_public")


def test_adbc_get_info(demo_server):
    with flight_sql.connect(demo_server.uri) as conn:
        info = conn.adbc_get_info()
        assert info["vendor_name"] == "Quiver"
        assert info["vendor_version"]


def test_metadata_commands_match_the_specification_schemas(demo_server):
    client = fl.FlightClient(demo_server.uri)

    def fetch(name, payload=b""):
        info = client.get_flight_info(fl.FlightDescriptor.for_command(pack_any(name, payload)))
        return client.do_get(info.endpoints[0].ticket).read_all()

    assert fetch("CommandGetCatalogs").schema == pa.schema([pa.field("catalog_name", pa.string(), False)])
    schemas = fetch("CommandGetDbSchemas")
    assert schemas.to_pylist() == [{"catalog_name": None, "db_schema_name": "public"}]
    assert fetch("CommandGetTableTypes").column("table_type").to_pylist() == ["TABLE", "VIEW"]
    keys = fetch("CommandGetPrimaryKeys", field_bytes(3, "readings"))
    assert keys.num_rows == 0 and keys.schema.names[-2:] == ["key_name", "key_sequence"]
    for name in ["CommandGetExportedKeys", "CommandGetImportedKeys"]:
        t = fetch(name, field_bytes(3, "readings"))
        assert t.num_rows == 0 and t.schema.field("update_rule").type == pa.uint8()
    types = fetch("CommandGetXdbcTypeInfo")
    assert "bigint" in types.column("type_name").to_pylist()
    codes = types.column("data_type").to_pylist()
    assert codes == sorted(codes)
    info = fetch("CommandGetSqlInfo")
    values = dict(zip(info.column("info_name").to_pylist(), info.column("value").to_pylist()))
    assert values[0] == "Quiver"  # server name
    assert values[3] is False  # read-only
    assert values[563] is False  # SQL transactions: statement-level atomicity only
    tables = fetch("CommandGetTables", field_bytes(3, "read%") + b"\x28\x01")  # include_schema
    assert tables.column("table_name").to_pylist() == ["readings"]
    schema = pa.ipc.read_schema(pa.py_buffer(tables.column("table_schema")[0].as_py()))
    assert schema.names == ["sensor_id", "ts", "temperature", "humidity", "status", "ok"]
    assert schema.field("ts").metadata[b"ARROW:FLIGHT:SQL:TYPE_NAME"] == b"timestamp with time zone"


def test_data_directory_files_are_tables(quiver_bin, tmp_path):
    data = tmp_path / "lake"
    data.mkdir()
    trips = pa.table({"id": pa.array(range(1000), pa.int64()),
                      "fare": pa.array([i * 0.25 for i in range(1000)]),
                      "city": pa.array(["rome", "oslo", "lima", "nuuk"] * 250)})
    pq.write_table(trips, data / "trips.parquet", row_group_size=300)
    pacsv.write_csv(pa.table({"city": ["rome", "oslo"], "country": ["it", "no"]}), data / "cities.csv")
    (data / "notes.md").write_text("not a table")
    server = Server(quiver_bin, "--data", data)
    try:
        with flight_sql.connect(server.uri) as conn, conn.cursor() as cur:
            cur.execute("SELECT t.city, c.country, count(*) AS n, sum(fare) AS f FROM trips t "
                        "JOIN cities c ON t.city = c.city GROUP BY 1, 2 ORDER BY 1")
            got = cur.fetch_arrow_table()
            con = duckdb.connect()
            con.register("trips", trips)
            con.register("cities", pacsv.read_csv(data / "cities.csv"))
            want = con.sql("SELECT t.city, c.country, count(*) AS n, sum(fare) AS f FROM trips t "
                               "JOIN cities c ON t.city = c.city GROUP BY 1, 2 ORDER BY 1").to_arrow_table()
            assert got.to_pylist() == want.to_pylist()
            names = {t["table_name"] for c in conn.adbc_get_objects(depth="tables").read_all().to_pylist()
                     for s in c["catalog_db_schemas"] for t in s["db_schema_tables"]}
            assert names == {"trips", "cities"}
    finally:
        server.stop()
    assert 'sql="SELECT t.city' in server.log  # one log line per query


# --- authentication ----------------------------------------------------------------


@pytest.fixture(scope="module")
def auth_server(quiver_bin):
    server = Server(quiver_bin, "--user", "alice", "--password-env", "QUIVER_TEST_PASSWORD",
                    "--token-ttl", "3", env={"QUIVER_TEST_PASSWORD": "s3cret pass"})
    yield server
    server.stop()


def test_basic_auth_gives_a_bearer_token(auth_server):
    client = fl.FlightClient(auth_server.uri)
    header = client.authenticate_basic_token("alice", "s3cret pass")
    assert header[0].lower() == b"authorization" and header[1].startswith(b"Bearer ")
    options = fl.FlightCallOptions(headers=[header])
    info = client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT 1 AS x"), options)
    assert client.do_get(info.endpoints[0].ticket, options).read_all().to_pylist() == [{"x": 1}]


def test_missing_wrong_and_expired_credentials_are_unauthenticated(auth_server):
    client = fl.FlightClient(auth_server.uri)
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT 1"))
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.authenticate_basic_token("alice", "wrong")
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.authenticate_basic_token("mallory", "s3cret pass")
    with pytest.raises(fl.FlightUnauthenticatedError):
        bad = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer not-a-token")])
        client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT 1"), bad)
    header = client.authenticate_basic_token("alice", "s3cret pass")
    # --token-ttl 3, counted from issue (calls late in its life get a fresh
    # token in the headers; this one still expires): poll until it is refused.
    import time

    deadline = time.monotonic() + 60
    while True:
        time.sleep(1.0)
        try:
            client.get_flight_info(fl.FlightDescriptor.for_command(b"SELECT 1"),
                                   fl.FlightCallOptions(headers=[header]))
        except fl.FlightUnauthenticatedError as e:
            assert "expired" in str(e) or "invalid" in str(e)
            break
        assert time.monotonic() < deadline, "the token never expired"


def test_adbc_with_username_and_password(auth_server):
    with flight_sql.connect(auth_server.uri, db_kwargs={"username": "alice", "password": "s3cret pass"}) as conn:
        assert pd.read_sql("SELECT 40 + 2 AS answer", conn)["answer"].tolist() == [42]
    with pytest.raises(adbc_driver_manager.Error, match="UNAUTHENTICATED|Unauthenticated"):
        flight_sql.connect(auth_server.uri, db_kwargs={"username": "alice", "password": "nope"})
