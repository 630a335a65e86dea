// Semi join reduction of grouped aggregates: an aggregate grouped by k that
// is joined on k = x to another input only needs the groups whose k some
// row of that input carries. Decorrelated scalar subqueries (TPC-H Q2, Q17,
// Q20) have this shape: the outer query keeps a few hundred rows, the
// subquery's aggregate groups the whole fact table by the correlated key.
//
//   X ⟕ AGG_k(T) on x = k   =>   X ⟕ AGG_k(T ⋉ S) on x = k, on t.k = s.y
//
// S is the smallest scan (with its filters and projections, no joins) inside
// X whose column y holds every value x can take: x itself, or a column that
// inner or semi join conditions `=` make equal to x. S is copied (with fresh
// table indexes) so it runs twice, which is why it must be small: at most a
// tenth of T's estimated rows. The semi join then hands a runtime filter to
// T's scan, which skips most of the fact table.
//
// Valid for inner joins (either side), left, single and semi joins (the
// aggregate on the right): rows of the aggregate that no row of X joins are
// never seen, and `=` never matches a NULL key. Not for mark joins (a NULL
// key on the right changes the mark) or anti joins.
#include <functional>

#include "optimizer/optimizer.h"

namespace quiver::optimizer {

namespace {

// A candidate: `op`'s output column `binding` holds every value of the
// column we started from.
struct Source {
  const LogicalOperator* op = nullptr;
  ColumnBinding binding;
};

bool IsColumn(const Expression& e) { return plan::LocalColumnRef(e) != nullptr; }
// The binding of a column reference (IsColumn).
const ColumnBinding& Col(const Expression& e) { return e.As<plan::ColumnRefExpression>().binding; }

bool SameType(const Expression& a, const Expression& b) {
  return a.return_type->Equals(*b.return_type);
}

// A scan with filters and projections over it, nothing else.
bool IsSimple(const LogicalOperator& op) {
  switch (op.type) {
    case LogicalOpType::kGet:
      return true;
    case LogicalOpType::kFilter:
    case LogicalOpType::kProjection:
      return IsSimple(*op.children[0]);
    default:
      return false;
  }
}

bool Outputs(const LogicalOperator& op, const ColumnBinding& b) {
  return plan::FindBinding(op.GetColumnBindings(), b) >= 0;
}

// Collects the simple subtrees of `op` holding a superset of the values of
// `op`'s output column `b`. `budget` bounds the walk on deep join trees.
void FindSources(const LogicalOperator& op, const ColumnBinding& b, int* budget,
                 std::vector<Source>* out) {
  if (--*budget < 0) return;
  if (IsSimple(op)) {
    if (Outputs(op, b)) out->push_back({&op, b});
    return;
  }
  switch (op.type) {
    case LogicalOpType::kFilter:
    case LogicalOpType::kOrder:
    case LogicalOpType::kLimit:
    case LogicalOpType::kTopN:
    case LogicalOpType::kDistinct:
      FindSources(*op.children[0], b, budget, out);
      return;
    case LogicalOpType::kProjection: {
      if (b.table != op.table_index || b.column < 0 ||
          static_cast<size_t>(b.column) >= op.expressions.size())
        return;
      const Expression& e = *op.expressions[static_cast<size_t>(b.column)];
      if (IsColumn(e)) FindSources(*op.children[0], Col(e), budget, out);
      return;
    }
    case LogicalOpType::kCrossProduct:
      for (const auto& c : op.children) {
        if (Outputs(*c, b)) FindSources(*c, b, budget, out);
      }
      return;
    case LogicalOpType::kJoin: {
      const auto& join = op.As<LogicalJoin>();
      const bool in_left = Outputs(*op.children[0], b);
      const bool inner = join.join_type == JoinType::kInner;
      if (!in_left && !inner) return;  // only the inner join passes its right side's values through
      if (in_left) {
        FindSources(*op.children[0], b, budget, out);
      } else {
        FindSources(*op.children[1], b, budget, out);
      }
      // Conditions carry the values over to the other side: an output row
      // of an inner or semi join satisfies left = right.
      if (!inner && join.join_type != JoinType::kSemi) return;
      for (const auto& c : join.conditions) {
        if (c.op != "=" || !IsColumn(*c.left) || !IsColumn(*c.right) ||
            !SameType(*c.left, *c.right))
          continue;
        if (in_left && Col(*c.left) == b) FindSources(*op.children[1], Col(*c.right), budget, out);
        if (!in_left && Col(*c.right) == b) FindSources(*op.children[0], Col(*c.left), budget, out);
      }
      return;
    }
    default:
      return;
  }
}

// Follows output column `b` of `op` down through projections and filters
// to a grouped aggregate; returns it and sets `group` to the group's index.
LogicalAggregate* FindGroupedAggregate(LogicalOperator* op, const ColumnBinding& b, int* group) {
  switch (op->type) {
    case LogicalOpType::kFilter:
      return FindGroupedAggregate(op->children[0].get(), b, group);
    case LogicalOpType::kProjection: {
      if (b.table != op->table_index || b.column < 0 ||
          static_cast<size_t>(b.column) >= op->expressions.size()) {
        return nullptr;
      }
      const Expression& e = *op->expressions[static_cast<size_t>(b.column)];
      return IsColumn(e) ? FindGroupedAggregate(op->children[0].get(), Col(e), group) : nullptr;
    }
    case LogicalOpType::kAggregate: {
      auto& agg = op->As<LogicalAggregate>();
      if (b.table != agg.group_index || b.column < 0 ||
          static_cast<size_t>(b.column) >= agg.groups.size() || !agg.GroupKeptInEverySet(b.column)) {
        return nullptr;
      }
      *group = b.column;
      return &agg;
    }
    default:
      return nullptr;
  }
}

// The `left column = right column` predicates of a join (of one type):
// its conditions, and residual predicates of that form (an outer join's ON
// clause stays there until the physical planner).
std::vector<std::pair<const Expression*, const Expression*>> Equalities(const LogicalJoin& join) {
  std::vector<std::pair<const Expression*, const Expression*>> out;
  for (const auto& c : join.conditions) {
    if (c.op == "=" && IsColumn(*c.left) && IsColumn(*c.right) && SameType(*c.left, *c.right)) {
      out.emplace_back(c.left.get(), c.right.get());
    }
  }
  for (const auto& e : join.expressions) {
    if (plan::CallOf(*e, "=") == nullptr || e->children.size() != 2) {
      continue;
    }
    const Expression* a = e->children[0].get();
    const Expression* b = e->children[1].get();
    if (!IsColumn(*a) || !IsColumn(*b) || !SameType(*a, *b)) continue;
    if (Outputs(*join.children[0], Col(*b))) std::swap(a, b);
    if (Outputs(*join.children[0], Col(*a)) && Outputs(*join.children[1], Col(*b)))
      out.emplace_back(a, b);
  }
  return out;
}

class Reducer {
 public:
  explicit Reducer(plan::BindState* state) : state_(state) {}

  void Visit(LogicalOperator* op) {
    for (auto& c : op->children) Visit(c.get());
    auto* join = op->TryAs<LogicalJoin>();
    if (join == nullptr) return;
    switch (join->join_type) {
      case JoinType::kInner:
        Reduce(join, 0);
        Reduce(join, 1);
        break;
      case JoinType::kLeft:
      case JoinType::kSingle:
      case JoinType::kSemi:
        Reduce(join, 1);
        break;
      default:
        break;
    }
  }

 private:
  // Reduces the aggregate below `join`'s child `side`, if there is one and
  // the other side has a small source for one of its keys.
  void Reduce(LogicalJoin* join, size_t side) {
    LogicalAggregate* agg = nullptr;
    const Expression* group_column = nullptr;
    std::vector<Source> sources;
    for (const auto& [left, right] : Equalities(*join)) {
      const Expression& agg_side = side == 0 ? *left : *right;
      const Expression& other_side = side == 0 ? *right : *left;
      int group = -1;
      LogicalAggregate* found =
          FindGroupedAggregate(join->children[side].get(), Col(agg_side), &group);
      if (found == nullptr) continue;
      const Expression& g = *found->groups[static_cast<size_t>(group)];
      if (!IsColumn(g) || !SameType(g, agg_side)) continue;
      if (agg != nullptr && found != agg) continue;  // one aggregate per join side
      std::vector<Source> here;
      int budget = 256;
      FindSources(*join->children[1 - side], Col(other_side), &budget, &here);
      for (const Source& s : here) {
        if (s.op->estimated_rows < 0) continue;
        if (sources.empty() || s.op->estimated_rows < sources[0].op->estimated_rows) {
          sources = {s};
          agg = found;
          group_column = &g;
        }
      }
    }
    if (agg == nullptr || sources.empty()) return;
    const Source& best = sources[0];
    const LogicalOperator& input = *agg->children[0];
    if (input.estimated_rows < 0 || best.op->estimated_rows * 10 > input.estimated_rows) return;

    std::map<ColumnBinding, ColumnBinding> map;
    LogicalOpPtr copy = plan::CopyFresh(*best.op, state_, &map);
    auto semi = std::make_unique<LogicalJoin>(JoinType::kSemi);
    semi->conditions.push_back(
        {plan::MakeColumnRef(Col(*group_column), group_column->return_type),
         plan::MakeColumnRef(map.at(best.binding), group_column->return_type)});
    semi->children.push_back(std::move(agg->children[0]));
    semi->children.push_back(std::move(copy));
    agg->children[0] = std::move(semi);
    EstimateCardinalities(agg);
  }

  plan::BindState* state_;
};

}  // namespace

Result<LogicalOpPtr> ReduceAggregatesBySemiJoin(LogicalOpPtr plan, plan::BindState* state) {
  EstimateCardinalities(plan.get());
  Reducer(state).Visit(plan.get());
  return plan;
}

}  // namespace quiver::optimizer
