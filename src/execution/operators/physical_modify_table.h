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
// The table changes only in Finalize, once every row was sunk without
// error and PRIMARY KEY / UNIQUE hold for the whole statement
// (execution/constraint_check.h): INSERT appends, UPDATE and DELETE replace
// all rows (in the scan's order, by batch index) by publishing the table's
// next version, so a failing statement leaves the table as it was.
#pragma once

#include "catalog/table_source.h"
#include "execution/physical_operator.h"

namespace quiver::exec {

class PhysicalModifyTable final : public PhysicalOperator {
 public:
  enum class Kind : int8_t { kInsert, kUpdate, kDelete };

  PhysicalModifyTable(Kind kind, std::shared_ptr<MemoryTable> table);

  Kind kind() const { return kind_; }
  const std::shared_ptr<MemoryTable>& table() const { return table_; }
  int num_checks() const { return num_checks_; }

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
  // The CHECK columns after the table's (and UPDATE's matched) column: one
  // boolean per CHECK constraint, FALSE where a row violates it.
  Status CheckChecks(const DataChunk& input) const;

  Kind kind_;
  std::shared_ptr<MemoryTable> table_;
  int num_checks_ = 0;
};

}  // namespace quiver::exec
