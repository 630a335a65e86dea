// kOrder and kTopN -> PhysicalOrder (sort keys computed as columns below it
// and dropped again above it); kLimit -> PhysicalLimit.
#include "execution/operators/physical_order.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanOrder(const plan::LogicalOperator& op,
                                                       const std::vector<plan::OrderSpec>& orders,
                                                       int64_t limit, int64_t offset) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  const size_t width = child->types().size();
  std::vector<const plan::Expression*> exprs;
  for (const auto& o : orders) exprs.push_back(o.expr.get());
  std::vector<int> pos;
  QUIVER_ASSIGN_OR_RAISE(child, EnsureColumns(std::move(child), bindings, exprs, &pos));
  std::vector<SortKey> keys;
  for (size_t i = 0; i < orders.size(); ++i) {
    QUIVER_RETURN_NOT_OK(CheckKeyType(child->types()[static_cast<size_t>(pos[i])], "ORDER BY"));
    keys.push_back({pos[i], orders[i].descending, orders[i].nulls_first});
  }
  auto order = std::make_unique<PhysicalOrder>(child->types(), std::move(keys), limit, offset);
  order->children().push_back(std::move(child));
  PhysicalOpPtr out = std::move(order);
  if (out->types().size() > width) {
    std::vector<size_t> keep;
    for (size_t i = 0; i < width; ++i) keep.push_back(i);
    out = SelectColumns(std::move(out), keep);
  }
  return out;
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanLimit(const plan::LogicalLimit& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  auto l = std::make_unique<PhysicalLimit>(child->types(), op.limit, op.offset);
  l->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(l));
}

}  // namespace quiver::exec::internal
