// Hash aggregation (GROUP BY, DISTINCT, and aggregates without GROUP BY).
//
// Each thread aggregates into its own table (group_table.h: serialized keys,
// one row of aggregate states per group; update calls get one state pointer
// per input row). Finalize merges the threads' tables partition by
// partition in parallel — a group's partition comes from its key's hash, so
// partitions are disjoint — and turns groups and states into columns, which
// the operator then serves as a source.
//
// DISTINCT aggregates keep, per thread, the set of (group key, value) pairs
// seen; the sets are merged and fed to the aggregate once at Finalize, so
// every value is counted once across threads.
#pragma once

#include <vector>

#include "execution/aggregate_spec.h"
#include "execution/physical_operator.h"

namespace quiver::exec {

class PhysicalHashAggregate final : public PhysicalOperator {
 public:
  PhysicalHashAggregate(std::vector<TypeRef> types, std::vector<int> groups,
                        std::vector<AggregateSpec> aggregates);
  // The sink state points into aggregates_: free it while they still exist.
  ~PhysicalHashAggregate() override { sink_state.reset(); }

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

  // GROUPING SETS: the last group key is the set id (int32); each id here
  // (an empty set) gets one row, other keys NULL, when no row came in.
  void set_empty_grouping_sets(std::vector<int32_t> ids) { empty_grouping_sets_ = std::move(ids); }

 private:
  std::vector<int32_t> empty_grouping_sets_;
  std::vector<int> groups_;
  std::vector<TypeRef> group_types_;
  int key_width_ = -1;  // fixed key width, -1 for variable-size keys
  std::vector<AggregateSpec> aggregates_;
  std::vector<int> state_offsets_;
  int row_size_ = 0;
};

}  // namespace quiver::exec
