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

// A window frame, as the physical planner resolved it (offsets evaluated).
struct WindowFrame {
  enum class Mode : int8_t { kRows, kRange, kGroups };
  enum class Bound : int8_t { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  enum class Exclude : int8_t { kNoOthers, kCurrentRow, kGroup, kTies };
  // How RANGE offsets compare ORDER BY keys: as int64 (integers; dates and
  // timestamps in microseconds), double, or int128 (unscaled decimals).
  enum class KeyKind : int8_t { kNone, kInt, kFloat, kDecimal };
  // RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: PostgreSQL's default.
  Mode mode = Mode::kRange;
  Bound start = Bound::kUnboundedPreceding;
  Bound end = Bound::kCurrentRow;
  Exclude exclude = Exclude::kNoOthers;
  // ROWS / GROUPS offsets, and RANGE offsets of KeyKind kInt / kDecimal.
  __int128 start_offset = 0, end_offset = 0;
  double start_offset_float = 0, end_offset_float = 0;  // RANGE offsets of KeyKind kFloat
  KeyKind key_kind = KeyKind::kNone;
  int64_t key_multiplier = 1;  // dates: microseconds per day
  // RANGE offsets over dates and timestamps with months: the keys are
  // microseconds, the bound is key -/+ months (calendar), then the rest
  // (start_offset / end_offset microseconds), as PostgreSQL's timestamp +
  // interval does.
  int32_t start_months = 0, end_months = 0;
  bool IsDefault() const {
    return mode == Mode::kRange && start == Bound::kUnboundedPreceding && end == Bound::kCurrentRow &&
           exclude == Exclude::kNoOthers;
  }
};

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
  WindowFrame frame;
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
