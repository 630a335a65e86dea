// Physical operators (src/execution/) on their edge cases, through SQL:
// empty inputs, NULL keys, many duplicates, chunk boundaries (kVectorSize is
// 2048 rows), float and text ordering. Every case runs with 1, 2 and 7
// threads. The expected answers are PostgreSQL 15's for the same statements
// (or closed-form counts and sums for the generated series).
#include <string>

#include <gtest/gtest.h>

#include "util/sql_util.h"

namespace quiver {
namespace {

using testing::Rows;

const char* kSetup =
    "CREATE TABLE e (k int, v int);"
    "CREATE TABLE n AS SELECT CASE WHEN x % 4 = 0 THEN NULL ELSE x % 10 END AS k, x AS v "
    "FROM generate_series(1, 5000) s(x);"
    "CREATE TABLE m AS SELECT CASE WHEN x % 5 = 0 THEN NULL ELSE x % 7 END AS k, x AS w "
    "FROM generate_series(1, 300) s(x);"
    "CREATE TABLE d AS SELECT 1 AS k, x AS v FROM generate_series(1, 2000) s(x);"
    "CREATE TABLE f (x float8);"
    "INSERT INTO f VALUES (1), ('NaN'), (NULL), ('-Infinity'), ('Infinity'), (-0.5), (0);"
    "CREATE TABLE st (s text);"
    "INSERT INTO st VALUES ('b'), ('B'), ('a'), ('é'), (''), (NULL), ('ab'), ('a b');";

class Execution : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    DatabaseOptions o;
    o.threads = GetParam();
    db_ = std::make_unique<Database>(o);
    ASSERT_EQ(Rows(*db_, kSetup), "INSERT 0 8");
  }
  void Check(const std::vector<std::pair<std::string, std::string>>& cases) {
    for (const auto& [sql, expected] : cases) EXPECT_EQ(Rows(*db_, sql), expected) << sql;
  }
  std::unique_ptr<Database> db_;
};

INSTANTIATE_TEST_SUITE_P(Threads, Execution, ::testing::Values(1, 2, 7),
                         [](const auto& info) { return std::to_string(info.param) + "threads"; });

// Every operator over an empty input: aggregates give one row of NULLs (count 0), joins
// and set operations nothing or the other side, NOT IN over nothing is true even for NULL.
TEST_P(Execution, EmptyInputs) {
  Check({
      {"SELECT count(*), sum(v), min(v), avg(v) FROM e", "0|NULL|NULL|NULL"},
      {"SELECT k, count(*) FROM e GROUP BY k", ""},
      {"SELECT count(*) FROM n JOIN e ON n.k = e.k", "0"},
      {"SELECT count(*), count(e.k) FROM n LEFT JOIN e ON n.k = e.k", "5000|0"},
      {"SELECT count(*) FROM e RIGHT JOIN n ON n.k = e.k", "5000"},
      {"SELECT count(*) FROM n FULL JOIN e ON n.k = e.k", "5000"},
      {"SELECT count(*) FROM n WHERE EXISTS (SELECT 1 FROM e WHERE e.k = n.k)", "0"},
      {"SELECT count(*) FROM n WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.k = n.k)", "5000"},
      {"SELECT count(*) FROM n WHERE k NOT IN (SELECT k FROM e)", "5000"},
      {"SELECT count(*) FROM n WHERE k IN (SELECT k FROM e)", "0"},
      {"SELECT count(*) FROM (SELECT k FROM n EXCEPT SELECT k FROM e) x", "11"},
      {"SELECT count(*) FROM (SELECT k FROM n INTERSECT SELECT k FROM e) x", "0"},
      {"SELECT count(*) FROM n, e", "0"},
      {"SELECT (SELECT v FROM e)", "NULL"},
      {"SELECT count(*) FROM (SELECT v FROM n LIMIT 0) x", "0"},
      {"SELECT count(*) FROM (SELECT * FROM e ORDER BY k LIMIT 3) x", "0"},
  });
}

// NULL keys never join by =, group together, are one value to DISTINCT and the set
// operations, sort last ascending and first descending, and make NOT IN unknown.
TEST_P(Execution, NullKeys) {
  Check({
      {"SELECT count(*), count(m.k) FROM n JOIN m ON n.k = m.k", "85500|85500"},
      {"SELECT count(*), count(m.k) FROM n LEFT JOIN m ON n.k = m.k", "88000|85500"},
      {"SELECT count(*), count(n.k), count(m.k) FROM n FULL JOIN m ON n.k = m.k",
       "88060|86750|85500"},
      {"SELECT count(*) FROM n JOIN m ON n.k IS NOT DISTINCT FROM m.k", "160500"},
      {"SELECT k, count(*), sum(v) FROM n GROUP BY k ORDER BY k NULLS FIRST",
       "NULL|1250|3127500\n0|250|625000\n1|500|1248000\n2|250|623000\n3|500|1249000\n4|250|"
       "626000\n5|500|1250000\n6|250|624000\n7|500|1251000\n8|250|627000\n9|500|1252000"},
      {"SELECT count(*), count(k) FROM (SELECT DISTINCT k FROM n) x", "11|10"},
      {"SELECT k FROM n INTERSECT SELECT k FROM m ORDER BY 1", "0\n1\n2\n3\n4\n5\n6\nNULL"},
      {"SELECT k FROM m EXCEPT SELECT k FROM n ORDER BY 1", ""},
      {"SELECT count(*) FROM n WHERE k NOT IN (SELECT k FROM m)", "0"},
      {"SELECT count(*) FROM n WHERE k NOT IN (SELECT k FROM m WHERE k IS NOT NULL)", "1250"},
      {"SELECT k FROM (SELECT DISTINCT k FROM n) x ORDER BY k DESC LIMIT 2", "NULL\n9"},
      {"SELECT k FROM (SELECT DISTINCT k FROM n) x ORDER BY k LIMIT 2 OFFSET 9", "9\nNULL"},
      {"SELECT sum(v) FILTER (WHERE k IS NULL), count(*) FILTER (WHERE k = 3) FROM n",
       "3127500|500"},
  });
}

// Keys with many duplicates: 2000 x 2000 matches of one key, semi joins that must not
// multiply rows, INTERSECT ALL / EXCEPT ALL counting duplicates.
TEST_P(Execution, ManyDuplicates) {
  Check({
      {"SELECT count(*) FROM d d1 JOIN d d2 ON d1.k = d2.k", "4000000"},
      {"SELECT k, count(*), sum(v) FROM d GROUP BY k", "1|2000|2001000"},
      {"SELECT count(DISTINCT k), count(DISTINCT v) FROM d", "1|2000"},
      {"SELECT count(*) FROM n WHERE k IN (SELECT k FROM m)", "2500"},
      {"SELECT count(*) FROM m LEFT JOIN n ON m.k = n.k", "85560"},
      {"SELECT count(*) FROM (SELECT k FROM n INTERSECT ALL SELECT k FROM m) x", "300"},
      {"SELECT count(*) FROM (SELECT k FROM m EXCEPT ALL SELECT k FROM n WHERE v < 40) x", "271"},
      {"SELECT v FROM d ORDER BY k, v DESC LIMIT 3", "2000\n1999\n1998"},
      {"SELECT count(*) FROM (SELECT k FROM n UNION ALL SELECT k FROM m) x", "5300"},
      {"SELECT count(*) FROM (SELECT k FROM n UNION SELECT k FROM m) x", "11"},
  });
}

// PostgreSQL's float order (-Infinity < ... < Infinity < NaN, NaN = NaN, -0 = 0) and
// text in byte order (the C collation).
TEST_P(Execution, FloatAndTextOrder) {
  Check({
      {"SELECT x FROM f ORDER BY x", "-Infinity\n-0.5\n0\n1\nInfinity\nNaN\nNULL"},
      {"SELECT x FROM f ORDER BY x DESC", "NULL\nNaN\nInfinity\n1\n0\n-0.5\n-Infinity"},
      {"SELECT x FROM f ORDER BY x NULLS FIRST LIMIT 3", "NULL\n-Infinity\n-0.5"},
      {"SELECT s FROM st ORDER BY s", "\nB\na\na b\nab\nb\né\nNULL"},
      {"SELECT s, count(*) FROM st GROUP BY s ORDER BY s DESC",
       "NULL|1\né|1\nb|1\nab|1\na b|1\na|1\nB|1\n|1"},
      {"SELECT max(s), min(s) FROM st", "é|"},
      {"SELECT count(*) FROM f a JOIN f b ON a.x = b.x", "6"},
      {"SELECT x, count(*) FROM (SELECT x FROM f UNION ALL SELECT -x FROM f) u GROUP BY x ORDER BY "
       "x",
       "-Infinity|2\n-1|1\n-0.5|1\n0|2\n0.5|1\n1|1\nInfinity|2\nNaN|2\nNULL|2"},
  });
}

// Inputs of 2047 ... 4097 rows cross the 2048-row vector boundary in every
// operator: filters, sorts with OFFSET at the boundary, joins, aggregates
// with exactly 2048 groups, LIMIT.
TEST_P(Execution, ChunkBoundaries) {
  for (int64_t n : {1, 2047, 2048, 2049, 4095, 4096, 4097, 10000}) {
    const std::string t = "(SELECT x FROM generate_series(1, " + std::to_string(n) + ") s(x)) t";
    const std::string u = "(SELECT x FROM generate_series(1, " + std::to_string(n) + ") s(x)) u";
    auto q = [&](const std::string& sql) { return Rows(*db_, sql); };
    const std::string ns = std::to_string(n);
    EXPECT_EQ(q("SELECT count(*), sum(x), min(x), max(x) FROM " + t),
              ns + "|" + std::to_string(n * (n + 1) / 2) + "|1|" + ns)
        << n;
    EXPECT_EQ(q("SELECT count(*) FROM " + t + " WHERE x % 2048 = 0"), std::to_string(n / 2048))
        << n;
    EXPECT_EQ(q("SELECT count(*), sum(x) FROM " + t + " WHERE x BETWEEN 2040 AND 2056"),
              n < 2040 ? "0|NULL"
                       : std::to_string(std::min<int64_t>(n, 2056) - 2039) + "|" +
                             std::to_string(
                                 (std::min<int64_t>(n, 2056) * (std::min<int64_t>(n, 2056) + 1) -
                                  2039 * 2040) /
                                 2))
        << n;
    EXPECT_EQ(q("SELECT x FROM " + t + " ORDER BY x DESC LIMIT 1 OFFSET 2047"),
              n >= 2048 ? std::to_string(n - 2047) : "")
        << n;
    EXPECT_EQ(q("SELECT count(*) FROM (SELECT x FROM " + t + " LIMIT 2049) l"),
              std::to_string(std::min<int64_t>(n, 2049)))
        << n;
    EXPECT_EQ(q("SELECT count(*) FROM " + t + " JOIN " + u + " ON t.x = u.x + 1"),
              std::to_string(n - 1))
        << n;
    EXPECT_EQ(q("SELECT count(*) FROM " + t + " LEFT JOIN " + u +
                " ON t.x = u.x + 2048 WHERE u.x IS NULL"),
              std::to_string(std::min<int64_t>(n, 2048)))
        << n;
    EXPECT_EQ(q("SELECT count(*), min(c), max(c) FROM (SELECT x % 2048 AS g, count(*) AS c FROM " +
                t + " GROUP BY 1) a"),
              std::to_string(std::min<int64_t>(n, 2048)) + "|" + std::to_string(std::max<int64_t>(1, n / 2048)) + "|" +
                  std::to_string((n + 2047) / 2048))
        << n;
    EXPECT_EQ(q("SELECT count(DISTINCT x % 2049) FROM " + t),
              std::to_string(std::min<int64_t>(n, 2049)))
        << n;
    EXPECT_EQ(q("SELECT count(*) FROM " + t + " WHERE x IN (SELECT x * 2 FROM " + u + ")"),
              std::to_string(n / 2))
        << n;
  }
}

// Many groups across the hash aggregate's partitions and threads, and a sort
// of many rows merged from per-thread runs.
TEST_P(Execution, ManyGroupsAndLongSorts) {
  EXPECT_EQ(
      Rows(*db_,
           "SELECT count(*), sum(c), min(c), max(c) FROM (SELECT x % 100003 AS g, count(*) AS c "
           "FROM generate_series(1, 300000) s(x) GROUP BY 1) a"),
      "100003|300000|2|3");
  // A permutation of most of 1..300006 (x * 7919 mod the prime 300007), sorted.
  const std::string perm =
      "(SELECT x::bigint * 7919 % 300007 AS x FROM generate_series(1, 300000) s(x)) a";
  EXPECT_EQ(Rows(*db_, "SELECT x FROM " + perm + " ORDER BY x LIMIT 3 OFFSET 149998"),
            "149999\n150000\n150001");
  EXPECT_EQ(Rows(*db_, "SELECT x FROM " + perm + " ORDER BY x DESC LIMIT 3"),
            "300006\n300005\n300004");
  EXPECT_EQ(Rows(*db_, "SELECT count(*), count(DISTINCT x), sum(x) FROM " + perm),
            "300000|300000|45000316278");
}

}  // namespace
}  // namespace quiver
