"""`quiver gen` against the benchmark specifications, not against itself.

Every check here comes from the TPC-H specification (clause 4.2) or the Star
Schema Benchmark paper (O'Neil et al., revision 3), at two scale factors, so
that rules written "x SF" are seen to scale:

* cardinalities per scale factor (exact where the specification fixes them,
  statistical bounds for lines per order);
* key ranges: dense keys 1..N, TPC-H's sparse order keys, line numbers 1..n
  within each order, PARTSUPP's supplier formula, the NATION / REGION tables;
* value domains attained in full and uniform distributions (chi-square, at
  p = 1e-6: the data are deterministic, so this never flakes, while a skewed
  or shifted distribution fails by orders of magnitude);
* formulas: SSB's prices from TPC-H's P_RETAILPRICE, revenue, supply cost.

Keys' referential integrity and the remaining value rules at one scale factor
are in test_gen.py; determinism (byte-identical output whatever the thread
count) is a separate claim, also tested there.
"""

import math
import subprocess

import duckdb
import pyarrow.ipc as ipc
import pytest

TPCH_TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]
SSB_TABLES = ["lineorder", "date", "part", "supplier", "customer"]
SCALE_FACTORS = [0.01, 0.05]

# Clause 4.2.3: the 25 nations with their region keys, and the 5 regions.
NATIONS = [("ALGERIA", 0), ("ARGENTINA", 1), ("BRAZIL", 1), ("CANADA", 1), ("EGYPT", 4), ("ETHIOPIA", 0),
           ("FRANCE", 3), ("GERMANY", 3), ("INDIA", 2), ("INDONESIA", 2), ("IRAN", 4), ("IRAQ", 4), ("JAPAN", 2),
           ("JORDAN", 4), ("KENYA", 0), ("MOROCCO", 0), ("MOZAMBIQUE", 0), ("PERU", 1), ("CHINA", 2),
           ("ROMANIA", 3), ("SAUDI ARABIA", 4), ("VIETNAM", 2), ("RUSSIA", 3), ("UNITED KINGDOM", 3),
           ("UNITED STATES", 1)]
REGIONS = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]


def generate(quiver_bin, tmp_path_factory, benchmark, sf, tables):
    out = tmp_path_factory.mktemp(f"{benchmark}_{sf}")
    subprocess.run([str(quiver_bin), "gen", benchmark, "--sf", str(sf), "--out", str(out), "--quiet"],
                   check=True, capture_output=True, timeout=300)
    con = duckdb.connect()
    for t in tables:
        with ipc.open_file(out / f"{t}.arrow") as f:
            con.register(t, f.read_all())
    return sf, con


@pytest.fixture(scope="module", params=SCALE_FACTORS, ids=lambda sf: f"sf{sf}")
def tpch(request, quiver_bin, tmp_path_factory):
    return generate(quiver_bin, tmp_path_factory, "tpch", request.param, TPCH_TABLES)


@pytest.fixture(scope="module", params=SCALE_FACTORS, ids=lambda sf: f"sf{sf}")
def ssb(request, quiver_bin, tmp_path_factory):
    return generate(quiver_bin, tmp_path_factory, "ssb", request.param, SSB_TABLES)


def one(con, sql):
    return con.execute(sql).fetchall()[0]


def scalar(con, sql):
    return one(con, sql)[0]


def chi_square_limit(df, z=4.753):
    """The chi-square quantile at one-sided p = 1e-6 (z = 4.753), Wilson-Hilferty."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def assert_uniform(con, table, expr, domain, where="true"):
    """expr over table takes every value of `domain` and no other, uniformly."""
    counts = dict(con.execute(f"SELECT {expr}, count(*) FROM {table} WHERE {where} GROUP BY 1").fetchall())
    assert set(counts) == set(domain), (
        f"{expr}: values outside the domain {sorted(set(counts) - set(domain))[:10]}, "
        f"missing {sorted(set(domain) - set(counts))[:10]}")
    n = sum(counts.values())
    expected = n / len(domain)
    assert expected >= 5, f"{expr}: too few rows ({n}) for a chi-square test over {len(domain)} values"
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    limit = chi_square_limit(len(domain) - 1)
    assert chi2 < limit, f"{expr}: chi-square {chi2:.1f} over {len(domain)} values (limit {limit:.1f})"


def assert_dense_keys(con, table, key, n, first=1):
    assert one(con, f"SELECT count(*), count(DISTINCT {key}), min({key}), max({key}) FROM {table}") == (
        n, n, first, first + n - 1), f"{table}.{key} is not {first}..{first + n - 1}"


def assert_lines_per_order(con, table, orderkey, linenumber, orders):
    # Lines are numbered 1..n within each order, n uniform in 1..7 (mean 4, sd 2).
    assert scalar(con, f"SELECT count(*) FROM (SELECT {orderkey} FROM {table} GROUP BY 1 "
                       f"HAVING min({linenumber}) <> 1 OR max({linenumber}) <> count(*) "
                       f"OR count(DISTINCT {linenumber}) <> count(*))") == 0
    assert scalar(con, f"SELECT count(DISTINCT {orderkey}) FROM {table}") == orders
    lines = scalar(con, f"SELECT count(*) FROM {table}")
    assert abs(lines - 4 * orders) < 5 * 2 * math.sqrt(orders), (lines, orders)
    assert_uniform(con, f"(SELECT count(*) AS n FROM {table} GROUP BY {orderkey})", "n", range(1, 8))


# --- TPC-H ------------------------------------------------------------------------------

def test_tpch_cardinalities(tpch):
    sf, con = tpch
    expected = {"region": 5, "nation": 25, "supplier": 10_000 * sf, "customer": 150_000 * sf,
                "part": 200_000 * sf, "partsupp": 800_000 * sf, "orders": 1_500_000 * sf}
    for table, rows in expected.items():
        assert scalar(con, f"SELECT count(*) FROM {table}") == round(rows), table
    assert_lines_per_order(con, "lineitem", "l_orderkey", "l_linenumber", round(1_500_000 * sf))


def test_tpch_key_ranges(tpch):
    sf, con = tpch
    assert_dense_keys(con, "region", "r_regionkey", 5, first=0)
    assert_dense_keys(con, "nation", "n_nationkey", 25, first=0)
    assert_dense_keys(con, "supplier", "s_suppkey", round(10_000 * sf))
    assert_dense_keys(con, "customer", "c_custkey", round(150_000 * sf))
    assert_dense_keys(con, "part", "p_partkey", round(200_000 * sf))
    # Clause 4.2.3: O_ORDERKEY is sparse, only the first 8 of each 32 keys are used,
    # and they are the first ones: the n-th order has key 32 * (n // 8) + n % 8 + 1.
    orders = round(1_500_000 * sf)
    assert one(con, "SELECT count(*), count(DISTINCT o_orderkey), min(o_orderkey), max(o_orderkey), "
                    "count(*) FILTER (WHERE (o_orderkey - 1) % 32 >= 8) FROM orders") == (
        orders, orders, 1, 32 * ((orders - 1) // 8) + (orders - 1) % 8 + 1, 0)


def test_tpch_nations_and_regions(tpch):
    _, con = tpch
    assert con.execute("SELECT r_regionkey, r_name FROM region ORDER BY 1").fetchall() == list(enumerate(REGIONS))
    assert con.execute("SELECT n_name, n_regionkey FROM nation ORDER BY n_nationkey").fetchall() == NATIONS


def test_tpch_partsupp_suppliers(tpch):
    sf, con = tpch
    # Clause 4.2.3: PS_SUPPKEY = (PS_PARTKEY + i * (S/4 + (PS_PARTKEY - 1)/S)) mod S + 1, i = 0..3.
    s = round(10_000 * sf)
    missing = scalar(con, f"""
        SELECT count(*) FROM (
          SELECT p_partkey, (p_partkey + i * ({s} // 4 + (p_partkey - 1) // {s})) % {s} + 1 AS suppkey
          FROM part, range(4) r(i)
          EXCEPT SELECT ps_partkey, ps_suppkey FROM partsupp)""")
    assert missing == 0
    assert scalar(con, "SELECT count(*) FROM (SELECT ps_partkey FROM partsupp GROUP BY 1 "
                       "HAVING count(*) <> 4 OR count(DISTINCT ps_suppkey) <> 4)") == 0


def test_tpch_distributions(tpch):
    sf, con = tpch
    cents = lambda lo, hi: [round(v / 100, 2) for v in range(lo, hi + 1)]  # noqa: E731
    assert_uniform(con, "lineitem", "l_quantity::int", range(1, 51))
    assert_uniform(con, "lineitem", "l_discount::double", cents(0, 10))
    assert_uniform(con, "lineitem", "l_tax::double", cents(0, 8))
    assert_uniform(con, "lineitem", "l_shipmode", ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"])
    assert_uniform(con, "lineitem", "l_shipinstruct",
                   ["DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"])
    # Dates relative to the order's (clause 4.2.3).
    joined = "lineitem JOIN orders ON l_orderkey = o_orderkey"
    assert_uniform(con, joined, "l_shipdate - o_orderdate", range(1, 122))
    assert_uniform(con, joined, "l_commitdate - o_orderdate", range(30, 91))
    assert_uniform(con, "lineitem", "l_receiptdate - l_shipdate", range(1, 31))
    # R or A at random for received lines.
    assert_uniform(con, "lineitem", "l_returnflag", ["R", "A"], where="l_receiptdate <= DATE '1995-06-17'")
    # O_ORDERDATE uniform in STARTDATE .. ENDDATE - 151 days, by month.
    months = [(y, m) for y in range(1992, 1999) for m in range(1, 13) if (y, m) <= (1998, 8)]
    counts = dict(con.execute("SELECT (year(o_orderdate), month(o_orderdate)), count(*) FROM orders "
                              "GROUP BY 1").fetchall())
    assert set(counts) == set(months)
    assert one(con, "SELECT min(o_orderdate)::varchar, max(o_orderdate)::varchar FROM orders") == (
        "1992-01-01", "1998-08-02")
    days = scalar(con, "SELECT DATE '1998-08-02' - DATE '1992-01-01' + 1")
    assert_uniform(con, "orders", "(o_orderdate - DATE '1992-01-01') * 60 // " + str(days), range(60))
    assert_uniform(con, "orders", "o_orderpriority", ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"])
    assert_uniform(con, "part", "p_size", range(1, 51))
    assert_uniform(con, "customer", "c_mktsegment", ["AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"])
    assert_uniform(con, "customer", "c_nationkey", range(25))
    # Account balances uniform in [-999.99, 9999.99], in 20 bins.
    assert_uniform(con, "customer", "floor((c_acctbal + 999.99) * 20 / 11000)::int", range(20))
    assert one(con, "SELECT min(ps_availqty) >= 1, max(ps_availqty) <= 9999 FROM partsupp") == (True, True)
    assert_uniform(con, "partsupp", "(ps_availqty - 1) * 10 // 9999", range(10))
    # 5 x SF suppliers complain and 5 x SF recommend (at least one each).
    want = max(1, round(5 * sf))
    assert scalar(con, "SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Complaints%'") == want
    assert scalar(con, "SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Recommends%'") == want


# --- SSB --------------------------------------------------------------------------------

def test_ssb_cardinalities(ssb):
    sf, con = ssb
    expected = {"customer": 30_000 * sf, "supplier": 2_000 * sf, "part": max(500, 200_000 * sf), "date": 2556}
    for table, rows in expected.items():
        assert scalar(con, f"SELECT count(*) FROM {table}") == round(rows), table
    assert_lines_per_order(con, "lineorder", "lo_orderkey", "lo_linenumber", round(1_500_000 * sf))


def test_ssb_key_ranges(ssb):
    sf, con = ssb
    assert_dense_keys(con, "customer", "c_custkey", round(30_000 * sf))
    assert_dense_keys(con, "supplier", "s_suppkey", round(2_000 * sf))
    assert_dense_keys(con, "part", "p_partkey", round(max(500, 200_000 * sf)))
    assert_dense_keys(con, "(SELECT DISTINCT lo_orderkey FROM lineorder)", "lo_orderkey", round(1_500_000 * sf))
    # One row per day, 1992-01-01 .. 1998-12-30, d_datekey = yyyymmdd.
    assert scalar(con, """
        SELECT count(*) FROM range(DATE '1992-01-01', DATE '1998-12-31', INTERVAL 1 DAY) r(d)
        FULL JOIN date ON d_datekey = year(d) * 10000 + month(d) * 100 + day(d)
        WHERE d IS NULL OR d_datekey IS NULL""") == 0
    # Foreign keys cover their whole range at these sizes (uniform choice).
    for fk, n in [("lo_custkey", round(30_000 * sf)), ("lo_suppkey", round(2_000 * sf))]:
        assert one(con, f"SELECT min({fk}), max({fk}) FROM lineorder") == (1, n), fk


def test_ssb_formulas(ssb):
    _, con = ssb
    price = "(90000 + (lo_partkey // 10) % 20001 + 100 * (lo_partkey % 1000))"  # TPC-H P_RETAILPRICE in cents
    for rule in [f"lo_extendedprice = lo_quantity * {price}",
                 f"lo_supplycost = 6 * {price} // 10",
                 "lo_revenue = lo_extendedprice * (100 - lo_discount) // 100"]:
        assert scalar(con, f"SELECT count(*) FROM lineorder WHERE NOT ({rule})") == 0, rule


def test_ssb_distributions(ssb):
    _, con = ssb
    assert_uniform(con, "lineorder", "lo_quantity", range(1, 51))
    assert_uniform(con, "lineorder", "lo_discount", range(0, 11))
    assert_uniform(con, "lineorder", "lo_tax", range(0, 9))
    assert_uniform(con, "lineorder", "lo_shipmode", ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"])
    # Per order (not per line: an order's lines share them).
    orders = "(SELECT DISTINCT lo_orderkey, lo_orderpriority, lo_orderdate, lo_custkey FROM lineorder)"
    assert_uniform(con, orders, "lo_orderpriority", ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"])
    as_date = "strptime({}::varchar, '%Y%m%d')::date"
    days = scalar(con, "SELECT DATE '1998-08-02' - DATE '1992-01-01' + 1")
    assert_uniform(con, orders, f"({as_date.format('lo_orderdate')} - DATE '1992-01-01') * 50 // {days}", range(50))
    assert_uniform(con, "lineorder", f"{as_date.format('lo_commitdate')} - {as_date.format('lo_orderdate')}",
                   range(30, 91))
    assert_uniform(con, "customer", "c_region", REGIONS)
    assert_uniform(con, "part", "p_mfgr", [f"MFGR#{i}" for i in range(1, 6)])
    assert_uniform(con, "part", "p_category", [f"MFGR#{i}{j}" for i in range(1, 6) for j in range(1, 6)])
    assert_uniform(con, "part", "p_size", range(1, 51))
    # c_city: the nation's first 9 letters and a digit 0..9, uniformly.
    assert_uniform(con, "customer", "right(c_city, 1)::int", range(10))
