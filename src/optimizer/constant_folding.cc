// Constant folding and boolean simplification:
//   [2 + 2] => [4]; [x AND true] => [x]; [x OR true] => [true];
//   [NOT false] => [true]; a filter that is always FALSE/NULL empties its input.
// Comparisons of a date column cast to timestamp with a timestamp constant
// compare the date itself ([d::timestamp < TIMESTAMP '1995-01-01'] =>
// [d < DATE '1995-01-01']: `date + interval` is a timestamp), so that scans
// get them as predicates and no row is cast.
// Expressions whose evaluation fails (1/0) are left for execution, where
// they raise the error only if actually evaluated.
#include "common/calendar.h"
#include "execution/expression/expression_executor.h"
#include "optimizer/optimizer.h"
#include "vector/json_type.h"

namespace quiver::optimizer {

namespace {

bool IsBool(const Expression& e, bool v) {
  const auto* c = e.TryAs<plan::ConstantExpression>();
  return c != nullptr && !c->value.is_null() && c->value.type()->id == TypeId::kBool &&
         c->value.boolean() == v;
}

bool IsNullConstant(const Expression& e) {
  const auto* c = e.TryAs<plan::ConstantExpression>();
  return c != nullptr && c->value.is_null();
}

bool IsComparison(const std::string& op) {
  return op == "=" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

std::string FlipComparison(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

// [CAST(date AS timestamp) op TIMESTAMP t] => [date op' DATE d], or
// nothing to do.
void UnwrapDateCast(ExprPtr* e) {
  Expression& x = **e;
  if (x.type != ExprType::kFunction || x.children.size() != 2) return;
  std::string op = x.As<plan::FunctionExpression>().name();
  if (!IsComparison(op)) return;
  size_t cast_side = 0;
  if (x.children[0]->type != ExprType::kCast) {
    cast_side = 1;
    op = FlipComparison(op);
  }
  const Expression& cast = *x.children[cast_side];
  if (cast.type != ExprType::kCast || x.children[1 - cast_side]->type != ExprType::kConstant)
    return;
  const auto& constant = x.children[1 - cast_side]->As<plan::ConstantExpression>();
  if (constant.value.is_null()) return;
  const DataType& to = *cast.return_type;
  const DataType& from = *cast.children[0]->return_type;
  if (from.id != TypeId::kDate32 || to.id != TypeId::kTimestamp || !to.timezone.empty() ||
      to.unit != TimeUnit::kMicro || !constant.value.type()->Equals(to)) {
    return;
  }
  const int64_t t = constant.value.integer();
  const auto [days, time_of_day] = SplitDays(t, kMicrosPerDay);
  if (days < INT32_MIN || days > INT32_MAX - 1) return;
  if (time_of_day != 0) {
    // t lies inside day `days`: d::timestamp < t <=> d <= days, > t <=> d > days.
    if (op == "<") op = "<=";
    if (op == ">=") op = ">";
    if (op == "=") return;
  }
  std::vector<ExprPtr> args;
  args.push_back(cast.children[0]->Copy());
  args.push_back(plan::MakeConstant(Value::Date(static_cast<int32_t>(days))));
  auto r = plan::MakeFunction(op, std::move(args), true);
  if (!r.ok()) return;  // keeps the comparison as it was
  std::string alias = x.alias;
  *e = std::move(r).ValueOrDie();
  (*e)->alias = alias;
}

void Fold(ExprPtr* e) {
  for (auto& c : (*e)->children) Fold(&c);
  if (auto* agg = (*e)->TryAs<plan::AggregateExpression>(); agg && agg->filter) Fold(&agg->filter);
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
  if (x.type == ExprType::kConstant || x.type == ExprType::kAggregate ||
      x.type == ExprType::kWindow)
    return;
  if (!x.IsFoldable()) {
    UnwrapDateCast(e);
    return;
  }
  if (!ValueCanHold(*x.return_type)) return;  // json, jsonb (vector/json_type.h)
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
  // Not order keys nor VALUES rows: folding those would change their
  // EXPLAIN text for nothing.
  if (auto* agg = o.TryAs<plan::LogicalAggregate>()) {
    for (auto& g : agg->groups) Fold(&g);
  }
  if (auto* join = o.TryAs<plan::LogicalJoin>()) {
    for (auto& c : join->conditions) {
      Fold(&c.left);
      Fold(&c.right);
    }
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
