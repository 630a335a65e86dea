// Subqueries in expressions become joins; correlated ones are decorrelated,
// so no subquery is ever re-executed per row.
//
// Uncorrelated:
//   (SELECT x ...)          root x Aggregate[__single_value(x)]   (one row; error on two)
//   EXISTS (...)            root MARK JOIN (...) with no condition
//   x op ANY (...)          root MARK JOIN (...) ON x op col   (x IN (...) is = ANY)
//   x op ALL (...)          NOT (root MARK JOIN (...) ON x negop col)
// A filter on a mark column turns the mark join into a semi or anti join
// (optimizer/mark_to_semi.cc).
//
// Correlated, simple shapes (the common ones; TPC-H Q2, Q4, Q17, Q20-22):
//   EXISTS / ANY over Filter*(X) with the correlated predicates in the
//   filters: the predicates become join conditions of the mark join.
//   A scalar aggregate over Filter*(X) whose correlated predicates are all
//   `inner = outer`: the aggregate is grouped by the inner sides and LEFT
//   joined on them; count()s over no rows become 0, not NULL.
//
// Correlated, anything else — the dependent join (Neumann & Kemper,
// "Unnesting Arbitrary Queries", BTW 2015): D = DISTINCT(correlated columns)
// of a copy of the outer plan is pushed down the subquery plan (a cross
// product where the correlation ends; extra GROUP BY / projected columns on
// the way up), and the result is joined back on the correlated columns.
#include <algorithm>
#include <map>
#include <set>

#include "planner/binder.h"
#include "planner/expression_binder.h"
#include "planner/ranking_window.h"
#include "vector/sql_type.h"

namespace quiver::plan {
namespace {

using BindingMap = std::map<ColumnBinding, ColumnBinding>;

// --- plan utilities ------------------------------------------------------------

void VisitOperatorExpressions(LogicalOperator* op, const std::function<void(ExprPtr*)>& f) {
  op->VisitExpressions([&](ExprPtr* e) { VisitExpression(e, f); });
}

void VisitPlanExpressions(LogicalOperator* op, const std::function<void(ExprPtr*)>& f) {
  VisitOperatorExpressions(op, f);
  for (auto& c : op->children) VisitPlanExpressions(c.get(), f);
}

// Whether the subtree reads correlated columns at `depth` (relative to the
// subquery root; deeper operators see the same depth: plans don't nest scopes).
bool HasCorrelation(LogicalOperator* op, int depth = 1) {
  bool found = false;
  VisitPlanExpressions(op, [&](ExprPtr* e) {
    if (const auto* ref = (*e)->TryAs<ColumnRefExpression>(); ref && ref->depth == depth)
      found = true;
  });
  return found;
}

bool ExprHasCorrelation(const Expression& e, int depth = 1) {
  bool found = false;
  VisitExpression(e, [&](const Expression& x) {
    if (const auto* ref = x.TryAs<ColumnRefExpression>(); ref && ref->depth == depth) found = true;
  });
  return found;
}

void Rebind(ExprPtr* expr, const BindingMap& map, int depth = 0) {
  VisitExpression(expr, [&](ExprPtr* e) {
    if (auto* ref = (*e)->TryAs<ColumnRefExpression>(); ref && ref->depth == depth) {
      auto it = map.find(ref->binding);
      if (it != map.end()) ref->binding = it->second;
    }
  });
}

std::unique_ptr<LogicalJoin> MakeJoin(JoinType type, LogicalOpPtr left, LogicalOpPtr right) {
  return std::make_unique<LogicalJoin>(type, std::move(left), std::move(right));
}

LogicalOpPtr MakeCross(LogicalOpPtr left, LogicalOpPtr right) {
  return std::make_unique<LogicalCrossProduct>(std::move(left), std::move(right));
}

// `*op` as a join that can take conditions: a cross product becomes an
// inner join.
LogicalJoin* AsInnerJoin(LogicalOpPtr* op) {
  if ((*op)->type == LogicalOpType::kCrossProduct) {
    auto join = std::make_unique<LogicalJoin>(JoinType::kInner);
    join->TakeSharedFrom(**op);
    *op = std::move(join);
  }
  return &(*op)->As<LogicalJoin>();
}

std::string NegateComparison(const std::string& op) {
  if (op == "=") return "<>";
  if (op == "<>") return "=";
  if (op == "<") return ">=";
  if (op == "<=") return ">";
  if (op == ">") return "<=";
  if (op == ">=") return "<";
  return "";
}

// --- the dependent join (general decorrelation) -----------------------------------

struct Correlation {
  std::vector<CorrelatedColumn> columns;  // depth-1 columns of the outer plan
  LogicalOpPtr delim;                     // D: distinct projection of those columns
};

// The result of pushing D into a subplan.
struct Pushed {
  LogicalOpPtr op;
  std::vector<ColumnBinding> carried;  // where each correlated column is available
  BindingMap remap;                    // bindings of the old subplan that moved
};

class DependentJoinPusher {
 public:
  DependentJoinPusher(BindState* state, const Correlation& corr) : state_(state), corr_(corr) {}

  // Rewrites correlated refs in `expr` into the carried bindings.
  void Decorrelate(ExprPtr* expr, const std::vector<ColumnBinding>& carried,
                   const BindingMap& remap) {
    Rebind(expr, remap);
    VisitExpression(expr, [&](ExprPtr* e) {
      auto* ref = (*e)->TryAs<ColumnRefExpression>();
      if (ref == nullptr || ref->depth < 1) return;
      if (ref->depth == 1) {
        for (size_t i = 0; i < corr_.columns.size(); ++i) {
          if (corr_.columns[i].binding == ref->binding) {
            ref->binding = carried[i];
            ref->depth = 0;
            return;
          }
        }
      }
    });
  }

  Result<Pushed> Push(LogicalOpPtr op) {
    if (!HasCorrelation(op.get())) {
      // No correlation below: the cross product with (a copy of) D.
      BindingMap m;
      LogicalOpPtr d = CopyFresh(*corr_.delim, state_, &m);
      Pushed out;
      out.carried = d->GetColumnBindings();
      out.op = MakeCross(std::move(op), std::move(d));
      return out;
    }
    switch (op->type) {
      case LogicalOpType::kFilter:
        return PushFilter(std::move(op));
      case LogicalOpType::kProjection:
        return PushProjection(std::move(op));
      case LogicalOpType::kAggregate:
        return PushAggregate(std::move(op));
      case LogicalOpType::kDistinct:
        return PushDistinct(std::move(op));
      case LogicalOpType::kOrder:
        // Row order inside a subquery without LIMIT means nothing.
        return Push(std::move(op->children[0]));
      case LogicalOpType::kJoin:
      case LogicalOpType::kCrossProduct:
        return PushJoin(std::move(op));
      case LogicalOpType::kSetOp:
        return PushSetOperation(std::move(op));
      case LogicalOpType::kLimit:
        return PushLimit(std::move(op));
      case LogicalOpType::kTopN:
        return Status::Unsupported("LIMIT in a correlated subquery");
      case LogicalOpType::kTableFunction:
        return PushTableFunction(std::move(op));
      case LogicalOpType::kWindow:
        return PushWindow(std::move(op));
      default:
        return Status::Unsupported("this correlated subquery");
    }
  }

 private:
  // LIMIT / OFFSET apply per correlation group: the rows numbered within
  // their group of carried columns, in the ORDER BY below the limit (if
  // any), and kept from offset + 1 to offset + limit (LATERAL top-n).
  Result<Pushed> PushLimit(LogicalOpPtr op) {
    const auto& limit = op->As<LogicalLimit>();
    LogicalOpPtr below = std::move(op->children[0]);
    std::vector<OrderSpec> orders;
    if (below->type == LogicalOpType::kOrder) {
      for (auto& o : below->As<LogicalOrder>().orders) orders.push_back(o.Copy());
      below = std::move(below->children[0]);
    }
    QUIVER_ASSIGN_OR_RAISE(Pushed child, Push(std::move(below)));
    std::vector<ExprPtr> partitions;
    for (size_t i = 0; i < child.carried.size(); ++i) {
      partitions.push_back(MakeColumnRef(child.carried[i], corr_.columns[i].type));
    }
    for (auto& o : orders) Decorrelate(&o.expr, child.carried, child.remap);
    ExprPtr rn = MakeRankingWindow(WindowFunction::kRowNumber, std::move(partitions), std::move(orders));
    const int64_t last = limit.limit < 0 ? -1 : limit.offset + limit.limit;
    QUIVER_ASSIGN_OR_RAISE(child.op, FilterByRank(std::move(child.op), state_->NewTableIndex(),
                                                  std::move(rn), limit.offset + 1, last));
    return child;
  }

  // The function's output includes its input's columns: the carried ones
  // pass through.
  Result<Pushed> PushTableFunction(LogicalOpPtr op) {
    QUIVER_ASSIGN_OR_RAISE(Pushed child, Push(std::move(op->children[0])));
    op->children[0] = std::move(child.op);
    for (auto& e : op->expressions) Decorrelate(&e, child.carried, child.remap);
    child.op = std::move(op);
    return child;
  }

  // Window functions compute within each correlation group: the carried
  // columns become leading PARTITION BY keys.
  Result<Pushed> PushWindow(LogicalOpPtr op) {
    QUIVER_ASSIGN_OR_RAISE(Pushed child, Push(std::move(op->children[0])));
    op->children[0] = std::move(child.op);
    for (auto& e : op->expressions) {
      Decorrelate(&e, child.carried, child.remap);
      auto& w = e->As<WindowExpression>();
      std::vector<ExprPtr> keys;
      for (size_t i = 0; i < child.carried.size(); ++i) {
        keys.push_back(MakeColumnRef(child.carried[i], corr_.columns[i].type));
      }
      const auto at = w.children.begin() + w.num_args;
      w.children.insert(at, std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
      w.num_partitions += static_cast<int>(child.carried.size());
    }
    child.op = std::move(op);
    return child;
  }

  Result<Pushed> PushFilter(LogicalOpPtr op) {
    QUIVER_ASSIGN_OR_RAISE(Pushed child, Push(std::move(op->children[0])));
    op->children[0] = std::move(child.op);
    for (auto& e : op->expressions) Decorrelate(&e, child.carried, child.remap);
    child.op = std::move(op);
    return child;
  }

  // The projection passes the carried columns on as extra outputs.
  Result<Pushed> PushProjection(LogicalOpPtr op) {
    QUIVER_ASSIGN_OR_RAISE(Pushed child, Push(std::move(op->children[0])));
    op->children[0] = std::move(child.op);
    for (auto& e : op->expressions) Decorrelate(&e, child.carried, child.remap);
    Pushed out;
    for (size_t i = 0; i < child.carried.size(); ++i) {
      out.carried.push_back({op->table_index, static_cast<int>(op->expressions.size())});
      op->expressions.push_back(
          MakeColumnRef(child.carried[i], corr_.columns[i].type, corr_.columns[i].name));
    }
    out.op = std::move(op);
    return out;
  }

  // The carried columns become extra group keys.
  Result<Pushed> PushAggregate(LogicalOpPtr op) {
    auto& agg = op->As<LogicalAggregate>();
    const bool ungrouped = agg.groups.empty();
    // The empty set's row would have to appear for every outer row, even
    // one that no inner row matches (as KeepUngroupedRow does for an
    // aggregate without GROUP BY); not done yet.
    if (!agg.empty_grouping_sets.empty()) {
      return Status::Unsupported("correlated subqueries over grouping sets that include the empty set ()");
    }
    QUIVER_ASSIGN_OR_RAISE(Pushed child, Push(std::move(op->children[0])));
    op->children[0] = std::move(child.op);
    for (auto& e : op->expressions) Decorrelate(&e, child.carried, child.remap);
    for (auto& g : agg.groups) Decorrelate(&g, child.carried, child.remap);
    Pushed out;
    const size_t first = agg.groups.size();
    for (size_t i = 0; i < child.carried.size(); ++i) {
      agg.groups.push_back(
          MakeColumnRef(child.carried[i], corr_.columns[i].type, corr_.columns[i].name));
      out.carried.push_back({agg.group_index, static_cast<int>(first + i)});
      // A carried column groups every grouping set.
      for (auto& set : agg.grouping_sets) set.push_back(static_cast<int>(first + i));
    }
    if (!ungrouped) {
      out.op = std::move(op);
      return out;
    }
    return KeepUngroupedRow(std::move(op), std::move(out));
  }

  // An aggregate without GROUP BY yields a row even for no input: keep
  // that by a LEFT JOIN from D, with count() of no rows as 0. `out`: the
  // aggregate, now grouped by the carried columns.
  Result<Pushed> KeepUngroupedRow(LogicalOpPtr op, Pushed out) {
    BindingMap m;
    LogicalOpPtr d = CopyFresh(*corr_.delim, state_, &m);
    const auto d_cols = d->GetColumnBindings();
    const int agg_index = op->As<LogicalAggregate>().aggregate_index;
    std::vector<const AggregateFunction*> functions;
    std::vector<TypeRef> agg_types;
    for (const auto& a : op->expressions) {
      functions.push_back(a->As<AggregateExpression>().aggregate);
      agg_types.push_back(a->return_type);
    }
    auto join = MakeJoin(JoinType::kLeft, std::move(d), std::move(op));
    AddCarriedEqualities(join.get(), d_cols, out.carried);
    auto proj = std::make_unique<LogicalProjection>();
    proj->table_index = state_->NewTableIndex();
    for (size_t j = 0; j < functions.size(); ++j) {
      ExprPtr ref = MakeColumnRef({agg_index, static_cast<int>(j)}, agg_types[j]);
      const std::string& fname = functions[j] ? functions[j]->name : "";
      if (fname == "count" || fname == "count_star") {
        auto c = std::make_unique<OperatorExpression>(ExprType::kCoalesce, agg_types[j]);
        c->children.push_back(std::move(ref));
        c->children.push_back(MakeConstant(Value::Int64(0)));
        ref = std::move(c);
      }
      out.remap[{agg_index, static_cast<int>(j)}] = {proj->table_index, static_cast<int>(j)};
      proj->expressions.push_back(std::move(ref));
    }
    std::vector<ColumnBinding> carried;
    for (size_t i = 0; i < d_cols.size(); ++i) {
      carried.push_back({proj->table_index, static_cast<int>(proj->expressions.size())});
      proj->expressions.push_back(MakeColumnRef(d_cols[i], corr_.columns[i].type));
    }
    out.carried = std::move(carried);
    proj->children.push_back(std::move(join));
    out.op = std::move(proj);
    return out;
  }

  Result<Pushed> PushDistinct(LogicalOpPtr op) {
    QUIVER_ASSIGN_OR_RAISE(Pushed child, Push(std::move(op->children[0])));
    op->children[0] = std::move(child.op);
    for (auto& e : op->expressions) Decorrelate(&e, child.carried, child.remap);
    if (!op->expressions.empty()) {
      for (size_t i = 0; i < child.carried.size(); ++i) {
        op->expressions.push_back(MakeColumnRef(child.carried[i], corr_.columns[i].type));
      }
    }
    child.op = std::move(op);
    return child;
  }

  // D goes into the correlated side(s); when both sides are, the carried
  // columns are joined (IS NOT DISTINCT FROM).
  Result<Pushed> PushJoin(LogicalOpPtr op) {
    const bool left_corr = HasCorrelation(op->children[0].get());
    const bool right_corr = HasCorrelation(op->children[1].get());
    // A cross product reads as an inner join without conditions.
    const JoinType join_type =
        op->Is<LogicalJoin>() ? op->As<LogicalJoin>().join_type : JoinType::kInner;
    if ((join_type == JoinType::kRight || join_type == JoinType::kFull) && right_corr) {
      return Status::Unsupported("correlated subquery inside a RIGHT/FULL join");
    }
    Pushed out;
    if (left_corr || !right_corr) {
      QUIVER_ASSIGN_OR_RAISE(Pushed l, Push(std::move(op->children[0])));
      op->children[0] = std::move(l.op);
      out.carried = l.carried;
      out.remap = l.remap;
    }
    if (right_corr) {
      QUIVER_ASSIGN_OR_RAISE(Pushed r, Push(std::move(op->children[1])));
      op->children[1] = std::move(r.op);
      for (const auto& [k, v] : r.remap) out.remap[k] = v;
      if (out.carried.empty()) {
        // Only the right side was correlated: for inner/cross joins its
        // columns serve; semi/anti/mark joins hide the right side, so D
        // must come in on the left as well.
        const bool right_visible = join_type == JoinType::kInner || join_type == JoinType::kLeft ||
                                   join_type == JoinType::kSingle;
        if (right_visible && join_type != JoinType::kLeft && join_type != JoinType::kSingle) {
          out.carried = r.carried;
        } else {
          QUIVER_ASSIGN_OR_RAISE(Pushed l, Push(std::move(op->children[0])));
          op->children[0] = std::move(l.op);
          out.carried = l.carried;
          for (const auto& [k, v] : l.remap) out.remap[k] = v;
          AddCarriedEqualities(AsInnerJoin(&op), out.carried, r.carried);
        }
      } else {
        AddCarriedEqualities(AsInnerJoin(&op), out.carried, r.carried);
      }
    }
    if (auto* join = op->TryAs<LogicalJoin>()) {
      for (auto& c : join->conditions) {
        Decorrelate(&c.left, out.carried, out.remap);
        Decorrelate(&c.right, out.carried, out.remap);
      }
    }
    for (auto& e : op->expressions) Decorrelate(&e, out.carried, out.remap);
    out.op = std::move(op);
    return out;
  }

  // Both sides end in projections that list the carried columns last.
  Result<Pushed> PushSetOperation(LogicalOpPtr op) {
    QUIVER_ASSIGN_OR_RAISE(Pushed l, Push(std::move(op->children[0])));
    QUIVER_ASSIGN_OR_RAISE(Pushed r, Push(std::move(op->children[1])));
    // Both sides must end in projections that list the carried columns
    // last; wrap each side to add them.
    auto extend = [&](Pushed& side) {
      auto proj = std::make_unique<LogicalProjection>();
      proj->table_index = state_->NewTableIndex();
      const auto b = side.op->GetColumnBindings();
      const auto t = side.op->GetTypes();
      for (size_t i = 0; i < op->As<LogicalSetOp>().types.size(); ++i)
        proj->expressions.push_back(MakeColumnRef(b[i], t[i]));
      for (size_t i = 0; i < side.carried.size(); ++i) {
        proj->expressions.push_back(MakeColumnRef(side.carried[i], corr_.columns[i].type));
      }
      proj->children.push_back(std::move(side.op));
      return proj;
    };
    op->children[0] = extend(l);
    op->children[1] = extend(r);
    Pushed out;
    for (size_t i = 0; i < corr_.columns.size(); ++i) {
      auto& setop = op->As<LogicalSetOp>();
      out.carried.push_back({op->table_index, static_cast<int>(setop.types.size())});
      setop.types.push_back(corr_.columns[i].type);
    }
    out.op = std::move(op);
    return out;
  }

  // left carried column i IS NOT DISTINCT FROM right carried column i.
  void AddCarriedEqualities(LogicalJoin* join, const std::vector<ColumnBinding>& left,
                            const std::vector<ColumnBinding>& right) {
    for (size_t i = 0; i < right.size(); ++i) {
      join->conditions.push_back({MakeColumnRef(left[i], corr_.columns[i].type),
                                  MakeColumnRef(right[i], corr_.columns[i].type),
                                  "is not distinct from"});
    }
  }

  BindState* state_;
  const Correlation& corr_;
};

// --- simple correlated shapes ------------------------------------------------------

// Splits `plan` as [Projection] -> Filter* -> base, collecting the filter
// conjuncts. Returns false when another operator sits in between or the
// base is correlated.
struct SimpleShape {
  LogicalOperator* projection = nullptr;
  LogicalAggregate* aggregate = nullptr;
  std::vector<ExprPtr> conjuncts;
  LogicalOpPtr base;
};

bool TakeSimpleShape(LogicalOpPtr* plan, bool allow_aggregate, SimpleShape* out) {
  LogicalOpPtr* at = plan;
  if ((*at)->type == LogicalOpType::kProjection) {
    out->projection = at->get();
    at = &(*at)->children[0];
  }
  if (allow_aggregate) {
    auto* agg = (*at)->TryAs<LogicalAggregate>();
    if (agg == nullptr || !agg->groups.empty()) return false;
    for (const auto& a : (*at)->expressions) {
      if (a->As<AggregateExpression>().distinct && ExprHasCorrelation(*a)) return false;
    }
    out->aggregate = agg;
    at = &(*at)->children[0];
  } else {
    while ((*at)->type == LogicalOpType::kDistinct && (*at)->expressions.empty())
      at = &(*at)->children[0];
  }
  if (out->aggregate && HasCorrelation(out->aggregate, 1)) {
    // Correlated references inside the aggregate's own expressions.
    bool corr = false;
    for (const auto& a : out->aggregate->expressions) corr |= ExprHasCorrelation(*a);
    if (corr) return false;
  }
  if (out->projection) {
    for (const auto& e : out->projection->expressions) {
      if (ExprHasCorrelation(*e)) return false;
    }
  }
  // Filters.
  std::vector<LogicalOpPtr*> filters;
  while ((*at)->type == LogicalOpType::kFilter) {
    filters.push_back(at);
    at = &(*at)->children[0];
  }
  if (HasCorrelation(at->get())) return false;
  for (LogicalOpPtr* f : filters) {
    for (auto& e : (*f)->expressions) out->conjuncts.push_back(e->Copy());
  }
  out->base = std::move(*at);
  return true;
}

// Whether `e` reads only depth-0 columns (inner) or only depth-1 (outer).
bool OnlyDepth(const Expression& e, int depth) {
  bool ok = true, any = false;
  VisitExpression(e, [&](const Expression& x) {
    if (const auto* ref = x.TryAs<ColumnRefExpression>()) {
      any = true;
      if (ref->depth != depth) ok = false;
    }
    if (x.type == ExprType::kAggregate || x.type == ExprType::kSubquery ||
        x.type == ExprType::kWindow)
      ok = false;
  });
  return ok && (any || depth == 0);
}

void LowerDepth(ExprPtr* e) {
  VisitExpression(e, [](ExprPtr* x) {
    if (auto* ref = (*x)->TryAs<ColumnRefExpression>(); ref && ref->depth > 0) ref->depth--;
  });
}

}  // namespace

LogicalOpPtr CopyFresh(const LogicalOperator& op, BindState* state,
                       std::map<ColumnBinding, ColumnBinding>* map) {
  LogicalOpPtr copy = op.Copy();
  std::map<int, int> tables;
  auto remap_index = [&](int* idx) {
    if (*idx < 0) return;
    auto it = tables.find(*idx);
    if (it == tables.end()) it = tables.emplace(*idx, state->NewTableIndex()).first;
    *idx = it->second;
  };
  std::function<void(LogicalOperator*)> renumber = [&](LogicalOperator* o) {
    for (auto& c : o->children) renumber(c.get());
    remap_index(&o->table_index);
    if (auto* agg = o->TryAs<LogicalAggregate>()) {
      remap_index(&agg->group_index);
      remap_index(&agg->aggregate_index);
    }
    if (auto* join = o->TryAs<LogicalJoin>()) remap_index(&join->mark_index);
  };
  renumber(copy.get());
  std::function<void(LogicalOperator*)> fix = [&](LogicalOperator* o) {
    VisitOperatorExpressions(o, [&](ExprPtr* e) {
      if (auto* ref = (*e)->TryAs<ColumnRefExpression>(); ref && ref->depth == 0) {
        auto it = tables.find(ref->binding.table);
        if (it != tables.end()) {
          (*map)[ref->binding] = {it->second, ref->binding.column};
          ref->binding.table = it->second;
        }
      }
    });
    for (auto& c : o->children) fix(c.get());
  };
  fix(copy.get());
  auto old_out = op.GetColumnBindings();
  auto new_out = copy->GetColumnBindings();
  for (size_t i = 0; i < old_out.size(); ++i) (*map)[old_out[i]] = new_out[i];
  return copy;
}

// Join conditions as boolean predicates of `join` (mark joins: the
// correlation a right row must satisfy to count).
Status AddConditionsAsPredicates(std::vector<JoinCondition> conds, LogicalOperator* join) {
  for (auto& c : conds) {
    QUIVER_ASSIGN_OR_RAISE(ExprPtr e, std::move(c).ToExpression());
    join->expressions.push_back(std::move(e));
  }
  return Status::OK();
}

// --- entry points ----------------------------------------------------------------------

class SubqueryPlanner {
 public:
  explicit SubqueryPlanner(BindState* state) : state_(state) {}

  Result<ExprPtr> Plan(Expression& node, LogicalOpPtr* root) {
    auto sub = node.As<SubqueryExpression>().subquery;
    if (sub->test) QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &sub->test, root));
    bool correlated = false;
    for (const auto& c : sub->correlated) correlated |= c.depth == 1;
    if (!correlated) {
      LowerAll(sub->plan.get());
      return PlanUncorrelated(*sub, root);
    }
    // Try the simple shapes first; fall back to the dependent join.
    LogicalOpPtr saved = sub->plan->Copy();
    auto simple = PlanSimpleCorrelated(*sub, root);
    if (simple.ok() && *simple != nullptr) return simple;
    if (!simple.ok() && simple.status().code() != StatusCode::kNotImplemented)
      return simple.status();
    sub->plan = std::move(saved);
    return PlanDependentJoin(*sub, root);
  }

 private:
  // Deeper references (to queries further out) move one level in.
  static void LowerAll(LogicalOperator* plan) {
    VisitPlanExpressions(plan, [](ExprPtr* e) {
      if (auto* ref = (*e)->TryAs<ColumnRefExpression>(); ref && ref->depth > 0) ref->depth--;
    });
  }

  Result<ExprPtr> PlanUncorrelated(BoundSubquery& sub, LogicalOpPtr* root) {
    const auto sub_out = sub.plan->GetColumnBindings();
    switch (sub.kind) {
      case sql::SubqueryKind::kScalar: {
        const int group_index = state_->NewTableIndex();
        auto agg = std::make_unique<LogicalAggregate>(group_index, state_->NewTableIndex());
        QUIVER_ASSIGN_OR_RAISE(BoundAggregate single, FunctionRegistry::Get().ResolveAggregate(
                                                          "__single_value", {{sub.type, false}}));
        auto a = std::make_unique<AggregateExpression>(single.function, single.return_type);
        a->children.push_back(MakeColumnRef(sub_out[0], sub.type));
        agg->expressions.push_back(std::move(a));
        agg->children.push_back(std::move(sub.plan));
        const ColumnBinding result{agg->aggregate_index, 0};
        *root = MakeCross(std::move(*root), std::move(agg));
        return MakeColumnRef(result, sub.type);
      }
      case sql::SubqueryKind::kExists: {
        auto join = MakeJoin(JoinType::kMark, std::move(*root), std::move(sub.plan));
        join->mark_index = state_->NewTableIndex();
        const ColumnBinding mark{join->mark_index, 0};
        *root = std::move(join);
        return MakeColumnRef(mark, boolean(), "exists");
      }
      case sql::SubqueryKind::kAny:
      case sql::SubqueryKind::kAll:
        return PlanAnyAll(sub, std::move(sub.plan), sub_out[0], {}, root);
    }
    return Status::Invalid("bad subquery");
  }

  // x op ANY (right) as a mark join of *root with `right`, whose column
  // `tested` is compared with x three-valued; x op ALL (right) as
  // NOT (x negated-op ANY (right)). `correlation`: conditions a right row
  // must satisfy to count at all.
  Result<ExprPtr> PlanAnyAll(BoundSubquery& sub, LogicalOpPtr right, ColumnBinding tested,
                             std::vector<JoinCondition> correlation, LogicalOpPtr* root) {
    std::string op = sub.op;
    if (sub.kind == sql::SubqueryKind::kAll) op = NegateComparison(op);
    if (op.empty()) return Status::Unsupported("ALL with operator {}", sub.op);
    auto join = MakeJoin(JoinType::kMark, std::move(*root), std::move(right));
    join->mark_index = state_->NewTableIndex();
    QUIVER_RETURN_NOT_OK(AddConditionsAsPredicates(std::move(correlation), join.get()));
    QUIVER_ASSIGN_OR_RAISE(
        JoinCondition cond,
        MakeCondition(sub.test->Copy(), MakeColumnRef(tested, sub.type), op, sub.location));
    join->conditions.push_back(std::move(cond));
    const ColumnBinding mark{join->mark_index, 0};
    *root = std::move(join);
    ExprPtr ref = MakeColumnRef(mark, boolean());
    if (sub.kind == sql::SubqueryKind::kAll) return MakeNot(std::move(ref));
    return ref;
  }

  // left op right with the operands cast to the comparison's argument types.
  Result<JoinCondition> MakeCondition(ExprPtr left, ExprPtr right, const std::string& op,
                                      int location) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(left));
    args.push_back(std::move(right));
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cmp, BindOperatorCall(op, std::move(args), location));
    JoinCondition c;
    c.op = op;
    c.left = std::move(cmp->children[0]);
    c.right = std::move(cmp->children[1]);
    return c;
  }

  // Returns null (not an error) when the shape does not fit.
  Result<ExprPtr> PlanSimpleCorrelated(BoundSubquery& sub, LogicalOpPtr* root) {
    for (const auto& c : sub.correlated) {
      if (c.depth > 1) return ExprPtr();  // keep deeper correlations for the general path
    }
    SimpleShape shape;
    const bool scalar = sub.kind == sql::SubqueryKind::kScalar;
    LogicalOpPtr plan = std::move(sub.plan);
    if (!TakeSimpleShape(&plan, scalar, &shape)) {
      sub.plan = std::move(plan);
      return ExprPtr();
    }
    // Split conjuncts: correlated ones become join conditions.
    std::vector<ExprPtr> local, correlated;
    for (auto& c : shape.conjuncts) {
      (ExprHasCorrelation(*c) ? correlated : local).push_back(std::move(c));
    }
    LogicalOpPtr base = std::move(shape.base);
    if (!local.empty()) {
      base = std::make_unique<LogicalFilter>(std::move(local), std::move(base));
    }
    if (!scalar) {
      // EXISTS / ANY / ALL: mark join with the correlated predicates as its
      // conditions; the tested column is the projection's expression.
      auto join = std::make_unique<LogicalJoin>(JoinType::kMark);
      join->mark_index = state_->NewTableIndex();
      for (auto& c : correlated) {
        LowerDepth(&c);
        join->expressions.push_back(std::move(c));
      }
      ExprPtr result = MakeColumnRef({join->mark_index, 0}, boolean(), "exists");
      if (sub.kind != sql::SubqueryKind::kExists) {
        if (shape.projection == nullptr) return ExprPtr();
        std::string op = sub.op;
        if (sub.kind == sql::SubqueryKind::kAll) {
          op = NegateComparison(op);
          if (op.empty()) return Status::Unsupported("ALL with operator {}", sub.op);
        }
        ExprPtr inner = shape.projection->expressions[0]->Copy();
        QUIVER_ASSIGN_OR_RAISE(JoinCondition cond,
                               MakeCondition(sub.test->Copy(), std::move(inner), op, sub.location));
        join->conditions.push_back(std::move(cond));
        if (sub.kind == sql::SubqueryKind::kAll) result = MakeNot(std::move(result));
      }
      join->children.push_back(std::move(*root));
      join->children.push_back(std::move(base));
      *root = std::move(join);
      return result;
    }
    // Scalar aggregate: every correlated conjunct must be inner = outer.
    std::vector<ExprPtr> inner_keys, outer_keys;
    for (auto& c : correlated) {
      if (c->type != ExprType::kFunction || c->As<FunctionExpression>().name() != "=" ||
          c->children.size() != 2) {
        return ExprPtr();
      }
      ExprPtr a = std::move(c->children[0]), b = std::move(c->children[1]);
      if (OnlyDepth(*a, 1) && OnlyDepth(*b, 0)) std::swap(a, b);
      if (!(OnlyDepth(*a, 0) && OnlyDepth(*b, 1))) return ExprPtr();
      inner_keys.push_back(std::move(a));
      LowerDepth(&b);
      outer_keys.push_back(std::move(b));
    }
    if (inner_keys.empty()) return ExprPtr();
    LogicalAggregate* agg_template = shape.aggregate;
    auto agg = std::make_unique<LogicalAggregate>(agg_template->group_index,
                                                  agg_template->aggregate_index);
    for (auto& a : agg_template->expressions) agg->expressions.push_back(a->Copy());
    for (auto& k : inner_keys) agg->groups.push_back(k->Copy());
    agg->children.push_back(std::move(base));
    auto join = std::make_unique<LogicalJoin>(JoinType::kLeft);
    for (size_t i = 0; i < outer_keys.size(); ++i) {
      ExprPtr group_ref =
          MakeColumnRef({agg->group_index, static_cast<int>(i)}, inner_keys[i]->return_type);
      join->conditions.push_back({std::move(outer_keys[i]), std::move(group_ref), "="});
    }
    // The subquery's value, computed over the joined aggregate; count() of
    // a missing group is 0.
    ExprPtr value = shape.projection ? shape.projection->expressions[0]->Copy()
                                     : MakeColumnRef({agg->aggregate_index, 0}, sub.type);
    std::vector<const AggregateFunction*> fns;
    for (const auto& a : agg->expressions) fns.push_back(a->As<AggregateExpression>().aggregate);
    const int agg_index = agg->aggregate_index;
    std::function<void(ExprPtr*)> wrap_counts = [&](ExprPtr* e) {
      const auto* ref = (*e)->TryAs<ColumnRefExpression>();
      if (ref && ref->depth == 0 && ref->binding.table == agg_index) {
        const AggregateFunction* f = fns[static_cast<size_t>(ref->binding.column)];
        if (f && (f->name == "count" || f->name == "count_star")) {
          auto c = std::make_unique<OperatorExpression>(ExprType::kCoalesce, (*e)->return_type);
          c->children.push_back(std::move(*e));
          c->children.push_back(MakeConstant(Value::Int64(0)));
          *e = std::move(c);
        }
        return;  // not into the new COALESCE
      }
      for (auto& c : (*e)->children) wrap_counts(&c);
    };
    wrap_counts(&value);
    // Only group columns are shared between the keys... the aggregate has
    // a fresh group_index when reused twice: keep indices unique.
    join->children.push_back(std::move(*root));
    join->children.push_back(std::move(agg));
    *root = std::move(join);
    return value;
  }

  Result<ExprPtr> PlanDependentJoin(BoundSubquery& sub, LogicalOpPtr* root) {
    Correlation corr;
    for (const auto& c : sub.correlated) {
      if (c.depth == 1) corr.columns.push_back(c);
    }
    // D = DISTINCT(correlated columns) over a copy of the outer plan.
    BindingMap m;
    LogicalOpPtr outer_copy = CopyFresh(**root, state_, &m);
    auto proj = std::make_unique<LogicalProjection>();
    proj->table_index = state_->NewTableIndex();
    for (const auto& c : corr.columns) {
      auto it = m.find(c.binding);
      if (it == m.end()) {
        return Status::Unsupported("correlated reference to column \"{}\" here", c.name);
      }
      proj->expressions.push_back(MakeColumnRef(it->second, c.type, c.name));
    }
    proj->children.push_back(std::move(outer_copy));
    auto distinct = std::make_unique<LogicalDistinct>();
    distinct->children.push_back(std::move(proj));
    corr.delim = std::move(distinct);

    DependentJoinPusher pusher(state_, corr);
    QUIVER_ASSIGN_OR_RAISE(Pushed pushed, pusher.Push(std::move(sub.plan)));
    LowerAll(pushed.op.get());
    const auto out = pushed.op->GetColumnBindings();
    ColumnBinding result_col = out.empty() ? ColumnBinding{} : out[0];
    auto it = pushed.remap.find(result_col);
    if (it != pushed.remap.end()) result_col = it->second;

    std::vector<JoinCondition> conds;
    for (size_t i = 0; i < corr.columns.size(); ++i) {
      conds.push_back(
          {MakeColumnRef(corr.columns[i].binding, corr.columns[i].type, corr.columns[i].name),
           MakeColumnRef(pushed.carried[i], corr.columns[i].type), "is not distinct from"});
    }
    switch (sub.kind) {
      case sql::SubqueryKind::kScalar: {
        auto join = MakeJoin(JoinType::kSingle, std::move(*root), std::move(pushed.op));
        join->conditions = std::move(conds);
        *root = std::move(join);
        return MakeColumnRef(result_col, sub.type);
      }
      case sql::SubqueryKind::kExists: {
        auto join = MakeJoin(JoinType::kMark, std::move(*root), std::move(pushed.op));
        join->mark_index = state_->NewTableIndex();
        QUIVER_RETURN_NOT_OK(AddConditionsAsPredicates(std::move(conds), join.get()));
        const ColumnBinding mark{join->mark_index, 0};
        *root = std::move(join);
        return MakeColumnRef(mark, boolean(), "exists");
      }
      case sql::SubqueryKind::kAny:
      case sql::SubqueryKind::kAll:
        // Correlation must hold for a row to count; the comparison decides
        // the mark three-valued.
        return PlanAnyAll(sub, std::move(pushed.op), result_col, std::move(conds), root);
    }
    return Status::Invalid("bad subquery");
  }

  BindState* state_;
};

Result<LogicalOpPtr> PlanLateralJoin(BindState* state, LogicalOpPtr left, LogicalOpPtr sub,
                                     const std::vector<CorrelatedColumn>& correlated,
                                     JoinType join_type,
                                     std::map<ColumnBinding, ColumnBinding>* remap) {
  Correlation corr;
  corr.columns = correlated;
  // D = DISTINCT(correlated columns) over a copy of the left side.
  BindingMap m;
  LogicalOpPtr left_copy = CopyFresh(*left, state, &m);
  auto proj = std::make_unique<LogicalProjection>();
  proj->table_index = state->NewTableIndex();
  for (const auto& c : corr.columns) {
    auto it = m.find(c.binding);
    if (it == m.end()) {
      return Status::Unsupported(
          "LATERAL reference to column \"{}\", which is not on the left side of this join",
          c.name);
    }
    proj->expressions.push_back(MakeColumnRef(it->second, c.type, c.name));
  }
  proj->children.push_back(std::move(left_copy));
  auto distinct = std::make_unique<LogicalDistinct>();
  distinct->children.push_back(std::move(proj));
  corr.delim = std::move(distinct);

  DependentJoinPusher pusher(state, corr);
  QUIVER_ASSIGN_OR_RAISE(Pushed pushed, pusher.Push(std::move(sub)));
  // References further out move one level in, as for any planned subquery.
  VisitPlanExpressions(pushed.op.get(), [](ExprPtr* e) {
    if (auto* ref = (*e)->TryAs<ColumnRefExpression>(); ref && ref->depth > 0) ref->depth--;
  });
  *remap = pushed.remap;
  auto join = MakeJoin(join_type, std::move(left), std::move(pushed.op));
  for (size_t i = 0; i < corr.columns.size(); ++i) {
    join->conditions.push_back(
        {MakeColumnRef(corr.columns[i].binding, corr.columns[i].type, corr.columns[i].name),
         MakeColumnRef(pushed.carried[i], corr.columns[i].type), "is not distinct from"});
  }
  return LogicalOpPtr(std::move(join));
}

void RemapCorrelatedToGroups(Expression* expr, const std::vector<ExprPtr>& groups,
                             int group_index) {
  std::map<ColumnBinding, ColumnBinding> map;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (const auto* ref = groups[i]->TryAs<ColumnRefExpression>(); ref && ref->depth == 0) {
      map[ref->binding] = {group_index, static_cast<int>(i)};
    }
  }
  if (map.empty()) return;
  std::function<void(Expression*, int)> walk = [&](Expression* e, int depth) {
    if (e->type == ExprType::kSubquery) {
      auto& sub = *e->As<SubqueryExpression>().subquery;
      VisitPlanExpressions(sub.plan.get(), [&](ExprPtr* x) {
        if (auto* ref = (*x)->TryAs<ColumnRefExpression>(); ref && ref->depth == depth + 1) {
          auto it = map.find(ref->binding);
          if (it != map.end()) ref->binding = it->second;
        }
      });
      for (auto& c : sub.correlated) {
        if (c.depth == depth + 1) {
          auto it = map.find(c.binding);
          if (it != map.end()) c.binding = it->second;
        }
      }
      if (sub.test) walk(sub.test.get(), depth);
    }
    for (auto& c : e->children) walk(c.get(), depth);
  };
  walk(expr, 0);
}

Status PlanSubqueries(BindState* state, ExprPtr* expr, LogicalOpPtr* root) {
  Status st;
  std::function<void(ExprPtr*)> walk = [&](ExprPtr* e) {
    if (!st.ok() || *e == nullptr) return;
    for (auto& c : (*e)->children) walk(&c);
    if (auto* agg = (*e)->TryAs<AggregateExpression>(); agg && agg->filter) walk(&agg->filter);
    if ((*e)->type != ExprType::kSubquery) return;
    SubqueryPlanner planner(state);
    auto r = planner.Plan(**e, root);
    if (!r.ok()) {
      st = r.status().WithPosition((*e)->As<SubqueryExpression>().subquery->location);
      return;
    }
    std::string alias = (*e)->alias;
    *e = std::move(r).ValueOrDie();
    if ((*e)->alias.empty()) (*e)->alias = alias;
  };
  walk(expr);
  return st;
}

}  // namespace quiver::plan
