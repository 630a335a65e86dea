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

#include <memory>
#include <vector>

#include "execution/aggregate_spec.h"
#include "execution/physical_operator.h"

namespace quiver::exec {

class GroupTable;

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
  // GROUPING SETS rolled up from the finest groups (plan::LogicalAggregate):
  // the input is grouped by every key once; Finalize then combines those
  // groups' states into each set's groups, the keys a set leaves out NULL
  // and the key at `id_position` (a constant placeholder) the set's number.
  void set_grouping_sets(std::vector<std::vector<int>> sets, int id_position) {
    grouping_sets_ = std::move(sets);
    grouping_set_id_ = id_position;
  }

 private:
  using Tables = std::vector<std::unique_ptr<GroupTable>>;
  Result<Tables> RollUp(ExecutionContext& ctx, Tables finest) const;
  Result<std::vector<ArrayRef>> KeyColumns(ExecutionContext& ctx, const GroupTable& t) const;

  std::vector<int32_t> empty_grouping_sets_;
  std::vector<std::vector<int>> grouping_sets_;
  int grouping_set_id_ = -1;
  std::vector<int> groups_;
  std::vector<TypeRef> group_types_;
  int key_width_ = -1;  // fixed key width, -1 for variable-size keys
  std::vector<AggregateSpec> aggregates_;
  std::vector<int> state_offsets_;
  int row_size_ = 0;
};

}  // namespace quiver::exec
