// TABLE_FUNCTION: set-returning functions in FROM (generate_series ...)
// called once per input row (planner/logical_table_function.h). Streaming:
// each output chunk holds rows of the calls for one input row, at most
// kVectorSize of them (a long series comes back over several Execute
// calls, never materialized whole), with that input row's columns
// repeated in front. Several calls (ROWS FROM, the select list's) are
// pulled in step: each keeps the batch its cursor gave last, a chunk takes
// as many rows as every unfinished call has at hand, and a finished call
// gives NULLs, until all are finished; so they cost one pass, never a join.
#pragma once

#include <memory>

#include "execution/physical_operator.h"
#include "functions/table_function.h"
#include "planner/expression.h"

namespace quiver::exec {

class PhysicalTableFunction final : public PhysicalOperator {
 public:
  // `args`: over the child's columns (positions), arg_counts[i] of them
  // for functions[i]. Output: the child's columns, then each function's,
  // then the ordinality when asked for.
  PhysicalTableFunction(std::vector<TypeRef> types,
                        std::vector<std::shared_ptr<const BoundTableFunction>> functions,
                        std::vector<int> arg_counts, std::vector<plan::ExprPtr> args,
                        bool ordinality, bool outer)
      : PhysicalOperator("TABLE_FUNCTION", std::move(types)),
        functions_(std::move(functions)),
        arg_counts_(std::move(arg_counts)),
        args_(std::move(args)),
        ordinality_(ordinality),
        outer_(outer) {}

  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;
  std::string ParamsToString() const override;

 private:
  std::vector<std::shared_ptr<const BoundTableFunction>> functions_;
  std::vector<int> arg_counts_;
  std::vector<plan::ExprPtr> args_;
  bool ordinality_;
  bool outer_;
};

}  // namespace quiver::exec
