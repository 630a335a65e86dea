// Nested-loop join: cross products and joins without an equality to hash
// on. The right child is materialized; every probe chunk is paired with
// every build row in blocks of kVectorSize pairs, and the predicate (if
// any) picks the pairs that join.
//
// Types: inner (and cross), left, single, semi, anti and mark. For mark
// joins `must` holds predicates a pair has to satisfy to count (correlation)
// and `mark_condition` the comparison whose three-valued outcome decides the
// mark (TRUE if any pair compares TRUE, else NULL if any compares NULL).
#pragma once

#include "execution/physical_operator.h"
#include "planner/expression.h"
#include "planner/logical_plan.h"

namespace quiver::exec {

class PhysicalNestedLoopJoin final : public PhysicalOperator {
 public:
  PhysicalNestedLoopJoin(std::vector<TypeRef> types, plan::JoinType type, plan::ExprPtr must,
                         plan::ExprPtr mark_condition, std::vector<TypeRef> build_types)
      : PhysicalOperator(must || mark_condition ? "NESTED_LOOP_JOIN" : "CROSS_PRODUCT", std::move(types)),
        type_(type),
        must_(std::move(must)),
        mark_condition_(std::move(mark_condition)),
        build_types_(std::move(build_types)) {}

  bool IsSink() const override { return true; }
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx, GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;

  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;
  void BuildPipelines(Pipeline* current, PipelineBuilder* builder) override;
  std::string ParamsToString() const override;

 private:
  plan::JoinType type_;
  plan::ExprPtr must_;
  plan::ExprPtr mark_condition_;
  std::vector<TypeRef> build_types_;
};

}  // namespace quiver::exec
