// The optimizer (src/optimizer/), rule by rule, through the plans EXPLAIN
// prints: each rule's effect is asserted on a query it applies to, the plan
// without the rule (DatabaseOptions::disabled_optimizer_rules) shows the
// shape the rule removes, and queries that differ only in what a rule
// normalises get the same plan. Answers with and without each rule are
// compared too (for every benchmark query in tests/python/test_differential.py).
#include "optimizer/optimizer.h"

#include <gtest/gtest.h>

#include "util/sql_util.h"

namespace quiver {
namespace {

using testing::Contains;
using testing::InSubtree;
using testing::Join;
using testing::Plan;
using testing::Rows;

const char* kSetup =
    "CREATE TABLE a AS SELECT x AS k, x % 7 AS g, 'v' || x AS s FROM generate_series(1, 10000) "
    "s(x);"
    "CREATE TABLE b AS SELECT x AS k, x % 3 AS h FROM generate_series(1, 100) s(x);";

class Optimizer : public ::testing::Test {
 protected:
  static std::unique_ptr<Database> Make(std::vector<std::string> disabled = {}) {
    DatabaseOptions o;
    o.disabled_optimizer_rules = std::move(disabled);
    auto db = std::make_unique<Database>(o);
    EXPECT_EQ(Rows(*db, kSetup), "SELECT 100");
    return db;
  }
  void SetUp() override { db_ = Make(); }
  std::vector<std::string> PlanWithout(const std::string& rule, const std::string& sql) {
    return Plan(*Make({rule}), sql);
  }
  // The answer must not depend on the rule.
  void ExpectSameAnswerWithout(const std::string& rule, const std::string& sql) {
    EXPECT_EQ(Rows(*Make({rule}), sql), Rows(*db_, sql)) << "without " << rule << ": " << sql;
  }
  std::unique_ptr<Database> db_;
};

TEST_F(Optimizer, EveryRuleHasAName) {
  const auto& names = optimizer::RuleNames();
  for (const char* rule :
       {"constant_folding", "filter_pushdown", "mark_to_semi", "semi_join_reduction",
        "semi_join_pushdown", "join_order", "top_n", "column_pruning"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), rule), names.end()) << rule;
  }
}

TEST_F(Optimizer, ConstantFolding) {
  const std::string sql = "SELECT s FROM a WHERE g = 1 + 2 AND k < 10 * 10";
  EXPECT_EQ(Plan(*db_, sql), Plan(*db_, "SELECT s FROM a WHERE g = 3 AND k < 100"));
  auto without = PlanWithout("constant_folding", sql);
  EXPECT_TRUE(Contains(without, "(1 + 2)")) << Join(without);
  EXPECT_FALSE(Contains(Plan(*db_, sql), "(1 + 2)"));
  // A constant false predicate empties the plan's input; a true one disappears.
  EXPECT_EQ(Rows(*db_, "SELECT count(*) FROM a WHERE 1 = 2"), "0");
  EXPECT_EQ(Plan(*db_, "SELECT s FROM a WHERE 1 = 1"), Plan(*db_, "SELECT s FROM a"));
  // Errors of constant expressions are raised (not folded away), as PostgreSQL does.
  EXPECT_EQ(Rows(*db_, "SELECT k FROM a WHERE k > 1 / 0"), "ERROR: division by zero");
  ExpectSameAnswerWithout("constant_folding", "SELECT count(*), sum(k) FROM a WHERE g = 1 + 2");
}

TEST_F(Optimizer, FilterPushdown) {
  const std::string sql = "SELECT a.s FROM a, b WHERE a.k = b.k AND a.g = 3 AND b.h = 1";
  auto plan = Plan(*db_, sql);
  // The comma join became a hash join on the equality, each side filtered below it.
  EXPECT_TRUE(Contains(plan, "HASH_JOIN INNER")) << Join(plan);
  EXPECT_FALSE(Contains(plan, "CROSS_PRODUCT")) << Join(plan);
  EXPECT_TRUE(InSubtree(plan, "HASH_JOIN", "(g = 3)")) << Join(plan);
  EXPECT_TRUE(InSubtree(plan, "HASH_JOIN", "(h = 1)")) << Join(plan);
  EXPECT_TRUE(Contains(plan, "SCAN a [k, g, s] {g = 3}")) << Join(plan);
  // The same plan as the explicit join, and as the filter written above a derived table.
  EXPECT_EQ(plan, Plan(*db_, "SELECT a.s FROM a JOIN b ON a.k = b.k WHERE a.g = 3 AND b.h = 1"));
  // Written above a derived table, the filters still end up below the join.
  auto derived = Plan(
      *db_,
      "SELECT s FROM (SELECT a.s, a.g, b.h FROM a JOIN b ON a.k = b.k) j WHERE g = 3 AND h = 1");
  EXPECT_TRUE(InSubtree(derived, "HASH_JOIN", "(g = 3)")) << Join(derived);
  EXPECT_TRUE(InSubtree(derived, "HASH_JOIN", "(h = 1)")) << Join(derived);
  auto without = PlanWithout("filter_pushdown", sql);
  EXPECT_TRUE(Contains(without, "CROSS_PRODUCT")) << Join(without);
  EXPECT_FALSE(Contains(without, "HASH_JOIN")) << Join(without);
  ExpectSameAnswerWithout("filter_pushdown",
                          "SELECT count(*), min(a.s) FROM a, b WHERE a.k = b.k AND a.g = 3");
  // An OR whose branches share the join condition is factored into a hash join.
  auto factored = Plan(
      *db_, "SELECT count(*) FROM a, b WHERE (a.k = b.k AND a.g = 1) OR (a.k = b.k AND b.h = 2)");
  EXPECT_TRUE(Contains(factored, "HASH_JOIN INNER")) << Join(factored);
  EXPECT_EQ(
      Rows(*db_,
           "SELECT count(*) FROM a, b WHERE (a.k = b.k AND a.g = 1) OR (a.k = b.k AND b.h = 2)"),
      Rows(*db_, "SELECT count(*) FROM a JOIN b ON a.k = b.k WHERE a.g = 1 OR b.h = 2"));
  // A filter on the preserved side of a LEFT JOIN goes below it; on the
  // nullable side it must stay above (it rejects the padded rows).
  auto left = Plan(*db_, "SELECT count(*) FROM b LEFT JOIN a ON a.k = b.k WHERE a.g IS NULL");
  EXPECT_TRUE(Contains(left, "(g IS NULL)")) << Join(left);
  EXPECT_FALSE(InSubtree(left, "HASH_JOIN", "(g IS NULL)")) << Join(left);
  EXPECT_EQ(Rows(*db_,
                 "SELECT count(*) FROM b LEFT JOIN (SELECT * FROM a WHERE k > 50) x ON x.k = b.k "
                 "WHERE x.g IS NULL"),
            "50");
}

TEST_F(Optimizer, MarkJoinsBecomeSemiAndAntiJoins) {
  const std::string exists = "SELECT s FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)";
  auto plan = Plan(*db_, exists);
  EXPECT_TRUE(Contains(plan, "SEMI")) << Join(plan);
  EXPECT_FALSE(Contains(plan, "MARK")) << Join(plan);
  auto in = Plan(*db_, "SELECT s FROM a WHERE k IN (SELECT k FROM b)");
  EXPECT_TRUE(Contains(in, "HASH_JOIN SEMI")) << Join(in);
  auto without = PlanWithout("mark_to_semi", exists);
  EXPECT_TRUE(Contains(without, "HASH_JOIN MARK")) << Join(without);
  // NOT EXISTS is an anti join; NOT IN a null-aware one (a NULL in the list
  // makes NOT IN unknown for every row).
  EXPECT_TRUE(Contains(
      Plan(*db_, "SELECT s FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)"), "ANTI"));
  auto not_in = Plan(*db_, "SELECT s FROM a WHERE k NOT IN (SELECT k FROM b)");
  EXPECT_TRUE(Contains(not_in, "ANTI (null-aware)")) << Join(not_in);
  EXPECT_EQ(Rows(*db_,
                 "SELECT count(*) FROM a WHERE k NOT IN (SELECT CASE WHEN k = 5 THEN NULL ELSE k "
                 "END FROM b)"),
            "0");
  for (const char* sql :
       {"SELECT count(*) FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.h = 1)",
        "SELECT count(*) FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
        "SELECT count(*) FROM a WHERE k NOT IN (SELECT k FROM b WHERE h = 2)"}) {
    ExpectSameAnswerWithout("mark_to_semi", sql);
  }
}

TEST_F(Optimizer, SemiJoinReduction) {
  // A grouped aggregate joined on its key reads only the keys the other side has.
  const std::string sql =
      "SELECT b.h, sum(t.n) FROM b JOIN (SELECT k, count(*) AS n FROM a GROUP BY k) t ON t.k = b.k "
      "GROUP BY b.h";
  auto plan = Plan(*db_, sql);
  EXPECT_TRUE(InSubtree(plan, "HASH_GROUP_BY [#0] count(*)", "SEMI")) << Join(plan);
  auto without = PlanWithout("semi_join_reduction", sql);
  EXPECT_FALSE(Contains(without, "SEMI")) << Join(without);
  ExpectSameAnswerWithout("semi_join_reduction", sql + " ORDER BY 1");
}

TEST_F(Optimizer, SemiJoinPushdown) {
  // A selective IN goes below the join, onto the side it filters.
  const std::string sql =
      "SELECT count(*) FROM a JOIN a a2 ON a.k = a2.k WHERE a.k IN (SELECT k FROM b WHERE h = 1)";
  auto plan = Plan(*db_, sql);
  EXPECT_TRUE(InSubtree(plan, "HASH_JOIN INNER", "SEMI")) << Join(plan);
  auto without = PlanWithout("semi_join_pushdown", sql);
  EXPECT_TRUE(InSubtree(without, "SEMI", "HASH_JOIN INNER")) << Join(without);
  ExpectSameAnswerWithout("semi_join_pushdown", sql);
}

TEST_F(Optimizer, JoinOrder) {
  // Written either way round, the big table is probed and the small one built.
  const std::string small_first = "SELECT count(*) FROM b JOIN a ON a.k = b.k";
  auto plan = Plan(*db_, small_first);
  EXPECT_EQ(plan, Plan(*db_, "SELECT count(*) FROM a JOIN b ON a.k = b.k"));
  auto without = PlanWithout("join_order", small_first);
  EXPECT_NE(plan, without) << Join(plan);
  EXPECT_EQ(Rows(*db_, small_first), "100");
  ExpectSameAnswerWithout("join_order", small_first);
  // Three relations in any written order: one plan, the largest probed,
  // the most selective join first.
  ASSERT_EQ(Rows(*db_, "CREATE TABLE c AS SELECT x AS k FROM generate_series(1, 1000) s(x)"),
            "SELECT 1000");
  const std::string three = "SELECT count(*) FROM a, b, c WHERE a.k = b.k AND c.k = a.k";
  auto plan3 = Plan(*db_, three);
  EXPECT_EQ(plan3, Plan(*db_, "SELECT count(*) FROM c, b, a WHERE a.k = b.k AND c.k = a.k"));
  EXPECT_EQ(plan3, Plan(*db_, "SELECT count(*) FROM b, c, a WHERE a.k = b.k AND c.k = a.k"));
  // a is joined with b (100 rows) first, then with c: c is the outer join's build side.
  std::vector<size_t> joins;
  size_t scan_b = 0, scan_c = 0;
  for (size_t i = 0; i < plan3.size(); ++i) {
    if (plan3[i].find("HASH_JOIN") != std::string::npos) joins.push_back(i);
    if (plan3[i].find("SCAN b") != std::string::npos) scan_b = i;
    if (plan3[i].find("SCAN c") != std::string::npos) scan_c = i;
  }
  ASSERT_EQ(joins.size(), 2u) << Join(plan3);
  EXPECT_GT(scan_b, joins[1]) << Join(plan3);
  EXPECT_GT(scan_c, scan_b) << Join(plan3);
  EXPECT_EQ(testing::Indent(plan3[scan_c]), testing::Indent(plan3[joins[1]])) << Join(plan3);
  EXPECT_EQ(Rows(*db_, three), "100");
}

TEST_F(Optimizer, TopN) {
  const std::string sql = "SELECT k FROM a ORDER BY k DESC LIMIT 3";
  auto plan = Plan(*db_, sql);
  EXPECT_TRUE(Contains(plan, "TOP_N")) << Join(plan);
  EXPECT_FALSE(Contains(plan, "ORDER_BY")) << Join(plan);
  auto without = PlanWithout("top_n", sql);
  EXPECT_TRUE(InSubtree(without, "LIMIT 3", "ORDER_BY")) << Join(without);
  EXPECT_EQ(Rows(*db_, sql), "10000\n9999\n9998");
  EXPECT_EQ(Rows(*db_, "SELECT k FROM a ORDER BY g, k LIMIT 2 OFFSET 3"), "28\n35");
  ExpectSameAnswerWithout("top_n", "SELECT k FROM a ORDER BY g, k LIMIT 2 OFFSET 3");
}

TEST_F(Optimizer, ColumnPruning) {
  const std::string sql = "SELECT count(*) FROM a JOIN b ON a.k = b.k WHERE b.h = 1";
  auto plan = Plan(*db_, sql);
  EXPECT_TRUE(Contains(plan, "SCAN a [k]")) << Join(plan);
  auto without = PlanWithout("column_pruning", sql);
  EXPECT_TRUE(Contains(without, "SCAN a [k, g, s]")) << Join(without);
  ExpectSameAnswerWithout("column_pruning", sql);
}

TEST_F(Optimizer, DisablingAllRulesKeepsAnswers) {
  for (const char* sql :
       {"SELECT g, count(*), sum(k) FROM a WHERE s LIKE 'v1%' GROUP BY g ORDER BY g",
        "SELECT b.h, count(*) FROM a JOIN b ON a.k = b.k GROUP BY b.h ORDER BY 1",
        "SELECT count(*) FROM a WHERE k IN (SELECT k * 2 FROM b) AND g <> 1 + 1"}) {
    DatabaseOptions o;
    o.optimize = false;
    Database unoptimized(o);
    ASSERT_EQ(Rows(unoptimized, kSetup), "SELECT 100");
    EXPECT_EQ(Rows(unoptimized, sql), Rows(*db_, sql)) << sql;
  }
}

}  // namespace
}  // namespace quiver
