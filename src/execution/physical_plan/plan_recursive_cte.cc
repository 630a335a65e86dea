// kRecursiveCte -> PhysicalRecursiveCte over the anchor's and the recursive
// term's plans. The recursive term runs once per round: no runtime filters
// there (a hash join's filter describes one round's build rows only).
#include "execution/operators/physical_recursive_cte.h"
#include "execution/physical_plan/plan_generator_internal.h"
#include "planner/logical_recursive_cte.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanRecursiveCte(const plan::LogicalRecursiveCte& op) {
  if (!op.union_all) {
    // UNION (without ALL) deduplicates rows by hashing them.
    for (const auto& t : op.types) QUIVER_RETURN_NOT_OK(CheckKeyType(t, "WITH RECURSIVE ... UNION"));
  }
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr anchor, Plan(*op.children[0]));
  PhysicalPlanOptions options = options_;
  options.runtime_filters = false;
  PhysicalPlanGenerator recursive_generator(options);
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr recursive, recursive_generator.Plan(*op.children[1]));
  auto r =
      std::make_unique<PhysicalRecursiveCte>(op.types, op.name, op.union_all, op.working_table);
  r->children().push_back(std::move(anchor));
  r->children().push_back(std::move(recursive));
  return PhysicalOpPtr(std::move(r));
}

}  // namespace quiver::exec::internal
