#include "execution/operators/physical_result_collector.h"

#include <algorithm>
#include <mutex>

#include "functions/kernel_util.h"

namespace quiver::exec {
namespace {

struct Part {
  int64_t batch_index;
  int64_t seq;  // arrival order within a thread, to keep equal indices stable
  RecordBatchRef batch;
};

struct CollectorGlobal : GlobalSinkState {
  std::mutex mu;
  std::vector<Part> parts;
  std::vector<RecordBatchRef> result;
};

struct CollectorLocal : LocalSinkState {
  std::vector<Part> parts;
};

}  // namespace

Result<std::vector<ArrayRef>> FlattenChunk(const DataChunk& chunk, MemoryPool* pool) {
  std::vector<ArrayRef> cols;
  cols.reserve(chunk.columns.size());
  for (const auto& c : chunk.columns) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, chunk.sel_data(), chunk.num_rows, pool));
    cols.push_back(std::move(a));
  }
  return cols;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalResultCollector::GetGlobalSinkState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new CollectorGlobal());
}

Result<std::unique_ptr<LocalSinkState>> PhysicalResultCollector::GetLocalSinkState(ExecutionContext&,
                                                                                    GlobalSinkState&, int) const {
  return std::unique_ptr<LocalSinkState>(new CollectorLocal());
}

Status PhysicalResultCollector::Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState&,
                                     LocalSinkState& lstate) const {
  auto& l = static_cast<CollectorLocal&>(lstate);
  QUIVER_ASSIGN_OR_RAISE(auto cols, FlattenChunk(input, DefaultMemoryPool()));
  l.parts.push_back({input.batch_index, static_cast<int64_t>(l.parts.size()),
                     RecordBatch::Make(schema_, input.num_rows, std::move(cols))});
  return Status::OK();
}

Status PhysicalResultCollector::Combine(ExecutionContext&, GlobalSinkState& gstate, LocalSinkState& lstate) const {
  auto& g = static_cast<CollectorGlobal&>(gstate);
  auto& l = static_cast<CollectorLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (auto& p : l.parts) g.parts.push_back(std::move(p));
  return Status::OK();
}

Status PhysicalResultCollector::Finalize(ExecutionContext&, GlobalSinkState& gstate) const {
  auto& g = static_cast<CollectorGlobal&>(gstate);
  std::stable_sort(g.parts.begin(), g.parts.end(), [](const Part& a, const Part& b) {
    return a.batch_index < b.batch_index || (a.batch_index == b.batch_index && a.seq < b.seq);
  });
  for (auto& p : g.parts) g.result.push_back(std::move(p.batch));
  g.parts.clear();
  return Status::OK();
}

std::vector<RecordBatchRef> PhysicalResultCollector::TakeBatches() const {
  if (sink_state == nullptr) return {};
  auto& g = static_cast<CollectorGlobal&>(*sink_state);
  return std::move(g.result);
}

}  // namespace quiver::exec
