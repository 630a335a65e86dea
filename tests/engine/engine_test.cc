// End-to-end SQL through the Database API: results of the tricky parts
// (NULL logic, subqueries, outer joins, set operations, casts) and every
// error class the engine reports.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/io.h"
#include "engine/database.h"
#include "formats/ipc/writer.h"

namespace quiver {
namespace {

// Runs `sql` and renders the last result as "a|b\nc|d" (NULL as "NULL").
std::string Query(Database& db, const std::string& sql) {
  auto r = db.ExecuteScript(sql);
  if (!r.ok()) return "ERROR: " + r.status().message();
  const QueryResult& last = r->back();
  if (!last.has_rows) return last.command_tag;
  std::string out;
  for (int64_t i = 0; i < last.num_rows(); ++i) {
    if (i) out += "\n";
    auto row = last.Row(i);
    for (size_t c = 0; c < row.size(); ++c) out += (c ? "|" : "") + row[c].ToString();
  }
  return out;
}

Status Error(Database& db, const std::string& sql) {
  auto r = db.ExecuteScript(sql);
  return r.ok() ? Status::OK() : r.status();
}

class SqlEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(Query(db_, "CREATE TABLE t (a int, b text, c numeric(10,2));"
                       "INSERT INTO t VALUES (1, 'x', 1.5), (2, 'y', 2.25), (3, NULL, NULL), (2, 'z', 3)"),
              "INSERT 0 4");
  }
  Database db_;
};

TEST_F(SqlEngine, ThreeValuedLogic) {
  EXPECT_EQ(Query(db_, "SELECT NULL AND false, NULL AND true, NULL OR true, NULL OR false, NOT NULL::bool"),
            "f|NULL|t|NULL|NULL");
  EXPECT_EQ(Query(db_, "SELECT 1 IN (1, NULL), 2 IN (1, NULL), 2 NOT IN (1, NULL), NULL IN (1)"), "t|NULL|NULL|NULL");
  EXPECT_EQ(Query(db_, "SELECT NULL IS DISTINCT FROM NULL, 1 IS DISTINCT FROM NULL, NULL = NULL"), "f|t|NULL");
  EXPECT_EQ(Query(db_, "SELECT count(*) FROM t WHERE b <> 'x'"), "2");
  EXPECT_EQ(Query(db_, "SELECT count(*) FROM t WHERE NOT (b <> 'x')"), "1");
}

TEST_F(SqlEngine, Aggregates) {
  EXPECT_EQ(Query(db_, "SELECT a, count(*), count(b), sum(c), min(b) FROM t GROUP BY a ORDER BY a"),
            "1|1|1|1.50|x\n2|2|2|5.25|y\n3|1|0|NULL|NULL");
  EXPECT_EQ(Query(db_, "SELECT count(DISTINCT a), sum(DISTINCT a), avg(a) FROM t"),
            "3|6|2.00000000000000000000");
  EXPECT_EQ(Query(db_, "SELECT count(*), sum(a) FROM t WHERE a > 10"), "0|NULL");
  EXPECT_EQ(Query(db_, "SELECT a FROM t GROUP BY a HAVING count(*) > 1"), "2");
  EXPECT_EQ(Query(db_, "SELECT sum(a) FILTER (WHERE b IS NOT NULL) FROM t"), "5");
}

TEST_F(SqlEngine, Subqueries) {
  // Correlated scalar subquery with count(): a missing group counts 0.
  EXPECT_EQ(Query(db_, "SELECT a, (SELECT count(*) FROM t u WHERE u.a = t.a AND u.b = 'z') FROM t ORDER BY a, b"),
            "1|0\n2|1\n2|1\n3|0");
  EXPECT_EQ(Query(db_, "SELECT b FROM t WHERE EXISTS (SELECT 1 FROM t u WHERE u.a = t.a AND u.b <> t.b) ORDER BY b"),
            "y\nz");
  EXPECT_EQ(Query(db_, "SELECT b FROM t WHERE NOT EXISTS (SELECT 1 FROM t u WHERE u.a = t.a AND u.b <> t.b) "
                     "ORDER BY b NULLS FIRST"),
            "NULL\nx");
  // NOT IN with a NULL in the subquery is never TRUE.
  EXPECT_EQ(Query(db_, "SELECT count(*) FROM t WHERE a NOT IN (SELECT CASE WHEN a = 3 THEN NULL ELSE a END FROM t)"),
            "0");
  EXPECT_EQ(Query(db_, "SELECT count(*) FROM t WHERE a NOT IN (SELECT a FROM t WHERE a < 2)"), "3");
  // Non-equality correlation (decorrelated through a dependent join).
  EXPECT_EQ(Query(db_, "SELECT a, (SELECT count(*) FROM t u WHERE u.a < t.a) FROM t ORDER BY 1, 2"),
            "1|0\n2|1\n2|1\n3|3");
  EXPECT_EQ(Query(db_, "SELECT a > ALL (SELECT a FROM t WHERE a < 3) FROM t ORDER BY a"), "f\nf\nf\nt");
  auto st = Error(db_, "SELECT (SELECT a FROM t)");
  EXPECT_NE(st.message().find("more than one row returned by a subquery"), std::string::npos) << st.ToString();
}

TEST_F(SqlEngine, JoinsAndSetOperations) {
  EXPECT_EQ(Query(db_, "SELECT x.a, y.v FROM t x LEFT JOIN (VALUES (1, 'one'), (4, 'four')) y(k, v) ON x.a = y.k "
                     "ORDER BY 1, 2"),
            "1|one\n2|NULL\n2|NULL\n3|NULL");
  EXPECT_EQ(Query(db_, "SELECT x.a, y.k FROM (SELECT DISTINCT a FROM t) x FULL JOIN (VALUES (1), (4)) y(k) "
                     "ON x.a = y.k ORDER BY 1, 2"),
            "1|1\n2|NULL\n3|NULL\nNULL|4");
  EXPECT_EQ(Query(db_, "SELECT a FROM t UNION SELECT 5 ORDER BY 1"), "1\n2\n3\n5");
  EXPECT_EQ(Query(db_, "SELECT a FROM t INTERSECT ALL SELECT 2 UNION ALL SELECT 2 ORDER BY 1"), "2\n2");
  EXPECT_EQ(Query(db_, "SELECT a FROM t EXCEPT SELECT 2 ORDER BY 1"), "1\n3");
  EXPECT_EQ(Query(db_, "WITH s AS (SELECT a, count(*) n FROM t GROUP BY a) SELECT a FROM s WHERE n = 2"), "2");
}

TEST_F(SqlEngine, TypesAndCasts) {
  EXPECT_EQ(Query(db_, "SELECT 7 / 2, -7 / 2, 7 % 3, 7.0 / 2, 1.5 * 2, 10 / 4.0"),
            "3|-3|1|3.50000000000000000000|3.0|2.50000000000000000000");
  EXPECT_EQ(Query(db_, "SELECT CAST('12.345' AS numeric(5,2)), '42'::int + 1, 2.5::int, 3.5::float8::int"),
            "12.35|43|3|4");
  EXPECT_EQ(Query(db_, "SELECT date '1998-12-01' - interval '90' day, date '2024-03-31' + interval '1 month'"),
            "1998-09-02 00:00:00|2024-04-30 00:00:00");
  EXPECT_EQ(Query(db_, "SELECT extract(year FROM date '1995-06-17'), substring('hello' FROM 2 FOR 3), "
                     "upper('ab') || lower('CD'), length('héllo'), position('l' IN 'hello')"),
            "1995|ell|ABcd|5|3");
  EXPECT_EQ(Query(db_, "SELECT 'abc' LIKE 'a%', 'abc' LIKE '_b_', 'ABC' ILIKE 'a%', 'a%c' LIKE 'a\\%c'"), "t|t|t|t");
  EXPECT_EQ(Query(db_, "SELECT coalesce(NULL, 2), nullif(1, 1), CASE WHEN 1 > 2 THEN 'a' END, greatest(1, NULL, 3)"),
            "2|NULL|NULL|3");
  // An untaken CASE branch never raises its error.
  EXPECT_EQ(Query(db_, "SELECT CASE WHEN a = 3 THEN 0 ELSE 10 / (a - 3) END FROM t ORDER BY a"), "-5\n-10\n-10\n0");
}

TEST_F(SqlEngine, ErrorClasses) {
  Status st = Error(db_, "SELECT a FROM t WHERE nope = 1");
  EXPECT_EQ(st.message(), "column \"nope\" does not exist");
  EXPECT_EQ(st.position(), 22);
  EXPECT_EQ(st.SqlState(), "42703");
  st = Error(db_, "SELECT * FROM missing_table");
  EXPECT_EQ(st.message(), "relation \"missing_table\" does not exist");
  EXPECT_EQ(st.position(), 14);
  EXPECT_EQ(st.SqlState(), "42P01");
  st = Error(db_, "SELECT nofunc(1)");
  EXPECT_NE(st.message().find("function nofunc(integer) does not exist"), std::string::npos) << st.ToString();
  EXPECT_EQ(st.SqlState(), "42883");
  EXPECT_EQ(st.hint(),
            "No function matches the given name and argument types. You might need to add explicit "
            "type casts.");
  st = Error(db_, "SELECT 1 + true");
  EXPECT_NE(st.message().find("operator does not exist: integer + boolean"), std::string::npos) << st.ToString();
  st = Error(db_, "SELECT 2147483647 + 1");
  EXPECT_EQ(st.message(), "integer out of range");
  EXPECT_EQ(st.SqlState(), "22003");
  st = Error(db_, "SELECT 9223372036854775807::int8 * 2");
  EXPECT_EQ(st.message(), "bigint out of range");
  st = Error(db_, "SELECT a / (a - a) FROM t");
  EXPECT_EQ(st.message(), "division by zero");
  st = Error(db_, "SELECT 'abc'::int");
  EXPECT_EQ(st.message(), "invalid input syntax for type integer: \"abc\"");
  st = Error(db_, "SELECT a, count(*) FROM t");
  EXPECT_NE(st.message().find("must appear in the GROUP BY clause"), std::string::npos) << st.ToString();
  st = Error(db_, "SELECT a FROM t x, t y");
  EXPECT_EQ(st.message(), "column reference \"a\" is ambiguous");
  st = Error(db_, "SELECT * FROM \"/nonexistent/file.arrow\"");
  EXPECT_NE(st.message().find("/nonexistent/file.arrow"), std::string::npos) << st.ToString();
  st = Error(db_, "SELECT count(*) FROM t WHERE a");
  EXPECT_NE(st.message().find("argument of WHERE must be type boolean"), std::string::npos) << st.ToString();
  st = Error(db_, "INSERT INTO t VALUES (1, 'a', 'x')");
  EXPECT_NE(st.message().find("invalid input syntax for type numeric"), std::string::npos) << st.ToString();
  st = Error(db_, "SELECT 1 UNION SELECT 1, 2");
  EXPECT_NE(st.message().find("same number of columns"), std::string::npos) << st.ToString();
}

TEST(SqlEngineMemory, QueryOverTheLimitFailsCleanly) {
  DatabaseOptions o;
  o.memory_limit = 4 << 20;
  Database db(o);
  auto r = db.Execute("SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, 3000000) s(g) GROUP BY g) x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfMemory) << r.status().ToString();
  EXPECT_NE(r.status().message().find("out of memory"), std::string::npos) << r.status().message();
  // The database still works afterwards.
  EXPECT_EQ(Query(db, "SELECT 1"), "1");
}

TEST(SqlEngineFiles, GlobsMustAgreeOnTheSchema) {
  const std::string dir = ::testing::TempDir() + "/quiver_glob_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const SchemaRef& schema) {
    auto file = AtomicFile::Create(dir + "/" + name);
    ASSERT_TRUE(file.ok());
    auto w = ipc::IpcWriter::MakeFileWriter(file->get(), schema);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Close().ok());
    ASSERT_TRUE((*file)->Commit().ok());
  };
  write("a.arrow", schema({field("x", int32())}));
  write("b.arrow", schema({field("x", int64())}));
  Database db;
  auto st = Error(db, "SELECT * FROM read_arrow('" + dir + "/*.arrow')");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(dir + "/b.arrow: schema differs"), std::string::npos) << st.message();
  st = Error(db, "SELECT * FROM read_arrow('" + dir + "/*.none')");
  EXPECT_NE(st.message().find("no files match"), std::string::npos) << st.message();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace quiver
