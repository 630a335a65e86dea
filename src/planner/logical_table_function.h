// kTableFunction: a set-returning function in FROM (generate_series, unnest),
// or several in lock-step (ROWS FROM), called once per row of its child,
// with `expressions` as its arguments (over the child's columns). Output:
// each child row joined with every row of its calls (the child's columns,
// then the functions'); WITH ORDINALITY adds a bigint counting the rows
// from 1. An uncorrelated call has a LogicalDummyScan child (one row, no
// columns); a call whose arguments read FROM items to its left
// (PostgreSQL's implicit LATERAL for functions) has their plan as its
// child. `outer` (LEFT JOIN LATERAL f(...) ON true): a child row whose
// calls give no rows is kept once, with NULLs.
#pragma once

#include <memory>

#include "functions/table_function.h"
#include "planner/logical_plan.h"

namespace quiver::plan {

struct LogicalTableFunction final : LogicalOperator {
  static bool IsKind(LogicalOpType t) { return t == LogicalOpType::kTableFunction; }
  LogicalTableFunction() : LogicalOperator(LogicalOpType::kTableFunction) {}
  // The calls, run in lock-step (ROWS FROM; several set-returning
  // functions of a select list): the rows of a call for one child row are
  // as many as the longest call's, the shorter ones padded with NULLs.
  // `expressions` holds their arguments one call after the other,
  // arg_counts[i] of them for call i.
  std::vector<std::shared_ptr<const BoundTableFunction>> functions;
  std::vector<int> arg_counts;
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
