// Set operations.
//
// UNION ALL (PhysicalUnion) copies nothing: the pipelines above it are
// forked, one per input, and a tag keeps the left input's rows before the
// right's in the result order. UNION (distinct) is DISTINCT over UNION ALL.
//
// INTERSECT [ALL] / EXCEPT [ALL] (PhysicalSetOperation) count each distinct
// row per input in a group table (NULLs equal), then emit
//   INTERSECT      1 row          if left > 0 and right > 0
//   INTERSECT ALL  min(l, r) rows
//   EXCEPT         1 row          if left > 0 and right = 0
//   EXCEPT ALL     max(l - r, 0) rows
#pragma once

#include "execution/physical_operator.h"
#include "planner/logical_plan.h"

namespace quiver::exec {

class PhysicalUnion final : public PhysicalOperator {
 public:
  explicit PhysicalUnion(std::vector<TypeRef> types);
  void BuildPipelines(Pipeline* current, PipelineBuilder* builder) override;

 private:
  std::unique_ptr<PhysicalOperator> tags_[2];
};

class PhysicalSetOperation final : public PhysicalOperator {
 public:
  PhysicalSetOperation(std::vector<TypeRef> types, plan::SetOpType op, bool all)
      : PhysicalOperator(op == plan::SetOpType::kIntersect ? "INTERSECT" : "EXCEPT", std::move(types)),
        op_(op),
        all_(all) {}
  bool IsSink() const override { return true; }
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx, GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;
  bool IsSource() const override { return true; }
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;
  std::string ParamsToString() const override { return all_ ? "ALL" : ""; }

 private:
  plan::SetOpType op_;
  bool all_;
};

}  // namespace quiver::exec
