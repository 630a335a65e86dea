// Literal rows: VALUES lists, SELECT without FROM (one row, no columns) and
// empty results. Serial source.
#pragma once

#include "execution/physical_operator.h"

namespace quiver::exec {

class PhysicalValues final : public PhysicalOperator {
 public:
  // `columns` hold the rows column-wise; `num_rows` matters when there are
  // no columns (SELECT 1: one row of nothing).
  PhysicalValues(std::vector<TypeRef> types, std::vector<ArrayRef> columns, int64_t num_rows, std::string name = "VALUES")
      : PhysicalOperator(std::move(name), std::move(types)), columns_(std::move(columns)), num_rows_(num_rows) {}
  bool IsSource() const override { return true; }
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;
  std::string ParamsToString() const override { return fmt::format("{} rows", num_rows_); }

 private:
  std::vector<ArrayRef> columns_;
  int64_t num_rows_;
};

}  // namespace quiver::exec
