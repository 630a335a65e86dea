// ORDER BY (sink + source) and ORDER BY ... LIMIT (top-N).
//
// Order collects every row, sorts a permutation (sort_util.h) and emits
// rows in that order. Top-N keeps, per thread, only the best
// `offset + limit` rows seen so far (pruning whenever it holds twice that
// many), merges the threads' survivors and emits rows offset..offset+limit.
#pragma once

#include "execution/physical_operator.h"
#include "execution/sort_util.h"

namespace quiver::exec {

class PhysicalOrder final : public PhysicalOperator {
 public:
  // limit < 0: a full sort (no top-N).
  PhysicalOrder(std::vector<TypeRef> types, std::vector<SortKey> keys, int64_t limit = -1, int64_t offset = 0)
      : PhysicalOperator(limit >= 0 ? "TOP_N" : "ORDER_BY", std::move(types)),
        keys_(std::move(keys)),
        limit_(limit),
        offset_(offset) {}

  bool IsSink() const override { return true; }
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx, GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;

  bool IsSource() const override { return true; }
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;
  std::string ParamsToString() const override;

 private:
  std::vector<SortKey> keys_;
  int64_t limit_;
  int64_t offset_;
};

// LIMIT/OFFSET without ORDER BY: keeps the first rows in input order (by
// batch index), and lets the source stop early once it has enough.
class PhysicalLimit final : public PhysicalOperator {
 public:
  PhysicalLimit(std::vector<TypeRef> types, int64_t limit, int64_t offset)
      : PhysicalOperator("LIMIT", std::move(types)), limit_(limit), offset_(offset) {}
  bool IsSink() const override { return true; }
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx, GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;
  bool SinkDone(GlobalSinkState& gstate) const override;

  bool IsSource() const override { return true; }
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;
  std::string ParamsToString() const override;

 private:
  int64_t limit_;  // -1: none
  int64_t offset_;
};

}  // namespace quiver::exec
