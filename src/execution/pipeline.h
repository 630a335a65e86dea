// Pipelines and their executor (see physical_operator.h for the model).
//
// The executor runs pipelines in dependency order; each runs on up to
// ctx.num_threads() tasks of the process thread pool. Pipelines that feed
// the same sink (both sides of a set operation, the branches of UNION ALL)
// all complete before the sink is finalized.
#pragma once

#include <memory>
#include <vector>

#include "execution/physical_operator.h"

namespace quiver::exec {

class Pipeline {
 public:
  PhysicalOperator* source = nullptr;
  std::vector<PhysicalOperator*> operators;  // in data-flow order
  PhysicalOperator* sink = nullptr;
  int sink_input_index = 0;  // which input of the sink this pipeline feeds
  std::vector<Pipeline*> dependencies;  // must finish first

  std::string ToString() const;
};

class PipelineBuilder {
 public:
  // Creates a new pipeline feeding `sink`; `current`'s pipeline depends on it.
  Pipeline* NewPipeline(PhysicalOperator* sink, int input_index, Pipeline* dependent);
  // A copy of `current` (same operators above the split point, same sink)
  // for the second input of a UNION ALL.
  Pipeline* Fork(Pipeline* current);
  std::vector<std::unique_ptr<Pipeline>>& pipelines() { return pipelines_; }

 private:
  std::vector<std::unique_ptr<Pipeline>> pipelines_;
};

// Runs the plan rooted at `root` (which must be a sink, e.g. the result
// collector) to completion.
Status ExecutePlan(ExecutionContext& ctx, PhysicalOperator* root);
// The same for `input`'s plan feeding `sink`, which does not own it (a
// recursive CTE runs its terms so, over and over). The sink states the
// plan's operators hold must be clear before (they are kept after).
Status ExecutePipelines(ExecutionContext& ctx, PhysicalOperator* sink, PhysicalOperator* input);

}  // namespace quiver::exec
