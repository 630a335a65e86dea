#include "execution/operators/physical_hash_join.h"

#include <algorithm>
#include <atomic>

#include "common/memory_pool.h"
#include "common/thread_pool.h"
#include "execution/expression/expression_executor.h"
#include "execution/hash_util.h"
#include "execution/operators/physical_result_collector.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

using plan::JoinType;

namespace {

// The build rows (PhysicalJoin) and the table over them.
struct BuildGlobal : JoinBuildState {
  std::vector<uint32_t> buckets;  // row + 1
  std::vector<uint32_t> next;     // row + 1
  std::vector<uint64_t> hashes;
  uint64_t mask = 0;
  bool has_null_key = false;  // some row has a NULL key (null-aware joins)
  // The query pool's account of the table above (held outside the pool).
  std::unique_ptr<MemoryReservation> memory;
};

struct ProbeState : OperatorState {
  // Per input chunk.
  bool started = false;
  bool multi = false;                             // some probe row found more than one partner
  std::vector<uint32_t> build_of;                 // per probe row: its partner, when it has one
  std::vector<uint32_t> place_rows, place_slots;  // pass-through output: build row -> input slot
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> ptr;                   // current chain position (row + 1) per probe row
  std::vector<uint32_t> active;                // probe rows still walking
  std::vector<uint8_t> matched;                // per probe row: a passing partner was found
  std::vector<uint8_t> mark_null;              // mark joins: an unknown comparison was seen
  std::vector<uint32_t> out_probe, out_build;  // pairs to emit
  size_t emitted = 0;
  bool done = false;  // all chains walked for this chunk
  std::unique_ptr<ExpressionExecutor> residual;
  std::vector<uint32_t> cand_probe, cand_build, pass, still;
  std::vector<uint8_t> equal, null_key;
};

}  // namespace

std::string PhysicalHashJoin::ParamsToString() const {
  std::string s = spec_.emit_build ? (spec_.type == JoinType::kAnti ? "RIGHT_ANTI" : "RIGHT_SEMI")
                                   : plan::JoinTypeName(spec_.type);
  if (spec_.null_aware) s += " (null-aware)";
  for (size_t i = 0; i < spec_.probe_keys.size(); ++i) {
    s += fmt::format(" #{} {} #{}", spec_.probe_keys[i],
                     spec_.nulls_equal[i] ? "IS NOT DISTINCT FROM" : "=", spec_.build_keys[i]);
  }
  if (spec_.residual) s += " WHERE " + spec_.residual->ToString();
  if (sink_state) {
    auto& g = static_cast<BuildGlobal&>(*sink_state);
    s += fmt::format(" build_rows={}", g.num_rows);
  }
  return s;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalHashJoin::GetGlobalSinkState(
    ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new BuildGlobal());
}

Status PhysicalHashJoin::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<BuildGlobal&>(gstate);
  QUIVER_RETURN_NOT_OK(CollectBuildRows(ctx, g));
  const int64_t n = g.num_rows;
  // Account for the table before allocating it: buckets, chains, hashes,
  // NULL flags, marks and the runtime filter's key copy.
  {
    uint64_t cap = 1024;
    while (cap < static_cast<uint64_t>(n) * 2) cap <<= 1;
    const int64_t bytes =
        static_cast<int64_t>(cap) * 4 + n * (4 + 8 + 1 + 1) + (spec_.runtime_filter ? n * 8 : 0);
    g.memory = std::make_unique<MemoryReservation>(ctx.pool());
    QUIVER_RETURN_NOT_OK(g.memory->Update(bytes));
  }
  AllocateMarks(g);
  // Hash the keys and chain the rows into their buckets, in parallel
  // slices (a bucket's head is swapped atomically; the order of a chain
  // does not matter).
  uint64_t cap = 1024;
  while (cap < static_cast<uint64_t>(n) * 2) cap <<= 1;
  g.mask = cap - 1;
  g.buckets.assign(cap, 0);
  g.next.assign(static_cast<size_t>(n), 0);
  g.hashes.assign(static_cast<size_t>(n), 0);
  std::vector<uint8_t> null_key(static_cast<size_t>(n), 0);
  std::atomic<bool> has_null_key{false};
  const int64_t slice = 1 << 16;
  const int64_t slices = (n + slice - 1) / slice;
  QUIVER_RETURN_NOT_OK(ParallelFor(slices, [&](int64_t s) -> Status {
    if (ctx.cancelled()) return ctx.CancelStatus();  // long finalize: stop per task
    const int64_t begin = s * slice, len = std::min(slice, n - begin);
    bool nulls = false;
    for (size_t k = 0; k < spec_.build_keys.size(); ++k) {
      const ArrayRef& col = g.columns[static_cast<size_t>(spec_.build_keys[k])];
      ArrayRef part = col->Slice(begin, len);
      VectorRef v{part.get(), nullptr, false};
      HashVector(v, len, g.hashes.data() + begin, k > 0);
      if (!spec_.nulls_equal[k] && part->MayHaveNulls()) {
        for (int64_t i = 0; i < len; ++i) {
          if (part->IsNull(i)) {
            null_key[static_cast<size_t>(begin + i)] = 1;
            nulls = true;
          }
        }
      }
    }
    if (nulls) has_null_key.store(true, std::memory_order_relaxed);
    for (int64_t i = begin; i < begin + len; ++i) {
      if (null_key[static_cast<size_t>(i)]) continue;
      std::atomic_ref<uint32_t> head(g.buckets[g.hashes[static_cast<size_t>(i)] & g.mask]);
      g.next[static_cast<size_t>(i)] =
          head.exchange(static_cast<uint32_t>(i + 1), std::memory_order_relaxed);
    }
    return Status::OK();
  }));
  g.has_null_key = has_null_key.load();
  // Runtime filter over the first key.
  if (spec_.runtime_filter) {
    RuntimeFilter& f = *spec_.runtime_filter;
    const ArrayData& key = *g.columns[static_cast<size_t>(spec_.build_keys[0])];
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    std::vector<int64_t> keys(static_cast<size_t>(n));
    size_t count = 0;
    auto collect = [&](const auto* values) {
      const bool nulls = key.MayHaveNulls() || g.has_null_key;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = values[i];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        keys[count] = v;
        count += !nulls || (!null_key[static_cast<size_t>(i)] && key.IsValid(i)) ? 1 : 0;
      }
      if (nulls) {  // min/max again over the non-NULL keys only
        lo = INT64_MAX;
        hi = INT64_MIN;
        for (size_t i = 0; i < count; ++i) {
          lo = std::min(lo, keys[i]);
          hi = std::max(hi, keys[i]);
        }
      }
    };
    switch (key.type->id) {
      case TypeId::kInt16:
        collect(key.GetValues<int16_t>(1));
        break;
      case TypeId::kInt32:
      case TypeId::kDate32:
        collect(key.GetValues<int32_t>(1));
        break;
      default:
        collect(key.GetValues<int64_t>(1));
        break;
    }
    keys.resize(count);
    f.empty = keys.empty();
    f.min = lo;
    f.max = hi;
    f.AddKeys(keys);
    f.ready = true;
  }
  return Status::OK();
}

Result<std::unique_ptr<OperatorState>> PhysicalHashJoin::GetOperatorState(
    ExecutionContext& ctx) const {
  auto s = std::make_unique<ProbeState>();
  if (spec_.residual)
    s->residual = std::make_unique<ExpressionExecutor>(ctx.pool(), spec_.residual.get());
  return std::unique_ptr<OperatorState>(std::move(s));
}

namespace {

// Per chunk: hashes the probe keys and points every row with a non-NULL key
// at the head of its chain; rows with a chain are `active`.
void StartChunk(const HashJoinSpec& spec, const BuildGlobal& g, const std::vector<VectorRef>& keys,
                int64_t n, ProbeState& s) {
  const size_t nkeys = keys.size();
  s.hashes.resize(static_cast<size_t>(n));
  s.ptr.assign(static_cast<size_t>(n), 0);
  s.matched.assign(static_cast<size_t>(n), 0);
  s.mark_null.assign(static_cast<size_t>(n), 0);
  s.active.clear();
  for (size_t k = 0; k < nkeys; ++k) HashVector(keys[k], n, s.hashes.data(), k > 0);
  // Rows with a NULL key (compared with =) have no partner.
  bool any_null = false;
  for (size_t k = 0; k < nkeys; ++k) {
    if (spec.nulls_equal[k]) continue;
    kernels::ValidAccess valid(keys[k]);
    if (valid.always_valid()) continue;
    if (!any_null) s.null_key.assign(static_cast<size_t>(n), 0);
    any_null = true;
    for (int64_t i = 0; i < n; ++i) {
      if (!valid(i)) s.null_key[static_cast<size_t>(i)] = 1;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (any_null && s.null_key[static_cast<size_t>(i)]) {
      if (spec.null_aware && g.num_rows > 0) s.mark_null[static_cast<size_t>(i)] = 1;
      continue;
    }
    const uint32_t head = g.buckets[s.hashes[static_cast<size_t>(i)] & g.mask];
    if (head != 0) {
      s.ptr[static_cast<size_t>(i)] = head;
      s.active.push_back(static_cast<uint32_t>(i));
    }
  }
}

// Walks all active chains in lockstep (one step for every active row per
// round); each round's pairs with equal keys that pass the residual are
// handed to on_pairs(kept) as s.cand_probe[0, kept) / s.cand_build[0, kept).
// With `stop_at_first`, rows that on_pairs marked matched stop walking.
template <typename OnPairs>
Status WalkChains(ExecutionContext& ctx, const HashJoinSpec& spec, const BuildGlobal& g,
                  const DataChunk& input, const std::vector<VectorRef>& keys, ProbeState& s,
                  bool stop_at_first, OnPairs&& on_pairs) {
  const size_t nkeys = keys.size();
  while (!s.active.empty()) {
    s.cand_probe.clear();
    s.cand_build.clear();
    s.still.clear();
    for (uint32_t i : s.active) {
      const uint32_t row = s.ptr[i] - 1;
      if (g.hashes[row] == s.hashes[i]) {
        s.cand_probe.push_back(i);
        s.cand_build.push_back(row);
      }
      s.ptr[i] = g.next[row];
      if (s.ptr[i] != 0) s.still.push_back(i);
    }
    s.active.swap(s.still);
    if (s.cand_probe.empty()) continue;
    const int64_t m = static_cast<int64_t>(s.cand_probe.size());
    s.equal.assign(static_cast<size_t>(m), 1);
    for (size_t k = 0; k < nkeys; ++k) {
      CompareRows(keys[k], s.cand_probe.data(), *g.columns[static_cast<size_t>(spec.build_keys[k])],
                  s.cand_build.data(), m, spec.nulls_equal[k], s.equal.data());
    }
    // Keep equal pairs.
    int64_t kept = 0;
    for (int64_t c = 0; c < m; ++c) {
      if (s.equal[static_cast<size_t>(c)]) {
        s.cand_probe[static_cast<size_t>(kept)] = s.cand_probe[static_cast<size_t>(c)];
        s.cand_build[static_cast<size_t>(kept)] = s.cand_build[static_cast<size_t>(c)];
        ++kept;
      }
    }
    s.cand_probe.resize(static_cast<size_t>(kept));
    s.cand_build.resize(static_cast<size_t>(kept));
    if (kept == 0) continue;
    if (s.residual) {
      // Evaluate the residual on the candidate pairs.
      DataChunk pairs;
      pairs.num_rows = kept;
      const uint32_t* isel = input.sel_data();
      std::vector<uint32_t> probe_slots(static_cast<size_t>(kept));
      for (int64_t c = 0; c < kept; ++c) {
        const uint32_t r = s.cand_probe[static_cast<size_t>(c)];
        probe_slots[static_cast<size_t>(c)] = isel ? isel[r] : r;
      }
      for (const auto& col : input.columns) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a,
                               kernels::Gather(col, probe_slots.data(), kept, ctx.pool()));
        pairs.columns.push_back(std::move(a));
      }
      for (const auto& col : g.columns) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a,
                               kernels::Gather(col, s.cand_build.data(), kept, ctx.pool()));
        pairs.columns.push_back(std::move(a));
      }
      s.pass.resize(static_cast<size_t>(kept));
      QUIVER_ASSIGN_OR_RAISE(int64_t np, s.residual->Select(pairs, s.pass.data()));
      for (int64_t c = 0; c < np; ++c) {
        s.cand_probe[static_cast<size_t>(c)] = s.cand_probe[s.pass[static_cast<size_t>(c)]];
        s.cand_build[static_cast<size_t>(c)] = s.cand_build[s.pass[static_cast<size_t>(c)]];
      }
      s.cand_probe.resize(static_cast<size_t>(np));
      s.cand_build.resize(static_cast<size_t>(np));
      kept = np;
    }
    if (kept == 0) continue;
    QUIVER_RETURN_NOT_OK(on_pairs(kept));
    if (stop_at_first) {
      s.still.clear();
      for (uint32_t i : s.active) {
        if (!s.matched[i]) s.still.push_back(i);
      }
      s.active.swap(s.still);
    }
  }
  return Status::OK();
}

// Marks the build rows that find a partner (emit_build);
// PhysicalJoinBuildRows emits them (or the others) once every probe row has
// been seen.
Status MarkBuildRows(ExecutionContext& ctx, const HashJoinSpec& spec, BuildGlobal& g,
                     const DataChunk& input, const std::vector<VectorRef>& keys, ProbeState& s) {
  StartChunk(spec, g, keys, input.num_rows, s);
  return WalkChains(ctx, spec, g, input, keys, s, false, [&](int64_t kept) {
    for (int64_t c = 0; c < kept; ++c) {
      g.marked[s.cand_build[static_cast<size_t>(c)]].store(1, std::memory_order_relaxed);
    }
    return Status::OK();
  });
}

bool EmitsPairs(JoinType type) {
  return type == JoinType::kInner || type == JoinType::kLeft || type == JoinType::kSingle;
}

// MatchChunk for one integer key of the same type on both sides, inner or
// left, without a residual: each probe row walks its own chain, comparing
// keys in place. For a foreign key -> primary key join (chains
// of about one row) this is a few instructions per row, where the lockstep
// walk below pays for candidate lists and a generic comparison.
template <typename T>
void MatchIntegerKey(const BuildGlobal& g, const ArrayData& build_key, const VectorRef& key, int64_t n,
                     ProbeState& s) {
  const T* bk = build_key.GetValues<T>(1);
  const T* pk = key.values<T>();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t r = s.ptr[static_cast<size_t>(i)];  // 0: no chain, or a NULL key
    if (r == 0) continue;
    const T v = pk[key.index(i)];
    do {
      const uint32_t row = r - 1;
      if (bk[row] == v) {  // equal keys have equal hashes
        if (s.matched[static_cast<size_t>(i)]) s.multi = true;
        s.matched[static_cast<size_t>(i)] = 1;
        s.build_of[static_cast<size_t>(i)] = row;
        s.out_probe.push_back(static_cast<uint32_t>(i));
        s.out_build.push_back(row);
      }
      r = g.next[row];
    } while (r != 0);
  }
}

// Finds every probe row's partners: s.matched per probe row, and for joins
// that emit pairs, the pairs (s.out_probe, s.out_build) and each row's last
// partner (s.build_of; s.multi when some row has several).
Status MatchChunk(ExecutionContext& ctx, const HashJoinSpec& spec, BuildGlobal& g,
                  const DataChunk& input, const std::vector<VectorRef>& keys, ProbeState& s) {
  const JoinType type = spec.type;
  s.done = false;
  s.emitted = 0;
  s.out_probe.clear();
  s.out_build.clear();
  StartChunk(spec, g, keys, input.num_rows, s);
  const bool stop_at_first =
      type == JoinType::kSemi || type == JoinType::kAnti || type == JoinType::kMark;
  const bool pairs_out = EmitsPairs(type);
  s.multi = false;
  if (pairs_out) s.build_of.resize(static_cast<size_t>(input.num_rows));
  if ((type == JoinType::kInner || type == JoinType::kLeft) && keys.size() == 1 && !s.residual &&
      !spec.mark_build && !spec.nulls_equal[0]) {
    const ArrayData& bk = *g.columns[static_cast<size_t>(spec.build_keys[0])];
    const TypeId id = keys[0].array->type->id;
    if (id == bk.type->id) {
      switch (id) {
        case TypeId::kInt32:
        case TypeId::kDate32:
          MatchIntegerKey<int32_t>(g, bk, keys[0], input.num_rows, s);
          s.active.clear();
          return Status::OK();
        case TypeId::kInt64:
          MatchIntegerKey<int64_t>(g, bk, keys[0], input.num_rows, s);
          s.active.clear();
          return Status::OK();
        default:
          break;
      }
    }
  }
  return WalkChains(ctx, spec, g, input, keys, s, stop_at_first, [&](int64_t kept) -> Status {
    for (int64_t c = 0; c < kept; ++c) {
      const uint32_t i = s.cand_probe[static_cast<size_t>(c)];
      if (type == JoinType::kSingle && s.matched[i]) {
        return Status::Invalid("more than one row returned by a subquery used as an expression")
            .WithSqlState(sqlstate::kCardinalityViolation);
      }
      if (s.matched[i]) s.multi = true;
      if (pairs_out) s.build_of[i] = s.cand_build[static_cast<size_t>(c)];
      s.matched[i] = 1;
      if (spec.mark_build) {
        g.marked[s.cand_build[static_cast<size_t>(c)]].store(1, std::memory_order_relaxed);
      }
      if (pairs_out) {
        s.out_probe.push_back(i);
        s.out_build.push_back(s.cand_build[static_cast<size_t>(c)]);
      }
    }
    return Status::OK();
  });
}

// When every probe row found at most one partner (a key of the build side,
// the usual foreign key -> primary key join) and most rows stay: the probe
// chunk's columns pass through as they are, with a selection of the rows
// that stay, and the build side's values are placed beside them at those
// rows' slots. Returns whether `out` was filled that way.
Result<bool> PlaceBesideProbe(ExecutionContext& ctx, JoinType type, const BuildGlobal& g,
                              const DataChunk& input, ProbeState& s, DataChunk* out) {
  if (s.multi || input.columns.empty()) return false;
  const int64_t n = input.num_rows;
  const int64_t length = input.columns[0]->length;
  const bool keep_all = type != JoinType::kInner;  // unmatched rows get the NULL build row
  const uint32_t* isel = input.sel_data();
  s.place_rows.clear();
  s.place_slots.clear();
  for (int64_t i = 0; i < n; ++i) {
    const bool m = s.matched[static_cast<size_t>(i)] != 0;
    if (!m && !keep_all) continue;
    s.place_slots.push_back(isel ? isel[i] : static_cast<uint32_t>(i));
    s.place_rows.push_back(m ? s.build_of[static_cast<size_t>(i)]
                             : static_cast<uint32_t>(g.num_rows));
  }
  const int64_t k = static_cast<int64_t>(s.place_rows.size());
  if (k * 2 < length) return false;
  out->columns = input.columns;
  for (const auto& col : g.columns) {
    QUIVER_ASSIGN_OR_RAISE(
        ArrayRef a,
        kernels::GatherTo(col, s.place_rows.data(), s.place_slots.data(), k, length, ctx.pool()));
    out->columns.push_back(std::move(a));
  }
  out->num_rows = k;
  if (isel != nullptr || k < length) {
    auto sel = std::make_shared<SelectionVector>(k);
    std::copy(s.place_slots.begin(), s.place_slots.end(), sel->data());
    out->sel = std::move(sel);
  }
  return true;
}

// Outer joins: the probe rows without a partner join the NULL build row;
// the pairs are put back in probe order so results follow the input.
void AddUnmatchedProbeRows(const BuildGlobal& g, int64_t n, ProbeState& s) {
  for (int64_t i = 0; i < n; ++i) {
    if (!s.matched[static_cast<size_t>(i)]) {
      s.out_probe.push_back(static_cast<uint32_t>(i));
      s.out_build.push_back(static_cast<uint32_t>(g.num_rows));
    }
  }
  std::vector<size_t> order(s.out_probe.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return s.out_probe[a] < s.out_probe[b]; });
  std::vector<uint32_t> p2(order.size()), b2(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    p2[k] = s.out_probe[order[k]];
    b2[k] = s.out_build[order[k]];
  }
  s.out_probe.swap(p2);
  s.out_build.swap(b2);
}

// Semi / anti: the input chunk's columns with a selection of the rows that
// stay (nothing copied).
void EmitSemiAnti(const HashJoinSpec& spec, const BuildGlobal& g, const DataChunk& input,
                  const ProbeState& s, DataChunk* out) {
  const int64_t n = input.num_rows;
  std::vector<uint32_t> rows;
  const bool build_empty = g.num_rows == 0;
  for (int64_t i = 0; i < n; ++i) {
    bool keep = s.matched[static_cast<size_t>(i)] != 0;
    if (spec.type == JoinType::kAnti) {
      keep = !keep;
      if (spec.null_aware && !build_empty &&
          (g.has_null_key || s.mark_null[static_cast<size_t>(i)])) {
        keep = false;  // x NOT IN (..., NULL) / NULL NOT IN (...) is never TRUE
      }
    }
    if (keep) rows.push_back(static_cast<uint32_t>(i));
  }
  out->columns = input.columns;
  out->num_rows = static_cast<int64_t>(rows.size());
  auto sel = std::make_shared<SelectionVector>(out->num_rows);
  const uint32_t* isel = input.sel_data();
  for (size_t k = 0; k < rows.size(); ++k) sel->data()[k] = isel ? isel[rows[k]] : rows[k];
  out->sel = std::move(sel);
}

// Mark: every input row with a boolean (TRUE: matched; NULL: unknown for
// null-aware IN; FALSE otherwise).
Status EmitMark(ExecutionContext& ctx, const HashJoinSpec& spec, const BuildGlobal& g,
                const DataChunk& input, const ProbeState& s, DataChunk* out) {
  const int64_t n = input.num_rows;
  QUIVER_ASSIGN_OR_RAISE(auto bits, kernels::AllocateBitmap(n, ctx.pool()));
  QUIVER_ASSIGN_OR_RAISE(auto validity, kernels::AllocateBitmap(n, ctx.pool()));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (s.matched[static_cast<size_t>(i)]) {
      bit_util::SetBit(bits->mutable_data(), i);
      bit_util::SetBit(validity->mutable_data(), i);
    } else if (spec.null_aware && g.num_rows > 0 &&
               (g.has_null_key || s.mark_null[static_cast<size_t>(i)])) {
      ++nulls;
    } else {
      bit_util::SetBit(validity->mutable_data(), i);
    }
  }
  // The mark column is dense while the others may be read through the
  // selection: flatten the inputs then, so one selection serves all.
  if (input.sel) {
    QUIVER_ASSIGN_OR_RAISE(out->columns, FlattenChunk(input, ctx.pool()));
  } else {
    out->columns = input.columns;
  }
  out->columns.push_back(ArrayData::Make(
      boolean(), n, {nulls ? std::shared_ptr<Buffer>(validity) : nullptr, bits}, nulls));
  out->num_rows = n;
  return Status::OK();
}

// Inner / left / single: the next slice of at most kVectorSize pairs.
Status EmitPairs(ExecutionContext& ctx, const BuildGlobal& g, const DataChunk& input, ProbeState& s,
                 DataChunk* out) {
  const size_t total = s.out_probe.size();
  const size_t take = std::min<size_t>(static_cast<size_t>(kVectorSize), total - s.emitted);
  if (take > 0) {
    const uint32_t* isel = input.sel_data();
    std::vector<uint32_t> probe_slots(take);
    for (size_t k = 0; k < take; ++k) {
      const uint32_t r = s.out_probe[s.emitted + k];
      probe_slots[k] = isel ? isel[r] : r;
    }
    for (const auto& col : input.columns) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(col, probe_slots.data(),
                                                         static_cast<int64_t>(take), ctx.pool()));
      out->columns.push_back(std::move(a));
    }
    for (const auto& col : g.columns) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(col, s.out_build.data() + s.emitted,
                                                         static_cast<int64_t>(take), ctx.pool()));
      out->columns.push_back(std::move(a));
    }
    out->num_rows = static_cast<int64_t>(take);
  }
  s.emitted += take;
  return Status::OK();
}

}  // namespace

Result<OperatorResult> PhysicalHashJoin::Execute(ExecutionContext& ctx, DataChunk& input,
                                                 DataChunk* out, OperatorState& state) const {
  auto& g = static_cast<BuildGlobal&>(*sink_state);
  auto& s = static_cast<ProbeState&>(state);
  const JoinType type = spec_.type;
  const size_t nkeys = spec_.probe_keys.size();
  std::vector<VectorRef> keys(nkeys);
  for (size_t k = 0; k < nkeys; ++k) {
    keys[k] = VectorRef{input.columns[static_cast<size_t>(spec_.probe_keys[k])].get(),
                        input.sel_data(), false};
  }
  if (spec_.emit_build) {
    QUIVER_RETURN_NOT_OK(MarkBuildRows(ctx, spec_, g, input, keys, s));
    return OperatorResult::kNeedMoreInput;
  }
  if (!s.started) {
    // A new input chunk: match it, then emit its output (in slices when
    // pairs are gathered).
    s.started = true;
    QUIVER_RETURN_NOT_OK(MatchChunk(ctx, spec_, g, input, keys, s));
    if (EmitsPairs(type)) {
      QUIVER_ASSIGN_OR_RAISE(bool placed, PlaceBesideProbe(ctx, type, g, input, s, out));
      if (placed) {
        s.started = false;
        return OperatorResult::kNeedMoreInput;
      }
      if (type != JoinType::kInner) AddUnmatchedProbeRows(g, input.num_rows, s);
    }
  }
  if (type == JoinType::kSemi || type == JoinType::kAnti) {
    s.started = false;
    EmitSemiAnti(spec_, g, input, s, out);
    return OperatorResult::kNeedMoreInput;
  }
  if (type == JoinType::kMark) {
    s.started = false;
    QUIVER_RETURN_NOT_OK(EmitMark(ctx, spec_, g, input, s, out));
    return OperatorResult::kNeedMoreInput;
  }
  QUIVER_RETURN_NOT_OK(EmitPairs(ctx, g, input, s, out));
  if (s.emitted < s.out_probe.size()) return OperatorResult::kHaveMoreOutput;
  s.started = false;
  return OperatorResult::kNeedMoreInput;
}

}  // namespace quiver::exec
