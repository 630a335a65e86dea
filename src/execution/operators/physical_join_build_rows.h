// The build rows of a join that marks them (PhysicalJoin::marks_build_rows,
// its only child), read once the probe pipeline is done.
//
// Unpadded (EXPLAIN: RIGHT_SEMI_ROWS / RIGHT_ANTI_ROWS): the child is an
// `emit_build` hash join, which passes nothing on; this operator ends the
// probe pipeline and emits the build rows that found a partner (semi) or did
// not (anti).
//
// Padded (`pad_types` given, EXPLAIN: RIGHT_OUTER_ROWS): the child's pairs
// flow on to the operators above; this operator adds, in a pipeline of its
// own that runs once the probe pipeline is done, the build rows no pair
// used, with NULLs for the probe columns (pad_types). Over an inner join
// that is a LEFT join whose left side was built (a RIGHT join in the probe
// side's terms); over a LEFT join, a FULL join.
#pragma once

#include <vector>

#include "execution/physical_operator.h"

namespace quiver::exec {

class PhysicalJoinBuildRows final : public PhysicalOperator {
 public:
  PhysicalJoinBuildRows(std::vector<TypeRef> types, bool anti, std::vector<TypeRef> pad_types = {},
                        bool padded = false)
      : PhysicalOperator(padded ? "RIGHT_OUTER_ROWS"
                         : anti ? "RIGHT_ANTI_ROWS"
                                : "RIGHT_SEMI_ROWS",
                         std::move(types)),
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
  Result<std::unique_ptr<GlobalSourceState>> GetGlobalSourceState(
      ExecutionContext& ctx) const override;
  Result<SourceResult> GetData(ExecutionContext& ctx, DataChunk* out, GlobalSourceState& gstate,
                               LocalSourceState& lstate) const override;

 private:
  bool anti_;
  std::vector<TypeRef> pad_types_;
  bool padded_;
};

}  // namespace quiver::exec
