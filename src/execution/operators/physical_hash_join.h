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
// Join types: inner, left, semi, anti, mark, single (right joins are
// planned as left joins, full joins as left joins that mark the build rows
// they match, see below). Null-aware variants implement NOT IN and IN's
// NULL semantics over a single key.
//
// Build-side output (`emit_build`, EXPLAIN: RIGHT_SEMI / RIGHT_ANTI): a semi
// or anti join whose left side is much smaller than its right side is
// planned with the sides swapped — the small side is built, the large side
// probes and marks the build rows it matches, and PhysicalJoinBuildRows
// then emits the marked (semi) or unmarked (anti) build rows. The large
// side is never hashed, and the runtime filter of the small side's keys
// reaches the large side's scan.
//
// Marked build rows (`mark_build`, EXPLAIN: RIGHT_OUTER_ROWS above the
// join): an inner or left join that also marks the build rows it matches;
// PhysicalJoinBuildRows adds the unmarked ones, padded with NULLs, after the
// probe. Inner: a LEFT join whose (small) left side was built. Left: a FULL
// join, each input read once.
#pragma once

#include <memory>
#include <vector>

#include "execution/operators/physical_join.h"
#include "execution/runtime_filter.h"
#include "planner/expression.h"
#include "planner/logical_plan.h"

namespace quiver::exec {

struct HashJoinSpec {
  plan::JoinType type = plan::JoinType::kInner;
  std::vector<int> probe_keys;    // columns of the probe (left) input
  std::vector<int> build_keys;    // columns of the build (right) input
  std::vector<bool> nulls_equal;  // per key: IS NOT DISTINCT FROM
  // Over (left columns ++ right columns); must be TRUE for a pair to join.
  plan::ExprPtr residual;
  // NOT IN / IN semantics over the (single) key: NULLs make results unknown.
  bool null_aware = false;
  std::shared_ptr<RuntimeFilter> runtime_filter;  // published after the build
  bool emit_build = false;  // the probe only marks build rows (see above); outputs nothing
  // An inner or left join that also marks the build rows it matches (see
  // above); the build rows left unmarked come out of PhysicalJoinBuildRows
  // (padded) after it.
  bool mark_build = false;
};

class PhysicalHashJoin final : public PhysicalJoin {
 public:
  PhysicalHashJoin(std::vector<TypeRef> types, HashJoinSpec spec, std::vector<TypeRef> build_types)
      : PhysicalJoin("HASH_JOIN", std::move(types), std::move(build_types),
                     spec.emit_build || spec.mark_build),
        spec_(std::move(spec)) {}

  // Build side (collected by PhysicalJoin): the table over the build rows.
  Result<std::unique_ptr<GlobalSinkState>> GetGlobalSinkState(ExecutionContext& ctx) const override;
  Status Finalize(ExecutionContext& ctx, GlobalSinkState& gstate) const override;

  // Probe side.
  Result<std::unique_ptr<OperatorState>> GetOperatorState(ExecutionContext& ctx) const override;
  Result<OperatorResult> Execute(ExecutionContext& ctx, DataChunk& input, DataChunk* out,
                                 OperatorState& state) const override;

  std::string ParamsToString() const override;
  const HashJoinSpec& spec() const { return spec_; }

 private:
  HashJoinSpec spec_;
};

}  // namespace quiver::exec
