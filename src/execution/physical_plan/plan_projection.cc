// kProjection -> PhysicalProjection of its expressions.
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanProjection(const plan::LogicalProjection& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  std::vector<const plan::Expression*> exprs;
  for (const auto& e : op.expressions) exprs.push_back(e.get());
  return Project(std::move(child), op.children[0]->GetColumnBindings(), exprs);
}

}  // namespace quiver::exec::internal
