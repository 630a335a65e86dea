// TABLE_FUNCTION: a set-returning function in FROM (generate_series ...)
// called once per input row (planner/logical_table_function.h). Streaming:
// each output chunk holds the rows of one call for one input row, at most
// kVectorSize of them (a long series comes back over several Execute
// calls, never materialized whole), with that input row's columns
// repeated in front.
#pragma once

#include <memory>

#include "execution/physical_operator.h"
#include "functions/table_function.h"
#include "planner/expression.h"

namespace quiver::exec {

class PhysicalTableFunction final : public PhysicalOperator {
 public:
  // `args`: over the child's columns (positions). Output: the child's
  // columns, then the function's, then the ordinality when asked for.
  PhysicalTableFunction(std::vector<TypeRef> types, std::shared_ptr<const BoundTableFunction> function,
                        std::vector<plan::ExprPtr> args, bool ordinality, bool outer)
      : PhysicalOperator("TABLE_FUNCTION", std::move(types)),
        function_(std::move(function)),
        args_(std::move(args)),
        ordinality_(ordinality),
        outer_(outer) {}

  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;
  std::string ParamsToString() const override;

 private:
  std::shared_ptr<const BoundTableFunction> function_;
  std::vector<plan::ExprPtr> args_;
  bool ordinality_;
  bool outer_;
};

}  // namespace quiver::exec
