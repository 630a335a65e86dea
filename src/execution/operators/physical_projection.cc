#include "execution/operators/physical_projection.h"

#include "execution/expression/expression_executor.h"
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

Result<std::unique_ptr<OperatorState>> PhysicalProjection::GetOperatorState(
    ExecutionContext& ctx) const {
  auto s = std::make_unique<ProjectionState>();
  for (const auto& e : exprs_)
    s->executors.push_back(std::make_unique<ExpressionExecutor>(ctx.pool(), e.get()));
  return std::unique_ptr<OperatorState>(std::move(s));
}

Result<OperatorResult> PhysicalProjection::Execute(ExecutionContext& ctx, DataChunk& input,
                                                   DataChunk* out, OperatorState& state) const {
  auto& s = static_cast<ProjectionState&>(state);
  out->num_rows = input.num_rows;
  bool all_refs = true;
  for (const auto& e : exprs_) all_refs &= e->type == plan::ExprType::kBoundRef;
  if (all_refs) {
    for (const auto& e : exprs_)
      out->columns.push_back(
          input.columns[static_cast<size_t>(e->As<plan::BoundRefExpression>().index)]);
    out->sel = input.sel;
    return OperatorResult::kNeedMoreInput;
  }
  // A chunk whose selection keeps most of its rows (a filter that passed
  // them) keeps it: passed-through columns stay as they are and computed
  // fixed-width columns are scattered to the selected slots, instead of
  // gathering every passed-through column (strings included).
  if (input.sel != nullptr && !input.columns.empty()) {
    const int64_t length = input.columns[0]->length;
    bool keep_sel = input.num_rows * 2 >= length;
    for (const auto& e : exprs_)
      keep_sel &= e->type == plan::ExprType::kBoundRef || kernels::CanScatter(*e->return_type);
    if (keep_sel) {
      for (size_t i = 0; i < exprs_.size(); ++i) {
        const auto& e = exprs_[i];
        if (e->type == plan::ExprType::kBoundRef) {
          out->columns.push_back(
              input.columns[static_cast<size_t>(e->As<plan::BoundRefExpression>().index)]);
          continue;
        }
        QUIVER_ASSIGN_OR_RAISE(ArrayRef dense, s.executors[i]->ExecuteToArray(input));
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Scatter(dense, input.sel_data(), input.num_rows,
                                                            length, ctx.pool()));
        out->columns.push_back(std::move(a));
      }
      out->sel = input.sel;
      return OperatorResult::kNeedMoreInput;
    }
  }
  for (size_t i = 0; i < exprs_.size(); ++i) {
    const auto& e = exprs_[i];
    if (e->type == plan::ExprType::kBoundRef) {
      QUIVER_ASSIGN_OR_RAISE(
          ArrayRef a,
          kernels::Gather(
              input.columns[static_cast<size_t>(e->As<plan::BoundRefExpression>().index)],
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
