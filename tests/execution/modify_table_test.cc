// INSERT / UPDATE / DELETE / CREATE TABLE AS executed (the sink of
// execution/operators/physical_modify_table.h) through the Database API:
// the counts in the command tags, the rows written, NOT NULL checks that
// leave the table as it was, and what EXPLAIN shows.
#include <gtest/gtest.h>

#include "util/sql_util.h"

namespace quiver {
namespace {

using testing::Contains;
using testing::InSubtree;
using testing::Join;
using testing::Last;
using testing::Plan;
using testing::Rows;

class ExecutionModifyTable : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(
        Rows(db_,
             "CREATE TABLE t (a int NOT NULL, b text, c bigint);"
             "INSERT INTO t VALUES (1, 'x', 10), (2, 'y', 20), (3, NULL, NULL), (4, 'x', 40)"),
        "INSERT 0 4");
  }
  Database db_;
};

TEST_F(ExecutionModifyTable, CommandTagsCountTheRowsWritten) {
  QueryResult r = Last(db_, "INSERT INTO t SELECT a + 10, b, c FROM t WHERE a <= 2");
  EXPECT_EQ(r.command_tag, "INSERT 0 2");
  EXPECT_EQ(r.rows_affected, 2);
  r = Last(db_, "UPDATE t SET c = c + 1 WHERE b = 'x'");
  EXPECT_EQ(r.command_tag, "UPDATE 3");  // 1, 4 and 11; NULL b does not match
  EXPECT_EQ(r.rows_affected, 3);
  EXPECT_EQ(Rows(db_, "SELECT a, c FROM t ORDER BY a"), "1|11\n2|20\n3|NULL\n4|41\n11|11\n12|20");
  r = Last(db_, "DELETE FROM t WHERE c > 15");
  EXPECT_EQ(r.command_tag, "DELETE 3");  // 20, 41, 20; NULL c stays
  EXPECT_EQ(Rows(db_, "SELECT a FROM t ORDER BY a"), "1\n3\n11");
  // Nothing matched: zero, and the table is unchanged.
  EXPECT_EQ(Rows(db_, "UPDATE t SET b = 'z' WHERE a > 100"), "UPDATE 0");
  EXPECT_EQ(Rows(db_, "DELETE FROM t WHERE a > 100"), "DELETE 0");
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM t"), "3");
}

TEST_F(ExecutionModifyTable, UpdateKeepsRowOrderAndUnmatchedRows) {
  EXPECT_EQ(Rows(db_, "UPDATE t SET b = upper(b) WHERE a % 2 = 0"), "UPDATE 2");
  // No ORDER BY: the table keeps its rows in place.
  EXPECT_EQ(Rows(db_, "SELECT a, b FROM t"), "1|x\n2|Y\n3|NULL\n4|X");
}

TEST_F(ExecutionModifyTable, UpdateEvaluatesWhereOncePerRow) {
  // A volatile condition decides each row once: all its assigned columns
  // change or none do, and the count is the number of rows that changed.
  ASSERT_EQ(Rows(db_,
                 "CREATE TABLE r AS SELECT g AS k, 0 AS x, 0 AS y FROM generate_series(1, "
                 "5000) s(g)"),
            "SELECT 5000");
  QueryResult r = Last(db_, "UPDATE r SET x = 1, y = 1 WHERE random() < 0.5");
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM r WHERE x <> y"), "0");
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM r WHERE x = 1"), std::to_string(r.rows_affected));
  EXPECT_GT(r.rows_affected, 0);
  EXPECT_LT(r.rows_affected, 5000);
}

TEST_F(ExecutionModifyTable, UpdateOfAColumnToItself) {
  EXPECT_EQ(Rows(db_, "UPDATE t SET a = a, b = b"), "UPDATE 4");
  EXPECT_EQ(Rows(db_, "SELECT a, b, c FROM t"), "1|x|10\n2|y|20\n3|NULL|NULL\n4|x|40");
  // Assigned twice: the rightmost value (SQLite's rule, which the
  // sqllogictest corpus checks; PostgreSQL rejects it).
  EXPECT_EQ(Rows(db_, "UPDATE t SET c = 1, c = 2 WHERE a = 1"), "UPDATE 1");
  EXPECT_EQ(Rows(db_, "SELECT c FROM t WHERE a = 1"), "2");
}

TEST_F(ExecutionModifyTable, UpdateWithSubqueries) {
  ASSERT_EQ(Rows(db_, "CREATE TABLE u (k int, v bigint); INSERT INTO u VALUES (2, 200), (4, 400)"),
            "INSERT 0 2");
  // A correlated scalar subquery in SET, an IN subquery in WHERE.
  EXPECT_EQ(Rows(db_,
                 "UPDATE t SET c = (SELECT v FROM u WHERE u.k = t.a) "
                 "WHERE a IN (SELECT k FROM u)"),
            "UPDATE 2");
  EXPECT_EQ(Rows(db_, "SELECT a, c FROM t"), "1|10\n2|200\n3|NULL\n4|400");
  // An uncorrelated one, over the table being updated (read before it changes).
  EXPECT_EQ(Rows(db_, "UPDATE t SET c = (SELECT max(c) FROM t) WHERE c IS NULL"), "UPDATE 1");
  EXPECT_EQ(Rows(db_, "SELECT c FROM t WHERE a = 3"), "400");
  // EXISTS in DELETE.
  EXPECT_EQ(Rows(db_, "DELETE FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.a)"),
            "DELETE 2");
  EXPECT_EQ(Rows(db_, "SELECT a FROM t"), "2\n4");
}

TEST_F(ExecutionModifyTable, DeleteWithoutWhere) {
  EXPECT_EQ(Rows(db_, "DELETE FROM t"), "DELETE 4");
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM t"), "0");
  EXPECT_EQ(Rows(db_, "DELETE FROM t"), "DELETE 0");
  EXPECT_EQ(Rows(db_, "INSERT INTO t (a) VALUES (7)"), "INSERT 0 1");
  EXPECT_EQ(Rows(db_, "SELECT a, b, c FROM t"), "7|NULL|NULL");
}

TEST_F(ExecutionModifyTable, NotNullFailureLeavesTheTableUnchanged) {
  const std::string before = Rows(db_, "SELECT a, b, c FROM t");
  const std::string message =
      "ERROR: null value in column \"a\" of relation \"t\" violates not-null constraint";
  EXPECT_EQ(Rows(db_, "INSERT INTO t VALUES (5, 'p', 1), (NULL, 'q', 2)"), message);
  EXPECT_EQ(Rows(db_, "INSERT INTO t (b) VALUES ('q')"), message);
  EXPECT_EQ(Rows(db_, "INSERT INTO t SELECT CASE WHEN a = 4 THEN NULL ELSE a END, b, c FROM t"),
            message);
  EXPECT_EQ(Rows(db_, "UPDATE t SET a = NULL WHERE a = 4"), message);
  EXPECT_EQ(Rows(db_, "UPDATE t SET a = CASE WHEN a = 3 THEN NULL ELSE a + 100 END"), message);
  EXPECT_EQ(Rows(db_, "SELECT a, b, c FROM t"), before);
}

TEST_F(ExecutionModifyTable, AssignmentCasts) {
  // int -> bigint is an assignment cast; bigint values out of int's range fail.
  EXPECT_EQ(Rows(db_, "CREATE TABLE w (x bigint, y int); INSERT INTO w SELECT a, a FROM t"),
            "INSERT 0 4");
  EXPECT_EQ(Rows(db_, "SELECT sum(x) FROM w"), "10");
  EXPECT_EQ(Rows(db_, "INSERT INTO w (y) VALUES (5000000000)"), "ERROR: integer out of range");
  EXPECT_EQ(Rows(db_, "UPDATE w SET y = x * 10000000000"), "ERROR: integer out of range");
  // text -> int: not an assignment cast for INSERT ... SELECT; UPDATE converts
  // as CAST does, failing on text that is not a number.
  EXPECT_EQ(Rows(db_, "INSERT INTO w (y) SELECT b FROM t"),
            "ERROR: column \"y\" is of type integer but expression is of type text (you will "
            "need to rewrite or cast the expression)");
  EXPECT_EQ(Rows(db_, "UPDATE t SET a = b WHERE a = 1"),
            "ERROR: invalid input syntax for type integer: \"x\"");
  EXPECT_EQ(Rows(db_, "UPDATE t SET a = '12' WHERE a = 1"), "UPDATE 1");
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM w WHERE y IS NULL"), "0");
}

TEST_F(ExecutionModifyTable, CreateTableAsGoesThroughInsert) {
  EXPECT_EQ(Rows(db_, "CREATE TABLE s AS SELECT a, b FROM t WHERE c > 15"), "SELECT 2");
  EXPECT_EQ(Rows(db_, "SELECT a, b FROM s"), "2|y\n4|x");
  // A failing query creates nothing.
  EXPECT_EQ(Rows(db_, "CREATE TABLE f AS SELECT 1 / (a - 3) FROM t"), "ERROR: division by zero");
  EXPECT_EQ(Rows(db_, "SELECT * FROM f"), "ERROR: relation \"f\" does not exist");
}

TEST_F(ExecutionModifyTable, ExplainShowsTheSink) {
  auto insert = Plan(db_, "INSERT INTO t SELECT * FROM t");
  EXPECT_EQ(insert[0].rfind("INSERT t", 0), 0u) << Join(insert);
  EXPECT_TRUE(InSubtree(insert, "INSERT t", "SCAN t")) << Join(insert);
  auto update = Plan(db_, "UPDATE t SET c = 0 WHERE a = 1");
  EXPECT_EQ(update[0].rfind("UPDATE t", 0), 0u) << Join(update);
  EXPECT_TRUE(Contains(update, "CASE")) << Join(update);
  auto del = Plan(db_, "DELETE FROM t WHERE a = 1");
  EXPECT_EQ(del[0].rfind("DELETE t", 0), 0u) << Join(del);
  // EXPLAIN does not run the statement.
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM t"), "4");
  // EXPLAIN ANALYZE does, as in PostgreSQL.
  const std::string analyzed = Rows(db_, "EXPLAIN ANALYZE DELETE FROM t WHERE a = 1");
  EXPECT_NE(analyzed.find("DELETE t"), std::string::npos) << analyzed;
  EXPECT_EQ(Rows(db_, "SELECT count(*) FROM t"), "3");
}

}  // namespace
}  // namespace quiver
