// INSERT ... ON CONFLICT: a sink that inserts the proposed rows without a
// conflict and, for DO UPDATE, writes the updated rows by position, then a
// source of the count (or RETURNING's rows).
//
// Its input (planner/bind_upsert.cc), per proposed row: the row to write
// (the proposed row, or DO UPDATE's new version of the conflicting row),
// the conflicting row's position in the version the planner joined
// (`positioned`; NULL: no conflict), `matched` (DO UPDATE's WHERE IS TRUE),
// the proposed row, RETURNING's columns, the CHECK columns of the row to
// write, then those of the proposed row.
//
// Sink, per chunk: the proposed row is checked (NOT NULL, CHECK) whatever
// happens to it, as PostgreSQL checks it before looking for a conflict;
// a row without a conflict is an insert candidate; a conflicting one is
// dropped (DO NOTHING, or WHERE not TRUE) or, for DO UPDATE, claims its
// position (a second claim is 21000 "cannot affect row a second time") and
// its new version is checked too.
// Finalize, in statement order (by batch index): the insert candidates'
// arbiter keys are hashed (one GroupTable per key, execution/group_table.h):
// DO NOTHING keeps a candidate unless a kept one before it has an equal key
// on some arbiter (PostgreSQL's second row conflicts with the first),
// DO UPDATE fails with 21000 on any equal pair. Then one commit: the
// inserts appended (no update) or the updates merged by position and the
// inserts appended (MergeByPosition), every PRIMARY KEY / UNIQUE checked
// (CommitRows); 40001 if the table changed since the join read it. A
// failing statement changes nothing.
#pragma once

#include "catalog/table_source.h"
#include "execution/physical_operator.h"

namespace quiver::exec {

class PhysicalUpsert final : public PhysicalOperator {
 public:
  // `keys`: the arbiter keys' columns; `returning`: RETURNING's types.
  PhysicalUpsert(std::shared_ptr<MemoryTable> table, std::shared_ptr<const TableVersion> positioned,
                 bool update, std::vector<std::vector<int>> keys,
                 std::vector<TypeRef> returning);

  // The input's width (see above).
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

  std::string ParamsToString() const override;

 private:
  std::shared_ptr<MemoryTable> table_;
  std::shared_ptr<const TableVersion> positioned_;
  bool update_;
  std::vector<std::vector<int>> keys_;
  int num_checks_ = 0;
  int num_returning_ = 0;
};

}  // namespace quiver::exec
