#include "execution/operators/physical_join.h"

#include <algorithm>

#include "execution/operators/physical_result_collector.h"
#include "execution/pipeline.h"

namespace quiver::exec {

namespace {

struct JoinBuildLocal : LocalSinkState {
  std::vector<std::vector<ArrayRef>> parts;
  std::vector<int64_t> part_rows;
};

}  // namespace

Result<std::unique_ptr<LocalSinkState>> PhysicalJoin::GetLocalSinkState(ExecutionContext&,
                                                                        GlobalSinkState&,
                                                                        int) const {
  return std::unique_ptr<LocalSinkState>(new JoinBuildLocal());
}

Status PhysicalJoin::Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState&,
                          LocalSinkState& lstate) const {
  auto& l = static_cast<JoinBuildLocal&>(lstate);
  QUIVER_ASSIGN_OR_RAISE(auto cols, FlattenChunk(input, ctx.pool()));
  l.parts.push_back(std::move(cols));
  l.part_rows.push_back(input.num_rows);
  return Status::OK();
}

Status PhysicalJoin::Combine(ExecutionContext&, GlobalSinkState& gstate,
                             LocalSinkState& lstate) const {
  auto& g = static_cast<JoinBuildState&>(gstate);
  auto& l = static_cast<JoinBuildLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (auto& p : l.parts) g.parts.push_back(std::move(p));
  for (int64_t r : l.part_rows) g.part_rows.push_back(r);
  return Status::OK();
}

void PhysicalJoin::BuildPipelines(Pipeline* current, PipelineBuilder* builder) {
  current->operators.insert(current->operators.begin(), this);
  Pipeline* build = builder->NewPipeline(this, 0, current);
  children_[1]->BuildPipelines(build, builder);
  children_[0]->BuildPipelines(current, builder);
}

Status PhysicalJoin::CollectBuildRows(ExecutionContext& ctx, JoinBuildState& g) const {
  int64_t n = 0;
  for (int64_t r : g.part_rows) n += r;
  // Build rows are addressed by 32-bit indexes, the NULL row included.
  if (n >= (int64_t{1} << 32) - 2)
    return Status::Unsupported("join build side of more than 4G rows");
  g.num_rows = n;
  g.columns.resize(build_types_.size());
  for (size_t c = 0; c < build_types_.size(); ++c) {
    std::vector<ArrayRef> pieces;
    for (const auto& p : g.parts) pieces.push_back(p[c]);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef null_row, MakeArrayOfNull(build_types_[c], 1, ctx.pool()));
    pieces.push_back(null_row);
    QUIVER_ASSIGN_OR_RAISE(g.columns[c], Concatenate(pieces, ctx.pool()));
  }
  g.parts.clear();
  g.part_rows.clear();
  return Status::OK();
}

void PhysicalJoin::AllocateMarks(JoinBuildState& g) const {
  if (!marks_build_rows_) return;
  const int64_t n = g.num_rows;
  g.marked.reset(new std::atomic<uint8_t>[static_cast<size_t>(std::max<int64_t>(n, 1))]);
  for (int64_t i = 0; i < n; ++i)
    g.marked[static_cast<size_t>(i)].store(0, std::memory_order_relaxed);
}

}  // namespace quiver::exec
