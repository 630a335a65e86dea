// The physical planner's entry point, its dispatch on logical operator kinds
// and the helpers every plan_*.cc shares (physical_plan/).
#include "execution/physical_planner.h"

#include "execution/operators/physical_projection.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec {

using plan::ColumnBinding;
using plan::Expression;
using plan::ExprPtr;
using plan::ExprType;
using plan::LogicalOperator;
using plan::LogicalOpType;

Result<ExprPtr> BindToPositions(const Expression& expr, const std::vector<ColumnBinding>& input) {
  ExprPtr out = expr.Copy();
  Status st;
  plan::VisitExpression(&out, [&](ExprPtr* e) {
    const auto* ref = (*e)->TryAs<plan::ColumnRefExpression>();
    if (ref == nullptr) return;
    if (ref->depth != 0) {
      st = Status::UnknownError("internal error: correlated reference {} left in a physical plan",
                                (*e)->ToString());
      return;
    }
    const int idx = plan::FindBinding(input, ref->binding);
    if (idx < 0) {
      st = Status::UnknownError("internal error: column {} not found in the operator's input",
                                (*e)->ToString());
      return;
    }
    *e = plan::MakeBoundRef(idx, (*e)->return_type, (*e)->alias);
  });
  QUIVER_RETURN_NOT_OK(st);
  return out;
}

Result<PhysicalOpPtr> CreatePhysicalPlan(const LogicalOperator& root,
                                         const PhysicalPlanOptions& options) {
  internal::PhysicalPlanGenerator generator(options);
  return generator.Plan(root);
}

namespace internal {

Result<PhysicalOpPtr> PhysicalPlanGenerator::Plan(const LogicalOperator& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr out, PlanOperator(op));
  if (out->estimated_rows < 0) out->estimated_rows = op.estimated_rows;
  return out;
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanOperator(const LogicalOperator& op) {
  switch (op.type) {
    case LogicalOpType::kGet:
      return PlanGet(op.As<plan::LogicalGet>());
    case LogicalOpType::kDummyScan:
      return PlanDummyScan(op.As<plan::LogicalDummyScan>());
    case LogicalOpType::kEmpty:
      return PlanEmpty(op.As<plan::LogicalEmpty>());
    case LogicalOpType::kValues:
      return PlanValues(op.As<plan::LogicalValues>());
    case LogicalOpType::kFilter:
      return PlanFilter(op.As<plan::LogicalFilter>());
    case LogicalOpType::kProjection:
      return PlanProjection(op.As<plan::LogicalProjection>());
    case LogicalOpType::kAggregate:
      return PlanAggregate(op.As<plan::LogicalAggregate>());
    case LogicalOpType::kDistinct:
      return PlanDistinct(op.As<plan::LogicalDistinct>());
    case LogicalOpType::kJoin:
    case LogicalOpType::kCrossProduct:
      return PlanJoin(op);
    case LogicalOpType::kOrder:
      return PlanOrder(op, op.As<plan::LogicalOrder>().orders, -1, 0);
    case LogicalOpType::kTopN: {
      const auto& top = op.As<plan::LogicalTopN>();
      return PlanOrder(op, top.orders, top.limit, top.offset);
    }
    case LogicalOpType::kLimit:
      return PlanLimit(op.As<plan::LogicalLimit>());
    case LogicalOpType::kSetOp:
      return PlanSetOperation(op.As<plan::LogicalSetOp>());
    case LogicalOpType::kWindow:
      return PlanWindow(op.As<plan::LogicalWindow>());
    case LogicalOpType::kTableFunction:
      return PlanTableFunction(op.As<plan::LogicalTableFunction>());
    case LogicalOpType::kRecursiveCte:
      return PlanRecursiveCte(op.As<plan::LogicalRecursiveCte>());
    case LogicalOpType::kInsert:
    case LogicalOpType::kUpdate:
    case LogicalOpType::kDelete:
      return PlanModifyTable(op.As<plan::LogicalModifyTable>());
  }
  return Status::UnknownError("internal error: unknown logical operator");
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::Project(
    PhysicalOpPtr child, const std::vector<ColumnBinding>& child_bindings,
    const std::vector<const Expression*>& exprs) {
  std::vector<ExprPtr> bound;
  std::vector<TypeRef> types;
  for (const Expression* e : exprs) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*e, child_bindings));
    types.push_back(b->return_type);
    bound.push_back(std::move(b));
  }
  auto p = std::make_unique<PhysicalProjection>(std::move(types), std::move(bound));
  p->estimated_rows = child->estimated_rows;
  p->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(p));
}

Result<PhysicalOpPtr> PhysicalPlanGenerator::EnsureColumns(
    PhysicalOpPtr child, const std::vector<ColumnBinding>& child_bindings,
    const std::vector<const Expression*>& exprs, std::vector<int>* positions) {
  positions->clear();
  std::vector<const Expression*> extra;
  const int width = static_cast<int>(child->types().size());
  for (const Expression* e : exprs) {
    if (const auto* ref = plan::LocalColumnRef(*e)) {
      const int idx = plan::FindBinding(child_bindings, ref->binding);
      if (idx >= 0) {
        positions->push_back(idx);
        continue;
      }
    }
    positions->push_back(width + static_cast<int>(extra.size()));
    extra.push_back(e);
  }
  if (extra.empty()) return child;
  // Keep every child column, append the computed ones.
  std::vector<ExprPtr> bound;
  std::vector<TypeRef> types = child->types();
  for (int i = 0; i < width; ++i)
    bound.push_back(plan::MakeBoundRef(i, types[static_cast<size_t>(i)]));
  for (const Expression* e : extra) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*e, child_bindings));
    types.push_back(b->return_type);
    bound.push_back(std::move(b));
  }
  auto p = std::make_unique<PhysicalProjection>(std::move(types), std::move(bound));
  p->estimated_rows = child->estimated_rows;
  p->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(p));
}

PhysicalOpPtr SelectColumns(PhysicalOpPtr child, const std::vector<size_t>& columns) {
  std::vector<ExprPtr> exprs;
  std::vector<TypeRef> types;
  for (size_t c : columns) {
    const TypeRef& t = child->types()[c];
    exprs.push_back(plan::MakeBoundRef(static_cast<int>(c), t));
    types.push_back(t);
  }
  auto p = std::make_unique<PhysicalProjection>(std::move(types), std::move(exprs));
  p->children().push_back(std::move(child));
  return p;
}

}  // namespace internal
}  // namespace quiver::exec
