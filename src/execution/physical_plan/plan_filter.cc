// kFilter -> PhysicalFilter over the conjunction of its conjuncts, cheapest
// first.
#include <algorithm>

#include "execution/operators/physical_filter.h"
#include "execution/physical_plan/plan_generator_internal.h"

namespace quiver::exec::internal {

using plan::Expression;
using plan::ExprPtr;
using plan::ExprType;

namespace {

// Evaluation order of a filter's conjuncts: the cheap ones that cannot fail
// first, so the expensive ones see fewer rows. 0: a fixed-width column
// compared with a constant or column (or IN a list, IS NULL); 1: the same
// on strings; 2: LIKE on a column; 3: everything else, which keeps its
// written order after the others (moving a conjunct that cannot fail ahead
// of one that can only spares the latter rows).
int ConjunctCost(const Expression& e) {
  auto is_input = [](const Expression& x) {
    return x.type == ExprType::kBoundRef || x.type == ExprType::kConstant;
  };
  auto is_string = [](const Expression& x) {
    return x.return_type->id == TypeId::kString || x.return_type->id == TypeId::kBinary;
  };
  if (e.type == ExprType::kIsNull || e.type == ExprType::kIsNotNull)
    return is_input(*e.children[0]) ? 0 : 3;
  if (e.type == ExprType::kIn) {
    for (const auto& c : e.children) {
      if (!is_input(*c)) return 3;
    }
    return is_string(*e.children[0]) ? 1 : 0;
  }
  if (e.type != ExprType::kFunction || e.children.size() != 2 || !is_input(*e.children[0]) ||
      !is_input(*e.children[1])) {
    return 3;
  }
  const std::string& name = e.As<plan::FunctionExpression>().name();
  if (name == "like" || name == "not like" || name == "ilike" || name == "not ilike") return 2;
  if (name == "=" || name == "<>" || name == "<" || name == "<=" || name == ">" || name == ">=") {
    return is_string(*e.children[0]) ? 1 : 0;
  }
  return 3;
}

}  // namespace

Result<PhysicalOpPtr> PhysicalPlanGenerator::PlanFilter(const plan::LogicalFilter& op) {
  QUIVER_ASSIGN_OR_RAISE(PhysicalOpPtr child, Plan(*op.children[0]));
  const auto bindings = op.children[0]->GetColumnBindings();
  std::vector<ExprPtr> conjuncts;
  for (const auto& e : op.expressions) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr b, BindToPositions(*e, bindings));
    conjuncts.push_back(std::move(b));
  }
  if (conjuncts.empty()) return child;
  std::stable_sort(conjuncts.begin(), conjuncts.end(), [](const ExprPtr& a, const ExprPtr& b) {
    return ConjunctCost(*a) < ConjunctCost(*b);
  });
  ExprPtr pred = plan::MakeAnd(std::move(conjuncts));
  auto f = std::make_unique<PhysicalFilter>(child->types(), std::move(pred));
  f->children().push_back(std::move(child));
  return PhysicalOpPtr(std::move(f));
}

}  // namespace quiver::exec::internal
