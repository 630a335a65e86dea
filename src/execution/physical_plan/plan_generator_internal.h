// The physical plan generator: one logical operator kind per plan_*.cc file
// in this folder (DuckDB's physical_plan/plan_*.cpp), the shared helpers in
// execution/physical_planner.cc. Private to the physical planner; the public
// entry point is exec::CreatePhysicalPlan (execution/physical_planner.h).
//
// Every Plan* function plans its operator's children first (Plan), then
// turns the operator's expressions from column bindings into positions in
// the children's outputs (BindToPositions) and builds the physical operator.
#pragma once

#include <memory>
#include <vector>

#include "execution/physical_operator.h"
#include "execution/physical_planner.h"
#include "execution/runtime_filter.h"
#include "planner/logical_plan.h"
#include "planner/logical_recursive_cte.h"
#include "planner/logical_table_function.h"

namespace quiver::exec {
struct HashJoinSpec;  // execution/operators/physical_hash_join.h
}  // namespace quiver::exec

namespace quiver::exec::internal {

// 0A000 when a column an operator would hash or sort by is an array: the
// group tables, hash functions and sort keys handle flat types only.
// `what` names the clause: "GROUP BY", "ORDER BY", "DISTINCT"...
Status CheckKeyType(const TypeRef& type, const char* what);

class PhysicalPlanGenerator {
 public:
  explicit PhysicalPlanGenerator(const PhysicalPlanOptions& options) : options_(options) {}

  // Plans `op` and its subtree (dispatches on the operator's kind).
  Result<PhysicalOpPtr> Plan(const plan::LogicalOperator& op);

 private:
  // Dispatches on the operator's kind (physical_planner.cc).
  Result<PhysicalOpPtr> PlanOperator(const plan::LogicalOperator& op);
  // plan_get.cc
  Result<PhysicalOpPtr> PlanGet(const plan::LogicalGet& op);
  // plan_values.cc: VALUES, DUMMY_SCAN, EMPTY_RESULT
  Result<PhysicalOpPtr> PlanValues(const plan::LogicalValues& op);
  Result<PhysicalOpPtr> PlanDummyScan(const plan::LogicalDummyScan& op);
  Result<PhysicalOpPtr> PlanEmpty(const plan::LogicalEmpty& op);
  // plan_filter.cc
  Result<PhysicalOpPtr> PlanFilter(const plan::LogicalFilter& op);
  // plan_projection.cc
  Result<PhysicalOpPtr> PlanProjection(const plan::LogicalProjection& op);
  // plan_aggregate.cc: GROUP BY and DISTINCT
  Result<PhysicalOpPtr> PlanAggregate(const plan::LogicalAggregate& op);
  Result<PhysicalOpPtr> PlanDistinct(const plan::LogicalDistinct& op);
  // plan_join.cc (runtime filters: plan_runtime_filter.cc)
  Result<PhysicalOpPtr> PlanJoin(const plan::LogicalOperator& op);
  // plan_order.cc: ORDER BY, TOP_N, LIMIT
  // `op`: the kOrder or kTopN node; `orders` its keys.
  Result<PhysicalOpPtr> PlanOrder(const plan::LogicalOperator& op,
                                  const std::vector<plan::OrderSpec>& orders, int64_t limit,
                                  int64_t offset);
  Result<PhysicalOpPtr> PlanLimit(const plan::LogicalLimit& op);
  // plan_window.cc
  Result<PhysicalOpPtr> PlanWindow(const plan::LogicalWindow& op);
  // plan_table_function.cc
  Result<PhysicalOpPtr> PlanTableFunction(const plan::LogicalTableFunction& op);
  // plan_set_operation.cc
  Result<PhysicalOpPtr> PlanSetOperation(const plan::LogicalSetOp& op);
  // plan_recursive_cte.cc: WITH RECURSIVE
  Result<PhysicalOpPtr> PlanRecursiveCte(const plan::LogicalRecursiveCte& op);
  // plan_modify_table.cc: INSERT, UPDATE, DELETE
  Result<PhysicalOpPtr> PlanModifyTable(const plan::LogicalModifyTable& op);

  // --- shared helpers (physical_planner.cc) ------------------------------------------
  // Projection of `child` computing `exprs` (over child_bindings).
  Result<PhysicalOpPtr> Project(PhysicalOpPtr child,
                                const std::vector<plan::ColumnBinding>& child_bindings,
                                const std::vector<const plan::Expression*>& exprs);
  // Wraps `child` so that `exprs` are available as columns: plain column
  // references use existing positions; others are appended by a
  // projection. Writes the positions into *positions.
  Result<PhysicalOpPtr> EnsureColumns(PhysicalOpPtr child,
                                      const std::vector<plan::ColumnBinding>& child_bindings,
                                      const std::vector<const plan::Expression*>& exprs,
                                      std::vector<int>* positions);

  // --- joins (plan_join.cc) -----------------------------------------------------------
  struct JoinPlan;
  Status SplitJoinPredicates(const plan::LogicalOperator& op, JoinPlan* jp);
  Result<PhysicalOpPtr> PlanRightJoin(const plan::LogicalOperator& op);
  Result<PhysicalOpPtr> PlanNestedLoopJoin(const plan::LogicalOperator& op, JoinPlan& jp);
  Result<HashJoinSpec> MakeHashJoinSpec(JoinPlan& jp, bool build_left, plan::JoinType probe_type);
  Result<PhysicalOpPtr> PlanRightSemiAntiJoin(JoinPlan& jp);
  Result<PhysicalOpPtr> PlanOuterBuiltJoin(JoinPlan& jp, bool build_left,
                                           plan::JoinType probe_type);
  Result<PhysicalOpPtr> PlanHashJoin(JoinPlan& jp);

  // --- runtime filters (plan_runtime_filter.cc) ----------------------------------------
  // A runtime filter on the probe side's key column `col`, wired to the scan
  // below it; null when runtime filters are off or the key cannot have one.
  std::shared_ptr<RuntimeFilter> AttachRuntimeFilter(PhysicalOperator* probe, int col,
                                                     bool nulls_equal);

  PhysicalPlanOptions options_;
};

// A projection of `child`'s columns `columns` (in that order).
PhysicalOpPtr SelectColumns(PhysicalOpPtr child, const std::vector<size_t>& columns);

}  // namespace quiver::exec::internal
