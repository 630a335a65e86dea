// kSetOp: UNION ALL -> PhysicalUnion (a pipeline fork, nothing copied);
// UNION -> the same under a DISTINCT aggregate; INTERSECT / EXCEPT [ALL] ->
// PhysicalSetOperation (per-input counts in a group table).
#include "execution/operators/physical_hash_aggregate.h"
#include "execution/operators/physical_set_operation.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanSetOperation(const plan::LogicalSetOp& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr left, Plan(*op.children[0]));
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr right, Plan(*op.children[1]));
  if (op.setop != plan::SetOpType::kUnion || !op.setop_all) {
    for (const auto& t : op.types) {
      QUIVER_RETURN_NOT_OK(CheckKeyType(t, op.setop == plan::SetOpType::kUnion ? "UNION" : "INTERSECT / EXCEPT"));
    }
  }
  if (op.setop == plan::SetOpType::kUnion) {
    auto u = std::make_unique<PhysicalUnion>(op.types);
    u->children().push_back(std::move(left));
    u->children().push_back(std::move(right));
    if (op.setop_all) return PhysicalOpPtr(std::move(u));
    std::vector<int> groups;
    for (size_t i = 0; i < op.types.size(); ++i) groups.push_back(static_cast<int>(i));
    auto d = std::make_unique<PhysicalHashAggregate>(op.types, std::move(groups),
                                                     std::vector<AggregateSpec>{});
    d->children().push_back(std::move(u));
    return PhysicalOpPtr(std::move(d));
  }
  auto s = std::make_unique<PhysicalSetOperation>(op.types, op.setop, op.setop_all);
  s->children().push_back(std::move(left));
  s->children().push_back(std::move(right));
  return PhysicalOpPtr(std::move(s));
}

}  // namespace quiver::exec::internal
