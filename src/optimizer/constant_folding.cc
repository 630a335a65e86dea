// Constant folding and boolean simplification:
//   [2 + 2] => [4]; [x AND true] => [x]; [x OR true] => [true];
//   [NOT false] => [true]; a filter that is always FALSE/NULL empties its input.
// Expressions whose evaluation fails (1/0) are left for execution, where
// they raise the error only if actually evaluated.
#include "execution/expression_executor.h"
#include "optimizer/optimizer.h"

namespace quiver::optimizer {

using plan::Expression;
using plan::ExprPtr;
using plan::ExprType;
using plan::LogicalOperator;
using plan::LogicalOpPtr;
using plan::LogicalOpType;

namespace {

bool IsBool(const Expression& e, bool v) {
  return e.type == ExprType::kConstant && !e.value.is_null() && e.value.type()->id == TypeId::kBool &&
         e.value.boolean() == v;
}

bool IsNullConstant(const Expression& e) { return e.type == ExprType::kConstant && e.value.is_null(); }

void Fold(ExprPtr* e) {
  for (auto& c : (*e)->children) Fold(&c);
  if ((*e)->filter) Fold(&(*e)->filter);
  Expression& x = **e;
  if (x.type == ExprType::kAnd || x.type == ExprType::kOr) {
    const bool is_and = x.type == ExprType::kAnd;
    std::vector<ExprPtr> kept;
    for (auto& c : x.children) {
      if (IsBool(*c, !is_and)) {  // AND false / OR true decides
        *e = plan::MakeConstant(Value::Boolean(!is_and));
        return;
      }
      if (IsBool(*c, is_and)) continue;  // AND true / OR false drops
      kept.push_back(std::move(c));
    }
    if (kept.empty()) {
      *e = plan::MakeConstant(Value::Boolean(is_and));
      return;
    }
    if (kept.size() == 1) {
      *e = std::move(kept[0]);
      return;
    }
    x.children = std::move(kept);
    return;
  }
  if (x.type == ExprType::kConstant || x.type == ExprType::kAggregate || !x.IsFoldable()) return;
  auto v = exec::EvaluateConstant(x);
  if (!v.ok()) return;
  Value value = std::move(v).ValueOrDie();
  if (value.is_null()) value = Value::Null(x.return_type);
  std::string alias = x.alias;
  *e = plan::MakeConstant(std::move(value));
  (*e)->alias = alias;
}

Status FoldOperator(LogicalOpPtr* op) {
  for (auto& c : (*op)->children) QUIVER_RETURN_NOT_OK(FoldOperator(&c));
  LogicalOperator& o = **op;
  for (auto& e : o.expressions) Fold(&e);
  for (auto& g : o.groups) Fold(&g);
  for (auto& c : o.conditions) {
    Fold(&c.left);
    Fold(&c.right);
  }
  if (o.type == LogicalOpType::kFilter) {
    std::vector<ExprPtr> kept;
    bool never = false;
    for (auto& e : o.expressions) {
      if (IsBool(*e, true)) continue;
      if (IsBool(*e, false) || IsNullConstant(*e)) never = true;
      if (e->type == ExprType::kAnd) {
        for (auto& c : e->children) kept.push_back(std::move(c));
        continue;
      }
      kept.push_back(std::move(e));
    }
    if (never) {
      // A FALSE filter keeps the child's bindings and yields nothing.
      o.expressions.clear();
      o.expressions.push_back(plan::MakeConstant(Value::Boolean(false)));
      return Status::OK();
    }
    if (kept.empty()) {
      *op = std::move(o.children[0]);
      return Status::OK();
    }
    o.expressions = std::move(kept);
  }
  return Status::OK();
}

}  // namespace

Result<LogicalOpPtr> FoldConstants(LogicalOpPtr plan) {
  QUIVER_RETURN_NOT_OK(FoldOperator(&plan));
  return plan;
}

}  // namespace quiver::optimizer
