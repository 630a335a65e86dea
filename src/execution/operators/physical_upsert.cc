#include "execution/operators/physical_upsert.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "catalog/table_constraints.h"
#include "columnar/batch_util.h"
#include "columnar/builder.h"
#include "common/bit_util.h"
#include "execution/constraint_check.h"
#include "execution/group_table.h"
#include "execution/operators/physical_modify_table.h"
#include "functions/kernel_util.h"

namespace quiver::exec {
namespace {

// The rows one chunk proposes to write: each row's position (-1: insert)
// and RETURNING's values of the same rows.
struct Part {
  int64_t batch_index;
  int64_t seq;
  RecordBatchRef rows;
  std::vector<int64_t> positions;
  RecordBatchRef returned;  // null without RETURNING
};

struct UpsertGlobal : GlobalSinkState {
  PositionClaims claimed;  // per position of the joined version
  std::mutex mu;
  std::vector<Part> parts;  // GUARDED_BY(mu)
  int64_t count = 0;        // set by Finalize
  std::vector<RecordBatchRef> returned;
};

struct UpsertLocal : LocalSinkState {
  std::vector<Part> parts;
  std::vector<uint32_t> all;
  std::vector<uint32_t> slots;
  std::vector<uint32_t> updated;
};

struct UpsertSource : GlobalSourceState {
  std::atomic<bool> done{false};
  size_t next = 0;
  int MaxThreads() const override { return 1; }
};

bool IsTrue(const ArrayData& a, uint32_t slot) {
  return a.IsValid(slot) && bit_util::GetBit(a.GetRaw<uint8_t>(1), a.offset + slot);
}

Status AffectTwice() {
  return Status::Invalid("ON CONFLICT DO UPDATE command cannot affect row a second time")
      .WithSqlState(sqlstate::kCardinalityViolation)
      .WithHint(
          "Ensure that no rows proposed for insertion within the same command have duplicate "
          "constrained values.");
}

Result<RecordBatchRef> Take(const RecordBatchRef& b, const std::vector<uint32_t>& rows) {
  std::vector<ArrayRef> cols;
  for (const ArrayRef& c : b->columns()) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, rows.data(),
                                                       static_cast<int64_t>(rows.size()),
                                                       DefaultMemoryPool()));
    cols.push_back(std::move(a));
  }
  return RecordBatch::Make(b->schema(), static_cast<int64_t>(rows.size()), std::move(cols));
}

}  // namespace

PhysicalUpsert::PhysicalUpsert(std::shared_ptr<MemoryTable> table,
                               std::shared_ptr<const TableVersion> positioned, bool update,
                               std::vector<std::vector<int>> keys, std::vector<TypeRef> returning)
    : PhysicalOperator("INSERT", returning.empty() ? std::vector<TypeRef>{int64()} : returning),
      table_(std::move(table)),
      positioned_(std::move(positioned)),
      update_(update),
      keys_(std::move(keys)),
      num_returning_(static_cast<int>(returning.size())) {
  const TableConstraints* c = table_->constraints().get();
  if (c != nullptr) num_checks_ = static_cast<int>(c->checks.size());
}

std::string PhysicalUpsert::ParamsToString() const {
  return table_->name() + (update_ ? " ON CONFLICT DO UPDATE" : " ON CONFLICT DO NOTHING");
}

int PhysicalUpsert::input_width() const {
  return 2 * table_->schema()->num_fields() + 2 + num_returning_ + 2 * num_checks_;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalUpsert::GetGlobalSinkState(
    ExecutionContext&) const {
  auto g = std::make_unique<UpsertGlobal>();
  g->claimed.Reset(positioned_->num_rows);
  return std::unique_ptr<GlobalSinkState>(std::move(g));
}

Result<std::unique_ptr<LocalSinkState>> PhysicalUpsert::GetLocalSinkState(ExecutionContext&,
                                                                          GlobalSinkState&,
                                                                          int) const {
  return std::unique_ptr<LocalSinkState>(new UpsertLocal());
}

Status PhysicalUpsert::Sink(ExecutionContext&, DataChunk& input, GlobalSinkState& gstate,
                            LocalSinkState& lstate) const {
  auto& g = static_cast<UpsertGlobal&>(gstate);
  auto& l = static_cast<UpsertLocal&>(lstate);
  const int width = table_->schema()->num_fields();
  if (input.num_columns() != input_width()) {
    return Status::UnknownError("internal error: INSERT ON CONFLICT got {} columns, expected {}",
                                input.num_columns(), input_width());
  }
  const int first_returning = 2 * width + 2;
  const int first_check = first_returning + num_returning_;
  const uint32_t* sel = input.sel_data();
  l.all.clear();
  for (int64_t i = 0; i < input.num_rows; ++i)
    l.all.push_back(sel != nullptr ? sel[i] : static_cast<uint32_t>(i));
  // The proposed rows, whatever becomes of them.
  QUIVER_RETURN_NOT_OK(CheckRowConstraints(*table_, input, l.all, width + 2,
                                           first_check + num_checks_, num_checks_, true));
  const ArrayData& ctid = *input.columns[static_cast<size_t>(width)];
  const ArrayData& matched = *input.columns[static_cast<size_t>(width + 1)];
  const int64_t* pos = ctid.GetValues<int64_t>(1);
  l.slots.clear();
  l.updated.clear();
  std::vector<int64_t> positions;
  for (const uint32_t slot : l.all) {
    if (!ctid.IsValid(slot)) {
      l.slots.push_back(slot);
      positions.push_back(-1);
      continue;
    }
    if (!update_ || !IsTrue(matched, slot)) continue;
    const int64_t p = pos[slot];
    QUIVER_ASSIGN_OR_RAISE(const bool first, g.claimed.Claim(p));
    if (!first) return AffectTwice();
    l.slots.push_back(slot);
    l.updated.push_back(slot);
    positions.push_back(p);
  }
  if (!l.updated.empty()) {
    QUIVER_RETURN_NOT_OK(
        CheckRowConstraints(*table_, input, l.updated, 0, first_check, num_checks_, true));
  }
  if (l.slots.empty()) return Status::OK();
  const auto n = static_cast<int64_t>(l.slots.size());
  std::vector<ArrayRef> cols;
  for (int c = 0; c < width; ++c) {
    QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(input.columns[static_cast<size_t>(c)],
                                                       l.slots.data(), n, DefaultMemoryPool()));
    cols.push_back(std::move(a));
  }
  Part part{input.batch_index, static_cast<int64_t>(l.parts.size()),
            RecordBatch::Make(table_->schema(), n, std::move(cols)), std::move(positions),
            nullptr};
  if (num_returning_ > 0) {
    std::vector<ArrayRef> rcols;
    std::vector<FieldRef> fields;
    for (int k = 0; k < num_returning_; ++k) {
      QUIVER_ASSIGN_OR_RAISE(
          ArrayRef a, kernels::Gather(input.columns[static_cast<size_t>(first_returning + k)],
                                      l.slots.data(), n, DefaultMemoryPool()));
      fields.push_back(field("r" + std::to_string(k), types_[static_cast<size_t>(k)]));
      rcols.push_back(std::move(a));
    }
    part.returned = RecordBatch::Make(quiver::schema(std::move(fields)), n, std::move(rcols));
  }
  l.parts.push_back(std::move(part));
  return Status::OK();
}

Status PhysicalUpsert::Combine(ExecutionContext&, GlobalSinkState& gstate,
                               LocalSinkState& lstate) const {
  auto& g = static_cast<UpsertGlobal&>(gstate);
  auto& l = static_cast<UpsertLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (auto& p : l.parts) g.parts.push_back(std::move(p));
  return Status::OK();
}

Status PhysicalUpsert::Finalize(ExecutionContext&, GlobalSinkState& gstate) const {
  auto& g = static_cast<UpsertGlobal&>(gstate);
  std::stable_sort(g.parts.begin(), g.parts.end(), [](const Part& a, const Part& b) {
    return a.batch_index < b.batch_index || (a.batch_index == b.batch_index && a.seq < b.seq);
  });
  // Per arbiter key, a dense id of each insert candidate's key (-1: a NULL
  // in it, which never conflicts), in statement order.
  std::vector<std::vector<int64_t>> ids(keys_.size());
  std::vector<int64_t> group_counts(keys_.size(), 0);
  for (size_t k = 0; k < keys_.size(); ++k) {
    std::vector<TypeRef> types;
    for (int c : keys_[k]) types.push_back(table_->schema()->field(c)->type);
    KeyLayout layout(std::move(types));
    GroupTable groups(nullptr, nullptr, 0, layout.fixed_width);
    std::vector<uint32_t> sel;
    std::vector<uint64_t> hashes;
    std::vector<int64_t> gids;
    KeyRows rows;
    for (const Part& p : g.parts) {
      const RecordBatch& b = *p.rows;
      for (int64_t start = 0; start < b.num_rows(); start += kVectorSize) {
        const int64_t n = std::min(kVectorSize, b.num_rows() - start);
        sel.clear();
        const size_t base = ids[k].size();
        for (int64_t i = start; i < start + n; ++i) {
          if (p.positions[static_cast<size_t>(i)] >= 0) continue;  // an update
          bool has_null = false;
          for (int c : keys_[k]) has_null |= !b.column(c)->IsValid(i);
          // -1: a NULL in the key; else the key's index in `sel`, replaced below.
          ids[k].push_back(has_null ? -1 : static_cast<int64_t>(sel.size()));
          if (!has_null) sel.push_back(static_cast<uint32_t>(i));
        }
        if (sel.empty()) continue;
        const auto m = static_cast<int64_t>(sel.size());
        std::vector<VectorRef> cols;
        for (int c : keys_[k]) cols.push_back(VectorRef{b.column(c).get(), sel.data(), false});
        SerializeKeys(layout, cols, m, &rows);
        hashes.resize(static_cast<size_t>(m));
        gids.resize(static_cast<size_t>(m));
        for (int64_t i = 0; i < m; ++i) hashes[static_cast<size_t>(i)] = HashKey(rows.key(i), rows.size(i));
        groups.FindOrCreateAll(rows, hashes.data(), m, gids.data());
        for (size_t r = base; r < ids[k].size(); ++r) {
          if (ids[k][r] >= 0) ids[k][r] = gids[static_cast<size_t>(ids[k][r])];
        }
      }
    }
    group_counts[k] = groups.size();
  }
  // Which insert candidates are kept.
  std::vector<uint8_t> keep;
  size_t num_candidates = ids.empty() ? 0 : ids[0].size();
  if (keys_.empty()) {
    for (const Part& p : g.parts) {
      for (int64_t q : p.positions) num_candidates += q < 0;
    }
  }
  keep.assign(num_candidates, 1);
  if (!keys_.empty()) {
    std::vector<std::vector<uint8_t>> taken(keys_.size());
    for (size_t k = 0; k < keys_.size(); ++k)
      taken[k].assign(static_cast<size_t>(group_counts[k]), 0);
    for (size_t r = 0; r < num_candidates; ++r) {
      bool dup = false;
      for (size_t k = 0; k < keys_.size(); ++k) {
        const int64_t id = ids[k][r];
        dup |= id >= 0 && taken[k][static_cast<size_t>(id)] != 0;
      }
      if (dup) {
        if (update_) return AffectTwice();
        keep[r] = 0;
        continue;
      }
      for (size_t k = 0; k < keys_.size(); ++k) {
        const int64_t id = ids[k][r];
        if (id >= 0) taken[k][static_cast<size_t>(id)] = 1;
      }
    }
  }
  // The inserts, the updates by position, RETURNING's rows, in order.
  std::vector<RecordBatchRef> inserts;
  std::vector<PositionedRows> updates;
  size_t candidate = 0;
  int64_t count = 0;
  std::vector<uint32_t> ins, upd, ret;
  for (Part& p : g.parts) {
    ins.clear();
    upd.clear();
    ret.clear();
    std::vector<int64_t> positions;
    for (size_t i = 0; i < p.positions.size(); ++i) {
      const auto row = static_cast<uint32_t>(i);
      if (p.positions[i] >= 0) {
        upd.push_back(row);
        ret.push_back(row);
        positions.push_back(p.positions[i]);
      } else if (keep[candidate++] != 0) {
        ins.push_back(row);
        ret.push_back(row);
      }
    }
    count += static_cast<int64_t>(ret.size());
    if (!ins.empty()) {
      if (ins.size() == p.positions.size()) {
        inserts.push_back(p.rows);
      } else {
        QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, Take(p.rows, ins));
        inserts.push_back(std::move(b));
      }
    }
    if (!upd.empty()) {
      QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, Take(p.rows, upd));
      updates.push_back({std::move(b), std::move(positions)});
    }
    if (p.returned != nullptr && !ret.empty()) {
      QUIVER_ASSIGN_OR_RAISE(RecordBatchRef b, Take(p.returned, ret));
      g.returned.push_back(std::move(b));
    }
  }
  g.parts.clear();
  g.count = count;
  return table_->Commit([&](const TableVersionRef& current,
                            std::shared_ptr<void>* state) -> Result<TableVersionRef> {
    // The version joined, or the one whose rows it holds in memory.
    if (current != positioned_ && current.get() != positioned_->same_rows_as) {
      return Status::Invalid(
                 "could not serialize access due to concurrent update (table \"{}\" was written "
                 "by another statement since this one read it)",
                 table_->name())
          .WithSqlState("40001");
    }
    if (updates.empty()) {
      return CommitRows(*table_, current, state, std::move(inserts), /*replace=*/false);
    }
    QUIVER_ASSIGN_OR_RAISE(
        std::vector<RecordBatchRef> batches,
        MergeByPosition(table_->schema(), *positioned_, std::move(updates), /*update=*/true));
    for (auto& b : inserts) batches.push_back(std::move(b));
    return CommitRows(*table_, current, state, std::move(batches), /*replace=*/true);
  });
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalUpsert::GetGlobalSourceState(
    ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new UpsertSource());
}

Result<SourceResult> PhysicalUpsert::GetData(ExecutionContext&, DataChunk* out,
                                             GlobalSourceState& gstate, LocalSourceState&) const {
  auto& s = static_cast<UpsertSource&>(gstate);
  const auto& g = static_cast<const UpsertGlobal&>(*sink_state);
  if (num_returning_ > 0) {
    if (s.next >= g.returned.size()) return SourceResult::kFinished;
    const RecordBatchRef& b = g.returned[s.next];
    out->columns = b->columns();
    out->num_rows = b->num_rows();
    out->batch_index = static_cast<int64_t>(s.next++);
    return SourceResult::kHaveMoreOutput;
  }
  if (s.done.exchange(true)) return SourceResult::kFinished;
  Int64Builder b(int64());
  QUIVER_RETURN_NOT_OK(b.Append(g.count));
  QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b.Finish());
  out->columns.push_back(std::move(a));
  out->num_rows = 1;
  out->batch_index = 0;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
