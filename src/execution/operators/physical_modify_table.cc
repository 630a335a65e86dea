#include "execution/operators/physical_modify_table.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "catalog/table_constraints.h"
#include "columnar/batch_util.h"
#include "columnar/builder.h"
#include "common/bit_util.h"
#include "execution/constraint_check.h"
#include "functions/kernel_util.h"

namespace quiver::exec {
namespace {

const char* KindName(PhysicalModifyTable::Kind kind) {
  switch (kind) {
    case PhysicalModifyTable::Kind::kInsert:
      return "INSERT";
    case PhysicalModifyTable::Kind::kUpdate:
      return "UPDATE";
    case PhysicalModifyTable::Kind::kDelete:
      return "DELETE";
  }
  return "?";
}

// Rows written by one thread, tagged with their chunk's batch index so the
// table keeps the scan's order.
struct Part {
  int64_t batch_index;
  int64_t seq;  // arrival order within a thread, to keep equal indices stable
  RecordBatchRef batch;
  std::vector<int64_t> positions;  // positioned: the position of each row
};

struct ModifyGlobal : GlobalSinkState {
  // Positioned: one flag per row of the scanned version, set by the first
  // row to arrive for that position.
  PositionClaims claimed;
  std::mutex mu;
  std::vector<Part> parts;     // GUARDED_BY(mu)
  std::vector<Part> returned;  // GUARDED_BY(mu): RETURNING's rows
  int64_t count = 0;           // GUARDED_BY(mu) until Finalize
};

struct ModifyLocal : LocalSinkState {
  std::vector<Part> parts;
  std::vector<Part> returned;
  int64_t count = 0;
  std::vector<uint32_t> slots;     // scratch: the chunk slots written
  std::vector<uint32_t> affected;  // scratch: the slots counted (RETURNING's rows)
};

struct CountSource : GlobalSourceState {
  std::atomic<bool> done{false};
  size_t next = 0;  // RETURNING: the next batch of ModifyGlobal::returned
  int MaxThreads() const override { return 1; }
};

}  // namespace

Result<std::vector<RecordBatchRef>> MergeByPosition(const SchemaRef& schema,
                                                    const TableVersion& base,
                                                    std::vector<PositionedRows> parts,
                                                    bool update) {
  // The new rows, one batch; where each position's new row is (-1: none).
  std::vector<int64_t> source(static_cast<size_t>(base.num_rows), -1);
  std::vector<RecordBatchRef> pieces;
  int64_t at = 0;
  for (PositionedRows& p : parts) {
    for (size_t j = 0; j < p.positions.size(); ++j) {
      source[static_cast<size_t>(p.positions[j])] = at + static_cast<int64_t>(j);
    }
    at += static_cast<int64_t>(p.positions.size());
    if (update) pieces.push_back(std::move(p.batch));
  }
  RecordBatchRef updated;
  if (update && !pieces.empty()) {
    QUIVER_ASSIGN_OR_RAISE(updated, ConcatenateBatches(schema, pieces));
  }
  std::vector<RecordBatchRef> out;
  int64_t start = 0;
  std::vector<uint32_t> picked;
  std::vector<uint32_t> index;
  for (const RecordBatchRef& b : base.batches) {
    const int64_t n = b->num_rows();
    const int64_t* src = source.data() + start;
    start += n;
    int64_t touched = 0;
    for (int64_t r = 0; r < n; ++r) touched += src[r] >= 0;
    if (touched == 0) {
      out.push_back(b);
      continue;
    }
    std::vector<ArrayRef> cols;
    if (!update) {
      // DELETE: the rows not deleted.
      if (touched == n) continue;
      index.clear();
      for (int64_t r = 0; r < n; ++r) {
        if (src[r] < 0) index.push_back(static_cast<uint32_t>(r));
      }
      for (const ArrayRef& c : b->columns()) {
        QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, index.data(),
                                                           static_cast<int64_t>(index.size()),
                                                           DefaultMemoryPool()));
        cols.push_back(std::move(a));
      }
      out.push_back(RecordBatch::Make(schema, static_cast<int64_t>(index.size()), std::move(cols)));
      continue;
    }
    // UPDATE: the batch's rows and its new ones side by side, then each
    // position picks its row.
    picked.clear();
    index.clear();
    for (int64_t r = 0; r < n; ++r) {
      if (src[r] < 0) {
        index.push_back(static_cast<uint32_t>(r));
      } else {
        index.push_back(static_cast<uint32_t>(n + static_cast<int64_t>(picked.size())));
        picked.push_back(static_cast<uint32_t>(src[r]));
      }
    }
    std::vector<ArrayRef> fresh;
    for (const ArrayRef& c : updated->columns()) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, picked.data(),
                                                         static_cast<int64_t>(picked.size()),
                                                         DefaultMemoryPool()));
      fresh.push_back(std::move(a));
    }
    QUIVER_ASSIGN_OR_RAISE(
        RecordBatchRef both,
        ConcatenateBatches(schema, {b, RecordBatch::Make(schema, static_cast<int64_t>(picked.size()),
                                                         std::move(fresh))}));
    for (const ArrayRef& c : both->columns()) {
      QUIVER_ASSIGN_OR_RAISE(ArrayRef a, kernels::Gather(c, index.data(), n, DefaultMemoryPool()));
      cols.push_back(std::move(a));
    }
    out.push_back(RecordBatch::Make(schema, n, std::move(cols)));
  }
  return out;
}

namespace {

void SortParts(std::vector<Part>* parts) {
  std::stable_sort(parts->begin(), parts->end(), [](const Part& a, const Part& b) {
    return a.batch_index < b.batch_index || (a.batch_index == b.batch_index && a.seq < b.seq);
  });
}

}  // namespace

PhysicalModifyTable::PhysicalModifyTable(Kind kind, std::shared_ptr<MemoryTable> table,
                                         std::vector<TypeRef> returning,
                                         std::shared_ptr<const TableVersion> positioned)
    : PhysicalOperator(KindName(kind),
                       returning.empty() ? std::vector<TypeRef>{int64()} : returning),
      kind_(kind),
      table_(std::move(table)),
      num_returning_(static_cast<int>(returning.size())),
      positioned_(std::move(positioned)) {
  const TableConstraints* c = table_->constraints().get();
  if (kind_ != Kind::kDelete && c != nullptr) num_checks_ = static_cast<int>(c->checks.size());
}

int PhysicalModifyTable::first_returning() const {
  return table_->schema()->num_fields() + (kind_ == Kind::kInsert ? 0 : 1);
}

int PhysicalModifyTable::input_width() const {
  return first_returning() + num_returning_ + num_checks_;
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalModifyTable::GetGlobalSinkState(
    ExecutionContext&) const {
  auto g = std::make_unique<ModifyGlobal>();
  if (positioned_ != nullptr) {
    g->claimed.Reset(positioned_->num_rows);
  }
  return std::unique_ptr<GlobalSinkState>(std::move(g));
}

Result<std::unique_ptr<LocalSinkState>> PhysicalModifyTable::GetLocalSinkState(ExecutionContext&,
                                                                               GlobalSinkState&,
                                                                               int) const {
  return std::unique_ptr<LocalSinkState>(new ModifyLocal());
}

Status PhysicalModifyTable::Sink(ExecutionContext&, DataChunk& input, GlobalSinkState& gstate,
                                 LocalSinkState& lstate) const {
  auto& l = static_cast<ModifyLocal&>(lstate);
  auto& g = static_cast<ModifyGlobal&>(gstate);
  const Schema& schema = *table_->schema();
  const int width = schema.num_fields();
  const uint32_t* sel = input.sel_data();
  if (input.num_columns() != input_width()) {
    return Status::UnknownError("internal error: {} of \"{}\" got {} columns, expected {}", name_,
                                table_->name(), input.num_columns(), input_width());
  }
  // The chunk slots to write: all rows, except DELETE's matched ones; and
  // the slots counted (RETURNING's).
  l.slots.clear();
  l.affected.clear();
  std::vector<int64_t> positions;
  if (kind_ == Kind::kInsert) {
    for (int64_t i = 0; i < input.num_rows; ++i)
      l.slots.push_back(sel != nullptr ? sel[i] : static_cast<uint32_t>(i));
    l.count += input.num_rows;
    l.affected = l.slots;
  } else if (positioned_ != nullptr) {
    // Each position's first row is written, the others dropped.
    const ArrayData& pos = *input.columns[static_cast<size_t>(width)];
    const int64_t* values = pos.GetValues<int64_t>(1);
    for (int64_t i = 0; i < input.num_rows; ++i) {
      const uint32_t slot = sel != nullptr ? sel[i] : static_cast<uint32_t>(i);
      const int64_t p = values[slot];
      QUIVER_ASSIGN_OR_RAISE(const bool first, g.claimed.Claim(p));
      if (!first) continue;
      ++l.count;
      l.affected.push_back(slot);
      l.slots.push_back(slot);
      positions.push_back(p);
    }
  } else {
    const ArrayData& matched = *input.columns[static_cast<size_t>(width)];
    for (int64_t i = 0; i < input.num_rows; ++i) {
      const uint32_t slot = sel != nullptr ? sel[i] : static_cast<uint32_t>(i);
      // The planner makes the column non-null (IS TRUE); NULL counts as no match.
      const bool hit = matched.IsValid(slot) &&
                       bit_util::GetBit(matched.GetRaw<uint8_t>(1), matched.offset + slot);
      if (hit) {
        ++l.count;
        l.affected.push_back(slot);
      }
      if (!hit || kind_ == Kind::kUpdate) l.slots.push_back(slot);
    }
  }
  // Only the rows the statement writes (an UPDATE's changed ones) are
  // checked, as PostgreSQL does.
  if (num_checks_ > 0) {
    QUIVER_RETURN_NOT_OK(CheckRowConstraints(*table_, input, l.affected, 0,
                                             first_returning() + num_returning_, num_checks_,
                                             /*not_null=*/false));
  }
  if (num_returning_ > 0 && !l.affected.empty()) {
    // RETURNING's values of the rows counted, copied out of the chunk.
    const auto m = static_cast<int64_t>(l.affected.size());
    std::vector<ArrayRef> cols;
    std::vector<FieldRef> fields;
    for (int k = 0; k < num_returning_; ++k) {
      QUIVER_ASSIGN_OR_RAISE(
          ArrayRef a, kernels::Gather(input.columns[static_cast<size_t>(first_returning() + k)],
                                      l.affected.data(), m, DefaultMemoryPool()));
      fields.push_back(field("r" + std::to_string(k), types_[static_cast<size_t>(k)]));
      cols.push_back(std::move(a));
    }
    l.returned.push_back({input.batch_index, static_cast<int64_t>(l.returned.size()),
                          RecordBatch::Make(quiver::schema(std::move(fields)), m, std::move(cols)), {}});
  }
  if (l.slots.empty()) return Status::OK();
  const auto n = static_cast<int64_t>(l.slots.size());
  if (positioned_ != nullptr && kind_ == Kind::kDelete) {
    // Only the positions are needed.
    l.parts.push_back({input.batch_index, static_cast<int64_t>(l.parts.size()), nullptr,
                       std::move(positions)});
    return Status::OK();
  }
  // Every row of a chunk without selection: its columns are kept as they
  // are (an UPDATE's unchanged columns stay the table's own buffers; those
  // of the query's pool outlive it, see MemoryPool::ReleaseWhenUnused).
  // Otherwise the written rows are copied into the default pool.
  const bool dense = sel == nullptr && n == input.num_rows;
  std::vector<ArrayRef> cols;
  cols.reserve(static_cast<size_t>(width));
  for (int c = 0; c < width; ++c) {
    QUIVER_ASSIGN_OR_RAISE(
        ArrayRef a, kernels::Gather(input.columns[static_cast<size_t>(c)],
                                    dense ? nullptr : l.slots.data(), n, DefaultMemoryPool()));
    if (!schema.field(c)->nullable && a->GetNullCount() > 0) {
      // The first row with the NULL, reported as PostgreSQL does.
      QUIVER_RETURN_NOT_OK(CheckRowConstraints(*table_, input, l.slots, 0, 0, 0, true));
    }
    cols.push_back(std::move(a));
  }
  l.parts.push_back({input.batch_index, static_cast<int64_t>(l.parts.size()),
                     RecordBatch::Make(table_->schema(), n, std::move(cols)),
                     std::move(positions)});
  return Status::OK();
}

Status PhysicalModifyTable::Combine(ExecutionContext&, GlobalSinkState& gstate,
                                    LocalSinkState& lstate) const {
  auto& g = static_cast<ModifyGlobal&>(gstate);
  auto& l = static_cast<ModifyLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (auto& p : l.parts) g.parts.push_back(std::move(p));
  for (auto& p : l.returned) g.returned.push_back(std::move(p));
  g.count += l.count;
  return Status::OK();
}

Status PhysicalModifyTable::Finalize(ExecutionContext&, GlobalSinkState& gstate) const {
  auto& g = static_cast<ModifyGlobal&>(gstate);
  SortParts(&g.parts);
  SortParts(&g.returned);
  if (positioned_ != nullptr) {
    return table_->Commit([&](const TableVersionRef& current,
                              std::shared_ptr<void>* state) -> Result<TableVersionRef> {
      // The version scanned, or the one whose rows it holds in memory.
      if (current != positioned_ && current.get() != positioned_->same_rows_as) {
        return Status::Invalid(
                   "could not serialize access due to concurrent update (table \"{}\" was "
                   "written by another statement since this one read it)",
                   table_->name())
            .WithSqlState("40001");
      }
      const bool update = kind_ == Kind::kUpdate;
      std::vector<PositionedRows> parts;
      for (Part& p : g.parts) parts.push_back({std::move(p.batch), std::move(p.positions)});
      QUIVER_ASSIGN_OR_RAISE(
          std::vector<RecordBatchRef> batches,
          MergeByPosition(table_->schema(), *positioned_, std::move(parts), update));
      if (!update) return MemoryTable::MakeVersion(table_->schema(), std::move(batches));
      return CommitRows(*table_, current, state, std::move(batches), /*replace=*/true);
    });
  }
  std::vector<RecordBatchRef> batches;
  batches.reserve(g.parts.size());
  for (auto& p : g.parts) batches.push_back(std::move(p.batch));
  g.parts.clear();
  // The table's next version, published only once the unique constraints
  // hold for the whole statement (execution/constraint_check.h).
  const bool replace = kind_ != Kind::kInsert;
  const bool check = kind_ != Kind::kDelete;
  return table_->Commit([&](const TableVersionRef& current, std::shared_ptr<void>* state) {
    if (!check) return MemoryTable::MakeVersion(table_->schema(), std::move(batches));
    return CommitRows(*table_, current, state, std::move(batches), replace);
  });
}

Result<std::unique_ptr<GlobalSourceState>> PhysicalModifyTable::GetGlobalSourceState(
    ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new CountSource());
}

Result<SourceResult> PhysicalModifyTable::GetData(ExecutionContext&, DataChunk* out,
                                                  GlobalSourceState& gstate,
                                                  LocalSourceState&) const {
  auto& s = static_cast<CountSource&>(gstate);
  const auto& g = static_cast<const ModifyGlobal&>(*sink_state);
  if (num_returning_ > 0) {
    if (s.next >= g.returned.size()) return SourceResult::kFinished;
    const Part& p = g.returned[s.next];
    out->columns = p.batch->columns();
    out->num_rows = p.batch->num_rows();
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
