// JoinCondition::ToExpression: the one way a join condition becomes a
// boolean expression (filter pushdown, join ordering, subquery planning and
// the physical planner all use it), and it reports failures instead of
// handing back nothing.
#include <gtest/gtest.h>

#include "planner/logical_plan.h"

namespace quiver::plan {
namespace {

JoinCondition Condition(TypeRef left, TypeRef right, std::string op) {
  return {MakeColumnRef({0, 0}, std::move(left), "l"), MakeColumnRef({1, 0}, std::move(right), "r"),
          std::move(op)};
}

TEST(PlannerJoinCondition, ToExpressionResolvesTheOperator) {
  const JoinCondition c = Condition(int32(), int64(), "=");
  auto e = c.ToExpression();
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->type, ExprType::kFunction);
  EXPECT_EQ((*e)->return_type->id, TypeId::kBool);
  EXPECT_EQ((*e)->ToString(), "(CAST(l AS bigint) = r)");
  // The const form copies: the condition keeps its operands.
  ASSERT_NE(c.left, nullptr);
  ASSERT_NE(c.right, nullptr);
}

TEST(PlannerJoinCondition, ToExpressionConsumesWhenMoved) {
  JoinCondition c = Condition(utf8(), utf8(), "is not distinct from");
  auto e = std::move(c).ToExpression();
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->As<FunctionExpression>().name(), "is not distinct from");
}

TEST(PlannerJoinCondition, ToExpressionReportsAnOperatorThatDoesNotResolve) {
  // No `<` between a boolean and a date: an error, never a null expression.
  auto e = Condition(boolean(), date32(), "<").ToExpression();
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("operator does not exist"), std::string::npos)
      << e.status().ToString();
}

}  // namespace
}  // namespace quiver::plan
