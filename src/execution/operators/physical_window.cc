#include "execution/operators/physical_window.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>

#include "common/calendar.h"
#include "common/thread_pool.h"
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
  explicit SortedRows(MemoryPool* pool) : memory(pool) {}
  MemoryReservation memory;  // the vectors below, charged to the query's pool
  std::vector<uint32_t> perm;        // sorted position -> input row
  std::vector<int64_t> part_end;     // sorted position -> end of its partition
  std::vector<int64_t> peer_start;   // sorted position -> start of its peer group
  std::vector<int64_t> peer_end;     // sorted position -> end of its peer group
  std::vector<int64_t> peer_group;   // sorted position -> its peer group's number (all partitions)
  std::vector<int64_t> group_start;  // peer group number -> its first position
  std::vector<int64_t> part_starts;  // the partitions' first positions, ascending
};

// `sorted`: an order of the rows that serves `f` (SortServes), or null to sort here.
Status SortRows(const std::vector<ArrayRef>& columns, const WindowFunctionSpec& f, int64_t n, ExecutionContext& ctx,
                SortedRows* out, const std::vector<uint32_t>* sorted = nullptr) {
  SortedRows& s = *out;
  std::vector<SortKey> part_keys, all_keys;
  for (int c : f.partitions) part_keys.push_back({c, false, false});
  all_keys = part_keys;
  for (const auto& k : f.orders) all_keys.push_back(k);
  if (all_keys.size() > 250) {
    return Status::Unsupported("a window with more than 250 PARTITION BY and ORDER BY keys");
  }
  // perm + part_end + peer_start + peer_end + peer_group (+ group_start).
  QUIVER_RETURN_NOT_OK(s.memory.Update(n * (4 + 5 * 8)));
  // first_diff[i]: the first key of all_keys on which sorted rows i - 1 and
  // i differ; partitions and peer groups start where it is small enough.
  std::vector<uint8_t> first_diff;
  if (sorted != nullptr) {
    s.perm = *sorted;
  } else if (all_keys.empty()) {
    s.perm.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) s.perm[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
  } else {
    QUIVER_ASSIGN_OR_RAISE(s.perm, SortPermutation(columns, all_keys, n, &ctx, &first_diff));
  }
  if (first_diff.empty() && n > 0) {
    // A sort shared with another window: compare neighbours here, on the
    // key columns gathered in sorted order (sequential reads).
    std::vector<ArrayRef> sorted_keys;
    std::vector<SortKey> keys = all_keys;
    for (auto& k : keys) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(columns[static_cast<size_t>(k.column)],
                                                        s.perm.data(), n, ctx.pool()));
      k.column = static_cast<int>(sorted_keys.size());
      sorted_keys.push_back(std::move(a));
    }
    std::vector<RowComparator> one_key;
    for (const auto& k : keys) one_key.emplace_back(sorted_keys, std::vector<SortKey>{k});
    first_diff.assign(static_cast<size_t>(n), static_cast<uint8_t>(keys.size()));
    for (int64_t i = 1; i < n; ++i) {
      for (size_t k = 0; k < keys.size(); ++k) {
        if (one_key[k].Compare(static_cast<uint32_t>(i - 1), static_cast<uint32_t>(i)) != 0) {
          first_diff[static_cast<size_t>(i)] = static_cast<uint8_t>(k);
          break;
        }
      }
    }
  }
  const auto un = static_cast<size_t>(n);
  s.part_end.resize(un);
  s.peer_end.resize(un);
  s.peer_start.resize(un);
  s.peer_group.resize(un);
  const size_t nparts = part_keys.size();
  // Walk backwards so each position learns where its partition and peer group end.
  int64_t part_end = n, peer_end = n;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (i + 1 < n) {
      const uint8_t d = first_diff[static_cast<size_t>(i + 1)];
      if (d < nparts) {
        part_end = i + 1;
        peer_end = i + 1;
      } else if (d < all_keys.size()) {
        peer_end = i + 1;
      }
    }
    s.part_end[static_cast<size_t>(i)] = part_end;
    // Without ORDER BY every row of a partition is a peer of every other.
    s.peer_end[static_cast<size_t>(i)] = f.orders.empty() ? part_end : peer_end;
  }
  for (int64_t i = 0; i < n; i = s.part_end[static_cast<size_t>(i)]) s.part_starts.push_back(i);
  for (int64_t i = 0; i < n;) {
    const int64_t e = s.peer_end[static_cast<size_t>(i)];
    const auto g = static_cast<int64_t>(s.group_start.size());
    s.group_start.push_back(i);
    for (int64_t k = i; k < e; ++k) {
      s.peer_start[static_cast<size_t>(k)] = i;
      s.peer_group[static_cast<size_t>(k)] = g;
    }
    i = e;
  }
  return Status::OK();
}

// An int64 / int32 / double column of n values with an optional validity.
template <typename T>
struct NumericColumn {
  std::vector<T> values;
  std::vector<uint8_t> valid;  // empty: all valid
  explicit NumericColumn(int64_t n, bool nullable = false) : values(static_cast<size_t>(n)) {
    if (nullable) valid.assign(values.size(), 1);
  }
  // REQUIRES: constructed nullable (tasks write disjoint slots concurrently).
  void SetNull(int64_t i) { valid[static_cast<size_t>(i)] = 0; }
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

// 16-byte aligned storage for aggregate states, charged to the query's pool.
struct StateArena {
  explicit StateArena(MemoryPool* pool) : memory(pool) {}
  MemoryReservation memory;
  std::vector<std::max_align_t> storage;
  int stride = 0;
  Status Reset(int state_size, int64_t count) {
    stride = (state_size + 15) / 16 * 16;
    const size_t bytes = static_cast<size_t>(stride) * static_cast<size_t>(std::max<int64_t>(count, 1));
    storage.clear();
    QUIVER_RETURN_NOT_OK(memory.Update(static_cast<int64_t>(bytes)));
    storage.assign((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t), std::max_align_t{});
    return Status::OK();
  }
  uint8_t* at(int64_t i) { return reinterpret_cast<uint8_t*>(storage.data()) + static_cast<size_t>(stride) * i; }
};

// Up to three runs of sorted positions, in order: a frame minus what
// EXCLUDE takes out of it.
struct FrameRuns {
  int64_t begin[3];
  int64_t end[3];
  int count = 0;
  void Add(int64_t b, int64_t e) {
    if (b >= e) return;
    begin[count] = b;
    end[count] = e;
    ++count;
  }
  int64_t size() const {
    int64_t total = 0;
    for (int k = 0; k < count; ++k) total += end[k] - begin[k];
    return total;
  }
};

__int128 SaturatingAdd(__int128 a, __int128 b) {
  __int128 r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? std::numeric_limits<__int128>::max() : std::numeric_limits<__int128>::min();
  return r;
}

// `micros` (a timestamp in microseconds) plus `months`, PostgreSQL's way:
// the day of the month is kept, or the month's last day where it has fewer.
__int128 AddMonths(__int128 micros, int64_t months) {
  if (micros > std::numeric_limits<int64_t>::max() || micros < std::numeric_limits<int64_t>::min()) return micros;
  const DayAndTime dt = SplitDays(static_cast<int64_t>(micros), kMicrosPerDay);
  const CivilDate d = CivilFromDays(dt.days);
  const int64_t total = d.year * 12 + (d.month - 1) + months;
  const int64_t year = FloorDiv(total, 12);
  const auto month = static_cast<unsigned>(total - year * 12 + 1);
  const unsigned day = std::min(d.day, DaysInMonth(year, month));
  return static_cast<__int128>(DaysFromCivil(year, month, day)) * kMicrosPerDay + dt.time_of_day;
}

// The frame of each row (WindowFrame), as runs of sorted positions.
class FrameCalculator {
 public:
  FrameCalculator(const WindowFunctionSpec& f, const std::vector<ArrayRef>& columns, const SortedRows& s)
      : frame_(f.frame), s_(s) {
    if (frame_.key_kind == WindowFrame::KeyKind::kNone) return;
    // RANGE with offsets: the one ORDER BY key, as numbers.
    key_ = columns[static_cast<size_t>(f.orders[0].column)].get();
    descending_ = f.orders[0].descending;
    const int64_t n = key_->length;
    if (frame_.key_kind == WindowFrame::KeyKind::kFloat) {
      fkeys_.resize(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) {
        fkeys_[static_cast<size_t>(r)] = key_->type->id == TypeId::kFloat ? key_->GetValues<float>(1)[r]
                                                                        : key_->GetValues<double>(1)[r];
      }
    } else {
      ikeys_.resize(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) {
        __int128 v = 0;
        switch (key_->type->id) {
          case TypeId::kInt8:
            v = key_->GetValues<int8_t>(1)[r];
            break;
          case TypeId::kInt16:
            v = key_->GetValues<int16_t>(1)[r];
            break;
          case TypeId::kInt32:
          case TypeId::kDate32:
            v = key_->GetValues<int32_t>(1)[r];
            break;
          case TypeId::kDecimal128:
            std::memcpy(&v, key_->GetValues<__int128>(1) + r, 16);
            break;
          default:
            v = key_->GetValues<int64_t>(1)[r];
            break;
        }
        ikeys_[static_cast<size_t>(r)] = v * frame_.key_multiplier;
      }
    }
  }

  // A partition [ps, pe) and, for RANGE offsets, where its keys are not NULL.
  struct Part {
    int64_t ps, pe, nn_begin, nn_end;
  };
  Part Partition(int64_t ps, int64_t pe) const {
    // Rows whose key is NULL sort together at one end of the partition.
    Part p{ps, pe, ps, pe};
    if (key_ == nullptr) return p;
    while (p.nn_begin < pe && !key_->IsValid(s_.perm[static_cast<size_t>(p.nn_begin)])) ++p.nn_begin;
    while (p.nn_end > p.nn_begin && !key_->IsValid(s_.perm[static_cast<size_t>(p.nn_end - 1)])) --p.nn_end;
    return p;
  }

  // Frame runs of sorted position i of partition `part`.
  FrameRuns Runs(int64_t i, const Part& part) const {
    const int64_t ps = part.ps, pe = part.pe;
    int64_t start = Bound(frame_.start, true, i, part);
    int64_t end = Bound(frame_.end, false, i, part);
    start = std::max(start, ps);
    end = std::min(end, pe);
    FrameRuns runs;
    const int64_t peer_start = s_.peer_start[static_cast<size_t>(i)];
    const int64_t peer_end = s_.peer_end[static_cast<size_t>(i)];
    switch (frame_.exclude) {
      case WindowFrame::Exclude::kNoOthers:
        runs.Add(start, end);
        break;
      case WindowFrame::Exclude::kCurrentRow:
        runs.Add(start, std::min(end, i));
        runs.Add(std::max(start, i + 1), end);
        break;
      case WindowFrame::Exclude::kGroup:
        runs.Add(start, std::min(end, peer_start));
        runs.Add(std::max(start, peer_end), end);
        break;
      case WindowFrame::Exclude::kTies:
        runs.Add(start, std::min(end, peer_start));
        if (i >= start && i < end) runs.Add(i, i + 1);
        runs.Add(std::max(start, peer_end), end);
        break;
    }
    return runs;
  }

 private:
  int64_t Bound(WindowFrame::Bound b, bool is_start, int64_t i, const Part& part) const {
    const int64_t ps = part.ps, pe = part.pe;
    using B = WindowFrame::Bound;
    switch (b) {
      case B::kUnboundedPreceding:
        return ps;
      case B::kUnboundedFollowing:
        return pe;
      case B::kCurrentRow:
        if (frame_.mode == WindowFrame::Mode::kRows) return is_start ? i : i + 1;
        return is_start ? s_.peer_start[static_cast<size_t>(i)] : s_.peer_end[static_cast<size_t>(i)];
      case B::kPreceding:
      case B::kFollowing:
        break;
    }
    const bool preceding = b == B::kPreceding;
    const __int128 offset = is_start ? frame_.start_offset : frame_.end_offset;
    switch (frame_.mode) {
      case WindowFrame::Mode::kRows: {
        const __int128 target = preceding ? i - offset : i + offset;
        const __int128 pos = is_start ? target : target + 1;
        return static_cast<int64_t>(std::clamp<__int128>(pos, ps, pe));
      }
      case WindowFrame::Mode::kGroups: {
        const int64_t g = s_.peer_group[static_cast<size_t>(i)];
        const int64_t first = s_.peer_group[static_cast<size_t>(ps)];
        const int64_t last = s_.peer_group[static_cast<size_t>(pe - 1)];
        const __int128 target = preceding ? g - offset : g + offset;
        if (target < first) return ps;
        if (target > last) return pe;
        const auto t = static_cast<size_t>(target);
        if (is_start) return s_.group_start[t];
        return s_.peer_end[static_cast<size_t>(s_.group_start[t])];
      }
      case WindowFrame::Mode::kRange:
        break;
    }
    // RANGE: by key value. A NULL key is in range of the NULLs (its peers) only.
    const uint32_t row = s_.perm[static_cast<size_t>(i)];
    if (!key_->IsValid(row)) {
      return is_start ? s_.peer_start[static_cast<size_t>(i)] : s_.peer_end[static_cast<size_t>(i)];
    }
    // In key order, "preceding" values are smaller (ASC) or larger (DESC).
    const bool toward_smaller = preceding != descending_;
    // Start: the first row whose key is at or past the bound; end: the first
    // row past it (in the sort's direction).
    auto search = [&](auto keys, auto bound) {
      auto first_not_before = [&](int64_t p) {
        const auto k = keys[s_.perm[static_cast<size_t>(p)]];
        if (is_start) return descending_ ? k <= bound : k >= bound;
        return descending_ ? k < bound : k > bound;
      };
      int64_t lo = part.nn_begin, hi = part.nn_end;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (first_not_before(mid)) {
          hi = mid;
        } else {
          lo = mid + 1;
        }
      }
      return lo;
    };
    if (frame_.key_kind == WindowFrame::KeyKind::kFloat) {
      const double off = is_start ? frame_.start_offset_float : frame_.end_offset_float;
      const double cur = fkeys_[row];
      return search(fkeys_.data(), toward_smaller ? cur - off : cur + off);
    }
    const __int128 cur = ikeys_[row];
    const int32_t months = is_start ? frame_.start_months : frame_.end_months;
    if (months != 0) {
      // key -/+ interval: months on the calendar first, then days and time.
      const __int128 shifted = AddMonths(cur, toward_smaller ? -months : months);
      return search(ikeys_.data(), SaturatingAdd(shifted, toward_smaller ? -offset : offset));
    }
    return search(ikeys_.data(), SaturatingAdd(cur, toward_smaller ? -offset : offset));
  }

  const WindowFrame& frame_;
  const SortedRows& s_;
  const ArrayData* key_ = nullptr;
  bool descending_ = false;
  std::vector<__int128> ikeys_;
  std::vector<double> fkeys_;
};

// A segment tree of aggregate states over one partition's rows (sorted
// positions [ps, pe)): leaves hold one row each, inner nodes the combine of
// their children, so any run's aggregate takes O(log n) combines.
// Combines keep the rows' order (string_agg).
class SegmentTree {
 public:
  SegmentTree(const AggregateFunction& fn, MemoryPool* pool) : fn_(fn), pool_(pool), nodes_(pool) {}
  ~SegmentTree() { Clear(); }

  Status Build(int64_t m, const std::function<Status(std::vector<uint8_t*>& leaves)>& fill) {
    Clear();
    m_ = m;
    QUIVER_RETURN_NOT_OK(nodes_.Reset(fn_.state_size, 2 * m));
    for (int64_t k = 0; k < 2 * m; ++k) fn_.init(nodes_.at(k));
    initialized_ = 2 * m;
    std::vector<uint8_t*> leaves(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) leaves[static_cast<size_t>(k)] = nodes_.at(m + k);
    QUIVER_RETURN_NOT_OK(fill(leaves));
    for (int64_t k = m - 1; k >= 1; --k) {
      QUIVER_RETURN_NOT_OK(fn_.combine(nodes_.at(2 * k), nodes_.at(k), pool_));
      QUIVER_RETURN_NOT_OK(fn_.combine(nodes_.at(2 * k + 1), nodes_.at(k), pool_));
    }
    return Status::OK();
  }

  // Folds leaves [l, r) into `dst`, in order.
  Status Query(int64_t l, int64_t r, uint8_t* dst) {
    right_.clear();
    for (l += m_, r += m_; l < r; l >>= 1, r >>= 1) {
      if (l & 1) QUIVER_RETURN_NOT_OK(fn_.combine(nodes_.at(l++), dst, pool_));
      if (r & 1) right_.push_back(--r);
    }
    for (auto it = right_.rbegin(); it != right_.rend(); ++it) {
      QUIVER_RETURN_NOT_OK(fn_.combine(nodes_.at(*it), dst, pool_));
    }
    return Status::OK();
  }

 private:
  void Clear() {
    if (fn_.destroy) {
      for (int64_t k = 0; k < initialized_; ++k) fn_.destroy(nodes_.at(k));
    }
    initialized_ = 0;
  }
  const AggregateFunction& fn_;
  MemoryPool* pool_;
  int64_t m_ = 0;
  StateArena nodes_;
  int64_t initialized_ = 0;
  std::vector<int64_t> right_;
};

// Result column of one window function, computed over `s`, in output order
// (`map`: output row -> sorted position). Partitions are independent, so
// runs of them are computed on the thread pool at once.
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

  // Calls fn(ps, pe) for every partition, runs of partitions in parallel.
  Status ForEachPartition(const std::function<Status(int64_t ps, int64_t pe)>& fn) {
    const auto& starts = s_.part_starts;
    const int64_t parts = static_cast<int64_t>(starts.size());
    const int64_t tasks = std::min<int64_t>(parts, n_ < 16384 ? 1 : 4 * std::max(1, DefaultParallelism()));
    if (tasks <= 1) {
      for (int64_t p = 0; p < parts; ++p) {
        if ((p & 1023) == 0) QUIVER_RETURN_NOT_OK(CheckCancel());
        QUIVER_RETURN_NOT_OK(fn(starts[static_cast<size_t>(p)], s_.part_end[static_cast<size_t>(starts[static_cast<size_t>(p)])]));
      }
      return Status::OK();
    }
    // Cut the partitions into runs of about n / tasks rows.
    std::vector<int64_t> cut{0};
    for (int64_t p = 0; p < parts; ++p) {
      if (starts[static_cast<size_t>(p)] >= n_ * static_cast<int64_t>(cut.size()) / tasks && p > cut.back()) cut.push_back(p);
    }
    cut.push_back(parts);
    return ParallelFor(static_cast<int64_t>(cut.size()) - 1, [&](int64_t t) -> Status {
      for (int64_t p = cut[static_cast<size_t>(t)]; p < cut[static_cast<size_t>(t + 1)]; ++p) {
        if ((p & 1023) == 0) QUIVER_RETURN_NOT_OK(CheckCancel());
        const int64_t ps = starts[static_cast<size_t>(p)];
        QUIVER_RETURN_NOT_OK(fn(ps, s_.part_end[static_cast<size_t>(ps)]));
      }
      return Status::OK();
    });
  }

  Result<ArrayRef> Ranks() {
    NumericColumn<int64_t> out(n_);
    QUIVER_RETURN_NOT_OK(ForEachPartition([&](int64_t ps, int64_t pe) {
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
      return Status::OK();
    }));
    return out.Finish(f_.type, map_, ctx_.pool());
  }

  Result<ArrayRef> Distribution() {
    NumericColumn<double> out(n_);
    QUIVER_RETURN_NOT_OK(ForEachPartition([&](int64_t ps, int64_t pe) {
      const double rows = static_cast<double>(pe - ps);
      for (int64_t peer = ps; peer < pe;) {
        const int64_t peer_end = s_.peer_end[static_cast<size_t>(peer)];
        const double v = f_.function == WindowFunction::kPercentRank
                             ? (pe - ps > 1 ? static_cast<double>(peer - ps) / (rows - 1) : 0.0)
                             : static_cast<double>(peer_end - ps) / rows;
        for (int64_t i = peer; i < peer_end; ++i) out.values[static_cast<size_t>(i)] = v;
        peer = peer_end;
      }
      return Status::OK();
    }));
    return out.Finish(f_.type, map_, ctx_.pool());
  }

  // PostgreSQL's ntile: the bucket count is read on the partition's first
  // row whose argument is not NULL (rows before it get NULL); the first
  // `total % buckets` buckets hold one row more.
  Result<ArrayRef> Ntile() {
    NumericColumn<int32_t> out(n_, /*nullable=*/true);
    const IntArg arg{columns_[static_cast<size_t>(f_.args[0])].get()};
    QUIVER_RETURN_NOT_OK(ForEachPartition([&](int64_t ps, int64_t pe) -> Status {
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
          if (buckets <= 0)
            return Status::Invalid("argument of ntile must be greater than zero")
                .WithSqlState(sqlstate::kInvalidArgumentForNtile);
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
      return Status::OK();
    }));
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
    const FrameCalculator frames(f_, columns_, s_);
    QUIVER_RETURN_NOT_OK(ForEachPartition([&](int64_t ps, int64_t pe) -> Status {
      const FrameCalculator::Part part = frames.Partition(ps, pe);
      for (int64_t i = ps; i < pe; ++i) {
        const uint32_t row = s_.perm[static_cast<size_t>(i)];
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
          case WindowFunction::kFirstValue: {
            const FrameRuns runs = frames.Runs(i, part);
            if (runs.count > 0) slot = s_.perm[static_cast<size_t>(runs.begin[0])];
            break;
          }
          case WindowFunction::kLastValue: {
            const FrameRuns runs = frames.Runs(i, part);
            if (runs.count > 0) slot = s_.perm[static_cast<size_t>(runs.end[runs.count - 1] - 1)];
            break;
          }
          case WindowFunction::kNthValue: {
            if (count_arg.IsNull(row)) break;
            const int64_t nth = count_arg.Get(row);
            if (nth <= 0)
              return Status::Invalid("argument of nth_value must be greater than zero")
                  .WithSqlState(sqlstate::kInvalidArgumentForNthValue);
            const FrameRuns runs = frames.Runs(i, part);
            int64_t left = nth - 1;
            for (int k = 0; k < runs.count; ++k) {
              const int64_t len = runs.end[k] - runs.begin[k];
              if (left < len) {
                slot = s_.perm[static_cast<size_t>(runs.begin[k] + left)];
                break;
              }
              left -= len;
            }
            break;
          }
          default:
            break;
        }
        src[static_cast<size_t>(i)] = slot;
      }
      return Status::OK();
    }));
    std::vector<uint32_t> gather(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) gather[static_cast<size_t>(j)] = src[map_[static_cast<size_t>(j)]];
    return kernels::Gather(all, gather.data(), n_, ctx_.pool());
  }

  // Whether row `row` passes the FILTER (no FILTER: every row).
  bool Passes(const ArrayData* filter, uint32_t row) const {
    return filter == nullptr ||
           (filter->IsValid(row) && bit_util::GetBit(filter->GetRaw<uint8_t>(1), filter->offset + row));
  }

  // Aggregates. Frames that only grow as the rows advance (UNBOUNDED
  // PRECEDING to CURRENT ROW, or the whole partition) fold a running state
  // step by step and keep a copy (init + combine) per step; any other frame
  // queries a segment tree per row. One result state per step or row, all
  // finalized at once.
  Result<ArrayRef> Aggregate() {
    const AggregateFunction& fn = *f_.aggregate;
    const WindowFrame& fr = f_.frame;
    using B = WindowFrame::Bound;
    const bool no_exclude = fr.exclude == WindowFrame::Exclude::kNoOthers;
    const bool running = no_exclude && fr.start == B::kUnboundedPreceding &&
                         (fr.end == B::kCurrentRow || fr.end == B::kUnboundedFollowing);
    // The steps: peer groups (RANGE / GROUPS to CURRENT ROW), rows (ROWS to
    // CURRENT ROW) or partitions (to UNBOUNDED FOLLOWING); each its own result.
    enum class Step { kPeers, kRows, kPartition } step = Step::kRows;
    if (running) {
      step = fr.end == B::kUnboundedFollowing ? Step::kPartition
             : fr.mode == WindowFrame::Mode::kRows ? Step::kRows
                                                   : Step::kPeers;
    }
    // slot_of[i]: the result state of sorted position i; slot_start[k]: the
    // first position of slot k.
    std::vector<int64_t> slot_of(static_cast<size_t>(n_));
    std::vector<int64_t> slot_start;
    for (int64_t i = 0; i < n_;) {
      const int64_t e = step == Step::kPeers ? s_.peer_end[static_cast<size_t>(i)]
                        : step == Step::kPartition ? s_.part_end[static_cast<size_t>(i)]
                                                   : i + 1;
      for (int64_t k = i; k < e; ++k) slot_of[static_cast<size_t>(k)] = static_cast<int64_t>(slot_start.size());
      slot_start.push_back(i);
      i = e;
    }
    const int64_t slots = static_cast<int64_t>(slot_start.size());
    StateArena results(ctx_.pool());
    QUIVER_RETURN_NOT_OK(results.Reset(fn.state_size, slots));
    std::vector<uint8_t*> result_ptrs(static_cast<size_t>(slots));
    for (int64_t k = 0; k < slots; ++k) {
      result_ptrs[static_cast<size_t>(k)] = results.at(k);
      fn.init(results.at(k));
    }
    Status st = running ? FoldRunning(fn, slot_of, slot_start, result_ptrs) : FoldFrames(fn, result_ptrs);
    Result<ArrayRef> finalized = st.ok() ? fn.finalize(result_ptrs.data(), slots, f_.type, ctx_.pool())
                                         : Result<ArrayRef>(st);
    if (fn.destroy) {
      for (int64_t k = 0; k < slots; ++k) fn.destroy(results.at(k));
    }
    QUIVER_RETURN_NOT_OK(finalized.status());
    std::vector<uint32_t> gather(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) {
      gather[static_cast<size_t>(j)] = static_cast<uint32_t>(slot_of[map_[static_cast<size_t>(j)]]);
    }
    return kernels::Gather(*finalized, gather.data(), n_, ctx_.pool());
  }

  // Updates `state` with the rows at sorted positions [b, e) that pass the FILTER.
  Status Update(const AggregateFunction& fn, int64_t b, int64_t e, uint8_t* state, std::vector<uint32_t>* rows,
                std::vector<uint8_t*>* states) {
    const ArrayData* filter = f_.filter >= 0 ? columns_[static_cast<size_t>(f_.filter)].get() : nullptr;
    rows->clear();
    for (int64_t i = b; i < e; ++i) {
      const uint32_t row = s_.perm[static_cast<size_t>(i)];
      if (Passes(filter, row)) rows->push_back(row);
    }
    if (rows->empty()) return Status::OK();
    std::vector<VectorRef> args(f_.args.size());
    for (size_t a = 0; a < args.size(); ++a) {
      args[a] = VectorRef{columns_[static_cast<size_t>(f_.args[a])].get(), rows->data(), false};
    }
    states->assign(rows->size(), state);
    return fn.update(args, static_cast<int64_t>(rows->size()), states->data(), ctx_.pool());
  }

  // Aggregates whose result does not depend on the order rows are folded
  // in (string_agg's does, and functions added later are assumed to).
  static bool OrderInsensitive(const AggregateFunction& fn) {
    static const char* const kNames[] = {"count_star", "count", "sum", "avg", "min", "max",
                                         "bool_and", "bool_or", "every"};
    for (const char* name : kNames) {
      if (fn.name == name) return true;
    }
    return false;
  }

  Status FoldRunning(const AggregateFunction& fn, const std::vector<int64_t>& slot_of,
                     const std::vector<int64_t>& slot_start, const std::vector<uint8_t*>& result_ptrs) {
    if (OrderInsensitive(fn)) {
      // Every row folded into its own step's state in one update call per
      // partition, then each step's state combined with the previous step's
      // (a prefix sum of states): two calls per step less than below.
      const ArrayData* filter = f_.filter >= 0 ? columns_[static_cast<size_t>(f_.filter)].get() : nullptr;
      return ForEachPartition([&](int64_t ps, int64_t pe) -> Status {
        std::vector<uint32_t> rows;
        std::vector<uint8_t*> states;
        rows.reserve(static_cast<size_t>(pe - ps));
        states.reserve(static_cast<size_t>(pe - ps));
        for (int64_t i = ps; i < pe; ++i) {
          const uint32_t row = s_.perm[static_cast<size_t>(i)];
          if (!Passes(filter, row)) continue;
          rows.push_back(row);
          states.push_back(result_ptrs[static_cast<size_t>(slot_of[static_cast<size_t>(i)])]);
        }
        if (!rows.empty()) {
          std::vector<VectorRef> args(f_.args.size());
          for (size_t a = 0; a < args.size(); ++a) {
            args[a] = VectorRef{columns_[static_cast<size_t>(f_.args[a])].get(), rows.data(), false};
          }
          QUIVER_RETURN_NOT_OK(fn.update(args, static_cast<int64_t>(rows.size()), states.data(), ctx_.pool()));
        }
        const auto slots = static_cast<int64_t>(slot_start.size());
        for (int64_t k = slot_of[static_cast<size_t>(ps)] + 1; k < slots && slot_start[static_cast<size_t>(k)] < pe; ++k) {
          QUIVER_RETURN_NOT_OK(fn.combine(result_ptrs[static_cast<size_t>(k - 1)], result_ptrs[static_cast<size_t>(k)], ctx_.pool()));
        }
        return Status::OK();
      });
    }
    return ForEachPartition([&](int64_t ps, int64_t pe) -> Status {
      StateArena arena(ctx_.pool());
      QUIVER_RETURN_NOT_OK(arena.Reset(fn.state_size, 1));
      uint8_t* state = arena.at(0);
      fn.init(state);
      std::vector<uint32_t> rows;
      std::vector<uint8_t*> states;
      Status st;
      const auto slots = static_cast<int64_t>(slot_start.size());
      for (int64_t k = slot_of[static_cast<size_t>(ps)]; st.ok() && k < slots; ++k) {
        const int64_t b = slot_start[static_cast<size_t>(k)];
        if (b >= pe) break;
        const int64_t e = k + 1 < slots ? std::min(slot_start[static_cast<size_t>(k + 1)], pe) : pe;
        st = Update(fn, b, e, state, &rows, &states);
        if (st.ok()) st = fn.combine(state, result_ptrs[static_cast<size_t>(k)], ctx_.pool());
      }
      if (fn.destroy) fn.destroy(state);
      return st;
    });
  }

  Status FoldFrames(const AggregateFunction& fn, const std::vector<uint8_t*>& result_ptrs) {
    const ArrayData* filter = f_.filter >= 0 ? columns_[static_cast<size_t>(f_.filter)].get() : nullptr;
    const FrameCalculator frames(f_, columns_, s_);
    return ForEachPartition([&](int64_t ps, int64_t pe) -> Status {
      const int64_t m = pe - ps;
      const FrameCalculator::Part part = frames.Partition(ps, pe);
      // Small frames (a moving average over a few rows): every frame row
      // folded straight into its row's state, all in one update call, each
      // state seeing its rows in frame order. Cheaper than a segment tree's
      // combines when the frames hold a few rows on average.
      constexpr int64_t kSmallFrame = 16;
      // ROWS between two offsets (n PRECEDING, CURRENT ROW, n FOLLOWING)
      // without EXCLUDE: the frame of position i is [i + lo, i + hi] cut to
      // the partition, known without FrameCalculator, at most hi - lo + 1 rows.
      using B = WindowFrame::Bound;
      const WindowFrame& fr = f_.frame;
      const auto offset = [](B b, __int128 o) -> int64_t {
        const int64_t v = static_cast<int64_t>(std::min<__int128>(o, int64_t{1} << 40));
        return b == B::kPreceding ? -v : b == B::kFollowing ? v : 0;
      };
      const bool bounded = [&] {
        for (B b : {fr.start, fr.end}) {
          if (b == B::kUnboundedPreceding || b == B::kUnboundedFollowing) return false;
        }
        return true;
      }();
      if (fr.mode == WindowFrame::Mode::kRows && fr.exclude == WindowFrame::Exclude::kNoOthers && bounded) {
        const int64_t lo = offset(fr.start, fr.start_offset), hi = offset(fr.end, fr.end_offset);
        if (hi - lo + 1 <= kSmallFrame) {
          const size_t most = static_cast<size_t>(m * std::max<int64_t>(0, hi - lo + 1));
          std::vector<uint32_t> rows(most);
          std::vector<uint8_t*> states(most);
          size_t k = 0;
          const uint32_t* perm = s_.perm.data();
          for (int64_t i = ps; i < pe; ++i) {
            const int64_t b = std::max(ps, i + lo), e = std::min(pe, i + hi + 1);
            uint8_t* state = result_ptrs[static_cast<size_t>(i)];
            for (int64_t j = b; j < e; ++j) {
              const uint32_t row = perm[j];
              if (filter != nullptr && !Passes(filter, row)) continue;
              rows[k] = row;
              states[k] = state;
              ++k;
            }
          }
          if (k == 0) return Status::OK();
          std::vector<VectorRef> args(f_.args.size());
          for (size_t a = 0; a < args.size(); ++a) {
            args[a] = VectorRef{columns_[static_cast<size_t>(f_.args[a])].get(), rows.data(), false};
          }
          return fn.update(args, static_cast<int64_t>(k), states.data(), ctx_.pool());
        }
      }
      int64_t total = 0;
      for (int64_t i = ps; i < pe && total <= kSmallFrame * m; ++i) total += frames.Runs(i, part).size();
      if (total <= kSmallFrame * m) {
        std::vector<uint32_t> rows;
        std::vector<uint8_t*> states;
        rows.reserve(static_cast<size_t>(total));
        states.reserve(static_cast<size_t>(total));
        for (int64_t i = ps; i < pe; ++i) {
          const FrameRuns runs = frames.Runs(i, part);
          for (int k = 0; k < runs.count; ++k) {
            for (int64_t j = runs.begin[k]; j < runs.end[k]; ++j) {
              const uint32_t row = s_.perm[static_cast<size_t>(j)];
              if (!Passes(filter, row)) continue;
              rows.push_back(row);
              states.push_back(result_ptrs[static_cast<size_t>(i)]);
            }
          }
        }
        if (rows.empty()) return Status::OK();
        std::vector<VectorRef> args(f_.args.size());
        for (size_t a = 0; a < args.size(); ++a) {
          args[a] = VectorRef{columns_[static_cast<size_t>(f_.args[a])].get(), rows.data(), false};
        }
        return fn.update(args, static_cast<int64_t>(rows.size()), states.data(), ctx_.pool());
      }
      SegmentTree tree(fn, ctx_.pool());
      QUIVER_RETURN_NOT_OK(tree.Build(m, [&](std::vector<uint8_t*>& leaves) -> Status {
        std::vector<uint32_t> rows;
        std::vector<uint8_t*> states;
        for (int64_t i = ps; i < pe; ++i) {
          const uint32_t row = s_.perm[static_cast<size_t>(i)];
          if (!Passes(filter, row)) continue;
          rows.push_back(row);
          states.push_back(leaves[static_cast<size_t>(i - ps)]);
        }
        if (rows.empty()) return Status::OK();
        std::vector<VectorRef> args(f_.args.size());
        for (size_t a = 0; a < args.size(); ++a) {
          args[a] = VectorRef{columns_[static_cast<size_t>(f_.args[a])].get(), rows.data(), false};
        }
        return fn.update(args, static_cast<int64_t>(rows.size()), states.data(), ctx_.pool());
      }));
      for (int64_t i = ps; i < pe; ++i) {
        const FrameRuns runs = frames.Runs(i, part);
        for (int k = 0; k < runs.count; ++k) {
          QUIVER_RETURN_NOT_OK(tree.Query(runs.begin[k] - ps, runs.end[k] - ps, result_ptrs[static_cast<size_t>(i)]));
        }
      }
      return Status::OK();
    });
  }

  const WindowFunctionSpec& f_;
  const std::vector<ArrayRef>& columns_;
  const SortedRows& s_;
  const std::vector<uint32_t>& map_;
  int64_t n_;
  ExecutionContext& ctx_;
};

// Whether rows sorted for `owner` serve `f` too: the same partitions, and
// f's ORDER BY a prefix of owner's (f's peers are then runs of that order).
bool SortServes(const WindowFunctionSpec& owner, const WindowFunctionSpec& f) {
  if (owner.partitions != f.partitions || f.orders.size() > owner.orders.size()) return false;
  for (size_t i = 0; i < f.orders.size(); ++i) {
    if (owner.orders[i].column != f.orders[i].column || owner.orders[i].descending != f.orders[i].descending ||
        owner.orders[i].nulls_first != f.orders[i].nulls_first)
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
    if (!f.frame.IsDefault()) {
      using B = WindowFrame::Bound;
      auto bound = [](B b, __int128 offset, double offset_float, bool is_float) {
        switch (b) {
          case B::kUnboundedPreceding:
            return std::string("UNBOUNDED PRECEDING");
          case B::kUnboundedFollowing:
            return std::string("UNBOUNDED FOLLOWING");
          case B::kCurrentRow:
            return std::string("CURRENT ROW");
          default:
            return (is_float ? fmt::format("{}", offset_float) : fmt::format("{}", static_cast<int64_t>(offset))) +
                   (b == B::kPreceding ? " PRECEDING" : " FOLLOWING");
        }
      };
      const bool is_float = f.frame.key_kind == WindowFrame::KeyKind::kFloat;
      s += f.frame.mode == WindowFrame::Mode::kRows     ? " ROWS "
           : f.frame.mode == WindowFrame::Mode::kGroups ? " GROUPS "
                                                        : " RANGE ";
      s += bound(f.frame.start, f.frame.start_offset, f.frame.start_offset_float, is_float) + " TO " +
           bound(f.frame.end, f.frame.end_offset, f.frame.end_offset_float, is_float);
      s += f.frame.exclude == WindowFrame::Exclude::kCurrentRow ? " EXCLUDE CURRENT ROW"
           : f.frame.exclude == WindowFrame::Exclude::kGroup    ? " EXCLUDE GROUP"
           : f.frame.exclude == WindowFrame::Exclude::kTies     ? " EXCLUDE TIES"
                                                                : "";
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
  // One sort serves every function whose PARTITION BY is the same and whose
  // ORDER BY is a prefix of the sort's: the functions with the longest ORDER
  // BY sort first, the others use their order where they can. The output
  // follows the first sort.
  std::vector<size_t> by_keys(functions_.size());
  for (size_t i = 0; i < by_keys.size(); ++i) by_keys[i] = i;
  std::stable_sort(by_keys.begin(), by_keys.end(),
                   [&](size_t a, size_t b) { return functions_[a].orders.size() > functions_[b].orders.size(); });
  std::vector<bool> done(functions_.size(), false);
  std::vector<uint32_t> inverse;
  bool first_sort = true;
  for (size_t owner : by_keys) {
    if (done[owner]) continue;
    SortedRows s(ctx.pool());
    QUIVER_RETURN_NOT_OK(SortRows(g.columns, functions_[owner], n, ctx, &s));
    std::vector<uint32_t> map(static_cast<size_t>(n));  // output row -> sorted position
    if (first_sort) {
      g.order = s.perm;
      for (int64_t j = 0; j < n; ++j) map[static_cast<size_t>(j)] = static_cast<uint32_t>(j);
      first_sort = false;
    } else {
      inverse.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) inverse[s.perm[static_cast<size_t>(i)]] = static_cast<uint32_t>(i);
      for (int64_t j = 0; j < n; ++j) map[static_cast<size_t>(j)] = inverse[g.order[static_cast<size_t>(j)]];
    }
    for (size_t k : by_keys) {
      if (done[k] || !SortServes(functions_[owner], functions_[k])) continue;
      const bool same_peers = functions_[k].orders.size() == functions_[owner].orders.size();
      SortedRows own(ctx.pool());
      if (!same_peers) {
        // The same order, this function's (coarser) peer groups.
        QUIVER_RETURN_NOT_OK(SortRows(g.columns, functions_[k], n, ctx, &own, &s.perm));
      }
      FunctionEvaluator eval(functions_[k], g.columns, same_peers ? s : own, map, n, ctx);
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
