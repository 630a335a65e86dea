// The rule driver and helpers shared by rules.
#include "optimizer/optimizer.h"

#include <algorithm>

namespace quiver::optimizer {

void CollectOutputBindings(const plan::LogicalOperator& op, std::vector<ColumnBinding>* out) {
  auto b = op.GetColumnBindings();
  out->insert(out->end(), b.begin(), b.end());
}

bool ReferencesOnly(const Expression& e, const std::vector<ColumnBinding>& bindings) {
  bool ok = true;
  plan::VisitExpression(e, [&](const Expression& x) {
    const auto* ref = plan::LocalColumnRef(x);
    if (ref != nullptr && plan::FindBinding(bindings, ref->binding) < 0) {
      ok = false;
    }
  });
  return ok;
}

ExprPtr MakeConjunction(std::vector<ExprPtr> conjuncts) {
  if (conjuncts.empty()) return plan::MakeConstant(Value::Boolean(true));
  return plan::MakeAnd(std::move(conjuncts));
}

void AddJoinPredicate(plan::LogicalJoin* join, ExprPtr p, const std::vector<ColumnBinding>& left,
                      const std::vector<ColumnBinding>& right) {
  if (p->type == plan::ExprType::kFunction && p->children.size() == 2) {
    const std::string name = p->As<plan::FunctionExpression>().name();
    if (name == "=" || name == "is not distinct from") {
      ExprPtr a = std::move(p->children[0]), b = std::move(p->children[1]);
      if (ReferencesOnly(*a, right) && ReferencesOnly(*b, left)) std::swap(a, b);
      if (ReferencesOnly(*a, left) && ReferencesOnly(*b, right)) {
        join->conditions.push_back({std::move(a), std::move(b), name});
        return;
      }
      p->children[0] = std::move(a);
      p->children[1] = std::move(b);
    }
  }
  join->expressions.push_back(std::move(p));
}

namespace {

bool Disabled(const OptimizerOptions& o, const char* name) {
  return std::find(o.disabled.begin(), o.disabled.end(), name) != o.disabled.end();
}

}  // namespace

const std::vector<std::string>& RuleNames() {
  static const std::vector<std::string> names = {
      "constant_folding",   "filter_pushdown", "mark_to_semi", "semi_join_reduction",
      "semi_join_pushdown", "join_order",      "top_n",        "column_pruning"};
  return names;
}

Result<LogicalOpPtr> Optimize(LogicalOpPtr plan, plan::BindState* state,
                              const OptimizerOptions& options) {
  // A misspelt rule name would silently disable nothing.
  for (const auto& name : options.disabled) {
    if (std::find(RuleNames().begin(), RuleNames().end(), name) == RuleNames().end()) {
      return Status::Invalid("unknown optimizer rule \"{}\" (rules: {})", name,
                             fmt::join(RuleNames(), ", "));
    }
  }
  if (plan::IsDataModification(plan->type)) {
    // The rules rewrite queries; an INSERT / UPDATE / DELETE writes the rows
    // of the query below it, every column of which it reads.
    QUIVER_ASSIGN_OR_RAISE(plan->children[0],
                           Optimize(std::move(plan->children[0]), state, options));
    plan->estimated_rows = 1;
    return plan;
  }
  if (!Disabled(options, "constant_folding")) {
    QUIVER_ASSIGN_OR_RAISE(plan, FoldConstants(std::move(plan)));
  }
  if (!Disabled(options, "filter_pushdown")) {
    QUIVER_ASSIGN_OR_RAISE(plan, PushDownFilters(std::move(plan), state));
  }
  if (!Disabled(options, "mark_to_semi")) {
    QUIVER_ASSIGN_OR_RAISE(plan, MarkJoinsToSemiJoins(std::move(plan)));
    if (!Disabled(options, "filter_pushdown")) {
      QUIVER_ASSIGN_OR_RAISE(plan, PushDownFilters(std::move(plan), state));
    }
  }
  if (!Disabled(options, "semi_join_reduction")) {
    QUIVER_ASSIGN_OR_RAISE(plan, ReduceAggregatesBySemiJoin(std::move(plan), state));
  }
  if (!Disabled(options, "semi_join_pushdown")) {
    QUIVER_ASSIGN_OR_RAISE(plan, PushDownSemiJoins(std::move(plan)));
  }
  EstimateCardinalities(plan.get());
  if (!Disabled(options, "join_order")) {
    QUIVER_ASSIGN_OR_RAISE(plan, OrderJoins(std::move(plan), state));
  }
  if (!Disabled(options, "top_n")) {
    QUIVER_ASSIGN_OR_RAISE(plan, IntroduceTopN(std::move(plan)));
  }
  if (!Disabled(options, "column_pruning")) {
    QUIVER_ASSIGN_OR_RAISE(plan, PruneColumns(std::move(plan)));
  }
  EstimateCardinalities(plan.get());
  return plan;
}

}  // namespace quiver::optimizer
