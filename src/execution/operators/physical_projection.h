// Projection: computes the output columns. Plain column references pass the
// input column through; when the input is a selection of a chunk and every
// output is a plain reference, the selection passes through too (no copy).
#pragma once

#include "execution/physical_operator.h"
#include "planner/expression.h"

namespace quiver::exec {

class PhysicalProjection final : public PhysicalOperator {
 public:
  PhysicalProjection(std::vector<TypeRef> types, std::vector<plan::ExprPtr> exprs)
      : PhysicalOperator("PROJECTION", std::move(types)), exprs_(std::move(exprs)) {}
  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;
  std::string ParamsToString() const override;
  const std::vector<plan::ExprPtr>& expressions() const { return exprs_; }

 private:
  std::vector<plan::ExprPtr> exprs_;
};

}  // namespace quiver::exec
