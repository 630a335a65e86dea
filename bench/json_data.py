#!/usr/bin/env python3
"""Deterministic JSON event logs for the `json` suite of bench/sql_bench.py.

    .venv/bin/python bench/json_data.py --millions 10 --out /work/benchdata/json-sf10

writes events.arrow (and events.parquet): columns id (bigint) and payload (text),
one compact JSON object per row, e.g.

    {"id":17,"ts":"2024-03-05T12:34:56Z","type":"click","user":{"id":4567,"country":"DE",
     "city":"München","tags":["new","mobile"]},"props":{"price":12.35,"qty":3,"items":[4,1]},
     "value":42,"ok":true}

Field order, nesting depth and the type of "value" (number, string, boolean, null, array,
object, or absent) vary from row to row, so that extraction has to skip fields. The text is
compact and numbers are written as DuckDB prints them back (no trailing zeros), so that
`->>` gives the same text in PostgreSQL, Quiver and DuckDB. Same seed, same bytes.
"""

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

TYPES = ["click", "view", "purchase", "signup", "logout", "search"]
COUNTRIES = ["DE", "FR", "US", "GB", "JP", "BR", "IN", "NL", "SE", "ES"]
CITIES = ["München", "Paris", "New York", "London", "Tōkyō", "São Paulo", "Mumbai", "Zürich"]
TAGS = ['[]', '["new"]', '["new","mobile"]', '["vip","desktop","beta"]', '["mobile"]']


def s(x):
    return pa.array(x, pa.string())


def take(choices, idx):
    return pc.take(s(choices), pa.array(idx))


def istr(a):
    return pc.cast(pa.array(a), pa.string())


def batch(rng, start, n):
    ids = np.arange(start, start + n, dtype=np.int64)
    sec = rng.integers(0, 366 * 86400, n)
    ts = pc.strftime(pa.array((np.datetime64("2024-01-01T00:00:00") + sec.astype("timedelta64[s]"))),
                     format="%Y-%m-%dT%H:%M:%SZ")
    cents = rng.integers(1, 100000, n)
    cents = cents - cents % 10 + rng.integers(1, 10, n)  # last digit never 0: no trailing zeros
    price = pc.binary_join_element_wise(istr(cents // 100), ".",
                                        pc.utf8_lpad(istr(cents % 100), 2, "0"), "")
    qty = istr(rng.integers(1, 10, n))
    items = pc.binary_join_element_wise("[", istr(rng.integers(0, 50, n)), ",",
                                        istr(rng.integers(0, 50, n)), "]", "")
    uid = istr(rng.integers(1, 2_000_000, n))
    country = take(COUNTRIES, rng.integers(0, len(COUNTRIES), n))
    city = take(CITIES, rng.integers(0, len(CITIES), n))
    tags = take(TAGS, rng.integers(0, len(TAGS), n))
    with_country = rng.random(n) < 0.95  # 5% of users have no country
    user = pc.if_else(
        pa.array(with_country),
        pc.binary_join_element_wise('{"id":', uid, ',"country":"', country, '","city":"', city,
                                    '","tags":', tags, "}", ""),
        pc.binary_join_element_wise('{"id":', uid, ',"city":"', city, '","tags":', tags, "}", ""))
    props = pc.binary_join_element_wise('{"price":', price, ',"qty":', qty, ',"items":', items, "}", "")
    num = istr(rng.integers(-1000, 1000, n))
    kind = rng.integers(0, 7, n)
    value = pc.choose(pa.array(kind, pa.int8()),
                      pc.binary_join_element_wise(',"value":', num, ""),
                      pc.binary_join_element_wise(',"value":"v', num, '"', ""),
                      s([',"value":true'] * n),
                      s([',"value":null'] * n),
                      pc.binary_join_element_wise(',"value":[', num, "]", ""),
                      pc.binary_join_element_wise(',"value":{"n":', num, "}", ""),
                      s([""] * n))
    typ = take(TYPES, rng.integers(0, len(TYPES), n))
    ok = take([',"ok":true', ',"ok":false'], rng.integers(0, 2, n))
    idtxt = istr(ids)
    head = pc.binary_join_element_wise('{"id":', idtxt, ',"ts":"', ts, '","type":"', typ, '"', "")
    # Two field orders: user before props, or props (and the type) after user.
    order = pa.array(rng.random(n) < 0.5)
    body_a = pc.binary_join_element_wise(head, ',"user":', user, ',"props":', props, value, ok, "}", "")
    body_b = pc.binary_join_element_wise('{"id":', idtxt, ',"ts":"', ts, '","props":', props, value,
                                         ',"user":', user, ',"type":"', typ, '"', ok, "}", "")
    payload = pc.if_else(order, body_a, body_b)
    return pa.record_batch([pa.array(ids), payload], names=["id", "payload"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--millions", type=float, default=10)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = int(args.millions * 1_000_000)
    rng = np.random.default_rng(20261205)
    step = 1 << 20
    schema = pa.schema([("id", pa.int64()), ("payload", pa.string())])
    with ipc.new_file(str(out / "events.arrow"), schema) as w, \
            pq.ParquetWriter(str(out / "events.parquet"), schema) as pw:
        for start in range(0, rows, step):
            b = batch(rng, start, min(step, rows - start))
            w.write_batch(b)
            pw.write_batch(b)


if __name__ == "__main__":
    main()
