#include "execution/operators/physical_projection.h"

#include "execution/expression_executor.h"
#include "functions/kernel_util.h"

namespace quiver::exec {
namespace {

struct ProjectionState : OperatorState {
  std::vector<std::unique_ptr<ExpressionExecutor>> executors;
};

}  // namespace

std::string PhysicalProjection::ParamsToString() const {
  std::string s;
  for (size_t i = 0; i < exprs_.size(); ++i) s += (i ? ", " : "") + exprs_[i]->ToString();
  return s;
}

Result<std::unique_ptr<OperatorState>> PhysicalProjection::GetOperatorState(ExecutionContext& ctx) const {
  auto s = std::make_unique<ProjectionState>();
  for (const auto& e : exprs_) s->executors.push_back(std::make_unique<ExpressionExecutor>(&ctx, e.get()));
  return std::unique_ptr<OperatorState>(std::move(s));
}

Result<OperatorResult> PhysicalProjection::Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                                   OperatorState& state) const {
  auto& s = static_cast<ProjectionState&>(state);
  out->num_rows = input.num_rows;
  bool all_refs = true;
  for (const auto& e : exprs_) all_refs &= e->type == plan::ExprType::kBoundRef;
  if (all_refs) {
    for (const auto& e : exprs_) out->columns.push_back(input.columns[static_cast<size_t>(e->index)]);
    out->sel = input.sel;
    return OperatorResult::kNeedMoreInput;
  }
  for (size_t i = 0; i < exprs_.size(); ++i) {
    const auto& e = exprs_[i];
    if (e->type == plan::ExprType::kBoundRef) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(input.columns[static_cast<size_t>(e->index)],
                                                         input.sel_data(), input.num_rows, ctx.pool()));
      out->columns.push_back(std::move(a));
      continue;
    }
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, s.executors[i]->ExecuteToArray(input));
    out->columns.push_back(std::move(a));
  }
  return OperatorResult::kNeedMoreInput;
}

}  // namespace quiver::exec
