// Logical plan -> physical operators.
//
// Column bindings become positions (kColumnRef -> kBoundRef). Expressions
// that operators need as columns (aggregate arguments, group keys, join
// keys, sort keys) are computed by projections placed below them. Joins
// with an equality become hash joins (right and full joins are rewritten
// as left joins), the rest nested-loop joins; inner and semi hash joins on
// integer keys publish runtime filters to the probe side's scan.
#pragma once

#include "execution/physical_operator.h"
#include "planner/logical_plan.h"

namespace quiver::exec {

struct PhysicalPlanOptions {
  bool runtime_filters = true;
};

Result<PhysicalOpPtr> CreatePhysicalPlan(const plan::LogicalOperator& root,
                                         const PhysicalPlanOptions& options = {});

// Copies `expr` with column references turned into positions in `input`.
Result<plan::ExprPtr> BindToPositions(const plan::Expression& expr, const std::vector<plan::ColumnBinding>& input);

}  // namespace quiver::exec
