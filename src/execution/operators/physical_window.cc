#include "execution/operators/physical_window.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "execution/row_buffer.h"
#include "functions/kernel_util.h"
#include "sql/ast.h"

namespace quiver::exec {

using plan::WindowFunction;

namespace {

struct WindowLocal : LocalSinkState {
  RowBuffer buffer;
};

struct WindowGlobal : GlobalSinkState {
  std::mutex mu;
  RowBuffer buffer;
  std::vector<ArrayRef> columns;  // the input, in input order
  std::vector<uint32_t> order;    // output row j is input row order[j]
  std::vector<ArrayRef> results;  // one per window function, in output order
  int64_t rows = 0;
};

struct WindowSource : GlobalSourceState {
  std::atomic<int64_t> offset{0};
};

// One sort of the input: rows ordered by partition keys then order keys.
// Positions below are positions in this sorted order.
struct SortedRows {
  std::vector<uint32_t> perm;         // sorted position -> input row
  std::vector<int64_t> part_end;      // sorted position -> end of its partition
  std::vector<int64_t> peer_end;      // sorted position -> end of its peer group
  std::vector<int64_t> part_starts;   // the partitions' first positions, ascending
};

Result<SortedRows> SortRows(const std::vector<ArrayRef>& columns, const WindowFunctionSpec& f, int64_t n,
                            ExecutionContext& ctx) {
  std::vector<SortKey> part_keys, all_keys;
  for (int c : f.partitions) part_keys.push_back({c, false, false});
  all_keys = part_keys;
  for (const auto& k : f.orders) all_keys.push_back(k);
  SortedRows s;
  if (all_keys.empty()) {
    s.perm.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) s.perm[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  } else {
    QUIVER_ASSIGN_OR_RAISE(s.perm, SortPermutation(columns, all_keys, n, &ctx));
  }
  s.part_end.resize(static_cast<size_t>(n));
  s.peer_end.resize(static_cast<size_t>(n));
  RowComparator part_cmp(columns, part_keys);
  RowComparator order_cmp(columns, f.orders);
  // Walk backwards so each position learns where its partition and peer group end.
  int64_t part_end = n, peer_end = n;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (i + 1 < n) {
      const uint32_t a = s.perm[static_cast<size_t>(i)], b = s.perm[static_cast<size_t>(i + 1)];
      if (!part_keys.empty() && part_cmp.Compare(a, b) != 0) {
        part_end = i + 1;
        peer_end = i + 1;
      } else if (!f.orders.empty() && order_cmp.Compare(a, b) != 0) {
        peer_end = i + 1;
      }
    }
    s.part_end[static_cast<size_t>(i)] = part_end;
    // Without ORDER BY every row of a partition is a peer of every other.
    s.peer_end[static_cast<size_t>(i)] = f.orders.empty() ? part_end : peer_end;
  }
  for (int64_t i = 0; i < n; i = s.part_end[static_cast<size_t>(i)]) s.part_starts.push_back(i);
  return s;
}

// An int64 / int32 / double column of n values with an optional validity.
template <typename T>
struct NumericColumn {
  std::vector<T> values;
  std::vector<uint8_t> valid;  // empty: all valid
  explicit NumericColumn(int64_t n) : values(static_cast<size_t>(n)) {}
  void SetNull(int64_t i) {
    if (valid.empty()) valid.assign(values.size(), 1);
    valid[static_cast<size_t>(i)] = 0;
  }
  // The column in output order: output row j holds values[map[j]].
  Result<ArrayRef> Finish(const TypeRef& type, const std::vector<uint32_t>& map, MemoryPool* pool) const {
    const int64_t n = static_cast<int64_t>(map.size());
    kernels::FixedOutput out;
    QUIVER_ASSIGN_OR_RAISE(out.values, kernels::AllocateValues(n, sizeof(T), pool));
    T* dst = out.data<T>();
    for (int64_t j = 0; j < n; ++j) dst[j] = values[map[static_cast<size_t>(j)]];
    if (!valid.empty()) {
      QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, pool));
      uint8_t* b = bits->mutable_data();
      for (int64_t j = 0; j < n; ++j) {
        if (valid[map[static_cast<size_t>(j)]]) {
          bit_util::SetBit(b, j);
        } else {
          out.null_count++;
        }
      }
      out.validity = std::move(bits);
    }
    return kernels::FinishFixed(type, n, std::move(out));
  }
};

// Reads an int32 argument (ntile's buckets, lag's offset, nth_value's n).
struct IntArg {
  const ArrayData* array;
  bool IsNull(uint32_t row) const { return !array->IsValid(row); }
  int32_t Get(uint32_t row) const { return array->GetValues<int32_t>(1)[row]; }
};

// 16-byte aligned storage for aggregate states.
struct StateArena {
  std::vector<std::max_align_t> storage;
  int stride = 0;
  void Reset(int state_size, int64_t count) {
    stride = (state_size + 15) / 16 * 16;
    const size_t bytes = static_cast<size_t>(stride) * static_cast<size_t>(std::max<int64_t>(count, 1));
    storage.assign((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t), std::max_align_t{});
  }
  uint8_t* at(int64_t i) { return reinterpret_cast<uint8_t*>(storage.data()) + static_cast<size_t>(stride) * i; }
};

// Result column of one window function, computed over `s`, in output order
// (`map`: output row -> sorted position).
class FunctionEvaluator {
 public:
  FunctionEvaluator(const WindowFunctionSpec& f, const std::vector<ArrayRef>& columns, const SortedRows& s,
                    const std::vector<uint32_t>& map, int64_t n, ExecutionContext& ctx)
      : f_(f), columns_(columns), s_(s), map_(map), n_(n), ctx_(ctx) {}

  Result<ArrayRef> Run() {
    switch (f_.function) {
      case WindowFunction::kRowNumber:
      case WindowFunction::kRank:
      case WindowFunction::kDenseRank:
        return Ranks();
      case WindowFunction::kPercentRank:
      case WindowFunction::kCumeDist:
        return Distribution();
      case WindowFunction::kNtile:
        return Ntile();
      case WindowFunction::kLag:
      case WindowFunction::kLead:
      case WindowFunction::kFirstValue:
      case WindowFunction::kLastValue:
      case WindowFunction::kNthValue:
        return Navigation();
      case WindowFunction::kAggregate:
        return Aggregate();
    }
    return Status::UnknownError("internal error: unknown window function");
  }

 private:
  Status CheckCancel() const { return ctx_.cancelled() ? ctx_.CancelStatus() : Status::OK(); }

  Result<ArrayRef> Ranks() {
    NumericColumn<int64_t> out(n_);
    for (int64_t ps : s_.part_starts) {
      const int64_t pe = s_.part_end[static_cast<size_t>(ps)];
      int64_t dense = 0;
      for (int64_t peer = ps; peer < pe;) {
        const int64_t peer_end = s_.peer_end[static_cast<size_t>(peer)];
        ++dense;
        for (int64_t i = peer; i < peer_end; ++i) {
          out.values[static_cast<size_t>(i)] = f_.function == WindowFunction::kRowNumber ? i - ps + 1
                                               : f_.function == WindowFunction::kRank  ? peer - ps + 1
                                                                                       : dense;
        }
        peer = peer_end;
      }
    }
    return out.Finish(f_.type, map_, ctx_.pool());
  }

  Result<ArrayRef> Distribution() {
    NumericColumn<double> out(n_);
    for (int64_t ps : s_.part_starts) {
      const int64_t pe = s_.part_end[static_cast<size_t>(ps)];
      const double rows = static_cast<double>(pe - ps);
      for (int64_t peer = ps; peer < pe;) {
        const int64_t peer_end = s_.peer_end[static_cast<size_t>(peer)];
        const double v = f_.function == WindowFunction::kPercentRank
                             ? (pe - ps > 1 ? static_cast<double>(peer - ps) / (rows - 1) : 0.0)
                             : static_cast<double>(peer_end - ps) / rows;
        for (int64_t i = peer; i < peer_end; ++i) out.values[static_cast<size_t>(i)] = v;
        peer = peer_end;
      }
    }
    return out.Finish(f_.type, map_, ctx_.pool());
  }

  // PostgreSQL's ntile: the bucket count is read on the partition's first
  // row whose argument is not NULL (rows before it get NULL); the first
  // `total % buckets` buckets hold one row more.
  Result<ArrayRef> Ntile() {
    NumericColumn<int32_t> out(n_);
    const IntArg arg{columns_[static_cast<size_t>(f_.args[0])].get()};
    for (int64_t ps : s_.part_starts) {
      const int64_t pe = s_.part_end[static_cast<size_t>(ps)];
      const int64_t total = pe - ps;
      int64_t ntile = 0, rows_per_bucket = 0, boundary = 0, remainder = 0;
      for (int64_t i = ps; i < pe; ++i) {
        const uint32_t row = s_.perm[static_cast<size_t>(i)];
        if (ntile == 0) {
          if (arg.IsNull(row)) {
            out.SetNull(i);
            continue;
          }
          const int64_t buckets = arg.Get(row);
          if (buckets <= 0) return Status::Invalid("argument of ntile must be greater than zero");
          ntile = 1;
          boundary = total / buckets;
          if (boundary <= 0) {
            boundary = 1;
          } else {
            remainder = total % buckets;
            if (remainder != 0) boundary++;
          }
        }
        rows_per_bucket++;
        if (boundary < rows_per_bucket) {
          if (remainder != 0 && ntile == remainder) {
            remainder = 0;
            boundary -= 1;
          }
          ntile += 1;
          rows_per_bucket = 1;
        }
        out.values[static_cast<size_t>(i)] = static_cast<int32_t>(ntile);
      }
    }
    return out.Finish(f_.type, map_, ctx_.pool());
  }

  // lag, lead, first_value, last_value, nth_value: each row takes the value
  // of another row (or lag/lead's default, or NULL). Gathered from
  // [value column | default column | one NULL].
  Result<ArrayRef> Navigation() {
    const ArrayRef& value = columns_[static_cast<size_t>(f_.args[0])];
    const bool lag_lead = f_.function == WindowFunction::kLag || f_.function == WindowFunction::kLead;
    std::vector<ArrayRef> pieces{value};
    if (lag_lead) pieces.push_back(columns_[static_cast<size_t>(f_.args[2])]);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef null_row, MakeArrayOfNull(f_.type, 1, ctx_.pool()));
    pieces.push_back(null_row);
    QUIVER_ASSIGN_OR_RAISE(ArrayRef all, Concatenate(pieces, ctx_.pool()));
    const uint32_t null_slot = static_cast<uint32_t>(lag_lead ? 2 * n_ : n_);
    std::vector<uint32_t> src(static_cast<size_t>(n_));  // sorted position -> slot of `all`
    const IntArg count_arg{f_.args.size() > 1 ? columns_[static_cast<size_t>(f_.args[1])].get() : nullptr};
    for (int64_t ps : s_.part_starts) {
      const int64_t pe = s_.part_end[static_cast<size_t>(ps)];
      for (int64_t i = ps; i < pe; ++i) {
        const uint32_t row = s_.perm[static_cast<size_t>(i)];
        // The default frame: the partition's start to the current row's last peer.
        const int64_t frame_end = s_.peer_end[static_cast<size_t>(i)];
        uint32_t slot = null_slot;
        switch (f_.function) {
          case WindowFunction::kLag:
          case WindowFunction::kLead: {
            if (count_arg.IsNull(row)) break;  // NULL offset: NULL, not the default
            const int64_t offset = count_arg.Get(row);
            const int64_t target = f_.function == WindowFunction::kLag ? i - offset : i + offset;
            slot = target >= ps && target < pe ? s_.perm[static_cast<size_t>(target)]
                                               : static_cast<uint32_t>(n_ + row);
            break;
          }
          case WindowFunction::kFirstValue:
            slot = s_.perm[static_cast<size_t>(ps)];
            break;
          case WindowFunction::kLastValue:
            slot = s_.perm[static_cast<size_t>(frame_end - 1)];
            break;
          case WindowFunction::kNthValue: {
            if (count_arg.IsNull(row)) break;
            const int64_t nth = count_arg.Get(row);
            if (nth <= 0) return Status::Invalid("argument of nth_value must be greater than zero");
            if (ps + nth - 1 < frame_end) slot = s_.perm[static_cast<size_t>(ps + nth - 1)];
            break;
          }
          default:
            break;
        }
        src[static_cast<size_t>(i)] = slot;
      }
    }
    std::vector<uint32_t> gather(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) gather[static_cast<size_t>(j)] = src[map_[static_cast<size_t>(j)]];
    return kernels::Gather(all, gather.data(), n_, ctx_.pool());
  }

  // An aggregate over the default frame: a running state per partition,
  // folded one peer group at a time; after each peer group a copy of the
  // state (init + combine) is that group's result.
  Result<ArrayRef> Aggregate() {
    const AggregateFunction& fn = *f_.aggregate;
    // Peer groups = result slots.
    std::vector<int64_t> group_of(static_cast<size_t>(n_));
    int64_t groups = 0;
    for (int64_t i = 0; i < n_;) {
      const int64_t e = s_.peer_end[static_cast<size_t>(i)];
      for (int64_t k = i; k < e; ++k) group_of[static_cast<size_t>(k)] = groups;
      ++groups;
      i = e;
    }
    StateArena snaps;
    snaps.Reset(fn.state_size, groups);
    StateArena running;
    running.Reset(fn.state_size, 1);
    std::vector<uint8_t*> snap_ptrs(static_cast<size_t>(groups));
    int64_t initialized = 0;
    auto destroy_all = [&]() {
      if (!fn.destroy) return;
      for (int64_t g = 0; g < initialized; ++g) fn.destroy(snap_ptrs[static_cast<size_t>(g)]);
    };
    Status st = Fold(fn, &snaps, &running, &snap_ptrs, &initialized);
    if (!st.ok()) {
      destroy_all();
      return st;
    }
    auto finalized = fn.finalize(snap_ptrs.data(), groups, f_.type, ctx_.pool());
    destroy_all();
    QUIVER_RETURN_NOT_OK(finalized.status());
    std::vector<uint32_t> gather(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) {
      gather[static_cast<size_t>(j)] = static_cast<uint32_t>(group_of[map_[static_cast<size_t>(j)]]);
    }
    return kernels::Gather(*finalized, gather.data(), n_, ctx_.pool());
  }

  Status Fold(const AggregateFunction& fn, StateArena* snaps, StateArena* running, std::vector<uint8_t*>* snap_ptrs,
              int64_t* initialized) {
    std::vector<VectorRef> args(f_.args.size());
    std::vector<uint8_t*> states;
    std::vector<uint32_t> rows;
    const ArrayData* filter = f_.filter >= 0 ? columns_[static_cast<size_t>(f_.filter)].get() : nullptr;
    uint8_t* state = running->at(0);
    int64_t group = 0;
    for (int64_t ps : s_.part_starts) {
      QUIVER_RETURN_NOT_OK(CheckCancel());
      const int64_t pe = s_.part_end[static_cast<size_t>(ps)];
      fn.init(state);
      Status st;
      for (int64_t peer = ps; peer < pe && st.ok();) {
        const int64_t peer_end = s_.peer_end[static_cast<size_t>(peer)];
        rows.clear();
        for (int64_t i = peer; i < peer_end; ++i) {
          const uint32_t row = s_.perm[static_cast<size_t>(i)];
          if (filter != nullptr && !(filter->IsValid(row) && bit_util::GetBit(filter->GetRaw<uint8_t>(1), filter->offset + row)))
            continue;
          rows.push_back(row);
        }
        if (!rows.empty()) {
          for (size_t a = 0; a < args.size(); ++a) {
            args[a] = VectorRef{columns_[static_cast<size_t>(f_.args[a])].get(), rows.data(), false};
          }
          states.assign(rows.size(), state);
          st = fn.update(args, static_cast<int64_t>(rows.size()), states.data(), ctx_.pool());
          if (!st.ok()) break;
        }
        uint8_t* snap = snaps->at(group);
        fn.init(snap);
        (*snap_ptrs)[static_cast<size_t>(group)] = snap;
        ++*initialized;
        st = fn.combine(state, snap, ctx_.pool());
        ++group;
        peer = peer_end;
      }
      if (fn.destroy) fn.destroy(state);
      QUIVER_RETURN_NOT_OK(st);
    }
    return Status::OK();
  }

  const WindowFunctionSpec& f_;
  const std::vector<ArrayRef>& columns_;
  const SortedRows& s_;
  const std::vector<uint32_t>& map_;
  int64_t n_;
  ExecutionContext& ctx_;
};

bool SameSort(const WindowFunctionSpec& a, const WindowFunctionSpec& b) {
  if (a.partitions != b.partitions || a.orders.size() != b.orders.size()) return false;
  for (size_t i = 0; i < a.orders.size(); ++i) {
    if (a.orders[i].column != b.orders[i].column || a.orders[i].descending != b.orders[i].descending ||
        a.orders[i].nulls_first != b.orders[i].nulls_first)
      return false;
  }
  return true;
}

}  // namespace

PhysicalWindow::PhysicalWindow(std::vector<TypeRef> input_types, std::vector<WindowFunctionSpec> functions)
    : PhysicalOperator("WINDOW", {}), input_types_(std::move(input_types)), functions_(std::move(functions)) {
  types_ = input_types_;
  for (const auto& f : functions_) types_.push_back(f.type);
}

std::string PhysicalWindow::ParamsToString() const {
  std::string s;
  for (size_t i = 0; i < functions_.size(); ++i) {
    const auto& f = functions_[i];
    s += (i ? "; " : "") + f.name + "(";
    for (size_t a = 0; a < f.args.size(); ++a) s += fmt::format("{}#{}", a ? ", " : "", f.args[a]);
    s += ")";
    if (!f.partitions.empty()) {
      s += " PARTITION BY";
      for (size_t p = 0; p < f.partitions.size(); ++p) s += fmt::format("{} #{}", p ? "," : "", f.partitions[p]);
    }
    if (!f.orders.empty()) {
      s += " ORDER BY";
      for (size_t k = 0; k < f.orders.size(); ++k) {
        s += fmt::format("{} #{}{}", k ? "," : "", f.orders[k].column, f.orders[k].descending ? " DESC" : "");
      }
    }
  }
  return s;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalWindow::GetGlobalSinkState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new WindowGlobal());
}

Result<std::unique_ptr<LocalSinkState>> PhysicalWindow::GetLocalSinkState(ExecutionContext&, GlobalSinkState&,
                                                                          int) const {
  return std::unique_ptr<LocalSinkState>(new WindowLocal());
}

Status PhysicalWindow::Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState&, LocalSinkState& lstate) const {
  return static_cast<WindowLocal&>(lstate).buffer.Add(input, ctx.pool());
}

Status PhysicalWindow::Combine(ExecutionContext&, GlobalSinkState& gstate, LocalSinkState& lstate) const {
  auto& g = static_cast<WindowGlobal&>(gstate);
  auto& l = static_cast<WindowLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (size_t i = 0; i < l.buffer.chunks.size(); ++i) {
    g.buffer.chunks.push_back(std::move(l.buffer.chunks[i]));
    g.buffer.batch_index.push_back(l.buffer.batch_index[i]);
  }
  g.buffer.rows += l.buffer.rows;
  return Status::OK();
}

Status PhysicalWindow::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<WindowGlobal&>(gstate);
  QUIVER_ASSIGN_OR_RAISE(g.columns, g.buffer.Columns(input_types_, ctx.pool()));
  const int64_t n = g.buffer.rows;
  g.rows = n;
  g.buffer = RowBuffer();
  if (n > static_cast<int64_t>(UINT32_MAX) / 2 - 1) {
    return Status::Unsupported("window functions over more than {} rows", UINT32_MAX / 2 - 1);
  }
  g.results.assign(functions_.size(), nullptr);
  // Functions sharing a sort are computed over one sorted order; the output
  // follows the first sort.
  std::vector<bool> done(functions_.size(), false);
  std::vector<uint32_t> inverse;
  for (size_t first = 0; first < functions_.size(); ++first) {
    if (done[first]) continue;
    QUIVER_ASSIGN_OR_RAISE(SortedRows s, SortRows(g.columns, functions_[first], n, ctx));
    std::vector<uint32_t> map(static_cast<size_t>(n));  // output row -> sorted position
    if (first == 0) {
      g.order = s.perm;
      for (int64_t j = 0; j < n; ++j) map[static_cast<size_t>(j)] = static_cast<uint32_t>(j);
    } else {
      inverse.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) inverse[s.perm[static_cast<size_t>(i)]] = static_cast<uint32_t>(i);
      for (int64_t j = 0; j < n; ++j) map[static_cast<size_t>(j)] = inverse[g.order[static_cast<size_t>(j)]];
    }
    for (size_t k = first; k < functions_.size(); ++k) {
      if (done[k] || !SameSort(functions_[first], functions_[k])) continue;
      FunctionEvaluator eval(functions_[k], g.columns, s, map, n, ctx);
      QUIVER_ASSIGN_OR_RAISE(g.results[k], eval.Run());
      done[k] = true;
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalWindow::GetGlobalSourceState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new WindowSource());
}

Result<SourceResult> PhysicalWindow::GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                                             LocalSourceState&) const {
  auto& g = static_cast<WindowGlobal&>(*sink_state);
  auto& s = static_cast<WindowSource&>(gstate);
  const int64_t start = s.offset.fetch_add(kVectorSize);
  if (start >= g.rows) return SourceResult::kFinished;
  const int64_t n = std::min(kVectorSize, g.rows - start);
  for (const auto& c : g.columns) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, g.order.data() + start, n, ctx.pool()));
    out->columns.push_back(std::move(a));
  }
  for (const auto& r : g.results) out->columns.push_back(r->Slice(start, n));
  out->num_rows = n;
  out->batch_index = start;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
