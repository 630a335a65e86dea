#include "execution/operators/physical_modify_table.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "catalog/table_constraints.h"
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
};

struct ModifyGlobal : GlobalSinkState {
  std::mutex mu;
  std::vector<Part> parts;  // GUARDED_BY(mu)
  int64_t count = 0;        // GUARDED_BY(mu) until Finalize
};

struct ModifyLocal : LocalSinkState {
  std::vector<Part> parts;
  int64_t count = 0;
  std::vector<uint32_t> slots;  // scratch: the chunk slots written
};

struct CountSource : GlobalSourceState {
  std::atomic<bool> done{false};
  int MaxThreads() const override { return 1; }
};

}  // namespace

PhysicalModifyTable::PhysicalModifyTable(Kind kind, std::shared_ptr<MemoryTable> table)
    : PhysicalOperator(KindName(kind), {int64()}), kind_(kind), table_(std::move(table)) {
  const TableConstraints* c = table_->constraints().get();
  if (kind_ != Kind::kDelete && c != nullptr) num_checks_ = static_cast<int>(c->checks.size());
}

Status PhysicalModifyTable::CheckChecks(const DataChunk& input) const {
  const int width = table_->schema()->num_fields();
  const int first = width + (kind_ == Kind::kInsert ? 0 : 1);
  const uint32_t* sel = input.sel_data();
  for (int k = 0; k < num_checks_; ++k) {
    const ArrayData& ok = *input.columns[static_cast<size_t>(first + k)];
    for (int64_t i = 0; i < input.num_rows; ++i) {
      const uint32_t slot = sel != nullptr ? sel[i] : static_cast<uint32_t>(i);
      if (!ok.IsValid(slot) || bit_util::GetBit(ok.GetRaw<uint8_t>(1), ok.offset + slot)) continue;
      if (kind_ == Kind::kUpdate) {
        // Only the rows the UPDATE changes are checked, as PostgreSQL does.
        const ArrayData& matched = *input.columns[static_cast<size_t>(width)];
        if (!matched.IsValid(slot) ||
            !bit_util::GetBit(matched.GetRaw<uint8_t>(1), matched.offset + slot))
          continue;
      }
      std::vector<const ArrayData*> row;
      for (int c = 0; c < width; ++c) row.push_back(input.columns[static_cast<size_t>(c)].get());
      return Status::Invalid("new row for relation \"{}\" violates check constraint \"{}\"",
                             table_->name(), table_->constraints()->checks[k].name)
          .WithSqlState(sqlstate::kCheckViolation)
          .WithDetail("Failing row contains " + FormatFailingRow(row, slot) + ".");
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<GlobalSinkState>> PhysicalModifyTable::GetGlobalSinkState(
    ExecutionContext&) const {
  return std::unique_ptr<GlobalSinkState>(new ModifyGlobal());
}

Result<std::unique_ptr<LocalSinkState>> PhysicalModifyTable::GetLocalSinkState(ExecutionContext&,
                                                                               GlobalSinkState&,
                                                                               int) const {
  return std::unique_ptr<LocalSinkState>(new ModifyLocal());
}

Status PhysicalModifyTable::Sink(ExecutionContext&, DataChunk& input, GlobalSinkState&,
                                 LocalSinkState& lstate) const {
  auto& l = static_cast<ModifyLocal&>(lstate);
  const Schema& schema = *table_->schema();
  const int width = schema.num_fields();
  const uint32_t* sel = input.sel_data();
  // The chunk slots to write: all rows, except DELETE's matched ones.
  l.slots.clear();
  if (kind_ == Kind::kInsert) {
    for (int64_t i = 0; i < input.num_rows; ++i)
      l.slots.push_back(sel != nullptr ? sel[i] : static_cast<uint32_t>(i));
    l.count += input.num_rows;
  } else {
    if (input.num_columns() != width + 1 + num_checks_) {
      return Status::UnknownError("internal error: {} of \"{}\" got {} columns, expected {}", name_,
                                  table_->name(), input.num_columns(), width + 1 + num_checks_);
    }
    const ArrayData& matched = *input.columns[static_cast<size_t>(width)];
    for (int64_t i = 0; i < input.num_rows; ++i) {
      const uint32_t slot = sel != nullptr ? sel[i] : static_cast<uint32_t>(i);
      // The planner makes the column non-null (IS TRUE); NULL counts as no match.
      const bool hit = matched.IsValid(slot) &&
                       bit_util::GetBit(matched.GetRaw<uint8_t>(1), matched.offset + slot);
      if (hit) ++l.count;
      if (!hit || kind_ == Kind::kUpdate) l.slots.push_back(slot);
    }
  }
  if (num_checks_ > 0) QUIVER_RETURN_NOT_OK(CheckChecks(input));
  if (l.slots.empty()) return Status::OK();
  const auto n = static_cast<int64_t>(l.slots.size());
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
      // The first row with the NULL, for PostgreSQL's DETAIL.
      int64_t r = 0;
      while (r < n && a->IsValid(r)) ++r;
      std::vector<const ArrayData*> row;
      for (int k = 0; k < width; ++k) row.push_back(input.columns[static_cast<size_t>(k)].get());
      const uint32_t slot = dense ? static_cast<uint32_t>(r) : l.slots[static_cast<size_t>(r)];
      return Status::Invalid(
                 "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                 schema.field(c)->name, table_->name())
          .WithSqlState(sqlstate::kNotNullViolation)
          .WithDetail("Failing row contains " + FormatFailingRow(row, slot) + ".");
    }
    cols.push_back(std::move(a));
  }
  l.parts.push_back({input.batch_index, static_cast<int64_t>(l.parts.size()),
                     RecordBatch::Make(table_->schema(), n, std::move(cols))});
  return Status::OK();
}

Status PhysicalModifyTable::Combine(ExecutionContext&, GlobalSinkState& gstate,
                                    LocalSinkState& lstate) const {
  auto& g = static_cast<ModifyGlobal&>(gstate);
  auto& l = static_cast<ModifyLocal&>(lstate);
  std::lock_guard<std::mutex> lock(g.mu);
  for (auto& p : l.parts) g.parts.push_back(std::move(p));
  g.count += l.count;
  return Status::OK();
}

Status PhysicalModifyTable::Finalize(ExecutionContext&, GlobalSinkState& gstate) const {
  auto& g = static_cast<ModifyGlobal&>(gstate);
  std::stable_sort(g.parts.begin(), g.parts.end(), [](const Part& a, const Part& b) {
    return a.batch_index < b.batch_index || (a.batch_index == b.batch_index && a.seq < b.seq);
  });
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
  if (s.done.exchange(true)) return SourceResult::kFinished;
  const auto& g = static_cast<const ModifyGlobal&>(*sink_state);
  Int64Builder b(int64());
  QUIVER_RETURN_NOT_OK(b.Append(g.count));
  QUIVER_ASSIGN_OR_RAISE(ArrayRef a, b.Finish());
  out->columns.push_back(std::move(a));
  out->num_rows = 1;
  out->batch_index = 0;
  return SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
