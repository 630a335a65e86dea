// Semi join pushdown: a semi or anti join is a filter on the rows of its left
// input, so it can move down to the input of a join region below it that
// holds every left-side column it reads:
//
//   SEMI(A ⋈ B, S) on a.x = s.y   =>   SEMI(A, S) ⋈ B
//
// Inner joins and cross products let it through on either side; left, semi,
// anti and mark joins on their left side; filters always. Moved down, the
// semi join filters A before the joins above (which join ordering then sees
// as a small relation), and its runtime filter reaches A's scan. IN and
// EXISTS subqueries over a join (TPC-H Q18, Q20) are the common case.
//
// Only selective semi joins move: those whose right side is estimated at
// most a quarter of the input they would filter. Others (EXISTS against a
// large table, TPC-H Q21) are better left above the joins that shrink
// their input first.
#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

bool IsSemiOrAnti(const LogicalOperator& op) {
  const auto* join = op.TryAs<LogicalJoin>();
  return join != nullptr && join->IsSemiOrAnti();
}

// Whether every left-side reference of `semi` is among `side`'s bindings.
bool LeftSideWithin(const LogicalJoin& semi, const std::vector<ColumnBinding>& side) {
  const std::vector<ColumnBinding> right = semi.children[1]->GetColumnBindings();
  std::vector<ColumnBinding> both = side;
  both.insert(both.end(), right.begin(), right.end());
  for (const auto& c : semi.conditions) {
    const bool straight = ReferencesOnly(*c.left, side) && ReferencesOnly(*c.right, right);
    const bool swapped = ReferencesOnly(*c.right, side) && ReferencesOnly(*c.left, right);
    if (!straight && !swapped) return false;
  }
  for (const auto& e : semi.expressions) {
    if (!ReferencesOnly(*e, both)) return false;
  }
  return true;
}

// `semi` = SEMI/ANTI(L, R): moves it as far into L as it goes.
LogicalOpPtr Sink(LogicalOpPtr semi) {
  LogicalOperator& below = *semi->children[0];
  std::vector<size_t> candidates;
  switch (below.type) {
    case LogicalOpType::kFilter:
      candidates = {0};
      break;
    case LogicalOpType::kCrossProduct:
      candidates = {0, 1};
      break;
    case LogicalOpType::kJoin:
      if (below.As<LogicalJoin>().join_type == JoinType::kInner) {
        candidates = {0, 1};
      } else if (below.As<LogicalJoin>().join_type != JoinType::kSingle) {
        candidates = {0};  // left, semi, anti, mark: only the preserved side
      }
      break;
    default:
      break;
  }
  const double build_rows = semi->children[1]->estimated_rows;
  for (size_t idx : candidates) {
    if (!LeftSideWithin(semi->As<LogicalJoin>(), below.children[idx]->GetColumnBindings()))
      continue;
    const double target_rows = below.children[idx]->estimated_rows;
    if (semi->As<LogicalJoin>().join_type != JoinType::kSemi || build_rows < 0 || target_rows < 0 ||
        build_rows * 4 > target_rows) {
      continue;
    }
    LogicalOpPtr parent = std::move(semi->children[0]);
    semi->children[0] = std::move(parent->children[idx]);
    parent->children[idx] = Sink(std::move(semi));
    return parent;
  }
  return semi;
}

LogicalOpPtr Push(LogicalOpPtr op) {
  for (auto& c : op->children) c = Push(std::move(c));
  if (!IsSemiOrAnti(*op)) return op;
  return Sink(std::move(op));
}

}  // namespace

Result<LogicalOpPtr> PushDownSemiJoins(LogicalOpPtr plan) {
  EstimateCardinalities(plan.get());
  return Push(std::move(plan));
}

}  // namespace quiver::optimizer
