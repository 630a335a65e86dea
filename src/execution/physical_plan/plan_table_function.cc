// kTableFunction -> PhysicalTableFunction over the child's plan, its
// arguments bound to the child's column positions.
#include "execution/operators/physical_table_function.h"
#include "execution/physical_plan/plan_generator_internal.h"
#include "planner/logical_table_function.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanTableFunction(const plan::LogicalTableFunction& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  std::vector<plan::ExprPtr> args;
  for (const auto& e : op.expressions) {
    QUIVER_ASSIGN_OR_RAISE(plan::ExprPtr b, BindToPositions(*e, bindings));
    args.push_back(std::move(b));
  }
  auto out = std::make_unique<PhysicalTableFunction>(op.GetTypes(), op.functions, op.arg_counts,
                                                     std::move(args), op.ordinality, op.outer);
  out->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(out));
}

}  // namespace quiver::exec::internal
