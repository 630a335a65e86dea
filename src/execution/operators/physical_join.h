// What the hash join and the nested-loop join share: the right child is the
// build side, a sink whose rows are collected (flattened per chunk, one
// part per sunk chunk) and concatenated at Finalize with one all-NULL row
// at the end — the "no partner" row that outer joins pair unmatched probe
// rows with. The left child's pipeline then probes the finished build side
// (Execute, in the subclasses), after the build pipeline has run.
//
// A join may mark the build rows that found a partner (`marks_build_rows`):
// PhysicalJoinBuildRows reads the marks once the probe pipeline is done and
// emits the marked rows (RIGHT_SEMI), the unmarked ones (RIGHT_ANTI) or the
// unmarked ones padded with NULLs (RIGHT_OUTER_ROWS: the preserved build
// side of a LEFT join built on its left side, or of a FULL join).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "execution/physical_operator.h"

namespace quiver::exec {

struct JoinBuildState : GlobalSinkState {
  std::mutex mu;
  std::vector<std::vector<ArrayRef>> parts;  // per sunk chunk: dense columns
  std::vector<int64_t> part_rows;            // counted per chunk: a build side may have no columns
  // After Finalize:
  std::vector<ArrayRef> columns;  // num_rows + 1 slots (the last is all NULL)
  int64_t num_rows = 0;
  // Per build row: a probe row joined it (marks_build_rows; set by any thread).
  std::unique_ptr<std::atomic<uint8_t>[]> marked;
};

class PhysicalJoin : public PhysicalOperator {
 public:
  PhysicalJoin(std::string name, std::vector<TypeRef> types, std::vector<TypeRef> build_types,
               bool marks_build_rows)
      : PhysicalOperator(std::move(name), std::move(types)),
        build_types_(std::move(build_types)),
        marks_build_rows_(marks_build_rows) {}

  // Build side: collects the right child's rows.
  bool IsSink() const override { return true; }
  Result<std::unique_ptr<LocalSinkState>> GetLocalSinkState(ExecutionContext& ctx,
                                                            GlobalSinkState& gstate,
                                                            int input_index) const override;
  Status Sink(ExecutionContext& ctx, DataChunk& input, GlobalSinkState& gstate,
              LocalSinkState& lstate) const override;
  Status Combine(ExecutionContext& ctx, GlobalSinkState& gstate,
                 LocalSinkState& lstate) const override;

  // The join is an operator of its left child's pipeline, which depends on
  // a new pipeline that feeds its right child into the build side.
  void BuildPipelines(Pipeline* current, PipelineBuilder* builder) override;

  const std::vector<TypeRef>& build_types() const { return build_types_; }
  bool marks_build_rows() const { return marks_build_rows_; }

 protected:
  // Finalize's first step: concatenates the collected parts with the
  // trailing NULL row into g.columns.
  Status CollectBuildRows(ExecutionContext& ctx, JoinBuildState& g) const;
  // When the join marks build rows: one clear mark per build row (the
  // caller has accounted for them).
  void AllocateMarks(JoinBuildState& g) const;

  std::vector<TypeRef> build_types_;
  bool marks_build_rows_;
};

}  // namespace quiver::exec
