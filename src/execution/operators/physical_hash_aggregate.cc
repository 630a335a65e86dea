#include "execution/operators/physical_hash_aggregate.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "execution/group_table.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

namespace {

// (group key, value) pairs of one DISTINCT aggregate.
using DistinctSet = std::unordered_set<std::string>;

struct AggLocal : LocalSinkState {
  std::unique_ptr<GroupTable> table;
  std::vector<DistinctSet> distinct;
  std::unique_ptr<MemoryReservation> memory;
  // scratch
  std::vector<uint8_t> key_bytes;
  std::vector<uint32_t> key_offsets;
  std::vector<uint64_t> hashes;
  std::vector<int64_t> gids;
  std::vector<uint8_t*> states;
};

struct AggGlobal : GlobalSinkState {
  std::mutex mu;
  std::unique_ptr<GroupTable> table;
  std::vector<DistinctSet> distinct;
  std::vector<ArrayRef> result;  // after Finalize
  int64_t result_rows = 0;
  std::unique_ptr<MemoryReservation> memory;
};

struct AggSource : GlobalSourceState {
  std::atomic<int64_t> offset{0};
};

}  // namespace

PhysicalHashAggregate::PhysicalHashAggregate(std::vector<TypeRef> types, std::vector<int> groups,
                                             std::vector<AggregateSpec> aggregates)
    : PhysicalOperator(groups.empty() && !aggregates.empty() ? "UNGROUPED_AGGREGATE"
                       : aggregates.empty()                   ? "DISTINCT"
                                                              : "HASH_GROUP_BY",
                       std::move(types)),
      groups_(std::move(groups)),
      aggregates_(std::move(aggregates)) {
  int offset = 0;
  for (const auto& a : aggregates_) {
    state_offsets_.push_back(offset);
    offset += (a.function->state_size + 15) / 16 * 16;
  }
  row_size_ = std::max(offset, 16);
}

std::string PhysicalHashAggregate::ParamsToString() const {
  std::string s;
  for (size_t i = 0; i < groups_.size(); ++i) s += (i ? ", " : "[") + fmt::format("#{}", groups_[i]);
  if (!groups_.empty()) s += "] ";
  for (size_t i = 0; i < aggregates_.size(); ++i) s += (i ? ", " : "") + aggregates_[i].name;
  return s;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalHashAggregate::GetGlobalSinkState(ExecutionContext& ctx) const {
  auto g = std::make_unique<AggGlobal>();
  g->table = std::make_unique<GroupTable>(&aggregates_, &state_offsets_, row_size_);
  g->distinct.resize(aggregates_.size());
  g->memory = std::make_unique<MemoryReservation>(ctx.pool());
  return std::unique_ptr<GlobalSinkState>(std::move(g));
}

Result<std::unique_ptr<LocalSinkState>> PhysicalHashAggregate::GetLocalSinkState(ExecutionContext& ctx,
                                                                                  GlobalSinkState&, int) const {
  auto l = std::make_unique<AggLocal>();
  l->table = std::make_unique<GroupTable>(&aggregates_, &state_offsets_, row_size_);
  l->distinct.resize(aggregates_.size());
  l->memory = std::make_unique<MemoryReservation>(ctx.pool());
  return std::unique_ptr<LocalSinkState>(std::move(l));
}

Status PhysicalHashAggregate::Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState&,
                                   LocalSinkState& lstate) const {
  auto& l = static_cast<AggLocal&>(lstate);
  const int64_t n = input.num_rows;
  if (n == 0) return Status::OK();
  const uint32_t* sel = input.sel_data();
  auto ref = [&](int col) { return VectorRef{input.columns[static_cast<size_t>(col)].get(), sel, false}; };
  // Group ids.
  std::vector<VectorRef> keys;
  for (int g : groups_) keys.push_back(ref(g));
  SerializeRows(keys, n, &l.key_bytes, &l.key_offsets);
  l.hashes.resize(static_cast<size_t>(n));
  l.gids.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t off = l.key_offsets[static_cast<size_t>(i)];
    const uint32_t len = l.key_offsets[static_cast<size_t>(i + 1)] - off;
    l.hashes[static_cast<size_t>(i)] = XXH3_64bits(l.key_bytes.data() + off, len);
    l.gids[static_cast<size_t>(i)] = l.table->FindOrCreate(l.key_bytes.data() + off, len, l.hashes[static_cast<size_t>(i)]);
  }
  // Update every aggregate.
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    const AggregateSpec& spec = aggregates_[a];
    // Rows passing the FILTER clause.
    std::vector<uint32_t> rows;
    const bool filtered = spec.filter >= 0;
    if (filtered) {
      VectorRef f = ref(spec.filter);
      kernels::BoolAccess get(f);
      kernels::ValidAccess valid(f);
      for (int64_t i = 0; i < n; ++i) {
        if (valid(i) && get(i)) rows.push_back(static_cast<uint32_t>(i));
      }
    }
    const int64_t m = filtered ? static_cast<int64_t>(rows.size()) : n;
    if (m == 0) continue;
    // Argument refs restricted to those rows.
    std::vector<uint32_t> composed;
    if (filtered) {
      composed.resize(static_cast<size_t>(m));
      for (int64_t i = 0; i < m; ++i) composed[static_cast<size_t>(i)] = sel ? sel[rows[static_cast<size_t>(i)]] : rows[static_cast<size_t>(i)];
    }
    std::vector<VectorRef> args;
    for (int c : spec.args) {
      args.push_back(VectorRef{input.columns[static_cast<size_t>(c)].get(), filtered ? composed.data() : sel, false});
    }
    if (spec.distinct) {
      // Remember (group key, value) pairs; NULL values never count.
      std::vector<uint8_t> vbytes;
      std::vector<uint32_t> voffs;
      SerializeRows(args, m, &vbytes, &voffs);
      kernels::ValidAccess valid(args[0]);
      for (int64_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const int64_t row = filtered ? rows[static_cast<size_t>(i)] : i;
        const uint32_t koff = l.key_offsets[static_cast<size_t>(row)];
        const uint32_t klen = l.key_offsets[static_cast<size_t>(row + 1)] - koff;
        std::string entry(4 + klen + (voffs[static_cast<size_t>(i + 1)] - voffs[static_cast<size_t>(i)]), '\0');
        std::memcpy(entry.data(), &klen, 4);
        std::memcpy(entry.data() + 4, l.key_bytes.data() + koff, klen);
        std::memcpy(entry.data() + 4 + klen, vbytes.data() + voffs[static_cast<size_t>(i)],
                    voffs[static_cast<size_t>(i + 1)] - voffs[static_cast<size_t>(i)]);
        l.distinct[a].insert(std::move(entry));
      }
      continue;
    }
    l.states.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      const int64_t row = filtered ? rows[static_cast<size_t>(i)] : i;
      l.states[static_cast<size_t>(i)] = l.table->state(l.gids[static_cast<size_t>(row)]) + state_offsets_[a];
    }
    QUIVER_RETURN_NOT_OK(spec.function->update(args, m, l.states.data()));
  }
  int64_t distinct_bytes = 0;
  for (const auto& d : l.distinct) distinct_bytes += static_cast<int64_t>(d.size()) * 48;
  return l.memory->Update(l.table->MemoryBytes() + distinct_bytes);
}

Status PhysicalHashAggregate::Combine(ExecutionContext&, GlobalSinkState& gstate, LocalSinkState& lstate) const {
  auto& g = static_cast<AggGlobal&>(gstate);
  auto& l = static_cast<AggLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  GroupTable& src = *l.table;
  for (int64_t i = 0; i < src.size(); ++i) {
    uint32_t len;
    const uint8_t* key = src.key(i, &len);
    const int64_t gid = g.table->FindOrCreate(key, len, src.hash(i));
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      if (aggregates_[a].distinct) continue;
      aggregates_[a].function->combine(src.state(i) + state_offsets_[a], g.table->state(gid) + state_offsets_[a]);
    }
  }
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    if (g.distinct[a].empty()) {
      g.distinct[a].swap(l.distinct[a]);
    } else {
      for (auto& e : l.distinct[a]) g.distinct[a].insert(e);
    }
    l.distinct[a].clear();
  }
  l.table.reset();
  QUIVER_RETURN_NOT_OK(l.memory->Update(0));
  return g.memory->Update(g.table->MemoryBytes());
}

Status PhysicalHashAggregate::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<AggGlobal&>(gstate);
  GroupTable& t = *g.table;
  const size_t ngroups = groups_.size();
  // An aggregate without GROUP BY has one row even over no input.
  if (ngroups == 0 && t.size() == 0 && !aggregates_.empty()) {
    t.FindOrCreate(nullptr, 0, XXH3_64bits(nullptr, 0));
  }
  // DISTINCT aggregates: feed the merged (group, value) pairs.
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    if (!aggregates_[a].distinct || g.distinct[a].empty()) continue;
    const AggregateSpec& spec = aggregates_[a];
    std::vector<std::unique_ptr<ArrayBuilder>> builders;
    std::vector<uint8_t*> states;
    states.reserve(g.distinct[a].size());
    std::vector<const uint8_t*> vp;
    for (const auto& e : g.distinct[a]) {
      uint32_t klen;
      std::memcpy(&klen, e.data(), 4);
      const uint8_t* key = reinterpret_cast<const uint8_t*>(e.data()) + 4;
      const int64_t gid = t.FindOrCreate(key, klen, XXH3_64bits(key, klen));
      states.push_back(t.state(gid) + state_offsets_[a]);
      vp.push_back(key + klen);
    }
    // Decode the values.
    std::vector<ArrayRef> arrays;
    for (size_t c = 0; c < spec.args.size(); ++c) {
      const TypeRef& type = spec.arg_types[c];
      QUIVER_ASSIGN_OR_RAISE(auto b, MakeBuilder(type, ctx.pool()));
      builders.push_back(std::move(b));
    }
    for (size_t k = 0; k < vp.size(); ++k) {
      const uint8_t* p = vp[k];
      for (size_t c = 0; c < spec.args.size(); ++c) {
        QUIVER_RETURN_NOT_OK(ReadValue(*spec.arg_types[c], &p, builders[c].get()));
      }
    }
    std::vector<VectorRef> refs;
    for (auto& b : builders) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef arr, b->Finish());
      arrays.push_back(arr);
    }
    for (auto& arr : arrays) refs.push_back(VectorRef{arr.get(), nullptr, false});
    QUIVER_RETURN_NOT_OK(spec.function->update(refs, static_cast<int64_t>(states.size()), states.data()));
    g.distinct[a].clear();
  }
  const int64_t n = t.size();
  // Keys.
  std::vector<std::unique_ptr<ArrayBuilder>> key_builders;
  for (size_t k = 0; k < ngroups; ++k) {
    QUIVER_ASSIGN_OR_RAISE(auto b, MakeBuilder(types_[k], ctx.pool()));
    QUIVER_RETURN_NOT_OK(b->Reserve(n));
    key_builders.push_back(std::move(b));
  }
  for (int64_t i = 0; i < n && ngroups > 0; ++i) {
    uint32_t len;
    const uint8_t* p = t.key(i, &len);
    for (size_t k = 0; k < ngroups; ++k) QUIVER_RETURN_NOT_OK(ReadValue(*types_[k], &p, key_builders[k].get()));
  }
  g.result.clear();
  for (auto& b : key_builders) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
    g.result.push_back(std::move(a));
  }
  std::vector<uint8_t*> states(static_cast<size_t>(n));
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    for (int64_t i = 0; i < n; ++i) states[static_cast<size_t>(i)] = t.state(i) + state_offsets_[a];
    QUIVER_ASSIGN_OR_RAISE(ArrayRef r, aggregates_[a].function->finalize(states.data(), n, aggregates_[a].type, ctx.pool()));
    g.result.push_back(std::move(r));
  }
  g.result_rows = n;
  t.DestroyStates();
  return Status::OK();
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalHashAggregate::GetGlobalSourceState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new AggSource());
}

Result<SourceResult> PhysicalHashAggregate::GetData(ExecutionContext&, DataChunk* out, GlobalSourceState& gstate,
                                                    LocalSourceState&) const {
  auto& g = static_cast<AggGlobal&>(*sink_state);
  auto& s = static_cast<AggSource&>(gstate);
  const int64_t offset = s.offset.fetch_add(kVectorSize);
  if (offset >= g.result_rows) return SourceResult::kFinished;
  const int64_t n = std::min(kVectorSize, g.result_rows - offset);
  for (const auto& c : g.result) out->columns.push_back(c->Slice(offset, n));
  out->num_rows = n;
  out->batch_index = offset;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
