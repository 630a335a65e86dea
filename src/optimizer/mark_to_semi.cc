// A filter on a mark join's mark turns the mark join into a semi or anti join:
//   Filter(mark)       over MARK JOIN  =>  SEMI JOIN  (EXISTS, IN, ANY)
//   Filter(NOT mark)   over MARK JOIN  =>  ANTI JOIN  (NOT EXISTS; NOT IN as a
//                                          null-aware anti join)
// Only when nothing else reads the mark, and (for NOT) when the mark is
// never NULL or its NULLs come from a single IN comparison.
#include <map>

#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

void CountRefs(const LogicalOperator& op, std::map<ColumnBinding, int>* counts) {
  auto visit = [&](const Expression& e) {
    plan::VisitExpression(e, [&](const Expression& x) {
      if (const auto* ref = plan::LocalColumnRef(x)) (*counts)[ref->binding]++;
    });
  };
  op.ForEachExpression(visit);
  for (const auto& c : op.children) CountRefs(*c, counts);
}

void Rewrite(LogicalOpPtr* op, const std::map<ColumnBinding, int>& counts) {
  for (auto& c : (*op)->children) Rewrite(&c, counts);
  LogicalOperator& f = **op;
  if (f.type != LogicalOpType::kFilter) return;
  auto* mark_join = f.children[0]->TryAs<plan::LogicalJoin>();
  if (mark_join == nullptr || mark_join->join_type != JoinType::kMark) return;
  plan::LogicalJoin& j = *mark_join;
  const ColumnBinding mark{j.mark_index, 0};
  auto it = counts.find(mark);
  if (it == counts.end() || it->second != 1) return;
  for (size_t i = 0; i < f.expressions.size(); ++i) {
    const Expression& e = *f.expressions[i];
    auto is_mark = [&](const Expression& x) {
      const auto* ref = x.TryAs<plan::ColumnRefExpression>();
      return ref != nullptr && ref->binding == mark;
    };
    const bool positive = is_mark(e);
    const bool negative = e.type == ExprType::kNot && is_mark(*e.children[0]);
    if (!positive && !negative) continue;
    if (positive) {
      j.join_type = JoinType::kSemi;
    } else {
      if (j.conditions.empty()) {
        j.join_type = JoinType::kAnti;  // NOT EXISTS: the mark is never NULL
      } else if (j.conditions.size() == 1 && j.conditions[0].op == "=" && j.expressions.empty()) {
        j.join_type = JoinType::kAnti;  // NOT IN
        j.null_aware = true;
      } else {
        return;
      }
    }
    f.expressions.erase(f.expressions.begin() + static_cast<long>(i));
    if (f.expressions.empty()) *op = std::move(f.children[0]);
    return;
  }
}

}  // namespace

Result<LogicalOpPtr> MarkJoinsToSemiJoins(LogicalOpPtr plan) {
  std::map<ColumnBinding, int> counts;
  CountRefs(*plan, &counts);
  Rewrite(&plan, counts);
  return plan;
}

}  // namespace quiver::optimizer
