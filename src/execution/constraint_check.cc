#include "execution/constraint_check.h"

#include "catalog/table_constraints.h"
#include "common/bit_util.h"
#include "execution/group_table.h"
#include "vector/value.h"

namespace quiver::exec {
namespace {

struct UniqueIndex {
  explicit UniqueIndex(KeyLayout l)
      : layout(std::move(l)),
        keys(std::make_unique<GroupTable>(nullptr, nullptr, 0, layout.fixed_width)) {}
  KeyLayout layout;
  std::unique_ptr<GroupTable> keys;
};

// The writer state: the keys of `version`'s rows, one index per constraint.
struct UniqueState {
  TableVersionRef version;
  std::vector<UniqueIndex> indexes;
};

std::string ValueText(const ArrayData& a, int64_t row) {
  const Value v = ValueFromArray(a, row);
  return v.is_null() ? "null" : v.ToString();
}

// Adds the keys of `batch` to `index`; with `report`, the first key already
// present is the error (without, duplicates are impossible: the stored rows
// were checked when written).
Status AddKeys(const MemoryTable& table, const UniqueConstraint& c, UniqueIndex* index,
               const RecordBatch& batch, bool report) {
  const int64_t rows = batch.num_rows();
  std::vector<uint32_t> sel(static_cast<size_t>(kVectorSize));
  std::vector<uint64_t> hashes(static_cast<size_t>(kVectorSize));
  std::vector<int64_t> gids(static_cast<size_t>(kVectorSize));
  KeyRows keys;
  for (int64_t start = 0; start < rows; start += kVectorSize) {
    const int64_t n = std::min(kVectorSize, rows - start);
    // The rows whose key has no NULL.
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
      bool has_null = false;
      for (int col : c.columns) has_null |= !batch.column(col)->IsValid(start + i);
      if (!has_null) sel[static_cast<size_t>(m++)] = static_cast<uint32_t>(start + i);
    }
    if (m == 0) continue;
    std::vector<VectorRef> cols;
    for (int col : c.columns) cols.push_back(VectorRef{batch.column(col).get(), sel.data(), false});
    SerializeKeys(index->layout, cols, m, &keys);
    for (int64_t i = 0; i < m; ++i) hashes[static_cast<size_t>(i)] = HashKey(keys.key(i), keys.size(i));
    int64_t next = index->keys->size();
    index->keys->FindOrCreateAll(keys, hashes.data(), m, gids.data());
    for (int64_t i = 0; i < m; ++i) {
      if (gids[static_cast<size_t>(i)] == next) {
        ++next;
        continue;
      }
      if (!report) continue;
      const int64_t row = sel[static_cast<size_t>(i)];
      std::string names;
      std::string values;
      for (size_t k = 0; k < c.columns.size(); ++k) {
        if (k > 0) {
          names += ", ";
          values += ", ";
        }
        names += table.schema()->field(c.columns[k])->name;
        values += ValueText(*batch.column(c.columns[k]), row);
      }
      return Status::Invalid("duplicate key value violates unique constraint \"{}\"", c.name)
          .WithSqlState(sqlstate::kUniqueViolation)
          .WithDetail(fmt::format("Key ({})=({}) already exists.", names, values));
    }
  }
  return Status::OK();
}

Result<std::shared_ptr<UniqueState>> BuildState(const MemoryTable& table,
                                                const TableConstraints& constraints,
                                                const std::vector<RecordBatchRef>& batches,
                                                bool report) {
  auto state = std::make_shared<UniqueState>();
  for (const UniqueConstraint& c : constraints.unique) {
    std::vector<TypeRef> types;
    for (int col : c.columns) types.push_back(table.schema()->field(col)->type);
    state->indexes.emplace_back(KeyLayout(std::move(types)));
    for (const auto& b : batches) {
      QUIVER_RETURN_NOT_OK(AddKeys(table, c, &state->indexes.back(), *b, report));
    }
  }
  return state;
}

}  // namespace

Result<TableVersionRef> CommitRows(const MemoryTable& table, const TableVersionRef& current,
                                   std::shared_ptr<void>* writer_state,
                                   std::vector<RecordBatchRef> rows, bool replace) {
  const TableConstraints* constraints = table.constraints().get();
  if (constraints == nullptr || constraints->unique.empty()) {
    if (replace) return MemoryTable::MakeVersion(table.schema(), std::move(rows));
    return MemoryTable::AppendTo(table.schema(), current, std::move(rows));
  }
  if (replace) {
    // Every row is new: the index is built from them, duplicates reported.
    QUIVER_ASSIGN_OR_RAISE(auto state, BuildState(table, *constraints, rows, true));
    QUIVER_ASSIGN_OR_RAISE(TableVersionRef next,
                           MemoryTable::MakeVersion(table.schema(), std::move(rows)));
    state->version = next;
    *writer_state = state;
    return next;
  }
  auto state = std::static_pointer_cast<UniqueState>(*writer_state);
  // The index of the version a store was given serves the stored version
  // made from it (state->version keeps it alive, so the pointers compare
  // true only for that version).
  if (state == nullptr ||
      (state->version != current && current->stored_from != state->version.get())) {
    // A --db table's rows are read from its files for the keys.
    QUIVER_ASSIGN_OR_RAISE(TableVersionRef full, MemoryTable::Materialize(table.schema(), current));
    QUIVER_ASSIGN_OR_RAISE(state, BuildState(table, *constraints, full->batches, false));
    state->version = current;
  }
  // From here the index is changed in place: a failure leaves it holding
  // keys of rows that were not written, so it is dropped first and kept
  // only once the commit succeeds.
  writer_state->reset();
  for (size_t k = 0; k < constraints->unique.size(); ++k) {
    for (const auto& b : rows) {
      QUIVER_RETURN_NOT_OK(
          AddKeys(table, constraints->unique[k], &state->indexes[k], *b, true));
    }
  }
  QUIVER_ASSIGN_OR_RAISE(TableVersionRef next,
                         MemoryTable::AppendTo(table.schema(), current, std::move(rows)));
  state->version = next;
  *writer_state = state;
  return next;
}

std::string FormatFailingRow(const std::vector<const ArrayData*>& columns, int64_t row) {
  std::string out = "(";
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) out += ", ";
    const Value v = ValueFromArray(*columns[c], row);
    if (v.is_null()) {
      out += "null";
      continue;
    }
    out += v.ToString();
  }
  return out + ")";
}

Status CheckRowConstraints(const MemoryTable& table, const DataChunk& input,
                           const std::vector<uint32_t>& slots, int first, int first_check,
                           int num_checks, bool not_null) {
  const Schema& schema = *table.schema();
  const int width = schema.num_fields();
  auto failing_row = [&](uint32_t slot) {
    std::vector<const ArrayData*> row;
    for (int c = 0; c < width; ++c) row.push_back(input.columns[static_cast<size_t>(first + c)].get());
    return "Failing row contains " + FormatFailingRow(row, slot) + ".";
  };
  for (int c = 0; not_null && c < width; ++c) {
    if (schema.field(c)->nullable) continue;
    const ArrayData& a = *input.columns[static_cast<size_t>(first + c)];
    for (const uint32_t slot : slots) {
      if (a.IsValid(slot)) continue;
      return Status::Invalid(
                 "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                 schema.field(c)->name, table.name())
          .WithSqlState(sqlstate::kNotNullViolation)
          .WithDetail(failing_row(slot));
    }
  }
  for (int k = 0; k < num_checks; ++k) {
    const ArrayData& ok = *input.columns[static_cast<size_t>(first_check + k)];
    for (const uint32_t slot : slots) {
      if (!ok.IsValid(slot) || bit_util::GetBit(ok.GetRaw<uint8_t>(1), ok.offset + slot)) continue;
      return Status::Invalid("new row for relation \"{}\" violates check constraint \"{}\"",
                             table.name(), table.constraints()->checks[static_cast<size_t>(k)].name)
          .WithSqlState(sqlstate::kCheckViolation)
          .WithDetail(failing_row(slot));
    }
  }
  return Status::OK();
}

void PositionClaims::Reset(int64_t num_positions) {
  size_ = num_positions;
  flags_ = std::make_unique<std::atomic<uint8_t>[]>(static_cast<size_t>(num_positions));
  for (int64_t i = 0; i < num_positions; ++i) flags_[static_cast<size_t>(i)] = 0;
}

Result<bool> PositionClaims::Claim(int64_t p) {
  if (p < 0 || p >= size_) {
    return Status::UnknownError("internal error: row position {} of {}", p, size_);
  }
  return flags_[static_cast<size_t>(p)].exchange(1) == 0;
}

}  // namespace quiver::exec
