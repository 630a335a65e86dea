"""Helpers for the Flight SQL tests: a `quiver serve` process on a free
loopback port, and hand-encoded protobuf for requests pyarrow cannot build
(Flight SQL commands are protobuf messages packed in google.protobuf.Any;
the tests encode the few they need from the specification's field numbers,
so no generated code or protobuf package is involved).
"""

import os
import signal
import subprocess
import threading
import time
from pathlib import Path


class Server:
    """A running `quiver serve`; stop() checks it shuts down cleanly."""

    def __init__(self, quiver_bin, *args, env=None, cwd=None):
        self.args = [str(quiver_bin), "serve", "--port", "0", *[str(a) for a in args]]
        self.proc = subprocess.Popen(
            self.args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
        )
        self.log_lines = []
        self.banner = []
        self.uri = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.banner.append(line)
            if "listening on " in line:
                self.uri = line.split("listening on ", 1)[1].strip()
                break
        if self.uri is None:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise RuntimeError(
                f"`{' '.join(self.args)}` did not start: {''.join(self.banner)}{out}\n{err}"
            )
        self.port = int(self.uri.rsplit(":", 1)[1])
        # Keep draining both pipes so the server never blocks on them.
        self._readers = [
            threading.Thread(target=self._drain, args=(self.proc.stdout, self.banner), daemon=True),
            threading.Thread(target=self._drain, args=(self.proc.stderr, self.log_lines), daemon=True),
        ]
        for t in self._readers:
            t.start()

    @staticmethod
    def _drain(pipe, into):
        for line in pipe:
            into.append(line)

    @property
    def log(self):
        return "".join(self.log_lines)

    def alive(self):
        return self.proc.poll() is None

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("quiver serve did not stop within 30 s of SIGTERM")
        for t in self._readers:
            t.join(timeout=5)
        assert self.proc.returncode == 0, f"quiver serve exited with {self.proc.returncode}:\n{self.log}"


# --- protobuf wire format (just what the tests send) --------------------------------


def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field_bytes(number, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return varint((number << 3) | 2) + varint(len(payload)) + payload


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def pack_any(message_name, payload=b""):
    """google.protobuf.Any{type_url, value} for a Flight SQL message."""
    url = "type.googleapis.com/arrow.flight.protocol.sql." + message_name
    return field_bytes(1, url) + field_bytes(2, payload)


def parse_fields(data):
    """Decodes one protobuf message into {field number: [raw values]}."""
    fields = {}
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            value = data[pos : pos + length]
            pos += length
        elif wire == 1:
            value = data[pos : pos + 8]
            pos += 8
        elif wire == 5:
            value = data[pos : pos + 4]
            pos += 4
        else:
            raise ValueError(f"wire type {wire}")
        fields.setdefault(number, []).append(value)
    return fields


def _read_varint(data, pos):
    shift = result = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def unpack_any(data):
    f = parse_fields(data)
    return f[1][0].decode(), (f.get(2) or [b""])[0]


def statement_query(sql):
    """Any(CommandStatementQuery{query})."""
    return pack_any("CommandStatementQuery", field_bytes(1, sql))


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


REPO_ROOT = Path(__file__).resolve().parents[2]
