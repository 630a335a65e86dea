"""Spark and Quiver over the same Hive-partitioned Parquet (issue 14, item 6).

One `local[2]` SparkSession (pyspark from PyPI on Debian's Java 17) for the
module:

* Spark reads the directory that Quiver's COPY ... TO (PARTITION_BY ...)
  writes and answers a few aggregate queries as Quiver does over the same
  directory.
* Quiver reads what `df.write.partitionBy(...).parquet(...)` writes (its
  _SUCCESS and .crc files, part-*.snappy.parquet names, INT96 timestamps,
  decimals as INT32 / INT64 / FIXED_LEN_BYTE_ARRAY, dictionary pages) and
  answers as Spark does over its own output.

Skipped (with the reason) only when `java` is not installed. The JVM start
dominates the cost: about half a minute on a small machine.
"""

import datetime
import decimal
import math
import os
import shutil
import subprocess

import pytest

from test_sql import quiver_query

pytestmark = pytest.mark.skipif(shutil.which("java") is None,
                                reason="java is not installed (the Spark interop test needs a JRE, e.g. "
                                       "Debian's openjdk-17-jre-headless)")


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", shutil.which("python3") or "python3")
    tmp = tmp_path_factory.mktemp("spark")
    session = (SparkSession.builder.master("local[2]").appName("quiver-interop")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.driver.memory", "1g")
               .config("spark.sql.warehouse.dir", str(tmp / "warehouse"))
               .config("spark.driver.extraJavaOptions", f"-Djava.io.tmpdir={tmp}")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def norm(v):
    """Values of both engines in one form: Decimals and datetimes as they are,
    floats rounded to 9 significant digits (summation order differs)."""
    if isinstance(v, float):
        return float(f"{v:.9g}") if math.isfinite(v) else v
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return v


def spark_rows(spark, sql):
    return [tuple(norm(v) for v in r) for r in spark.sql(sql).collect()]


def quiver_rows(quiver_bin, sql):
    t = quiver_query(quiver_bin, "", sql)
    return [tuple(norm(v) for v in r.values()) for r in t.to_pylist()]


QUIVER_SOURCE = """
SELECT g AS id,
       CASE g % 4 WHEN 0 THEN 'EU' WHEN 1 THEN 'US' WHEN 2 THEN 'a/b=c' ELSE NULL END AS region,
       2020 + g % 3 AS year,
       (g * 7) % 1000 AS qty,
       CAST(g AS double precision) / 8 AS price,
       CAST((g * 37) % 100000 AS numeric(12, 2)) / 100 AS amount,
       'item-' || (g % 97) AS item,
       DATE '2024-01-01' + (g % 300) AS day,
       TIMESTAMP '2024-03-01 00:00:00' + g * INTERVAL '17 seconds' AS ts,
       g % 5 = 0 AS flag
FROM generate_series(1, 20000) t(g)
"""

QUERIES = [
    # (Spark SQL over view t, the same query for Quiver with {t})
    "SELECT region, year, count(*) AS n, sum(qty) AS q, sum(amount) AS a, min(ts) AS t0, max(day) AS d "
    "FROM {t} GROUP BY region, year ORDER BY region NULLS FIRST, year",
    "SELECT year, count(DISTINCT item) AS items, sum(price) AS p, "
    "sum(CASE WHEN flag THEN 1 ELSE 0 END) AS flags FROM {t} WHERE region = 'EU' OR region IS NULL "
    "GROUP BY year ORDER BY year",
    "SELECT count(*) AS n, max(id) AS m, min(amount) AS a FROM {t} WHERE year = 2021 AND region = 'a/b=c'",
]


def test_spark_reads_quiver_partitioned_parquet(spark, quiver_bin, tmp_path):
    out = tmp_path / "quiver_out"
    proc = subprocess.run([str(quiver_bin), "sql", f"COPY ({QUIVER_SOURCE}) TO '{out}' "
                                                   f"(FORMAT parquet, PARTITION_BY (region, year))"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (out / "region=a%2Fb%3Dc" / "year=2021" / "part-0.parquet").is_file()
    spark.read.parquet(str(out)).createOrReplaceTempView("t")
    for q in QUERIES:
        theirs = spark_rows(spark, q.format(t="t"))
        ours = quiver_rows(quiver_bin, q.format(t=f"read_parquet('{out}')"))
        assert theirs and ours == theirs, q
        # And both equal the query over the source itself (no files between).
        direct = quiver_rows(quiver_bin, q.format(t=f"({QUIVER_SOURCE}) s"))
        assert direct == theirs, q


def test_quiver_reads_spark_partitioned_parquet(spark, quiver_bin, tmp_path):
    from pyspark.sql import functions as F

    out = tmp_path / "spark_out"
    df = (spark.range(1, 20001).toDF("id")
          .withColumn("region", F.expr("CASE id % 4 WHEN 0 THEN 'EU' WHEN 1 THEN 'US' "
                                       "WHEN 2 THEN 'a/b=c' ELSE NULL END"))
          .withColumn("year", (F.lit(2020) + F.col("id") % 3).cast("int"))
          .withColumn("qty", ((F.col("id") * 7) % 1000).cast("int"))
          .withColumn("small", (F.col("id") % 100).cast("short"))
          .withColumn("price", F.col("id").cast("double") / 8)
          .withColumn("amount", (((F.col("id") * 37) % 100000) / 100).cast("decimal(9,2)"))
          .withColumn("big", (F.col("id") * 1000003).cast("decimal(18,3)"))
          .withColumn("huge", (F.col("id") * 1000003).cast("decimal(30,4)"))
          .withColumn("item", F.concat(F.lit("item-"), (F.col("id") % 97).cast("string")))
          .withColumn("day", F.expr("date_add(DATE'2024-01-01', CAST(id % 300 AS INT))"))
          .withColumn("ts", F.expr("TIMESTAMP'2024-03-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id * 17)"))
          .withColumn("flag", F.col("id") % 5 == 0))
    df.write.partitionBy("region", "year").parquet(str(out))
    names = [p.name for p in out.rglob("*") if p.is_file()]
    assert "_SUCCESS" in names and any(n.endswith(".crc") for n in names)
    assert any(n.startswith("part-") and n.endswith(".snappy.parquet") for n in names)
    assert (out / "region=a%2Fb%3Dc").is_dir() and (out / "region=__HIVE_DEFAULT_PARTITION__").is_dir()

    spark.read.parquet(str(out)).createOrReplaceTempView("s")
    queries = QUERIES + [
        "SELECT region, sum(big) AS b, sum(huge) AS h, sum(small) AS sm, min(ts) AS t0, max(ts) AS t1 "
        "FROM {t} GROUP BY region ORDER BY region NULLS FIRST",
        "SELECT item, count(*) AS n FROM {t} WHERE day = DATE '2024-02-01' GROUP BY item ORDER BY item LIMIT 5",
    ]
    for q in queries:
        theirs = spark_rows(spark, q.format(t="s"))
        ours = quiver_rows(quiver_bin, q.format(t=f"read_parquet('{out}')"))
        assert theirs and ours == theirs, q
