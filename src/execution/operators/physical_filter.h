// Filter: narrows each chunk's selection vector to the rows where the
// predicate is TRUE; column data is never copied.
#pragma once

#include "execution/physical_operator.h"
#include "planner/expression.h"

namespace quiver::exec {

class PhysicalFilter final : public PhysicalOperator {
 public:
  PhysicalFilter(std::vector<TypeRef> types, plan::ExprPtr predicate)
      : PhysicalOperator("FILTER", std::move(types)), predicate_(std::move(predicate)) {}
  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;
  std::string ParamsToString() const override { return predicate_->ToString(); }
  const plan::Expression& predicate() const { return *predicate_; }

 private:
  plan::ExprPtr predicate_;
};

}  // namespace quiver::exec
