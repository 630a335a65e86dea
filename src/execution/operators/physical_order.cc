#include "execution/operators/physical_order.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "execution/operators/physical_result_collector.h"
#include "execution/row_buffer.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

namespace {

struct OrderLocal : LocalSinkState {
  RowBuffer buffer;
};

struct OrderGlobal : GlobalSinkState {
  std::mutex mu;
  RowBuffer buffer;
  std::vector<ArrayRef> columns;
  std::vector<uint32_t> perm;  // sorted order; emitted from `begin` to `end`
  int64_t begin = 0, end = 0;
};

struct OrderSource : GlobalSourceState {
  std::atomic<int64_t> offset{0};
};

// Keeps the best `keep` rows of `buffer` (top-N pruning).
Status Prune(RowBuffer* buffer, const std::vector<TypeRef>& types, const std::vector<SortKey>& keys, int64_t keep,
             MemoryPool* pool) {
  QUIVER_ASSIGN_OR_RAISE(auto cols, buffer->Columns(types, pool));
  const int64_t n = buffer->rows;
  std::vector<uint32_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  RowComparator cmp(cols, keys);
  auto less = [&](uint32_t a, uint32_t b) {
    const int c = cmp.Compare(a, b);
    return c < 0 || (c == 0 && a < b);
  };
  const int64_t k = std::min(keep, n);
  std::partial_sort(perm.begin(), perm.begin() + k, perm.end(), less);
  perm.resize(static_cast<size_t>(k));
  std::sort(perm.begin(), perm.end());  // keep input order among survivors
  std::vector<ArrayRef> kept;
  for (const auto& c : cols) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, perm.data(), k, pool));
    kept.push_back(a);
  }
  const int64_t first_index = buffer->batch_index.empty() ? 0 : *std::min_element(buffer->batch_index.begin(), buffer->batch_index.end());
  buffer->chunks.clear();
  buffer->batch_index.clear();
  buffer->chunks.push_back(std::move(kept));
  buffer->batch_index.push_back(first_index);
  buffer->rows = k;
  return Status::OK();
}

}  // namespace

std::string PhysicalOrder::ParamsToString() const {
  std::string s;
  for (size_t i = 0; i < keys_.size(); ++i) {
    s += fmt::format("{}#{}{}{}", i ? ", " : "", keys_[i].column, keys_[i].descending ? " DESC" : "",
                     keys_[i].nulls_first ? " NULLS FIRST" : "");
  }
  if (limit_ >= 0) s += fmt::format(" LIMIT {} OFFSET {}", limit_, offset_);
  return s;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalOrder::GetGlobalSinkState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new OrderGlobal());
}
Result<std::unique_ptr<LocalSinkState>> PhysicalOrder::GetLocalSinkState(ExecutionContext&, GlobalSinkState&,
                                                                         int) const {
  return std::unique_ptr<LocalSinkState>(new OrderLocal());
}

Status PhysicalOrder::Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState&, LocalSinkState& lstate) const {
  auto& l = static_cast<OrderLocal&>(lstate);
  QUIVER_RETURN_NOT_OK(l.buffer.Add(input, ctx.pool()));
  if (limit_ >= 0) {
    const int64_t keep = limit_ + offset_;
    if (l.buffer.rows > std::max<int64_t>(2 * keep, kVectorSize * 4)) {
      QUIVER_RETURN_NOT_OK(Prune(&l.buffer, types_, keys_, keep, ctx.pool()));
    }
  }
  return Status::OK();
}

Status PhysicalOrder::Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const {
  auto& g = static_cast<OrderGlobal&>(gstate);
  auto& l = static_cast<OrderLocal&>(lstate);
  if (limit_ >= 0 && l.buffer.rows > limit_ + offset_) {
    QUIVER_RETURN_NOT_OK(Prune(&l.buffer, types_, keys_, limit_ + offset_, ctx.pool()));
  }
  std::lock_guard<std::mutex> lock(g.mu);
  for (size_t i = 0; i < l.buffer.chunks.size(); ++i) {
    g.buffer.chunks.push_back(std::move(l.buffer.chunks[i]));
    g.buffer.batch_index.push_back(l.buffer.batch_index[i]);
  }
  g.buffer.rows += l.buffer.rows;
  return Status::OK();
}

Status PhysicalOrder::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<OrderGlobal&>(gstate);
  QUIVER_ASSIGN_OR_RAISE(g.columns, g.buffer.Columns(types_, ctx.pool()));
  const int64_t n = g.buffer.rows;
  g.buffer = RowBuffer();
  if (limit_ >= 0) {
    std::vector<uint32_t> perm(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
    RowComparator cmp(g.columns, keys_);
    auto less = [&](uint32_t a, uint32_t b) {
      const int c = cmp.Compare(a, b);
      return c < 0 || (c == 0 && a < b);
    };
    const int64_t k = std::min(limit_ + offset_, n);
    std::partial_sort(perm.begin(), perm.begin() + k, perm.end(), less);
    perm.resize(static_cast<size_t>(k));
    g.perm = std::move(perm);
    g.begin = std::min(offset_, k);
    g.end = k;
  } else {
    QUIVER_ASSIGN_OR_RAISE(g.perm, SortPermutation(g.columns, keys_, n, &ctx));
    g.begin = 0;
    g.end = n;
  }
  return Status::OK();
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalOrder::GetGlobalSourceState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new OrderSource());
}

Result<SourceResult> PhysicalOrder::GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                                            LocalSourceState&) const {
  auto& g = static_cast<OrderGlobal&>(*sink_state);
  auto& s = static_cast<OrderSource&>(gstate);
  const int64_t start = g.begin + s.offset.fetch_add(kVectorSize);
  if (start >= g.end) return SourceResult::kFinished;
  const int64_t n = std::min(kVectorSize, g.end - start);
  for (const auto& c : g.columns) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, g.perm.data() + start, n, ctx.pool()));
    out->columns.push_back(std::move(a));
  }
  out->num_rows = n;
  out->batch_index = start;
  return SourceResult::kHaveMoreOutput;
}

// --- LIMIT -------------------------------------------------------------------------------

namespace {

struct LimitGlobal : GlobalSinkState {
  std::mutex mu;
  RowBuffer buffer;
  std::atomic<int64_t> rows{0};
  std::vector<ArrayRef> columns;
  int64_t begin = 0, end = 0;
};

struct LimitLocal : LocalSinkState {
  RowBuffer buffer;
};

}  // namespace

std::string PhysicalLimit::ParamsToString() const { return fmt::format("{} OFFSET {}", limit_, offset_); }

Result<std::unique_ptr<GlobalSinkState>> PhysicalLimit::GetGlobalSinkState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new LimitGlobal());
}
Result<std::unique_ptr<LocalSinkState>> PhysicalLimit::GetLocalSinkState(ExecutionContext&, GlobalSinkState&,
                                                                         int) const {
  return std::unique_ptr<LocalSinkState>(new LimitLocal());
}

bool PhysicalLimit::SinkDone(GlobalSinkState& gstate) const {
  if (limit_ < 0) return false;
  return static_cast<LimitGlobal&>(gstate).rows.load() >= limit_ + offset_;
}

Status PhysicalLimit::Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
                           LocalSinkState& lstate) const {
  auto& g = static_cast<LimitGlobal&>(gstate);
  auto& l = static_cast<LimitLocal&>(lstate);
  QUIVER_RETURN_NOT_OK(l.buffer.Add(input, ctx.pool()));
  g.rows += input.num_rows;
  return Status::OK();
}

Status PhysicalLimit::Combine(ExecutionContext&, GlobalSinkState& gstate, LocalSinkState& lstate) const {
  auto& g = static_cast<LimitGlobal&>(gstate);
  auto& l = static_cast<LimitLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (size_t i = 0; i < l.buffer.chunks.size(); ++i) {
    g.buffer.chunks.push_back(std::move(l.buffer.chunks[i]));
    g.buffer.batch_index.push_back(l.buffer.batch_index[i]);
  }
  g.buffer.rows += l.buffer.rows;
  return Status::OK();
}

Status PhysicalLimit::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<LimitGlobal&>(gstate);
  const int64_t n = g.buffer.rows;
  QUIVER_ASSIGN_OR_RAISE(g.columns, g.buffer.Columns(types_, ctx.pool()));
  g.buffer = RowBuffer();
  g.begin = std::min(offset_, n);
  g.end = limit_ < 0 ? n : std::min(n, offset_ + limit_);
  return Status::OK();
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalLimit::GetGlobalSourceState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new OrderSource());
}

Result<SourceResult> PhysicalLimit::GetData(ExecutionContext&, DataChunk* out, GlobalSourceState& gstate,
                                            LocalSourceState&) const {
  auto& g = static_cast<LimitGlobal&>(*sink_state);
  auto& s = static_cast<OrderSource&>(gstate);
  const int64_t start = g.begin + s.offset.fetch_add(kVectorSize);
  if (start >= g.end) return SourceResult::kFinished;
  const int64_t n = std::min(kVectorSize, g.end - start);
  for (const auto& c : g.columns) out->columns.push_back(c->Slice(start, n));
  out->num_rows = n;
  out->batch_index = start;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
