#include "execution/operators/physical_filter.h"

#include "execution/expression/expression_executor.h"

namespace quiver::exec {
namespace {

struct FilterState : OperatorState {
  ExpressionExecutor executor;
  std::vector<uint32_t> positions;
  FilterState(MemoryPool* pool, const plan::Expression* e) : executor(pool, e) {}
};

}  // namespace

Result<std::unique_ptr<OperatorState>> PhysicalFilter::GetOperatorState(
    ExecutionContext& ctx) const {
  return std::unique_ptr<OperatorState>(new FilterState(ctx.pool(), predicate_.get()));
}

Result<OperatorResult> PhysicalFilter::Execute(ExecutionContext& ctx, DataChunk& input,
                                               DataChunk* out, OperatorState& state) const {
  auto& s = static_cast<FilterState&>(state);
  s.positions.resize(static_cast<size_t>(input.num_rows));
  QUIVER_ASSIGN_OR_RAISE(int64_t k, s.executor.Select(input, s.positions.data()));
  out->columns = input.columns;
  out->num_rows = k;
  if (k == input.num_rows) {
    out->sel = input.sel;
    return OperatorResult::kNeedMoreInput;
  }
  // New selection = old selection composed with the passing positions.
  auto sel = std::make_shared<SelectionVector>(k);
  uint32_t* dst = sel->data();
  const uint32_t* old = input.sel_data();
  if (old) {
    for (int64_t i = 0; i < k; ++i) dst[i] = old[s.positions[static_cast<size_t>(i)]];
  } else {
    for (int64_t i = 0; i < k; ++i) dst[i] = s.positions[static_cast<size_t>(i)];
  }
  out->sel = std::move(sel);
  return OperatorResult::kNeedMoreInput;
}

}  // namespace quiver::exec
