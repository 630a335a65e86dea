// Window functions (sink + source).
//
// The sink collects every input row. Finalize sorts the rows once per
// distinct (PARTITION BY, ORDER BY) of its window functions (sort_util.h;
// partition keys first, so each partition is a run of the sorted order),
// finds partition and peer-group boundaries, and computes each function
// over each partition into a result column. The source then emits the
// input rows in the sort order of the first window, each with its results.
#pragma once

#include <string>
#include <vector>

#include "execution/physical_operator.h"
#include "execution/sort_util.h"
#include "planner/expression.h"

namespace quiver::exec {

// One window function as the physical planner resolved it: columns are
// positions in the operator's input.
struct WindowFunctionSpec {
  plan::WindowFunction function = plan::WindowFunction::kRowNumber;
  const AggregateFunction* aggregate = nullptr;  // kAggregate
  std::vector<int> args;
  std::vector<TypeRef> arg_types;
  std::vector<int> partitions;
  std::vector<SortKey> orders;
  int filter = -1;  // input column of FILTER (WHERE ...), or -1
  int32_t frame_options = 0;
  TypeRef type;  // result type
  std::string name;
};

class PhysicalWindow final : public PhysicalOperator {
 public:
  // `input_types`: the child's columns; the output is them, then one column
  // per window function.
  PhysicalWindow(std::vector<TypeRef> input_types, std::vector<WindowFunctionSpec> functions);

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
  std::vector<TypeRef> input_types_;
  std::vector<WindowFunctionSpec> functions_;
};

}  // namespace quiver::exec
