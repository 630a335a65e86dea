"""SQLSTATE codes: Quiver's errors carry PostgreSQL's code for the same error.

Each case runs in PostgreSQL 15 (Debian's, started by this module under a
temporary directory with initdb + pg_ctl) through psycopg, which gives the real
SQLSTATE, and in Quiver through `quiver sql --format json`, whose error object
({"error", "sqlstate", "position", "detail", "hint"}) is on stderr; the codes
must be equal. The expected code is also written down per case, so a change in
either system is seen. Where Quiver knowingly differs, the case says why.

The Flight SQL tests check that a client sees the code: pyarrow.flight in the
x-quiver-sqlstate trailer and the google.rpc.Status details
(grpc-status-details-bin, which Arrow Flight hands over as extra_info), and
ADBC's Flight SQL driver in its error details.
"""

import json

import pytest

import pg_oracle
from flight_fixtures import Server

psycopg = pytest.importorskip("psycopg")

# Tables both systems get before each case.
SETUP = [
    "CREATE TABLE t (a integer, b text, c double precision)",
    "INSERT INTO t VALUES (1, 'x', 1.5), (2, 'y', 2.5)",
    "CREATE TABLE u (a integer, d text)",
    "INSERT INTO u VALUES (1, 'p')",
    "CREATE TABLE nn (k integer NOT NULL, v text)",
]

# (id, SQL, PostgreSQL's SQLSTATE, Quiver's when it knowingly differs or None, why)
CASES = [
    ("undefined_column", "SELECT nope FROM t", "42703"),
    ("undefined_column_qualified", "SELECT t.nope FROM t", "42703"),
    ("undefined_column_using", "SELECT * FROM t JOIN u USING (nope)", "42703"),
    ("undefined_column_insert", "INSERT INTO t (nope) VALUES (1)", "42703"),
    ("undefined_table", "SELECT * FROM missing", "42P01"),
    ("missing_from_entry", "SELECT x.a FROM t", "42P01"),
    ("drop_missing_table", "DROP TABLE missing", "42P01"),
    ("undefined_function", "SELECT nofunc(1)", "42883"),
    ("undefined_function_types", "SELECT length(1)", "42883"),
    ("undefined_operator", "SELECT 1 + true", "42883"),
    ("undefined_type", "SELECT CAST(1 AS nosuchtype)", "42704"),
    ("ambiguous_column", "SELECT a FROM t JOIN u ON true", "42702"),
    ("duplicate_alias", "SELECT * FROM t t1, t t1", "42712"),
    ("syntax_error", "SELEC 1", "42601"),
    ("syntax_error_trailing", "SELECT 1 FROM", "42601"),
    ("union_column_count", "SELECT a FROM t UNION SELECT a, b FROM t", "42601"),
    ("insert_too_many_values", "INSERT INTO t VALUES (1, 'x', 1.0, 5)", "42601"),
    ("division_by_zero", "SELECT 1 / 0", "22012"),
    ("division_by_zero_modulo", "SELECT 1 % 0", "22012"),
    ("integer_out_of_range", "SELECT 2147483647::int + 1", "22003"),
    ("bigint_out_of_range", "SELECT 9223372036854775807::bigint * 2", "22003"),
    ("cast_out_of_range", "SELECT 3000000000::bigint::int", "22003"),
    ("numeric_field_overflow", "SELECT 123.45::numeric(3,1)", "22003"),
    ("invalid_integer_text", "SELECT 'abc'::int", "22P02"),
    ("invalid_boolean_text", "SELECT 'maybe'::boolean", "22P02"),
    ("invalid_date_text", "SELECT 'abc'::date", "22007"),
    ("date_field_overflow", "SELECT '2023-02-29'::date", "22008"),
    ("sqrt_negative", "SELECT sqrt(-1.0::float8)", "2201F"),
    ("log_zero", "SELECT ln(0.0::float8)", "2201E"),
    ("negative_limit", "SELECT 1 LIMIT -1", "2201W"),
    ("negative_offset", "SELECT 1 OFFSET -1", "2201X"),
    ("negative_substring", "SELECT substr('abc', 1, -1)", "22011"),
    ("split_part_zero", "SELECT split_part('a,b', ',', 0)", "22023"),
    ("series_step_zero", "SELECT * FROM generate_series(1, 10, 0)", "22023"),
    ("invalid_escape", "SELECT 'a' LIKE 'b' ESCAPE 'xy'", "22025"),
    ("subquery_many_rows", "SELECT (SELECT a FROM t)", "21000"),
    ("not_null_violation", "INSERT INTO nn VALUES (NULL, 'x')", "23502"),
    ("duplicate_table", "CREATE TABLE t (x int)", "42P07"),
    ("duplicate_column_insert", "INSERT INTO t (a, a) VALUES (1, 2)", "42701"),
    ("duplicate_column_create", "CREATE TABLE z (x int, x int)", "42701"),
    ("grouping_error", "SELECT a, count(*) FROM t", "42803"),
    ("nested_aggregate", "SELECT sum(sum(a)) FROM t", "42803"),
    ("aggregate_in_where", "SELECT * FROM t WHERE count(*) > 0", "42803"),
    ("where_not_boolean", "SELECT * FROM t WHERE a", "42804"),
    ("undefined_parameter", "SELECT $1", "42P02"),
    ("order_by_position", "SELECT * FROM t ORDER BY 5", "42P10"),
    ("too_many_column_aliases", "SELECT * FROM t AS x(p, q, r, s)", "42P10"),
    ("distinct_not_aggregate", "SELECT upper(DISTINCT b) FROM t", "42809"),
    ("cannot_coerce", "SELECT 1.5::float8::date", "42846"),
    ("union_type_mismatch", "SELECT 1 UNION SELECT 'a'::text", "42804"),
    ("subquery_too_many_columns", "SELECT 1 WHERE 1 = ANY(SELECT 1, 2)", "42601"),
    ("invalid_interval_text", "SELECT '1 fortnight'::interval", "22007"),
    ("invalid_bytea_hex", "SELECT '\\xZZ'::bytea", "22023"),
    ("date_trunc_unit", "SELECT date_trunc('fortnight', timestamp '2024-01-01')", "22023"),
    ("numeric_precision", "SELECT 10::numeric(2000)", "22023"),
    ("undefined_schema", "SELECT nosuch.f(1)", "3F000"),
    ("copy_missing_file", "COPY t FROM '/nonexistent/quiver-test.csv'", "58P01"),
    # Neither PostgreSQL nor Quiver has DISTINCT in window aggregates.
    ("window_distinct", "SELECT count(DISTINCT a) OVER () FROM t", "0A000"),
    ("window_undefined", "SELECT sum(a) OVER w FROM t", "42704"),
    ("window_in_where", "SELECT * FROM t WHERE row_number() OVER () > 1", "42P20"),
    ("ntile_zero", "SELECT ntile(0) OVER () FROM t", "22014"),
    ("negative_frame_offset",
     "SELECT sum(a) OVER (ORDER BY a ROWS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM t", "22013"),
]


def _case_params():
    out = []
    for case in CASES:
        name, sql, pg_code = case[:3]
        out.append(pytest.param(sql, pg_code, *case[3:], id=name))
    return out


# --- PostgreSQL 15, started for this module ----------------------------------------------------


@pytest.fixture(scope="module")
def pg():
    with pg_oracle.postgres(tcp=True) as server:
        conn = server.connect(autocommit=True)
        try:
            assert conn.execute("SHOW server_version").fetchone()[0].split(".")[0] == "15"
            yield conn
        finally:
            conn.close()


def pg_sqlstate(conn, sql):
    """The SQLSTATE PostgreSQL answers `sql` with, after SETUP, in a transaction
    rolled back afterwards (so the cases do not see each other)."""
    with conn.transaction(force_rollback=True):
        for s in SETUP:
            conn.execute(s)
        try:
            with conn.transaction():
                conn.execute(sql)
        except psycopg.Error as e:
            return e.sqlstate
    return None


def quiver_error(run_quiver, sql):
    """Quiver's --format json error object for `sql` after SETUP."""
    p = run_quiver("sql", "--format", "json", ";\n".join(SETUP + [sql]), check=False)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert len(lines) == 1, p.stderr
    return json.loads(lines[0])


@pytest.mark.parametrize("sql,pg_code", _case_params())
def test_sqlstate_matches_postgres(pg, run_quiver, sql, pg_code):
    assert pg_sqlstate(pg, sql) == pg_code, "PostgreSQL's code differs from the one written here"
    err = quiver_error(run_quiver, sql)
    assert err["sqlstate"] == pg_code, err


def test_enough_distinct_cases():
    # The issue asks for 30+ error cases; these cover this many distinct codes.
    assert len(CASES) >= 30
    assert len({c[2] for c in CASES}) >= 30


# --- what the error object and the text output carry --------------------------------------------


def test_json_error_fields(run_quiver):
    err = quiver_error(run_quiver, "SELECT nope FROM t")
    # PostgreSQL's position: 1-based characters into the text Quiver was given
    # (SETUP and this statement), pointing at "nope".
    text = ";\n".join(SETUP + ["SELECT nope FROM t"])
    assert text[err["position"] - 1:].startswith("nope")
    assert err == {"error": 'column "nope" does not exist', "sqlstate": "42703",
                   "position": err["position"], "detail": None, "hint": None}
    err = quiver_error(run_quiver, "SELECT 1 / 0")
    assert err["sqlstate"] == "22012" and err["error"] == "division by zero"
    assert err["position"] is None


def test_undefined_function_hint_like_postgres(pg, run_quiver):
    # PostgreSQL: HINT "No function matches the given name and argument types.
    # You might need to add explicit type casts."
    with pytest.raises(psycopg.Error) as e:
        pg.execute("SELECT length(1)")
    pg_hint = e.value.diag.message_hint
    err = quiver_error(run_quiver, "SELECT length(1)")
    assert err["error"] == "function length(integer) does not exist"
    assert err["hint"] == pg_hint
    # A near name: Quiver adds the "did you mean" PostgreSQL does not have.
    err = quiver_error(run_quiver, "SELECT lenght('x')")
    assert err["sqlstate"] == "42883"
    assert err["hint"] == 'Perhaps you meant to call the function "length".'


def test_text_error_prints_hint_like_psql(run_quiver):
    p = run_quiver("sql", "SELECT 1 + true", check=False)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [
        "ERROR:  operator does not exist: integer + boolean",
        "LINE 1: SELECT 1 + true",
        "                 ^",
        "HINT:  No operator matches the given name and argument types. You might need to add "
        "explicit type casts.",
    ]


def test_out_of_memory_is_53200(run_quiver):
    # Quiver only: PostgreSQL spills instead of failing under work_mem.
    p = run_quiver("sql", "--format", "json", "--memory-limit", "1MB",
                   "SELECT count(DISTINCT x) FROM generate_series(1, 3000000) AS g(x)", check=False)
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert lines, p.stderr
    assert json.loads(lines[0])["sqlstate"] == "53200"


def test_unsupported_is_feature_not_supported(run_quiver):
    p = run_quiver("sql", "--format", "json",
                   "SELECT sum(a) OVER () FROM (VALUES (1)) AS v(a) "
                   "WHERE a IN (SELECT 1) FOR UPDATE", check=False)
    lines = [line for line in p.stderr.splitlines() if line.startswith("{")]
    assert lines, p.stderr
    assert json.loads(lines[0])["sqlstate"] in ("0A000", "42601")


# --- Flight SQL: the client sees the code -------------------------------------------------------

pa = pytest.importorskip("pyarrow")
fl = pytest.importorskip("pyarrow.flight")


@pytest.fixture(scope="module")
def flight_server(quiver_bin):
    server = Server(quiver_bin, "--read-only", "--query-timeout", "1")
    yield server
    server.stop()


def _grpc_status_details(extra_info):
    """(sqlstate, metadata) from a serialized google.rpc.Status holding one
    google.rpc.ErrorInfo, decoded by hand from the published field numbers."""

    def fields(buf):
        i, out = 0, []
        while i < len(buf):
            key, i = _varint(buf, i)
            num, wire = key >> 3, key & 7
            if wire == 0:
                val, i = _varint(buf, i)
            elif wire == 2:
                n, i = _varint(buf, i)
                val, i = buf[i:i + n], i + n
            else:
                raise AssertionError(f"unexpected wire type {wire}")
            out.append((num, val))
        return out

    status = fields(extra_info)
    anys = [v for n, v in status if n == 3]
    assert len(anys) == 1, status
    any_fields = dict(fields(anys[0]))
    assert any_fields[1] == b"type.googleapis.com/google.rpc.ErrorInfo"
    info = fields(any_fields[2])
    reason = dict(info)[1].decode()
    metadata = {}
    for n, v in info:
        if n == 3:
            entry = dict(fields(v))
            metadata[entry[1].decode()] = entry[2].decode()
    return reason, metadata


def _varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


class _TrailerCapture(fl.ClientMiddlewareFactory):
    """Keeps the headers and trailers of each call (pyarrow hands both to
    received_headers); a FlightError itself carries only the message."""

    def __init__(self):
        self.seen = []

    def start_call(self, info):
        factory = self

        class Middleware(fl.ClientMiddleware):
            def received_headers(self, headers):
                factory.seen.append(headers)

        return Middleware()

    def last(self, key):
        for headers in reversed(self.seen):
            if key in headers:
                return headers[key]
        return None


@pytest.mark.parametrize("sql,code,exc", [
    ("SELECT nope FROM readings", "42703", pa.ArrowInvalid),
    ("SELECT * FROM missing", "42P01", pa.ArrowInvalid),
    ("SELECT 1 / 0", "22012", pa.ArrowInvalid),
    ("SELEC 1", "42601", pa.ArrowInvalid),
    ("SELECT lenght('x')", "42883", pa.ArrowInvalid),
    ("CREATE TABLE z (x int)", "25006", fl.FlightUnauthorizedError),
    ("SELECT count(DISTINCT a) OVER () FROM (VALUES (1)) v(a)", "0A000",
     NotImplementedError),
])
def test_flight_error_carries_sqlstate(flight_server, sql, code, exc):
    capture = _TrailerCapture()
    client = fl.FlightClient(flight_server.uri, middleware=[capture])
    with pytest.raises(exc):
        info = client.get_flight_info(fl.FlightDescriptor.for_command(sql.encode()))
        client.do_get(info.endpoints[0].ticket).read_all()
    assert capture.last("x-quiver-sqlstate") == [code]
    details = capture.last("grpc-status-details-bin")
    assert details is not None
    reason, metadata = _grpc_status_details(details[0])
    assert reason == code and metadata["sqlstate"] == code, (reason, metadata)
    if code == "42883":
        assert metadata["hint"] == 'Perhaps you meant to call the function "length".'
        assert metadata["position"] == "8"  # PostgreSQL's: 1-based characters


def test_flight_statement_timeout_is_57014(flight_server):
    capture = _TrailerCapture()
    client = fl.FlightClient(flight_server.uri, middleware=[capture])
    # A many-to-many self-join of the demo table (as test_flight_sql_limits.py).
    sql = (b"SELECT sum(a.temperature * b.humidity) FROM readings a "
           b"JOIN readings b ON a.sensor_id = b.sensor_id")
    with pytest.raises(fl.FlightTimedOutError, match="statement timeout"):
        info = client.get_flight_info(fl.FlightDescriptor.for_command(sql))
        client.do_get(info.endpoints[0].ticket).read_all()
    assert capture.last("x-quiver-sqlstate") == ["57014"]


def test_adbc_error_details_carry_sqlstate(flight_server):
    dbapi = pytest.importorskip("adbc_driver_flightsql.dbapi")
    with dbapi.connect(flight_server.uri) as conn:
        cur = conn.cursor()
        with pytest.raises(dbapi.Error) as e:
            cur.execute("SELECT nope FROM readings")
    # ADBC's Flight SQL driver passes the trailers and each google.rpc.Status
    # detail (a google.protobuf.Any) on as error details.
    details = {k.decode() if isinstance(k, bytes) else k: v for k, v in e.value.details}
    assert details["x-quiver-sqlstate"] == b"42703", details
    any_bytes = details["grpc-status-details-bin"]
    assert b"type.googleapis.com/google.rpc.ErrorInfo" in any_bytes
    assert b"42703" in any_bytes
