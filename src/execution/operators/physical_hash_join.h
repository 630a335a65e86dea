// Hash join: the right child is the build side (sink), the left child's
// pipeline probes it.
//
// Build: threads collect the build rows; Finalize concatenates them (plus
// one all-NULL row at the end, the "no partner" row for outer joins),
// hashes the keys and chains rows into buckets (`buckets[h & mask]` ->
// row + 1, `next[row]` -> the next row + 1). Rows with a NULL key never
// match, except for keys compared with IS NOT DISTINCT FROM.
//
// Probe: per chunk, hash the keys, follow every row's chain in lockstep
// (one step for all active rows at a time, keys compared column by
// column), then check the residual predicate on the candidate pairs.
//
// Join types: inner, left, semi, anti, mark, single (right and full joins
// are planned as left joins). Null-aware variants implement NOT IN and IN's
// NULL semantics over a single key.
//
// Build-side output (`emit_build`, EXPLAIN: RIGHT_SEMI / RIGHT_ANTI): a semi
// or anti join whose left side is much smaller than its right side is
// planned with the sides swapped — the small side is built, the large side
// probes and marks the build rows it matches, and PhysicalJoinBuildRows
// then emits the marked (semi) or unmarked (anti) build rows. The large
// side is never hashed, and the runtime filter of the small side's keys
// reaches the large side's scan.
#pragma once

#include <memory>
#include <vector>

#include "execution/physical_operator.h"
#include "execution/runtime_filter.h"
#include "planner/expression.h"
#include "planner/logical_plan.h"

namespace quiver::exec {

struct HashJoinSpec {
  plan::JoinType type = plan::JoinType::kInner;
  std::vector<int> probe_keys;       // columns of the probe (left) input
  std::vector<int> build_keys;       // columns of the build (right) input
  std::vector<bool> nulls_equal;     // per key: IS NOT DISTINCT FROM
  // Over (left columns ++ right columns); must be TRUE for a pair to join.
  plan::ExprPtr residual;
  // NOT IN / IN semantics over the (single) key: NULLs make results unknown.
  bool null_aware = false;
  std::shared_ptr<RuntimeFilter> runtime_filter;  // published after the build
  bool emit_build = false;  // the probe only marks build rows (see above); outputs nothing
  // An inner join that also marks the build rows it matches: the probe half
  // of a LEFT join planned with its preserved (small) side built; the build
  // rows left unmarked come out of PhysicalJoinBuildRows (padded) after it.
  bool mark_build = false;
};

class PhysicalHashJoin final : public PhysicalOperator {
 public:
  PhysicalHashJoin(std::vector<TypeRef> types, HashJoinSpec spec, std::vector<TypeRef> build_types)
      : PhysicalOperator("HASH_JOIN", std::move(types)), spec_(std::move(spec)), build_types_(std::move(build_types)) {}

  // Build side.
  bool IsSink() const override { return true; }
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx, GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate, LocalSinkState& lstate) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;

  // Probe side.
  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;

  void BuildPipelines(Pipeline* current, PipelineBuilder* builder) override;
  std::string ParamsToString() const override;
  const HashJoinSpec& spec() const { return spec_; }

 private:
  HashJoinSpec spec_;
  std::vector<TypeRef> build_types_;
};

// The build rows of an `emit_build` hash join (its only child) that found a
// partner (semi) or did not (anti), read once the probe pipeline is done.
//
// Padded (`pad_types` given, EXPLAIN: RIGHT_OUTER_ROWS): the child is a
// `mark_build` inner join whose pairs flow on to the operators above; this
// operator adds, once that probe pipeline is done, the build rows no pair
// used, with NULLs for the probe columns (pad_types) — together a LEFT join
// whose left side was built, or a RIGHT join in the probe side's terms.
class PhysicalJoinBuildRows final : public PhysicalOperator {
 public:
  PhysicalJoinBuildRows(std::vector<TypeRef> types, bool anti, std::vector<TypeRef> pad_types = {},
                        bool padded = false)
      : PhysicalOperator(padded ? "RIGHT_OUTER_ROWS" : anti ? "RIGHT_ANTI_ROWS" : "RIGHT_SEMI_ROWS", std::move(types)),
        anti_(anti),
        pad_types_(std::move(pad_types)),
        padded_(padded) {}

  // The probe pipeline ends here (the join passes no rows on), unless padded.
  bool IsSink() const override { return !padded_; }
  void BuildPipelines(Pipeline* current, PipelineBuilder* builder) override;
  Status Sink(ExecutionContext&, DataChunk&, GlobalSinkState&, LocalSinkState&) const override {
    return Status::OK();
  }

  bool IsSource() const override { return true; }
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;

 private:
  bool anti_;
  std::vector<TypeRef> pad_types_;
  bool padded_;
};

}  // namespace quiver::exec
