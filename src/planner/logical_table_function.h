// kTableFunction: a set-returning function in FROM (generate_series, unnest)
// called once per row of its child, with `expressions` as its arguments
// (over the child's columns). Output: each child row joined with every row
// of its call (the child's columns, then the function's); WITH ORDINALITY
// adds a bigint counting the call's rows from 1. An uncorrelated call has a
// LogicalDummyScan child (one row, no columns); a call whose arguments read
// FROM items to its left (PostgreSQL's implicit LATERAL for functions) has
// their plan as its child. `outer` (LEFT JOIN LATERAL f(...) ON true): a
// child row whose call gives no rows is kept once, with NULLs.
#pragma once

#include <memory>

#include "functions/table_function.h"
#include "planner/logical_plan.h"

namespace quiver::plan {

struct LogicalTableFunction final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kTableFunction; }
  LogicalTableFunction() : LogicalOperator(LogicalOpType::kTableFunction) {}
  std::shared_ptr<const BoundTableFunction> function;
  bool ordinality = false;
  bool outer = false;
  // The function's own output columns (ordinality included).
  std::vector<TypeRef> FunctionTypes() const;
  std::vector<ColumnBinding> GetColumnBindings() const override;
  std::vector<TypeRef> GetTypes() const override;

 protected:
  std::string NodeString() const override;
  LogicalOpPtr CopyNode() const override;
};

}  // namespace quiver::plan
