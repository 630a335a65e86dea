// Nested-loop join: cross products and joins without an equality to hash
// on. The right child is materialized; every probe chunk is paired with
// every build row in blocks of kVectorSize pairs, and the predicate (if
// any) picks the pairs that join.
//
// Types: inner (and cross), left, single, semi, anti and mark. For mark
// joins `must` holds predicates a pair has to satisfy to count (correlation)
// and `mark_condition` the comparison whose three-valued outcome decides the
// mark (TRUE if any pair compares TRUE, else NULL if any compares NULL).
//
// A left join may mark the build rows it pairs (`mark_build`): with
// PhysicalJoinBuildRows above it adding the unmarked ones, a FULL join.
#pragma once

#include "execution/operators/physical_join.h"
#include "planner/expression.h"
#include "planner/logical_plan.h"

namespace quiver::exec {

class PhysicalNestedLoopJoin final : public PhysicalJoin {
 public:
  PhysicalNestedLoopJoin(std::vector<TypeRef> types, plan::JoinType type, plan::ExprPtr must,
                         plan::ExprPtr mark_condition, std::vector<TypeRef> build_types,
                         bool mark_build = false)
      : PhysicalJoin(must || mark_condition ? "NESTED_LOOP_JOIN" : "CROSS_PRODUCT",
                     std::move(types), std::move(build_types), mark_build),
        type_(type),
        must_(std::move(must)),
        mark_condition_(std::move(mark_condition)) {}

  // Build side (collected by PhysicalJoin).
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;

  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;
  std::string ParamsToString() const override;

 private:
  plan::JoinType type_;
  plan::ExprPtr must_;
  plan::ExprPtr mark_condition_;
};

}  // namespace quiver::exec
