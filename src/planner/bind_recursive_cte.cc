// WITH RECURSIVE: a CTE whose body references itself is bound at each
// reference as a LogicalRecursiveCte (planner/logical_recursive_cte.h):
// the non-recursive term, then the recursive term with the self-reference
// bound to a scan of the working table. The shape checks are PostgreSQL's
// (parse_cte.c checkWellFormedRecursion), with its messages and 42P19.
#include "planner/binder.h"
#include "planner/expression_binder.h"
#include "planner/logical_recursive_cte.h"
#include "vector/sql_type.h"

namespace quiver::plan {

using sql::ParsedExpr;
using sql::SelectNode;
using sql::TableRef;

namespace {

// Where a self-reference sits (PostgreSQL's RecursionContext).
enum class RecursionContext { kOk, kNonRecursiveTerm, kSublink, kOuterJoin, kIntersect, kExcept };

const char* ContextText(RecursionContext c) {
  switch (c) {
    case RecursionContext::kNonRecursiveTerm:
      return "its non-recursive term";
    case RecursionContext::kSublink:
      return "a subquery";
    case RecursionContext::kOuterJoin:
      return "an outer join";
    case RecursionContext::kIntersect:
      return "INTERSECT";
    case RecursionContext::kExcept:
      return "EXCEPT";
    case RecursionContext::kOk:
      break;
  }
  return "";
}

bool IsAggregateCall(const ParsedExpr& e) {
  return e.kind == sql::ExprKind::kFunction && !e.has_window &&
         (e.name == "count" || FunctionRegistry::Get().HasAggregate(e.name));
}

// The first aggregate call in `e` outside subqueries, or null.
const ParsedExpr* FindAggregate(const ParsedExpr* e) {
  if (e == nullptr || e->kind == sql::ExprKind::kSubquery) return nullptr;
  if (IsAggregateCall(*e)) return e;
  for (const auto& c : e->children) {
    if (const ParsedExpr* a = FindAggregate(c.get())) return a;
  }
  for (const ParsedExpr* x : {e->filter.get(), e->case_arg.get(), e->case_else.get()}) {
    if (const ParsedExpr* a = FindAggregate(x)) return a;
  }
  return nullptr;
}

// Finds the references to `name` in a query, checking each one's place.
class RecursionWalker {
 public:
  RecursionWalker(const std::string& name, bool check) : name_(name), check_(check) {}
  int count() const { return count_; }
  const Status& status() const { return status_; }

  void Select(const SelectNode& s, RecursionContext ctx) {
    if (!status_.ok()) return;
    for (const auto& c : s.ctes) {
      // An inner WITH of the same name hides the outer one.
      if (IdentifierEquals(c.name, name_)) return;
    }
    for (const auto& c : s.ctes) Select(*c.query, ctx);
    if (s.set_op != sql::SetOpKind::kNone) {
      RecursionContext left = ctx, right = ctx;
      if (s.set_op == sql::SetOpKind::kIntersect && s.set_all)
        left = right = RecursionContext::kIntersect;
      if (s.set_op == sql::SetOpKind::kExcept) {
        if (s.set_all) left = RecursionContext::kExcept;
        right = RecursionContext::kExcept;
      }
      // Within an outer context, the inner one does not override it.
      if (ctx != RecursionContext::kOk) left = right = ctx;
      Select(*s.left, left);
      Select(*s.right, right);
    } else {
      const int before = count_;
      for (const auto& f : s.from) Ref(*f, ctx);
      if (check_ && count_ > before && status_.ok()) CheckAggregates(s);
      for (const auto& row : s.values) {
        for (const auto& v : row) Expr(v.get());
      }
      for (const auto& t : s.targets) Expr(t.get());
      Expr(s.where.get());
      for (const auto& g : s.group_by) Expr(g.get());
      Expr(s.having.get());
      for (const auto& d : s.distinct_on) Expr(d.get());
    }
    for (const auto& o : s.order_by) Expr(o.expr.get());
    Expr(s.limit.get());
    Expr(s.offset.get());
  }

 private:
  void Ref(const TableRef& r, RecursionContext ctx) {
    if (!status_.ok()) return;
    switch (r.kind) {
      case TableRef::kTable:
        if (r.schema.empty() && IdentifierEquals(r.name, name_)) {
          if (ctx != RecursionContext::kOk) {
            Fail(r.location,
                 fmt::format("recursive reference to query \"{}\" must not appear within {}", name_,
                             ContextText(ctx)));
          } else if (++count_ > 1) {
            Fail(r.location,
                 fmt::format("recursive reference to query \"{}\" must not appear more than once",
                             name_));
          }
        }
        return;
      case TableRef::kFunction:
        Expr(r.function.get());
        return;
      case TableRef::kSubquery:
        Select(*r.subquery, ctx);
        return;
      case TableRef::kJoin: {
        RecursionContext left = ctx, right = ctx;
        if (r.join_kind == sql::JoinKind::kLeft) right = RecursionContext::kOuterJoin;
        if (r.join_kind == sql::JoinKind::kRight) left = RecursionContext::kOuterJoin;
        if (r.join_kind == sql::JoinKind::kFull) left = right = RecursionContext::kOuterJoin;
        if (ctx != RecursionContext::kOk) left = right = ctx;
        Ref(*r.left, left);
        Ref(*r.right, right);
        Expr(r.condition.get());
        return;
      }
    }
  }

  void Expr(const ParsedExpr* e) {
    if (e == nullptr || !status_.ok()) return;
    if (e->kind == sql::ExprKind::kSubquery && e->subquery) {
      Select(*e->subquery, RecursionContext::kSublink);
    }
    for (const auto& c : e->children) Expr(c.get());
    Expr(e->filter.get());
    Expr(e->case_arg.get());
    Expr(e->case_else.get());
    for (const auto& o : e->agg_order) Expr(o.expr.get());
    if (e->window) {
      for (const auto& p : e->window->partition_by) Expr(p.get());
      for (const auto& o : e->window->order_by) Expr(o.expr.get());
    }
  }

  // The SELECT that reads the working table must not aggregate.
  void CheckAggregates(const SelectNode& s) {
    const ParsedExpr* agg = nullptr;
    for (const auto& t : s.targets) {
      if (agg == nullptr) agg = FindAggregate(t.get());
    }
    if (agg == nullptr) agg = FindAggregate(s.having.get());
    for (const auto& o : s.order_by) {
      if (agg == nullptr) agg = FindAggregate(o.expr.get());
    }
    if (agg != nullptr) {
      status_ = Status::Invalid(
                    "aggregate functions are not allowed in a recursive query's recursive term")
                    .WithSqlState(sqlstate::kInvalidRecursion)
                    .WithPosition(agg->location);
    }
  }

  void Fail(int location, std::string message) {
    status_ = Status::Invalid("{}", message)
                  .WithSqlState(sqlstate::kInvalidRecursion)
                  .WithPosition(location);
  }

  const std::string& name_;
  bool check_;
  int count_ = 0;
  Status status_;
};

}  // namespace

bool IsRecursiveCte(const sql::CommonTableExpr& cte) {
  RecursionWalker w(cte.name, false);
  w.Select(*cte.query, RecursionContext::kOk);
  return w.count() > 0 || !w.status().ok();
}

Result<LogicalOpPtr> Binder::BindRecursiveCte(const VisibleCte& visible, const TableRef& ref) {
  const sql::CommonTableExpr& cte = *visible.cte;
  const SelectNode& q = *cte.query;
  if (q.set_op != sql::SetOpKind::kUnion) {
    return Status::Invalid(
               "recursive query \"{}\" does not have the form non-recursive-term UNION [ALL] "
               "recursive-term",
               cte.name)
        .WithSqlState(sqlstate::kInvalidRecursion)
        .WithPosition(cte.location);
  }
  {
    RecursionWalker anchor(cte.name, false);
    anchor.Select(*q.left, RecursionContext::kNonRecursiveTerm);
    QUIVER_RETURN_NOT_OK(anchor.status());
    RecursionWalker recursive(cte.name, true);
    recursive.Select(*q.right, RecursionContext::kOk);
    QUIVER_RETURN_NOT_OK(recursive.status());
    for (const auto& c : q.ctes) {
      RecursionWalker inner(cte.name, false);
      inner.Select(*c.query, RecursionContext::kOk);
      if (inner.count() > 0) {
        return Status::Invalid("recursive reference to query \"{}\" must not appear within WITH",
                               cte.name)
            .WithSqlState(sqlstate::kInvalidRecursion)
            .WithPosition(c.location);
      }
    }
  }
  auto not_implemented = [&](const char* what, int location) {
    return Status::Unsupported("{} in a recursive query is not implemented", what)
        .WithSqlState(sqlstate::kFeatureNotSupported)
        .WithPosition(location);
  };
  if (!q.order_by.empty()) return not_implemented("ORDER BY", q.order_by[0].expr->location);
  if (q.offset) return not_implemented("OFFSET", q.offset->location);
  if (q.limit) return not_implemented("LIMIT", q.limit->location);

  auto make_binder = [&](Binder* b) {
    b->ctes_ = ctes_;
    for (const auto& c : q.ctes) b->ctes_.push_back({&c, visible.outer});
    b->cte_in_progress_ = cte_in_progress_;
    b->cte_in_progress_.push_back(cte.name);
  };
  Binder anchor_binder(state_, visible.outer);
  make_binder(&anchor_binder);
  QUIVER_ASSIGN_OR_RAISE(BoundQuery anchor, anchor_binder.BindQuery(*q.left));
  std::vector<TypeRef> types = anchor.types;
  for (auto& t : types) {
    if (t->id == TypeId::kNull) t = utf8();
  }
  std::vector<std::string> names = anchor.names;
  if (cte.columns.size() > names.size()) {
    return Status::Invalid("WITH query \"{}\" has {} columns available but {} columns specified",
                           cte.name, names.size(), cte.columns.size())
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithPosition(cte.location);
  }
  for (size_t i = 0; i < cte.columns.size(); ++i) names[i] = cte.columns[i];
  // The working table takes the anchor's types. A numeric column whose
  // recursive term needs a larger precision or scale (n + 0.5 over an
  // integer-valued numeric) widens it and the term is bound again, as
  // PostgreSQL's numeric has no fixed scale; a scale that keeps growing
  // (n * 1.5) is refused.
  std::shared_ptr<MemoryTable> working;
  BoundQuery recursive;
  for (int attempt = 0;; ++attempt) {
    std::vector<FieldRef> fields;
    for (size_t i = 0; i < types.size(); ++i) fields.push_back(field(names[i], types[i]));
    working = std::make_shared<MemoryTable>(cte.name, schema(std::move(fields)));
    Binder recursive_binder(state_, visible.outer);
    make_binder(&recursive_binder);
    state_->working_tables.push_back({cte.name, working});
    auto bound = recursive_binder.BindQuery(*q.right);
    state_->working_tables.pop_back();
    QUIVER_RETURN_NOT_OK(bound.status());
    recursive = std::move(bound).ValueOrDie();
    if (!anchor_binder.correlated().empty() || !recursive_binder.correlated().empty()) {
      return Status::Unsupported("a WITH RECURSIVE query that references an outer query")
          .WithPosition(ref.location);
    }
    if (recursive.types.size() != types.size()) {
      return Status::Invalid("each UNION query must have the same number of columns")
          .WithSqlState(sqlstate::kSyntaxError)
          .WithPosition(q.right->location);
    }
    bool widened = false;
    for (size_t i = 0; i < types.size(); ++i) {
      auto overall = CommonSuperType(types[i], recursive.types[i], "UNION");
      if (!overall.ok()) return overall.status().WithPosition(q.right->location);
      if ((*overall)->Equals(*types[i])) continue;
      if (types[i]->id == TypeId::kDecimal128 && (*overall)->id == TypeId::kDecimal128) {
        if (attempt < 2) {
          // The widest precision, so that only a growing scale widens again.
          types[i] = decimal128(kMaxDecimalPrecision, (*overall)->scale);
          widened = true;
          continue;
        }
        return Status::Unsupported(
                   "recursive query \"{}\" column {}: its numeric scale grows with every round",
                   cte.name, i + 1)
            .WithHint("Cast the column of the recursive term to a numeric(precision, scale).")
            .WithPosition(q.right->location);
      }
      const int location = q.left->set_op == sql::SetOpKind::kNone && i < q.left->targets.size()
                               ? q.left->targets[i]->location
                               : q.left->location;
      return Status::TypeError(
                 "recursive query \"{}\" column {} has type {} in non-recursive term but type {} "
                 "overall",
                 cte.name, i + 1, PgTypeName(*types[i]), PgTypeName(**overall))
          .WithSqlState(sqlstate::kDatatypeMismatch)
          .WithHint("Cast the output of the non-recursive term to the correct type.")
          .WithPosition(location);
    }
    if (!widened) break;
  }
  // Each term's columns as the working table's types.
  auto conform = [&](BoundQuery& b) -> LogicalOpPtr {
    bool same = true;
    for (size_t i = 0; i < types.size(); ++i) same &= b.types[i]->Equals(*types[i]);
    if (same) return std::move(b.plan);
    const auto bindings = b.plan->GetColumnBindings();
    std::vector<ExprPtr> exprs;
    for (size_t i = 0; i < types.size(); ++i) {
      exprs.push_back(MakeCast(MakeColumnRef(bindings[i], b.types[i], b.names[i]), types[i]));
    }
    return std::make_unique<LogicalProjection>(state_->NewTableIndex(), std::move(exprs),
                                               std::move(b.plan));
  };
  auto op = std::make_unique<LogicalRecursiveCte>(state_->NewTableIndex(), cte.name, types,
                                                  q.set_all, working);
  op->children.push_back(conform(anchor));
  op->children.push_back(conform(recursive));

  ScopeTable scope;
  scope.alias = ref.alias.empty() ? ref.name : ref.alias.name;
  if (ref.alias.columns.size() > names.size()) {
    return Status::Invalid("table \"{}\" has {} columns available but {} columns specified",
                           scope.alias, names.size(), ref.alias.columns.size())
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithPosition(ref.location);
  }
  const auto bindings = op->GetColumnBindings();
  for (size_t i = 0; i < names.size(); ++i) {
    scope.names.push_back(i < ref.alias.columns.size() ? ref.alias.columns[i] : names[i]);
    scope.types.push_back(types[i]);
    scope.bindings.push_back(bindings[i]);
  }
  QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(scope), ref.location));
  return LogicalOpPtr(std::move(op));
}

}  // namespace quiver::plan
