// INSERT, UPDATE and DELETE (and CREATE TABLE AS, an insert into a new
// table): a sink that writes a memory table, then a source of one row, the
// number of rows written (the command tag's figure).
//
// Its input is the table's columns in order (of the table's types); UPDATE
// and DELETE add a last boolean column, TRUE for the rows WHERE selects
// (planner/bind_dml.cc). As rows are sunk the operator
//   - counts them: INSERT every row, UPDATE and DELETE the TRUE ones, in the
//     same pass that writes them (no second scan to count);
//   - drops what is not written: the boolean column; DELETE's TRUE rows;
//   - checks NOT NULL columns ("null value in column "c" of relation "t"
//     violates not-null constraint") and CHECK constraints (the binder
//     computes each as a boolean column after the others);
//   - keeps the columns of a chunk it writes whole as they are (the query's
//     pool outlives the query while they are in use), and copies the rows it
//     writes from other chunks into the default pool.
// With RETURNING, the columns after those (and before the CHECK columns)
// are RETURNING's, computed by the planner over the rows as written (INSERT,
// UPDATE) or deleted; the operator keeps them for the rows it counts and
// yields them, in the table's order, instead of the count.
// UPDATE ... FROM and DELETE ... USING ("positioned"): the column after the
// table's is each row's position in the version the planner scanned
// (PositionedTable) instead of `matched`, and only the rows to write come,
// a row once per source row it joined: the first to arrive of each
// position is kept (PostgreSQL updates such a row with one arbitrary source
// row too), the others are dropped. Finalize then rebuilds only the batches
// of that version that hold written rows (the others are kept as they
// are), and fails with 40001 if the table changed since the scan.
// The table changes only in Finalize, once every row was sunk without
// error and PRIMARY KEY / UNIQUE hold for the whole statement
// (execution/constraint_check.h): INSERT appends, UPDATE and DELETE replace
// all rows (in the scan's order, by batch index) by publishing the table's
// next version, so a failing statement leaves the table as it was.
#pragma once

#include "catalog/table_source.h"
#include "execution/physical_operator.h"

namespace quiver::exec {

// Rows written by position: row j of `batch` replaces (or, deleting, with
// `batch` null, removes) row positions[j] of a version.
struct PositionedRows {
  RecordBatchRef batch;
  std::vector<int64_t> positions;
};

// `base`'s rows with those of `parts` replacing (update) or removing
// (delete) theirs; batches without any are kept as they are.
Result<std::vector<RecordBatchRef>> MergeByPosition(const SchemaRef& schema,
                                                    const TableVersion& base,
                                                    std::vector<PositionedRows> parts,
                                                    bool update);

class PhysicalModifyTable final : public PhysicalOperator {
 public:
  enum class Kind : int8_t { kInsert, kUpdate, kDelete };

  // `returning`: the types of RETURNING's columns; empty: none (the count).
  // `positioned`: UPDATE ... FROM / DELETE ... USING (see below).
  PhysicalModifyTable(Kind kind, std::shared_ptr<MemoryTable> table,
                      std::vector<TypeRef> returning = {},
                      std::shared_ptr<const TableVersion> positioned = nullptr);

  Kind kind() const { return kind_; }
  const std::shared_ptr<MemoryTable>& table() const { return table_; }
  int num_checks() const { return num_checks_; }
  int num_returning() const { return num_returning_; }
  // The input's width: the table's columns, `matched` (UPDATE, DELETE),
  // RETURNING's columns, the CHECK columns.
  int input_width() const;

  bool IsSink() const override { return true; }
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx,
                                                            GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate,
                 LocalSinkState& lstate) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;

  bool IsSource() const override { return true; }
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(
      ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;

  std::string ParamsToString() const override { return table_->name(); }

 private:
  // Index of the first RETURNING column (after the table's and `matched`).
  int first_returning() const;

  Kind kind_;
  std::shared_ptr<MemoryTable> table_;
  int num_checks_ = 0;
  int num_returning_ = 0;
  std::shared_ptr<const TableVersion> positioned_;
};

}  // namespace quiver::exec
