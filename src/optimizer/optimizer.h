// The optimizer: a driver running small rewrite rules over the logical plan
// (DataFusion's shape: one rule per file, each with a name and a rewrite).
//
// Rules, in order:
//   constant_folding     fold constant subexpressions; simplify AND/OR/NOT with
//                        constants ([2 + 2] => [4], [x AND true] => [x])
//   filter_pushdown      move filters toward the scans, through projections,
//                        joins and aggregates; cross products with predicates
//                        become inner joins; scans get the `col op constant`
//                        conjuncts as predicates for statistics pruning
//   mark_to_semi         a filter on a mark join's mark becomes a semi (or
//                        anti) join
//   semi_join_reduction  an aggregate grouped by k and joined on k = x gets a
//                        semi join of its input with the smallest scan that
//                        holds x's values (decorrelated scalar subqueries)
//   semi_join_pushdown   semi and anti joins move down into the join input
//                        holding their probe columns (a filter on that input)
//   join_order           reorders inner joins from cardinality estimates:
//                        the largest relation is probed, the smallest filtered
//                        relations are built (star and snowflake schemas)
//   top_n                ORDER BY + LIMIT -> top-N
//   column_pruning       scans read, and operators carry, only referenced columns
//
// A rule can be disabled by name (OptimizerOptions::disabled).
#pragma once

#include <string>
#include <vector>

#include "planner/binder.h"
#include "planner/logical_plan.h"

namespace quiver::optimizer {

// The rules rewrite the planner's logical plans; they speak its vocabulary.
using plan::ColumnBinding;
using plan::Expression;
using plan::ExprPtr;
using plan::ExprType;
using plan::JoinType;
using plan::LogicalAggregate;
using plan::LogicalCrossProduct;
using plan::LogicalFilter;
using plan::LogicalGet;
using plan::LogicalJoin;
using plan::LogicalOperator;
using plan::LogicalOpPtr;
using plan::LogicalOpType;
using plan::LogicalProjection;

struct OptimizerOptions {
  std::vector<std::string> disabled;  // rule names (RuleNames()); an unknown name is an error
};

// The rules' names, in the order they run.
const std::vector<std::string>& RuleNames();

Result<plan::LogicalOpPtr> Optimize(plan::LogicalOpPtr plan, plan::BindState* state,
                                    const OptimizerOptions& options = {});

// The rules (one file each).
Result<plan::LogicalOpPtr> FoldConstants(plan::LogicalOpPtr plan);
Result<plan::LogicalOpPtr> PushDownFilters(plan::LogicalOpPtr plan, plan::BindState* state);
Result<plan::LogicalOpPtr> MarkJoinsToSemiJoins(plan::LogicalOpPtr plan);
Result<plan::LogicalOpPtr> ReduceAggregatesBySemiJoin(plan::LogicalOpPtr plan,
                                                      plan::BindState* state);
Result<plan::LogicalOpPtr> PushDownSemiJoins(plan::LogicalOpPtr plan);
Result<plan::LogicalOpPtr> OrderJoins(plan::LogicalOpPtr plan, plan::BindState* state);
Result<plan::LogicalOpPtr> IntroduceTopN(plan::LogicalOpPtr plan);
Result<plan::LogicalOpPtr> PruneColumns(plan::LogicalOpPtr plan);
// Fills estimated_rows bottom-up (row counts of scans, selectivity guesses).
void EstimateCardinalities(plan::LogicalOperator* op);

// Helpers shared by rules.
void CollectOutputBindings(const plan::LogicalOperator& op, std::vector<plan::ColumnBinding>* out);
bool ReferencesOnly(const plan::Expression& e, const std::vector<plan::ColumnBinding>& bindings);
plan::ExprPtr MakeConjunction(std::vector<plan::ExprPtr> conjuncts);
// Adds a predicate over both inputs of an inner join (`left` and `right`
// its inputs' bindings): an equality (= or IS NOT DISTINCT FROM) of a
// left-only and a right-only expression becomes a join condition (a hash
// key), anything else a residual predicate.
void AddJoinPredicate(plan::LogicalJoin* join, plan::ExprPtr p,
                      const std::vector<plan::ColumnBinding>& left,
                      const std::vector<plan::ColumnBinding>& right);

}  // namespace quiver::optimizer
