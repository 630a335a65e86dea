#include "execution/operators/physical_join_build_rows.h"

#include <algorithm>
#include <atomic>

#include "execution/operators/physical_join.h"
#include "execution/pipeline.h"

namespace quiver::exec {

namespace {

struct BuildRowsSource : GlobalSourceState {
  std::atomic<int64_t> next{0};
};

}  // namespace

Result<std::unique_ptr<GlobalSourceState>> PhysicalJoinBuildRows::GetGlobalSourceState(
    ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new BuildRowsSource());
}

void PhysicalJoinBuildRows::BuildPipelines(Pipeline* current, PipelineBuilder* builder) {
  if (!padded_) {
    PhysicalOperator::BuildPipelines(current, builder);
    return;
  }
  // The unmatched build rows take the same way up as the join's pairs, in a
  // pipeline of their own that runs once the probe pipeline is done.
  Pipeline* rest = builder->Fork(current);
  rest->source = this;
  rest->dependencies.push_back(current);
  children_[0]->BuildPipelines(current, builder);
}

Result<SourceResult> PhysicalJoinBuildRows::GetData(ExecutionContext& ctx, DataChunk* out,
                                                    GlobalSourceState& gstate,
                                                    LocalSourceState&) const {
  auto& src = static_cast<BuildRowsSource&>(gstate);
  const auto& g = static_cast<const JoinBuildState&>(*children_[0]->sink_state);
  for (;;) {
    const int64_t slice = src.next.fetch_add(1);
    const int64_t start = slice * kVectorSize;
    if (start >= g.num_rows) return SourceResult::kFinished;
    const int64_t n = std::min(kVectorSize, g.num_rows - start);
    auto sel = std::make_shared<SelectionVector>(n);
    int64_t k = 0;
    const uint8_t want = anti_ || padded_ ? 0 : 1;
    for (int64_t i = 0; i < n; ++i) {
      sel->data()[k] = static_cast<uint32_t>(i);
      k += g.marked[static_cast<size_t>(start + i)].load(std::memory_order_relaxed) == want;
    }
    if (k == 0) continue;
    for (const auto& t : pad_types_) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef nulls, MakeArrayOfNull(t, n, ctx.pool()));
      out->columns.push_back(std::move(nulls));
    }
    for (const auto& c : g.columns) out->columns.push_back(c->Slice(start, n));
    out->num_rows = k;
    if (k < n) out->sel = std::move(sel);
    // After the probe pipeline's batches (padded: they share the sink).
    out->batch_index = padded_ ? (int64_t{1} << 55) | slice : slice;
    return SourceResult::kHaveMoreOutput;
  }
}

}  // namespace quiver::exec
