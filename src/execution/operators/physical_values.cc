#include "execution/operators/physical_values.h"

#include <atomic>

namespace quiver::exec {
namespace {

struct ValuesState : GlobalSourceState {
  std::atomic<int64_t> offset{0};
  int MaxThreads() const override { return 1; }
};

}  // namespace

Result<std::unique_ptr<GlobalSourceState>> PhysicalValues::GetGlobalSourceState(ExecutionContext&) const {
  return std::unique_ptr<GlobalSourceState>(new ValuesState());
}

Result<SourceResult> PhysicalValues::GetData(ExecutionContext&, DataChunk* out, GlobalSourceState& gstate,
                                             LocalSourceState&) const {
  auto& s = static_cast<ValuesState&>(gstate);
  const int64_t offset = s.offset.load();
  if (offset >= num_rows_) return SourceResult::kFinished;
  const int64_t n = std::min(kVectorSize, num_rows_ - offset);
  for (const auto& c : columns_) out->columns.push_back(c->Slice(offset, n));
  out->num_rows = n;
  out->batch_index = offset;
  s.offset = offset + n;
  return s.offset >= num_rows_ ? SourceResult::kFinished : SourceResult::kHaveMoreOutput;
}

}  // namespace quiver::exec
