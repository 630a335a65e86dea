"""Writes the seed corpus of fuzz/flight_request_fuzz.cc into fuzz/seeds/flight/.

  python3 fuzz/seeds/make_flight_seeds.py      (needs pyarrow)

Input layout (see the harness): first byte even = a FlightDescriptor / command
/ action body; odd = a DoPut stream of [u32 LE length][FlightData] records.
"""

import struct
import sys
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "python"))
from flight_fixtures import field_bytes, field_varint, pack_any, statement_query, varint  # noqa: E402

OUT = Path(__file__).resolve().parent / "flight"


def descriptor_cmd(cmd):
    return field_varint(1, 2) + field_bytes(3, cmd)  # FlightDescriptor{type = CMD, cmd}


def flight_data(message, descriptor=None):
    """FlightData{flight_descriptor?, data_header, data_body} from an IPC message."""
    out = b""
    if descriptor is not None:
        out += field_bytes(1, descriptor)
    out += field_bytes(2, message.metadata.to_pybytes())
    body = message.body.to_pybytes() if message.body is not None else b""
    if body:
        out += varint((1000 << 3) | 2) + varint(len(body)) + body
    return out


def put_stream(table, descriptor):
    schema_msg = pa.ipc.read_message(table.schema.serialize())
    records = [flight_data(schema_msg, descriptor)]
    for batch in table.to_batches(max_chunksize=3):
        records.append(flight_data(pa.ipc.read_message(batch.serialize())))
    return b"\x01" + b"".join(struct.pack("<I", len(r)) + r for r in records)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    seeds = {
        "sql_text": b"\x00" + descriptor_cmd(b"SELECT 1 AS x"),
        "statement_query": b"\x00" + descriptor_cmd(statement_query("SELECT * FROM t WHERE a = ?")),
        "get_tables": b"\x00" + descriptor_cmd(pack_any("CommandGetTables", field_bytes(3, "read%") + b"\x28\x01")),
        "get_sql_info": b"\x00" + descriptor_cmd(pack_any("CommandGetSqlInfo", field_varint(1, 0) + field_varint(1, 3))),
        "ingest": b"\x00" + descriptor_cmd(pack_any("CommandStatementIngest", field_bytes(2, "tbl"))),
        "ticket": b"\x00" + pack_any("TicketStatementQuery", field_bytes(1, b"0123456789abcdef")),
        "create_prepared": b"\x00" + pack_any("ActionCreatePreparedStatementRequest", field_bytes(1, "SELECT $1")),
        "unknown_command": b"\x00" + descriptor_cmd(pack_any("CommandFrobnicate", b"\x0a\x01x")),
    }
    table = pa.table({
        "id": pa.array([1, 2, None, 4, 5], pa.int64()),
        "name": pa.array(["a", None, "ccc", "dd", ""]),
        "score": pa.array([0.5, 1.5, None, 3.5, 4.5]),
        "ok": pa.array([True, False, None, True, True]),
    })
    ingest = descriptor_cmd(pack_any("CommandStatementIngest", field_bytes(2, "tbl")))
    seeds["put_ingest"] = put_stream(table, ingest)
    params = descriptor_cmd(pack_any("CommandPreparedStatementQuery", field_bytes(1, b"handle")))
    seeds["put_parameters"] = put_stream(table.select(["id", "name"]), params)
    for name, data in seeds.items():
        (OUT / name).write_bytes(data)


if __name__ == "__main__":
    main()
