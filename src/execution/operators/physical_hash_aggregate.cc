#include "execution/operators/physical_hash_aggregate.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "common/thread_pool.h"
#include "execution/group_table.h"
#include "functions/kernel_util.h"

namespace quiver::exec {

namespace {

// Groups are merged in this many partitions (by the top hash bits).
constexpr int kPartitionBits = 5;
constexpr int kPartitions = 1 << kPartitionBits;
inline int PartitionOf(uint64_t hash) { return static_cast<int>(hash >> (64 - kPartitionBits)); }

// (group key, value) pairs of one DISTINCT aggregate: the keys of a group
// table without states, each a 4-byte key length, the key, the serialized
// value.
class DistinctSet {
 public:
  void Insert(const uint8_t* entry, uint32_t len) { Table().FindOrCreate(entry, len, HashKey(entry, len)); }
  void Merge(const DistinctSet& other) {
    if (other.table_ == nullptr) return;
    const GroupTable& src = *other.table_;
    for (int64_t i = 0; i < src.size(); ++i) {
      uint32_t len;
      const uint8_t* e = src.key(i, &len);
      Table().FindOrCreate(e, len, src.hash(i));
    }
  }
  void Swap(DistinctSet& other) { table_.swap(other.table_); }
  bool empty() const { return table_ == nullptr || table_->size() == 0; }
  int64_t size() const { return table_ == nullptr ? 0 : table_->size(); }
  const uint8_t* entry(int64_t i, uint32_t* len) const { return table_->key(i, len); }
  int64_t MemoryBytes() const { return table_ == nullptr ? 0 : table_->MemoryBytes(); }
  void clear() { table_.reset(); }

 private:
  GroupTable& Table() {
    if (table_ == nullptr) table_ = std::make_unique<GroupTable>(nullptr, nullptr, 0, -1, 64);
    return *table_;
  }
  std::unique_ptr<GroupTable> table_;
};

// Per thread: one table per hash partition (one table without GROUP BY).
using PartitionedTables = std::vector<std::unique_ptr<GroupTable>>;

struct AggLocal : LocalSinkState {
  PartitionedTables tables;
  std::vector<DistinctSet> distinct;
  std::unique_ptr<MemoryReservation> memory;
  KeyRows keys;
  std::vector<uint64_t> hashes;
  std::vector<int64_t> gids;
  std::vector<uint8_t> parts;
  std::vector<uint8_t*> rows;  // state row of each input row
  std::vector<uint8_t*> states;
  std::vector<uint8_t> entry;  // a DISTINCT (key, value) pair being built
};

struct AggGlobal : GlobalSinkState {
  std::mutex mu;
  std::vector<PartitionedTables> tables;  // one per thread, merged at Finalize
  std::vector<std::unique_ptr<MemoryReservation>> reservations;
  std::vector<DistinctSet> distinct;
  // After Finalize: output columns per partition.
  std::vector<std::vector<ArrayRef>> result;
  std::vector<int64_t> result_rows;
  std::vector<std::pair<size_t, int64_t>> slices;  // (partition, first row) of each output chunk
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
  group_types_.assign(types_.begin(), types_.begin() + static_cast<long>(groups_.size()));
  key_width_ = KeyLayout(group_types_).fixed_width;
}

std::string PhysicalHashAggregate::ParamsToString() const {
  std::string s;
  for (size_t i = 0; i < groups_.size(); ++i) s += (i ? ", " : "[") + fmt::format("#{}", groups_[i]);
  if (!groups_.empty()) s += "] ";
  for (size_t i = 0; i < aggregates_.size(); ++i) s += (i ? ", " : "") + aggregates_[i].name;
  if (!grouping_sets_.empty()) s += fmt::format(" (rolled up into {} grouping sets)", grouping_sets_.size());
  return s;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalHashAggregate::GetGlobalSinkState(ExecutionContext&) const {
  auto g = std::make_unique<AggGlobal>();
  g->distinct.resize(aggregates_.size());
  return std::unique_ptr<GlobalSinkState>(std::move(g));
}

Result<std::unique_ptr<LocalSinkState>> PhysicalHashAggregate::GetLocalSinkState(ExecutionContext& ctx,
                                                                                  GlobalSinkState&, int) const {
  auto l = std::make_unique<AggLocal>();
  const int parts = groups_.empty() ? 1 : kPartitions;
  for (int p = 0; p < parts; ++p) {
    l->tables.push_back(std::make_unique<GroupTable>(&aggregates_, &state_offsets_, row_size_, key_width_, 64));
  }
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
  // The state row of every input row: keys -> hashes -> (partition, group).
  l.rows.resize(static_cast<size_t>(n));
  if (groups_.empty()) {
    GroupTable& t = *l.tables[0];
    const int64_t g = t.FindOrCreate(nullptr, 0, HashKey(nullptr, 0));
    std::fill(l.rows.begin(), l.rows.end(), t.state(g));
  } else {
    std::vector<VectorRef> keys;
    for (int g : groups_) keys.push_back(ref(g));
    SerializeKeys(KeyLayout(group_types_), keys, n, &l.keys);
    l.hashes.resize(static_cast<size_t>(n));
    l.parts.resize(static_cast<size_t>(n));
    l.gids.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t h = HashKey(l.keys.key(i), l.keys.size(i));
      l.hashes[static_cast<size_t>(i)] = h;
      l.parts[static_cast<size_t>(i)] = static_cast<uint8_t>(PartitionOf(h));
    }
    // Probe with the slots of the next rows already on their way.
    constexpr int64_t kAhead = 16;
    for (int64_t i = 0; i < std::min(n, kAhead); ++i) {
      l.tables[l.parts[static_cast<size_t>(i)]]->Prefetch(l.hashes[static_cast<size_t>(i)]);
    }
    for (int64_t i = 0; i < n; ++i) {
      if (i + kAhead < n) {
        const size_t j = static_cast<size_t>(i + kAhead);
        l.tables[l.parts[j]]->Prefetch(l.hashes[j]);
      }
      const size_t k = static_cast<size_t>(i);
      l.gids[k] = l.tables[l.parts[k]]->FindOrCreate(l.keys.key(i), l.keys.size(i), l.hashes[k]);
    }
    // Inserts may move a table's states: take the pointers afterwards.
    for (size_t k = 0; k < static_cast<size_t>(n); ++k) l.rows[k] = l.tables[l.parts[k]]->state(l.gids[k]);
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
      std::vector<uint8_t>& entry = l.entry;
      for (int64_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const int64_t row = filtered ? rows[static_cast<size_t>(i)] : i;
        const uint8_t* key = groups_.empty() ? nullptr : l.keys.key(row);
        const uint32_t klen = groups_.empty() ? 0 : l.keys.size(row);
        const uint32_t vlen = voffs[static_cast<size_t>(i + 1)] - voffs[static_cast<size_t>(i)];
        entry.resize(4 + klen + vlen);
        std::memcpy(entry.data(), &klen, 4);
        if (klen) std::memcpy(entry.data() + 4, key, klen);
        if (vlen) std::memcpy(entry.data() + 4 + klen, vbytes.data() + voffs[static_cast<size_t>(i)], vlen);
        l.distinct[a].Insert(entry.data(), static_cast<uint32_t>(entry.size()));
      }
      continue;
    }
    l.states.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      const int64_t row = filtered ? rows[static_cast<size_t>(i)] : i;
      l.states[static_cast<size_t>(i)] = l.rows[static_cast<size_t>(row)] + state_offsets_[a];
    }
    QUIVER_RETURN_NOT_OK(spec.function->update(args, m, l.states.data(), ctx.pool()));
  }
  int64_t distinct_bytes = 0;
  for (const auto& d : l.distinct) distinct_bytes += d.MemoryBytes();
  int64_t table_bytes = 0;
  for (const auto& t : l.tables) table_bytes += t->MemoryBytes();
  return l.memory->Update(table_bytes + distinct_bytes);
}

Status PhysicalHashAggregate::Combine(ExecutionContext&, GlobalSinkState& gstate, LocalSinkState& lstate) const {
  auto& g = static_cast<AggGlobal&>(gstate);
  auto& l = static_cast<AggLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  g.tables.push_back(std::move(l.tables));
  g.reservations.push_back(std::move(l.memory));
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    if (g.distinct[a].empty()) {
      g.distinct[a].Swap(l.distinct[a]);
    } else {
      g.distinct[a].Merge(l.distinct[a]);
    }
    l.distinct[a].clear();
  }
  return Status::OK();
}

Status PhysicalHashAggregate::Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const {
  auto& g = static_cast<AggGlobal&>(gstate);
  const size_t ngroups = groups_.size();
  const size_t nparts = groups_.empty() ? 1 : kPartitions;
  // An aggregate without GROUP BY has one row even over no input.
  if (g.tables.empty()) {
    PartitionedTables tables;
    for (size_t p = 0; p < nparts; ++p) {
      tables.push_back(std::make_unique<GroupTable>(&aggregates_, &state_offsets_, row_size_, key_width_, 64));
    }
    g.tables.push_back(std::move(tables));
  }
  if (ngroups == 0 && g.tables[0][0]->size() == 0 && !aggregates_.empty()) {
    g.tables[0][0]->FindOrCreate(nullptr, 0, HashKey(nullptr, 0));
  }
  // Merge partition by partition (in parallel): the threads' tables of a
  // partition go into the largest of them.
  std::vector<std::unique_ptr<GroupTable>> parts(nparts);
  QUIVER_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(nparts), [&](int64_t p) -> Status {
    if (ctx.cancelled()) return ctx.CancelStatus();  // long finalize: stop per task
    const size_t pi = static_cast<size_t>(p);
    size_t largest = 0;
    for (size_t k = 1; k < g.tables.size(); ++k) {
      if (g.tables[k][pi]->size() > g.tables[largest][pi]->size()) largest = k;
    }
    std::unique_ptr<GroupTable> t = std::move(g.tables[largest][pi]);
    for (size_t k = 0; k < g.tables.size(); ++k) {
      if (k == largest) continue;
      std::unique_ptr<GroupTable> src = std::move(g.tables[k][pi]);
      const int64_t size = src->size();
      for (int64_t i = 0; i < size; ++i) {
        if (i + 8 < size) t->Prefetch(src->hash(i + 8));
        uint32_t len;
        const uint8_t* key = src->key(i, &len);
        const int64_t gid = t->FindOrCreate(key, len, src->hash(i));
        for (size_t a = 0; a < aggregates_.size(); ++a) {
          if (aggregates_[a].distinct) continue;
          QUIVER_RETURN_NOT_OK(aggregates_[a].function->combine(
              src->state(i) + state_offsets_[a], t->state(gid) + state_offsets_[a], ctx.pool()));
        }
      }
      // `src` (and its states) go here.
    }
    parts[pi] = std::move(t);
    return Status::OK();
  }));
  g.tables.clear();
  g.reservations.clear();
  if (!grouping_sets_.empty()) {
    QUIVER_ASSIGN_OR_RAISE(parts, RollUp(ctx, std::move(parts)));
  }
  // Empty grouping sets over no input: their rows, as an aggregate without
  // GROUP BY gives one.
  if (!empty_grouping_sets_.empty()) {
    int64_t total = 0;
    for (const auto& t : parts) total += t->size();
    if (total == 0) {
      const int64_t n = static_cast<int64_t>(empty_grouping_sets_.size());
      // The set id: the placeholder key, or the last key (cross-product plans).
      const size_t id_pos = grouping_set_id_ >= 0 ? static_cast<size_t>(grouping_set_id_) : ngroups - 1;
      std::vector<ArrayRef> arrays;
      for (size_t k = 0; k < ngroups; ++k) {
        QUIVER_ASSIGN_OR_RAISE(auto b, MakeBuilder(group_types_[k], ctx.pool()));
        if (k == id_pos) {
          auto* id_builder = static_cast<NumericBuilder<int32_t>*>(b.get());
          for (int32_t id : empty_grouping_sets_) QUIVER_RETURN_NOT_OK(id_builder->Append(id));
        } else {
          QUIVER_RETURN_NOT_OK(b->AppendNulls(n));
        }
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
        arrays.push_back(std::move(a));
      }
      std::vector<VectorRef> refs;
      for (const auto& a : arrays) refs.push_back(VectorRef{a.get(), nullptr, false});
      KeyRows keys;
      SerializeKeys(KeyLayout(group_types_), refs, n, &keys);
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t h = HashKey(keys.key(i), keys.size(i));
        GroupTable& t = *parts[parts.size() == 1 ? 0 : static_cast<size_t>(PartitionOf(h))];
        t.FindOrCreate(keys.key(i), keys.size(i), h);
      }
    }
  }
  // DISTINCT aggregates: feed the merged (group, value) pairs.
  for (size_t a = 0; a < aggregates_.size(); ++a) {
    if (!aggregates_[a].distinct || g.distinct[a].empty()) continue;
    const AggregateSpec& spec = aggregates_[a];
    std::vector<std::unique_ptr<ArrayBuilder>> builders;
    for (const auto& type : spec.arg_types) {
      QUIVER_ASSIGN_OR_RAISE(auto b, MakeBuilder(type, ctx.pool()));
      builders.push_back(std::move(b));
    }
    std::vector<uint8_t*> states;
    states.reserve(g.distinct[a].size());
    for (int64_t i = 0; i < g.distinct[a].size(); ++i) {
      uint32_t elen;
      const uint8_t* e = g.distinct[a].entry(i, &elen);
      uint32_t klen;
      std::memcpy(&klen, e, 4);
      const uint8_t* key = e + 4;
      const uint64_t h = HashKey(key, klen);
      GroupTable& t = *parts[parts.size() == 1 ? 0 : static_cast<size_t>(PartitionOf(h))];
      const int64_t gid = t.FindOrCreate(key, klen, h);
      states.push_back(t.state(gid) + state_offsets_[a]);
      const uint8_t* p = key + klen;
      for (size_t c = 0; c < builders.size(); ++c) {
        QUIVER_RETURN_NOT_OK(ReadValue(*spec.arg_types[c], &p, builders[c].get()));
      }
    }
    std::vector<ArrayRef> arrays;
    std::vector<VectorRef> refs;
    for (auto& b : builders) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef arr, b->Finish());
      arrays.push_back(arr);
    }
    for (auto& arr : arrays) refs.push_back(VectorRef{arr.get(), nullptr, false});
    QUIVER_RETURN_NOT_OK(
        spec.function->update(refs, static_cast<int64_t>(states.size()), states.data(), ctx.pool()));
    g.distinct[a].clear();
  }
  // Groups and states -> columns, one partition per task.
  g.result.assign(parts.size(), {});
  g.result_rows.assign(parts.size(), 0);
  QUIVER_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(parts.size()), [&](int64_t p) -> Status {
    if (ctx.cancelled()) return ctx.CancelStatus();  // long finalize: stop per task
    GroupTable& t = *parts[static_cast<size_t>(p)];
    const int64_t n = t.size();
    QUIVER_ASSIGN_OR_RAISE(std::vector<ArrayRef> cols, KeyColumns(ctx, t));
    std::vector<uint8_t*> states(static_cast<size_t>(n));
    for (size_t a = 0; a < aggregates_.size(); ++a) {
      for (int64_t i = 0; i < n; ++i) states[static_cast<size_t>(i)] = t.state(i) + state_offsets_[a];
      QUIVER_ASSIGN_OR_RAISE(ArrayRef r, aggregates_[a].function->finalize(states.data(), n, aggregates_[a].type, ctx.pool()));
      cols.push_back(std::move(r));
    }
    t.DestroyStates();
    g.result[static_cast<size_t>(p)] = std::move(cols);
    g.result_rows[static_cast<size_t>(p)] = n;
    return Status::OK();
  }));
  g.slices.clear();
  for (size_t p = 0; p < parts.size(); ++p) {
    for (int64_t start = 0; start < g.result_rows[p]; start += kVectorSize) g.slices.emplace_back(p, start);
  }
  return Status::OK();
}

// The group keys of `t` as columns.
Result<std::vector<ArrayRef>> PhysicalHashAggregate::KeyColumns(ExecutionContext& ctx,
                                                                const GroupTable& t) const {
  const size_t ngroups = groups_.size();
  const int64_t n = t.size();
  std::vector<ArrayRef> cols;
  if (key_width_ >= 0) {
    // Column by column out of the fixed-width key rows.
    const KeyLayout layout(group_types_);
    auto key = [&t](int64_t i) {
      uint32_t len;
      return t.key(i, &len);
    };
    for (size_t k = 0; k < ngroups; ++k) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, ExtractKeyColumn(layout, k, n, key, ctx.pool()));
      cols.push_back(std::move(a));
    }
    return cols;
  }
  std::vector<std::unique_ptr<ArrayBuilder>> key_builders;
  for (size_t k = 0; k < ngroups; ++k) {
    QUIVER_ASSIGN_OR_RAISE(auto b, MakeBuilder(group_types_[k], ctx.pool()));
    QUIVER_RETURN_NOT_OK(b->Reserve(n));
    key_builders.push_back(std::move(b));
  }
  for (int64_t i = 0; i < n && ngroups > 0; ++i) {
    uint32_t len;
    const uint8_t* kp = t.key(i, &len);
    for (size_t k = 0; k < ngroups; ++k) {
      QUIVER_RETURN_NOT_OK(ReadValue(*group_types_[k], &kp, key_builders[k].get()));
    }
  }
  for (auto& b : key_builders) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
    cols.push_back(std::move(a));
  }
  return cols;
}

// GROUPING SETS: each set's groups from the finest groups (every key),
// their states combined. Set by set: the finest keys re-serialized with
// the set's keys kept, the others NULL and the id its number (in parallel
// over the finest partitions), then inserted into the output partition of
// their new hash (in parallel over the output partitions).
Result<PhysicalHashAggregate::Tables> PhysicalHashAggregate::RollUp(ExecutionContext& ctx,
                                                                   Tables finest) const {
  const size_t ngroups = groups_.size();
  const size_t nfine = finest.size();
  const KeyLayout layout(group_types_);
  std::vector<std::vector<ArrayRef>> keys(nfine);
  int64_t longest = 0;
  for (const auto& t : finest) longest = std::max(longest, t->size());
  QUIVER_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(nfine), [&](int64_t p) -> Status {
    QUIVER_ASSIGN_OR_RAISE(keys[static_cast<size_t>(p)], KeyColumns(ctx, *finest[static_cast<size_t>(p)]));
    return Status::OK();
  }));
  // NULL columns for the keys a set leaves out.
  std::vector<ArrayRef> nulls;
  for (size_t k = 0; k < ngroups; ++k) {
    QUIVER_ASSIGN_OR_RAISE(auto b, MakeBuilder(group_types_[k], ctx.pool()));
    QUIVER_RETURN_NOT_OK(b->AppendNulls(longest));
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b->Finish());
    nulls.push_back(std::move(a));
  }
  Tables out;
  for (int q = 0; q < kPartitions; ++q) {
    out.push_back(std::make_unique<GroupTable>(&aggregates_, &state_offsets_, row_size_, key_width_, 64));
  }
  std::vector<KeyRows> rows(nfine);
  std::vector<std::vector<uint64_t>> hashes(nfine);
  for (size_t s = 0; s < grouping_sets_.size(); ++s) {
    if (ctx.cancelled()) return ctx.CancelStatus();
    const std::vector<int>& set = grouping_sets_[s];
    Int32Builder id_builder(int32(), ctx.pool());
    for (int64_t i = 0; i < longest; ++i) QUIVER_RETURN_NOT_OK(id_builder.Append(static_cast<int32_t>(s)));
    QUIVER_ASSIGN_OR_RAISE(ArrayRef id, id_builder.Finish());
    QUIVER_RETURN_NOT_OK(ParallelFor(static_cast<int64_t>(nfine), [&](int64_t p) -> Status {
      const size_t pi = static_cast<size_t>(p);
      const int64_t n = finest[pi]->size();
      std::vector<VectorRef> refs;
      for (size_t k = 0; k < ngroups; ++k) {
        const bool kept = std::find(set.begin(), set.end(), static_cast<int>(k)) != set.end();
        const ArrayData* a = static_cast<int>(k) == grouping_set_id_ ? id.get()
                             : kept                                  ? keys[pi][k].get()
                                                                     : nulls[k].get();
        refs.push_back(VectorRef{a, nullptr, false});
      }
      SerializeKeys(layout, refs, n, &rows[pi]);
      hashes[pi].resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) hashes[pi][static_cast<size_t>(i)] = HashKey(rows[pi].key(i), rows[pi].size(i));
      return Status::OK();
    }));
    QUIVER_RETURN_NOT_OK(ParallelFor(kPartitions, [&](int64_t q) -> Status {
      GroupTable& t = *out[static_cast<size_t>(q)];
      for (size_t p = 0; p < nfine; ++p) {
        GroupTable& src = *finest[p];
        const int64_t n = src.size();
        for (int64_t i = 0; i < n; ++i) {
          const uint64_t h = hashes[p][static_cast<size_t>(i)];
          if (PartitionOf(h) != q) continue;
          const int64_t gid = t.FindOrCreate(rows[p].key(i), rows[p].size(i), h);
          for (size_t a = 0; a < aggregates_.size(); ++a) {
            QUIVER_RETURN_NOT_OK(aggregates_[a].function->combine(
                src.state(i) + state_offsets_[a], t.state(gid) + state_offsets_[a], ctx.pool()));
          }
        }
      }
      return Status::OK();
    }));
  }
  return out;  // `finest` and the states it holds go here
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalHashAggregate::GetGlobalSourceState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new AggSource());
}

Result<SourceResult> PhysicalHashAggregate::GetData(ExecutionContext&, DataChunk* out, GlobalSourceState& gstate,
                                                    LocalSourceState&) const {
  auto& g = static_cast<AggGlobal&>(*sink_state);
  auto& s = static_cast<AggSource&>(gstate);
  // One chunk per claimed slice; slices never span partitions.
  const int64_t i = s.offset.fetch_add(1);
  if (i >= static_cast<int64_t>(g.slices.size())) return SourceResult::kFinished;
  const auto [p, start] = g.slices[static_cast<size_t>(i)];
  const int64_t n = std::min(kVectorSize, g.result_rows[p] - start);
  for (const auto& c : g.result[p]) out->columns.push_back(c->Slice(start, n));
  out->num_rows = n;
  out->batch_index = i;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
