// The binder (src/planner/) through SQL text: the errors it reports, with
// PostgreSQL 15's message and the byte position PostgreSQL marks, and the
// names and types it gives result columns (PostgreSQL's, checked against
// PostgreSQL 15 when these cases were written).
#include <gtest/gtest.h>

#include "util/sql_util.h"

namespace quiver {
namespace {

using testing::ErrorOf;
using testing::Last;
using testing::Rows;

class PlannerBinder : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(
        Rows(db_,
             "CREATE TABLE t (a int, b text, c numeric(10,2));"
             "INSERT INTO t VALUES (1, 'x', 1.5), (2, 'y', 2.25), (3, NULL, NULL), (2, 'z', 3);"
             "CREATE TABLE u (a int, d date)"),
        "CREATE TABLE");
  }
  // The error of `sql`: its message and position must be `message` and `position`
  // (-1: the error carries no position).
  void ExpectError(const std::string& sql, const std::string& message, int position) {
    Status st = ErrorOf(db_, sql);
    ASSERT_FALSE(st.ok()) << sql;
    EXPECT_EQ(st.message(), message) << sql;
    EXPECT_EQ(st.position(), position) << sql << ": " << st.message();
  }
  Database db_;
};

TEST_F(PlannerBinder, NamesThatDoNotResolve) {
  ExpectError("SELECT a, nope FROM t", "column \"nope\" does not exist", 10);
  ExpectError("SELECT * FROM missing", "relation \"missing\" does not exist", 14);
  ExpectError("SELECT a FROM t x, t y", "column reference \"a\" is ambiguous", 7);
  ExpectError("SELECT x.a FROM t", "missing FROM-clause entry for table \"x\"", 7);
  ExpectError("SELECT t.a FROM t JOIN u ON t.a = u.a AND u.nope = 1",
              "column u.nope does not exist", 42);
  // Output aliases are not visible in WHERE, nor inside ORDER BY expressions.
  ExpectError("SELECT a AS x FROM t WHERE x > 1", "column \"x\" does not exist", 27);
  ExpectError("SELECT a AS x FROM t ORDER BY x + 1", "column \"x\" does not exist", 30);
  ExpectError("SELECT $1", "there is no parameter $1", 7);
}

TEST_F(PlannerBinder, AggregatesAndGrouping) {
  // PostgreSQL qualifies the column ("t.b"); Quiver names it as written.
  Status st = ErrorOf(db_, "SELECT a, b FROM t GROUP BY a");
  EXPECT_NE(st.message().find(
                "\"b\" must appear in the GROUP BY clause or be used in an aggregate function"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(st.position(), 10);
  st = ErrorOf(db_, "SELECT a FROM t HAVING a > 1");
  EXPECT_NE(st.message().find("must appear in the GROUP BY clause"), std::string::npos)
      << st.message();
  EXPECT_EQ(st.position(), 7);
  ExpectError("SELECT a FROM t WHERE sum(a) > 1", "aggregate functions are not allowed in WHERE",
              22);
  ExpectError("SELECT sum(count(a)) FROM t", "aggregate function calls cannot be nested", 11);
  ExpectError("SELECT a, count(*) FROM t GROUP BY 5", "GROUP BY position 5 is not in select list",
              35);
  // Grouping by an output alias, and HAVING on a grouped column, are fine.
  EXPECT_EQ(Rows(db_, "SELECT a AS x, count(*) FROM t GROUP BY x ORDER BY x"), "1|1\n2|2\n3|1");
  EXPECT_EQ(Rows(db_, "SELECT 1 FROM t GROUP BY b HAVING b IS NULL"), "1");
}

TEST_F(PlannerBinder, OrderByAndLimit) {
  ExpectError("SELECT a FROM t ORDER BY 3", "ORDER BY position 3 is not in select list", 25);
  ExpectError("SELECT DISTINCT a FROM t ORDER BY b",
              "for SELECT DISTINCT, ORDER BY expressions must appear in select list", 34);
  // PostgreSQL reports no position here; Quiver marks the LIMIT's value.
  Status st = ErrorOf(db_, "SELECT a FROM t LIMIT -1");
  EXPECT_EQ(st.message(), "LIMIT must not be negative");
  EXPECT_EQ(Rows(db_, "SELECT a FROM t OFFSET 10"), "");
  // ORDER BY takes output names first, then input columns (PostgreSQL's rule).
  EXPECT_EQ(Rows(db_, "SELECT -a AS a FROM t ORDER BY a"), "-3\n-2\n-2\n-1");
  EXPECT_EQ(Rows(db_, "SELECT b FROM t ORDER BY a DESC, b"), "NULL\ny\nz\nx");
}

TEST_F(PlannerBinder, ShapesThatDoNotFit) {
  ExpectError("SELECT (SELECT a, b FROM t)", "subquery must return only one column", 7);
  ExpectError("VALUES (1, 2), (3)", "VALUES lists must all be the same length", 16);
  EXPECT_EQ(ErrorOf(db_, "SELECT a FROM t UNION SELECT a, b FROM t").message(),
            "each UNION query must have the same number of columns");
  EXPECT_EQ(ErrorOf(db_, "SELECT a FROM t UNION SELECT b FROM t").message(),
            "UNION types integer and text cannot be matched");
  EXPECT_EQ(ErrorOf(db_, "INSERT INTO t VALUES (1, 'a', 1, 2)").message(),
            "INSERT has more expressions than target columns");
  EXPECT_EQ(ErrorOf(db_, "SELECT * FROM t AS x(p, q, r, s)").message(),
            "table \"x\" has 3 columns available but 4 columns specified");
  EXPECT_EQ(ErrorOf(db_, "SELECT * FROM generate_series(1, 3) g(x, y)").message(),
            "table \"g\" has 1 columns available but 2 columns specified");
  EXPECT_EQ(ErrorOf(db_, "SELECT * FROM t, t").message(),
            "table name \"t\" specified more than once");
  EXPECT_EQ(ErrorOf(db_, "SELECT * FROM t JOIN u USING (nope)").message(),
            "column \"nope\" specified in USING clause does not exist in left table");
}

TEST_F(PlannerBinder, TypesThatDoNotFit) {
  ExpectError("SELECT a FROM t WHERE b", "argument of WHERE must be type boolean, not type text",
              22);
  Status st = ErrorOf(db_, "SELECT length(1)");
  EXPECT_EQ(st.message().rfind("function length(integer) does not exist", 0), 0u) << st.message();
  EXPECT_EQ(st.position(), 7);
  st = ErrorOf(db_, "SELECT substr('abc')");
  EXPECT_EQ(st.message().rfind("function substr(unknown) does not exist", 0), 0u) << st.message();
  // An untyped literal takes the other operand's type, and must parse as it.
  EXPECT_EQ(ErrorOf(db_, "SELECT a FROM t WHERE a = 'x'").message(),
            "invalid input syntax for type integer: \"x\"");
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM t WHERE a = '2'"), "2");
  // PostgreSQL words this "CASE types text and integer", at the ELSE value.
  st = ErrorOf(db_, "SELECT CASE WHEN a > 1 THEN a ELSE b END FROM t");
  EXPECT_NE(st.message().find("cannot be matched"), std::string::npos) << st.message();
}

TEST_F(PlannerBinder, UnsupportedIsSaidSo) {
  for (const char* sql :
       {"SELECT a, count(DISTINCT a) OVER (ORDER BY a) FROM t",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r ORDER BY 1) "
        "SELECT * FROM r",
        "SELECT a FROM t FOR UPDATE",
        "SELECT * FROM t JOIN LATERAL (SELECT t.a) s USING (a)"}) {
    Status st = ErrorOf(db_, sql);
    EXPECT_EQ(st.message().rfind("unsupported: ", 0), 0u) << sql << ": " << st.ToString();
  }
}

TEST_F(PlannerBinder, RecursiveDistinctOnWithTies) {
  EXPECT_EQ(Rows(db_, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
                      "SELECT * FROM r ORDER BY n"),
            "1\n2\n3");
  // UNION stops where no new row comes.
  EXPECT_EQ(Rows(db_, "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT (n + 1) % 3 FROM r) "
                      "SELECT count(*) FROM r"),
            "3");
  EXPECT_EQ(Rows(db_, "SELECT DISTINCT ON (a) a, b FROM t WHERE b IS NOT NULL ORDER BY a, b DESC"),
            "1|x\n2|z");
  EXPECT_EQ(Rows(db_, "SELECT a FROM t ORDER BY a FETCH FIRST 2 ROWS WITH TIES"), "1\n2\n2");
  EXPECT_EQ(Rows(db_, "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a), "
                      "percentile_disc(0.5) WITHIN GROUP (ORDER BY a), "
                      "mode() WITHIN GROUP (ORDER BY a) FROM t"),
            "2|2|2");
  EXPECT_EQ(ErrorOf(db_, "SELECT DISTINCT ON (a) a, b FROM t ORDER BY b").message(),
            "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
  // A plain WITH item does not see itself (this recursed without end through
  // the set operation's binders).
  EXPECT_EQ(ErrorOf(db_, "WITH r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r")
                .message(),
            "relation \"r\" does not exist");
}

TEST_F(PlannerBinder, WindowFunctions) {
  // Rows of t: (1, x), (2, y), (3, NULL), (2, z). Peers share rank and the
  // running sum of the default frame; without ORDER BY the frame is the partition.
  EXPECT_EQ(Rows(db_,
                 "SELECT a, rank() OVER (ORDER BY a), sum(a) OVER (ORDER BY a), count(*) OVER (), "
                 "lag(a, 1, 0) OVER (ORDER BY a, b) FROM t ORDER BY a, b"),
            "1|1|1|4|0\n2|2|5|4|1\n2|2|5|4|2\n3|4|8|4|2");
  // Over aggregates, and in ORDER BY.
  EXPECT_EQ(Rows(db_,
                 "SELECT a, count(*), sum(count(*)) OVER (ORDER BY a) FROM t GROUP BY a "
                 "ORDER BY rank() OVER (ORDER BY a DESC)"),
            "3|1|4\n2|2|3\n1|1|1");
  // Frames: a moving sum, a RANGE over the key's values, GROUPS of peers, EXCLUDE.
  EXPECT_EQ(Rows(db_,
                 "SELECT a, sum(a) OVER (ORDER BY a, b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), "
                 "count(*) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND 0 FOLLOWING), "
                 "sum(a) OVER (ORDER BY a GROUPS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), "
                 "sum(a) OVER (ORDER BY a ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING "
                 "EXCLUDE GROUP) FROM t ORDER BY a, b"),
            "1|1|1|7|7\n2|3|3|3|4\n2|4|3|3|4\n3|5|3|NULL|5");
  ExpectError("SELECT a FROM t WHERE rank() OVER () > 1", "window functions are not allowed in WHERE", 22);
  ExpectError("SELECT rank() OVER w FROM t", "window \"w\" does not exist", 19);
}

TEST_F(PlannerBinder, DuplicateCteName) {
  // PostgreSQL: ERROR: WITH query name "w" specified more than once (position 22).
  // Quiver accepts the query and uses the second definition (answer: 2).
  Status st = ErrorOf(db_, "WITH w AS (SELECT 1), w AS (SELECT 2) SELECT * FROM w");
  EXPECT_KNOWN_BUG(st.ok(), "a duplicate WITH name is accepted instead of refused");
}

// Result column names and types: PostgreSQL's (pg_typeof), as Arrow types.
TEST_F(PlannerBinder, ResultNamesAndTypes) {
  ASSERT_EQ(
      Rows(db_,
           "CREATE TABLE w (a int, b text, c numeric(10,2), d date, s smallint, f real, g bigint)"),
      "CREATE TABLE");
  struct Case {
    const char* expr;
    const char* name;
    const char* type;
  };
  const Case cases[] = {
      {"a + g", "?column?", "int64"},
      {"a / 2", "?column?", "int32"},
      {"s + s", "?column?", "int16"},
      {"-s", "?column?", "int16"},
      {"a % 2", "?column?", "int32"},
      {"f * f", "?column?", "float"},
      {"a::float8 / 2", "?column?", "double"},
      {"sum(a)", "sum", "int64"},
      {"sum(g)", "sum", "decimal128(38, 0)"},
      {"sum(c)", "sum", "decimal128(38, 2)"},
      {"avg(a)", "avg", "decimal128(38, 20)"},
      {"avg(f)", "avg", "double"},
      {"c / 3", "?column?", "decimal128(38, 20)"},
      {"stddev(a)", "stddev", "decimal128(38, 20)"},
      {"variance(c)", "variance", "decimal128(38, 20)"},
      {"var_pop(g)", "var_pop", "decimal128(38, 20)"},
      {"stddev_samp(f)", "stddev_samp", "double"},
      {"count(*)", "count", "int64"},
      {"count(DISTINCT a)", "count", "int64"},
      {"min(b)", "min", "string"},
      {"max(d)", "max", "date32[day]"},
      {"bool_and(a > 0)", "bool_and", "bool"},
      {"string_agg(b, ',')", "string_agg", "string"},
      {"coalesce(a, g)", "coalesce", "int64"},
      {"greatest(a, g)", "greatest", "int64"},
      {"nullif(a, 2)", "nullif", "int32"},
      {"d + 1", "?column?", "date32[day]"},
      {"d - d", "?column?", "int32"},
      {"d + interval '1 day'", "?column?", "timestamp[us]"},
      {"extract(year FROM d)", "extract", "decimal128(18, 0)"},
      {"length(b)", "length", "int32"},
      {"position('x' IN b)", "position", "int32"},
      {"b || 1", "?column?", "string"},
      {"a IN (1, 2)", "?column?", "bool"},
      {"'abc'", "?column?", "string"},
      {"10000000000", "?column?", "int64"},
      {"2147483648", "?column?", "int64"},
      {"abs(s)", "abs", "int16"},
      {"sqrt(a)", "sqrt", "double"},
      {"power(a, 2)", "power", "double"},
      {"round(f)", "round", "double"},
      {"CAST(a AS text)", "a", "string"},
      {"upper(b)", "upper", "string"},
  };
  for (const Case& c : cases) {
    QueryResult r = Last(db_, std::string("SELECT ") + c.expr + " FROM w");
    ASSERT_NE(r.schema, nullptr) << c.expr;
    ASSERT_EQ(r.schema->num_fields(), 1) << c.expr;
    EXPECT_EQ(r.schema->field(0)->name, c.name) << c.expr;
    EXPECT_EQ(r.schema->field(0)->type->ToString(), c.type) << c.expr;
  }
}

TEST_F(PlannerBinder, ResultTypesThatDifferFromPostgres) {
  ASSERT_EQ(Rows(db_, "CREATE TABLE w (a int, c numeric(10,2), f real)"), "CREATE TABLE");
  auto type_of = [&](const std::string& expr) {
    QueryResult r = Last(db_, "SELECT " + expr + " FROM w");
    return r.schema ? r.schema->field(0)->type->ToString() : std::string("?");
  };
  // PostgreSQL: real + integer is double precision (float8); Quiver gives real (float32).
  EXPECT_KNOWN_BUG(type_of("f + a") == "float",
                   "real + integer is real, PostgreSQL: double precision");
  // PostgreSQL: date_trunc(text, date) casts the date to timestamptz and returns
  // timestamp with time zone; Quiver returns timestamp without time zone.
  EXPECT_KNOWN_BUG(type_of("date_trunc('year', date '2024-02-29')") == "timestamp[us]",
                   "date_trunc(text, date) is timestamp, PostgreSQL: timestamp with time zone");
}

}  // namespace
}  // namespace quiver
