// SELECT: FROM -> WHERE -> GROUP BY / aggregates -> HAVING -> select list
// -> DISTINCT -> ORDER BY -> LIMIT/OFFSET; VALUES; UNION/INTERSECT/EXCEPT;
// WITH.
#include <algorithm>

#include "functions/cast.h"
#include "planner/expression_binder.h"
#include "vector/sql_type.h"

namespace quiver::plan {

using sql::ExprKind;
using sql::ParsedExpr;
using sql::SelectNode;

Result<BoundQuery> Binder::BindQuery(const SelectNode& node) {
  const size_t cte_mark = ctes_.size();
  for (const auto& cte : node.ctes) ctes_.push_back(&cte);
  Result<BoundQuery> r = node.set_op != sql::SetOpKind::kNone ? BindSetOp(node)
                         : !node.values.empty()               ? BindValues(node)
                                                              : BindSelect(node);
  ctes_.resize(cte_mark);
  return r;
}

namespace {

LogicalOpPtr MakeProjection(int table_index, std::vector<ExprPtr> exprs, LogicalOpPtr child) {
  auto p = std::make_unique<LogicalOperator>(LogicalOpType::kProjection);
  p->table_index = table_index;
  p->expressions = std::move(exprs);
  p->children.push_back(std::move(child));
  return p;
}

LogicalOpPtr MakeFilter(std::vector<ExprPtr> conjuncts, LogicalOpPtr child) {
  auto f = std::make_unique<LogicalOperator>(LogicalOpType::kFilter);
  f->expressions = std::move(conjuncts);
  f->children.push_back(std::move(child));
  return f;
}

// A bare integer constant names a select-list position (ORDER BY 1, GROUP BY 2).
bool IsPositional(const ParsedExpr& e, int64_t* pos) {
  if (e.kind == ExprKind::kConstant && e.literal == sql::LiteralKind::kInteger) {
    *pos = e.ival;
    return true;
  }
  return false;
}

}  // namespace

Result<int64_t> Binder::BindLimitValue(const ParsedExpr& e, const char* what) {
  ExpressionBinder eb(this, ExpressionBinder::Clause::kLimit);
  QUIVER_ASSIGN_OR_RAISE(ExprPtr x, eb.Bind(e));
  x = ExpressionBinder::ResolveUnknown(std::move(x), int64());
  if (x->type != ExprType::kConstant) {
    return Status::Unsupported("non-constant {}", what).WithPosition(e.location);
  }
  if (x->value.is_null()) return int64_t{-1};  // LIMIT ALL / NULL
  auto v = CastValue(x->value, int64());
  if (!v.ok()) return v.status().WithPosition(e.location);
  if (v->integer() < 0) {
    return Status::Invalid("{} must not be negative", what).WithPosition(e.location);
  }
  return v->integer();
}

Result<BoundQuery> Binder::BindSelect(const SelectNode& node) {
  QUIVER_ASSIGN_OR_RAISE(LogicalOpPtr plan, BindFrom(node.from));

  // WHERE
  if (node.where) {
    ExpressionBinder eb(this, ExpressionBinder::Clause::kWhere);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr cond, eb.BindPredicate(*node.where, "WHERE"));
    QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &cond, &plan));
    std::vector<ExprPtr> conjuncts;
    SplitConjunction(std::move(cond), &conjuncts);
    plan = MakeFilter(std::move(conjuncts), std::move(plan));
  }

  // Expand the select list (`*`, `t.*`) into (expression, name, parsed) items.
  struct Target {
    const ParsedExpr* parsed = nullptr;  // null for star-expanded columns
    ExprPtr expanded;                    // star-expanded column reference
    std::string name;
  };
  std::vector<Target> targets;
  for (size_t i = 0; i < node.targets.size(); ++i) {
    const ParsedExpr& t = *node.targets[i];
    if (t.kind == ExprKind::kStar) {
      bool any = false;
      const std::string qualifier = t.names.empty() ? "" : t.names.back();
      bool qualifier_found = qualifier.empty();
      for (const auto& u : using_columns_) {
        if (!qualifier.empty()) break;
        // FULL JOIN USING columns first, as PostgreSQL lists them.
        targets.push_back({nullptr, u.second->Copy(), u.first});
        any = true;
      }
      for (const auto& table : scope_) {
        if (!qualifier.empty() && !IdentifierEquals(table.alias, qualifier)) continue;
        qualifier_found = true;
        for (size_t c = 0; c < table.names.size(); ++c) {
          if (qualifier.empty() && table.hidden[c]) continue;
          targets.push_back({nullptr, MakeColumnRef(table.bindings[c], table.types[c], table.names[c]),
                             table.names[c]});
          any = true;
        }
      }
      if (!qualifier_found) {
        return Status::KeyError("missing FROM-clause entry for table \"{}\"", qualifier).WithPosition(t.location);
      }
      if (!any && qualifier.empty() && node.from.empty()) {
        return Status::Invalid("SELECT * with no tables specified is not valid").WithPosition(t.location);
      }
      continue;
    }
    const std::string& alias = i < node.target_aliases.size() ? node.target_aliases[i] : std::string();
    targets.push_back({&t, nullptr, alias.empty() ? t.ToString() : alias});
  }

  // Aggregation?
  bool has_aggregates = !node.group_by.empty() || node.having != nullptr;
  std::function<bool(const ParsedExpr&)> contains_agg = [&](const ParsedExpr& e) {
    if (e.kind == ExprKind::kFunction && !e.has_window &&
        (FunctionRegistry::Get().HasAggregate(e.name) || e.name == "count")) {
      return true;
    }
    if (e.kind == ExprKind::kSubquery) return false;  // aggregates of a subquery are its own
    for (const auto& c : e.children) {
      if (c && contains_agg(*c)) return true;
    }
    if (e.case_arg && contains_agg(*e.case_arg)) return true;
    if (e.case_else && contains_agg(*e.case_else)) return true;
    return false;
  };
  for (const auto& t : targets) {
    if (t.parsed && contains_agg(*t.parsed)) has_aggregates = true;
  }
  for (const auto& o : node.order_by) {
    if (contains_agg(*o.expr)) has_aggregates = true;
  }

  const int group_index = state_->NewTableIndex();
  const int aggregate_index = state_->NewTableIndex();
  std::vector<ExprPtr> groups;
  std::vector<ExprPtr> aggregates;

  // GROUP BY: input columns first; else a select-list alias or position.
  for (const auto& g : node.group_by) {
    int64_t pos;
    ExprPtr bound;
    if (IsPositional(*g, &pos)) {
      if (pos < 1 || pos > static_cast<int64_t>(targets.size())) {
        return Status::Invalid("GROUP BY position {} is not in select list", pos).WithPosition(g->location);
      }
      const Target& t = targets[static_cast<size_t>(pos - 1)];
      if (t.expanded) {
        bound = t.expanded->Copy();
      } else {
        ExpressionBinder eb(this, ExpressionBinder::Clause::kGroupBy);
        QUIVER_ASSIGN_OR_RAISE(bound, eb.Bind(*t.parsed));
      }
    } else {
      ExpressionBinder eb(this, ExpressionBinder::Clause::kGroupBy);
      auto r = eb.Bind(*g);
      if (!r.ok() && g->kind == ExprKind::kColumnRef && g->names.size() == 1) {
        // An output column name.
        for (const auto& t : targets) {
          if (t.name == g->names[0] && t.parsed) {
            ExpressionBinder eb2(this, ExpressionBinder::Clause::kGroupBy);
            r = eb2.Bind(*t.parsed);
            break;
          }
        }
      }
      if (!r.ok()) return r.status();
      bound = std::move(r).ValueOrDie();
    }
    bound = ExpressionBinder::ResolveUnknown(std::move(bound));
    if (bound->HasSubquery()) return Status::Unsupported("subqueries in GROUP BY").WithPosition(g->location);
    if (bound->alias.empty()) bound->alias = g->ToString();
    bool dup = false;
    for (const auto& existing : groups) dup |= existing->Equals(*bound);
    if (!dup) groups.push_back(std::move(bound));
  }

  // Select list.
  std::vector<ExprPtr> select_exprs;
  std::vector<std::string> names;
  for (const auto& t : targets) {
    ExprPtr e;
    if (t.expanded) {
      e = t.expanded->Copy();
    } else {
      ExpressionBinder eb(this, ExpressionBinder::Clause::kSelect);
      if (has_aggregates) eb.EnableAggregates(&aggregates, aggregate_index);
      QUIVER_ASSIGN_OR_RAISE(e, eb.Bind(*t.parsed));
    }
    e = ExpressionBinder::ResolveUnknown(std::move(e));
    if (has_aggregates) {
      QUIVER_RETURN_NOT_OK(ExpressionBinder::ReplaceGroupKeys(&e, groups, group_index, aggregate_index,
                                                              t.parsed ? t.parsed->location : -1));
      RemapCorrelatedToGroups(e.get(), groups, group_index);
    }
    e->alias = t.name;
    select_exprs.push_back(std::move(e));
    names.push_back(t.name);
  }

  // HAVING
  ExprPtr having;
  if (node.having) {
    ExpressionBinder eb(this, ExpressionBinder::Clause::kHaving);
    eb.EnableAggregates(&aggregates, aggregate_index);
    QUIVER_ASSIGN_OR_RAISE(having, eb.BindPredicate(*node.having, "HAVING"));
    QUIVER_RETURN_NOT_OK(ExpressionBinder::ReplaceGroupKeys(&having, groups, group_index, aggregate_index,
                                                            node.having->location));
    RemapCorrelatedToGroups(having.get(), groups, group_index);
  }

  // ORDER BY items that are not select-list entries become hidden columns.
  struct OrderTarget {
    int column;  // index into select_exprs (hidden ones appended)
    bool descending;
    bool nulls_first;
  };
  std::vector<OrderTarget> order;
  const size_t visible = select_exprs.size();
  for (const auto& o : node.order_by) {
    const bool nulls_first = o.nulls == sql::NullsOrder::kDefault ? o.descending
                                                                  : o.nulls == sql::NullsOrder::kFirst;
    int64_t pos;
    int column = -1;
    if (IsPositional(*o.expr, &pos)) {
      if (pos < 1 || pos > static_cast<int64_t>(visible)) {
        return Status::Invalid("ORDER BY position {} is not in select list", pos).WithPosition(o.expr->location);
      }
      column = static_cast<int>(pos - 1);
    } else if (o.expr->kind == ExprKind::kColumnRef && o.expr->names.size() == 1) {
      // A bare name matching an output column (SQL-92 rule).
      int hits = 0;
      for (size_t i = 0; i < visible; ++i) {
        if (names[i] == o.expr->names[0]) {
          if (hits == 0) column = static_cast<int>(i);
          ++hits;
        }
      }
      if (hits > 1) {
        // Ambiguous only when the matches are different expressions.
        bool same = true;
        for (size_t i = 0; i < visible; ++i) {
          if (names[i] == o.expr->names[0] && !select_exprs[i]->Equals(*select_exprs[static_cast<size_t>(column)])) {
            same = false;
          }
        }
        if (!same) {
          return Status::Invalid("ORDER BY \"{}\" is ambiguous", o.expr->names[0]).WithPosition(o.expr->location);
        }
      }
    }
    if (column < 0) {
      ExpressionBinder eb(this, ExpressionBinder::Clause::kOrderBy);
      if (has_aggregates) eb.EnableAggregates(&aggregates, aggregate_index);
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(*o.expr));
      e = ExpressionBinder::ResolveUnknown(std::move(e));
      if (has_aggregates) {
        QUIVER_RETURN_NOT_OK(ExpressionBinder::ReplaceGroupKeys(&e, groups, group_index, aggregate_index,
                                                                o.expr->location));
        RemapCorrelatedToGroups(e.get(), groups, group_index);
      }
      for (size_t i = 0; i < select_exprs.size(); ++i) {
        if (select_exprs[i]->Equals(*e)) {
          column = static_cast<int>(i);
          break;
        }
      }
      if (column < 0) {
        if (node.distinct) {
          return Status::Invalid("for SELECT DISTINCT, ORDER BY expressions must appear in select list")
              .WithPosition(o.expr->location);
        }
        column = static_cast<int>(select_exprs.size());
        e->alias = o.expr->ToString();
        select_exprs.push_back(std::move(e));
      }
    }
    order.push_back({column, o.descending, nulls_first});
  }

  // Aggregate operator.
  if (has_aggregates) {
    for (const auto& a : aggregates) {
      if (a->HasSubquery()) return Status::Unsupported("subqueries inside aggregate arguments");
    }
    auto agg = std::make_unique<LogicalOperator>(LogicalOpType::kAggregate);
    agg->group_index = group_index;
    agg->aggregate_index = aggregate_index;
    agg->groups = std::move(groups);
    agg->expressions = std::move(aggregates);
    agg->children.push_back(std::move(plan));
    plan = std::move(agg);
    if (having) {
      QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &having, &plan));
      std::vector<ExprPtr> conjuncts;
      SplitConjunction(std::move(having), &conjuncts);
      plan = MakeFilter(std::move(conjuncts), std::move(plan));
    }
  }

  // Subqueries in the select list / ORDER BY.
  for (auto& e : select_exprs) {
    if (e->HasSubquery()) {
      std::string alias = e->alias;
      QUIVER_RETURN_NOT_OK(PlanSubqueries(state_, &e, &plan));
      e->alias = alias;
    }
  }

  const int projection_index = state_->NewTableIndex();
  std::vector<TypeRef> types;
  for (size_t i = 0; i < visible; ++i) types.push_back(select_exprs[i]->return_type);
  const size_t total = select_exprs.size();
  std::vector<TypeRef> all_types;
  for (const auto& e : select_exprs) all_types.push_back(e->return_type);
  plan = MakeProjection(projection_index, std::move(select_exprs), std::move(plan));

  if (node.distinct) {
    if (!node.distinct_on.empty()) return Status::Unsupported("SELECT DISTINCT ON");
    auto d = std::make_unique<LogicalOperator>(LogicalOpType::kDistinct);
    d->children.push_back(std::move(plan));
    plan = std::move(d);
  }

  if (!order.empty()) {
    auto o = std::make_unique<LogicalOperator>(LogicalOpType::kOrder);
    for (const auto& ot : order) {
      o->orders.push_back({MakeColumnRef({projection_index, ot.column}, all_types[static_cast<size_t>(ot.column)]),
                           ot.descending, ot.nulls_first});
    }
    o->children.push_back(std::move(plan));
    plan = std::move(o);
  }
  if (node.limit || node.offset) {
    auto l = std::make_unique<LogicalOperator>(LogicalOpType::kLimit);
    if (node.limit) {
      QUIVER_ASSIGN_OR_RAISE(l->limit, BindLimitValue(*node.limit, "LIMIT"));
    }
    if (node.offset) {
      QUIVER_ASSIGN_OR_RAISE(int64_t off, BindLimitValue(*node.offset, "OFFSET"));
      l->offset = off < 0 ? 0 : off;
    }
    l->children.push_back(std::move(plan));
    plan = std::move(l);
  }
  if (total > visible) {
    // Drop hidden ORDER BY columns.
    std::vector<ExprPtr> keep;
    for (size_t i = 0; i < visible; ++i) {
      keep.push_back(MakeColumnRef({projection_index, static_cast<int>(i)}, types[i], names[i]));
    }
    plan = MakeProjection(state_->NewTableIndex(), std::move(keep), std::move(plan));
  }
  BoundQuery q;
  q.plan = std::move(plan);
  q.names = std::move(names);
  q.types = std::move(types);
  return q;
}

Result<BoundQuery> Binder::BindValues(const SelectNode& node) {
  auto values = std::make_unique<LogicalOperator>(LogicalOpType::kValues);
  values->table_index = state_->NewTableIndex();
  const size_t width = node.values[0].size();
  std::vector<std::vector<ExprPtr>> rows;
  for (const auto& row : node.values) {
    if (row.size() != width) {
      return Status::Invalid("VALUES lists must all be the same length")
          .WithPosition(row.empty() ? node.location : row[0]->location);
    }
    std::vector<ExprPtr> bound;
    for (const auto& v : row) {
      ExpressionBinder eb(this, ExpressionBinder::Clause::kValues);
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(*v));
      if (e->HasSubquery()) return Status::Unsupported("subqueries in VALUES").WithPosition(v->location);
      bound.push_back(std::move(e));
    }
    rows.push_back(std::move(bound));
  }
  // Per column: the common type of all rows.
  std::vector<TypeRef> types;
  for (size_t c = 0; c < width; ++c) {
    std::vector<ExprPtr> column;
    for (auto& r : rows) column.push_back(std::move(r[c]));
    ExpressionBinder eb(this, ExpressionBinder::Clause::kValues);
    if (c < values_target_types_.size() && values_target_types_.size() == width) {
      // INSERT ... VALUES: each value is assigned to the column's type.
      const TypeRef& target = values_target_types_[c];
      for (size_t r = 0; r < rows.size(); ++r) {
        ExprPtr e = std::move(column[r]);
        const DataType& from = *e->return_type;
        const bool assignable = e->unknown_literal || from.id == TypeId::kNull || CanCastImplicitly(from, *target) ||
                                (CategoryOf(from) == CategoryOf(*target) && CanCast(from, *target)) ||
                                target->id == TypeId::kString;
        if (!assignable) {
          return Status::TypeError("column {} is of type {} but expression is of type {}", c + 1,
                                   PgTypeName(*target), PgTypeName(from))
              .WithPosition(node.values[r][c]->location);
        }
        QUIVER_ASSIGN_OR_RAISE(rows[r][c], ExpressionBinder::CastTo(std::move(e), target,
                                                                     node.values[r][c]->location, true));
      }
      types.push_back(target);
      continue;
    }
    TypeRef common;
    bool all_unknown = true;
    for (const auto& e : column) {
      if (e->unknown_literal) continue;
      all_unknown = false;
      if (!common) {
        common = e->return_type;
      } else {
        auto t = CommonSuperType(common, e->return_type, "VALUES");
        if (!t.ok()) return t.status().WithPosition(node.values[0][c]->location);
        common = *t;
      }
    }
    if (all_unknown || !common) common = utf8();
    for (size_t r = 0; r < rows.size(); ++r) {
      QUIVER_ASSIGN_OR_RAISE(rows[r][c], ExpressionBinder::CastTo(std::move(column[r]), common,
                                                                   node.values[r][c]->location, false));
    }
    types.push_back(common);
  }
  values->rows = std::move(rows);
  values->types = types;
  BoundQuery q;
  std::vector<ExprPtr> proj;
  const int vi = values->table_index;
  for (size_t c = 0; c < width; ++c) {
    q.names.push_back("column" + std::to_string(c + 1));
    proj.push_back(MakeColumnRef({vi, static_cast<int>(c)}, types[c], q.names.back()));
  }
  q.types = types;
  q.plan = std::move(values);
  if (!node.order_by.empty() || node.limit || node.offset) {
    std::vector<const ParsedExpr*> none;
    QUIVER_RETURN_NOT_OK(ApplyOrderLimit(node, &q, none));
  }
  return q;
}

Result<BoundQuery> Binder::BindSetOp(const SelectNode& node) {
  Binder left_binder(state_, parent_);
  left_binder.ctes_ = ctes_;
  QUIVER_ASSIGN_OR_RAISE(BoundQuery left, left_binder.BindQuery(*node.left));
  Binder right_binder(state_, parent_);
  right_binder.ctes_ = ctes_;
  QUIVER_ASSIGN_OR_RAISE(BoundQuery right, right_binder.BindQuery(*node.right));
  for (auto* b : {&left_binder, &right_binder}) {
    for (const auto& c : b->correlated()) {
      if (std::find(correlated_.begin(), correlated_.end(), c) == correlated_.end()) correlated_.push_back(c);
    }
  }
  const char* what = node.set_op == sql::SetOpKind::kUnion       ? "UNION"
                     : node.set_op == sql::SetOpKind::kIntersect ? "INTERSECT"
                                                                 : "EXCEPT";
  if (left.types.size() != right.types.size()) {
    return Status::Invalid("each {} query must have the same number of columns", what)
        .WithPosition(node.right->location);
  }
  std::vector<TypeRef> types;
  for (size_t i = 0; i < left.types.size(); ++i) {
    auto t = CommonSuperType(left.types[i], right.types[i], what);
    if (!t.ok()) return t.status().WithPosition(node.location);
    TypeRef ty = *t;
    if (ty->id == TypeId::kNull) ty = utf8();
    types.push_back(ty);
  }
  // Cast each side to the common types.
  auto conform = [&](BoundQuery& q) {
    bool same = true;
    for (size_t i = 0; i < types.size(); ++i) same &= q.types[i]->Equals(*types[i]);
    if (same) return std::move(q.plan);
    const auto b = q.plan->GetColumnBindings();
    std::vector<ExprPtr> exprs;
    for (size_t i = 0; i < types.size(); ++i) {
      exprs.push_back(MakeCast(MakeColumnRef(b[i], q.types[i], q.names[i]), types[i]));
    }
    return MakeProjection(state_->NewTableIndex(), std::move(exprs), std::move(q.plan));
  };
  auto op = std::make_unique<LogicalOperator>(LogicalOpType::kSetOp);
  op->table_index = state_->NewTableIndex();
  op->setop = node.set_op == sql::SetOpKind::kUnion       ? SetOpType::kUnion
              : node.set_op == sql::SetOpKind::kIntersect ? SetOpType::kIntersect
                                                          : SetOpType::kExcept;
  op->setop_all = node.set_all;
  op->types = types;
  op->children.push_back(conform(left));
  op->children.push_back(conform(right));
  BoundQuery q;
  q.names = left.names;
  q.types = types;
  q.plan = std::move(op);
  if (!node.order_by.empty() || node.limit || node.offset) {
    std::vector<const ParsedExpr*> none;
    QUIVER_RETURN_NOT_OK(ApplyOrderLimit(node, &q, none));
  }
  return q;
}

// ORDER BY / LIMIT over a finished result (set operations, VALUES): items
// name output columns by position or name.
Status Binder::ApplyOrderLimit(const SelectNode& node, BoundQuery* q,
                               std::vector<const ParsedExpr*> /*select_exprs*/) {
  const auto bindings = q->plan->GetColumnBindings();
  if (!node.order_by.empty()) {
    auto o = std::make_unique<LogicalOperator>(LogicalOpType::kOrder);
    for (const auto& item : node.order_by) {
      int64_t pos;
      int column = -1;
      if (IsPositional(*item.expr, &pos)) {
        if (pos < 1 || pos > static_cast<int64_t>(q->names.size())) {
          return Status::Invalid("ORDER BY position {} is not in select list", pos).WithPosition(item.expr->location);
        }
        column = static_cast<int>(pos - 1);
      } else if (item.expr->kind == ExprKind::kColumnRef) {
        for (size_t i = 0; i < q->names.size(); ++i) {
          if (q->names[i] == item.expr->names.back() || IdentifierEquals(q->names[i], item.expr->names.back())) {
            column = static_cast<int>(i);
            break;
          }
        }
      }
      if (column < 0) {
        return Status::Unsupported(
                   "ORDER BY on a UNION/INTERSECT/EXCEPT result must name an output column or position")
            .WithPosition(item.expr->location);
      }
      const bool nulls_first = item.nulls == sql::NullsOrder::kDefault ? item.descending
                                                                       : item.nulls == sql::NullsOrder::kFirst;
      o->orders.push_back({MakeColumnRef(bindings[static_cast<size_t>(column)], q->types[static_cast<size_t>(column)],
                                         q->names[static_cast<size_t>(column)]),
                           item.descending, nulls_first});
    }
    o->children.push_back(std::move(q->plan));
    q->plan = std::move(o);
  }
  if (node.limit || node.offset) {
    auto l = std::make_unique<LogicalOperator>(LogicalOpType::kLimit);
    if (node.limit) {
      QUIVER_ASSIGN_OR_RAISE(l->limit, BindLimitValue(*node.limit, "LIMIT"));
    }
    if (node.offset) {
      QUIVER_ASSIGN_OR_RAISE(int64_t off, BindLimitValue(*node.offset, "OFFSET"));
      l->offset = off < 0 ? 0 : off;
    }
    l->children.push_back(std::move(q->plan));
    q->plan = std::move(l);
  }
  return Status::OK();
}

}  // namespace quiver::plan
