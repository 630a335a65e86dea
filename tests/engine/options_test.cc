// DatabaseOptions that change how statements are planned.
#include <gtest/gtest.h>

#include "engine/database.h"
#include "optimizer/optimizer.h"

namespace quiver {
namespace {

std::string Rows(Database& db, const std::string& sql) {
  auto r = db.ExecuteScript(sql);
  if (!r.ok()) return "ERROR: " + r.status().message();
  const QueryResult& last = r->back();
  std::string out;
  for (int64_t i = 0; i < last.num_rows(); ++i) {
    auto row = last.Row(i);
    for (size_t c = 0; c < row.size(); ++c) out += (c ? "|" : "") + row[c].ToString();
    out += "\n";
  }
  return out;
}

const char* kSetup =
    "CREATE TABLE a AS SELECT x AS k, x % 7 AS g FROM generate_series(1, 1000) s(x);"
    "CREATE TABLE b AS SELECT x AS k FROM generate_series(1, 1000, 3) s(x);";
const char* kQuery =
    "SELECT a.g, count(*) FROM a JOIN b ON a.k = b.k WHERE a.k IN (SELECT k FROM b WHERE k > 10) "
    "GROUP BY a.g ORDER BY a.g LIMIT 5";

TEST(EngineOptions, EachDisabledOptimizerRuleGivesTheSameAnswer) {
  Database reference;
  const std::string expected = Rows(reference, std::string(kSetup) + kQuery);
  ASSERT_EQ(expected.rfind("ERROR", 0), std::string::npos) << expected;
  ASSERT_FALSE(expected.empty());
  for (const auto& rule : optimizer::RuleNames()) {
    DatabaseOptions o;
    o.disabled_optimizer_rules = {rule};
    Database db(o);
    EXPECT_EQ(Rows(db, std::string(kSetup) + kQuery), expected) << "without " << rule;
  }
}

TEST(EngineOptions, UnknownOptimizerRuleIsAnError) {
  DatabaseOptions o;
  o.disabled_optimizer_rules = {"join_ordering"};
  Database db(o);
  auto r = db.Execute("SELECT 1");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown optimizer rule \"join_ordering\""),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace quiver
