// Table scan: the parallel source over a TableSource.
//
// Morsels are the scan plan's units (IPC record batches, Parquet row groups,
// memory batches): threads claim them with an atomic counter, read them
// (decoding only the referenced columns) and hand them on in slices of
// kVectorSize rows. Sequential inputs (CSV, IPC streams) come after the
// units, one batch at a time under a lock. Runtime join filters published
// by hash joins above skip units by statistics and rows by key range.
//
// batch_index = morsel number << 24 | slice number, so sinks that keep input
// order can restore it.
#pragma once

#include <memory>
#include <vector>

#include "catalog/table_source.h"
#include "execution/physical_operator.h"
#include "execution/runtime_filter.h"

namespace quiver::exec {

class PhysicalTableScan final : public PhysicalOperator {
 public:
  PhysicalTableScan(std::vector<TypeRef> types, std::shared_ptr<TableSource> table, ScanRequest request,
                    std::vector<std::string> column_names)
      : PhysicalOperator("SCAN", std::move(types)),
        table_(std::move(table)),
        request_(std::move(request)),
        column_names_(std::move(column_names)) {}

  bool IsSource() const override { return true; }
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSourceState>> GetLocalSourceState(ExecutionContext& ctx,
                                                                GlobalSourceState& gstate) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;
  void StopNewMorsels(GlobalSourceState& gstate) const override;
  std::string ParamsToString() const override;

  void AddRuntimeFilter(std::shared_ptr<RuntimeFilter> f) { runtime_filters_.push_back(std::move(f)); }
  // Reads only one part of the table (catalog/scan.h); set before execution.
  void SetPartition(ScanPartition partition) { partition_ = std::move(partition); }
  const TableSource& table() const { return *table_; }

 private:
  std::shared_ptr<TableSource> table_;
  ScanRequest request_;
  std::vector<std::string> column_names_;  // of the output columns
  std::vector<std::shared_ptr<RuntimeFilter>> runtime_filters_;
  ScanPartition partition_;  // count 1: the whole table
  // The plan of the last execution, for EXPLAIN ANALYZE.
  mutable std::shared_ptr<ScanPlan> last_plan_;
};

}  // namespace quiver::exec
