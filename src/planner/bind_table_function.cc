// Set-returning functions in FROM: generate_series(...) [WITH ORDINALITY],
// resolved through TableFunctionRegistry (functions/table_function.h) and
// planned as a LogicalTableFunction. As in PostgreSQL, a function's
// arguments may read the FROM items to its left without the LATERAL key
// word: the call then runs once per row of those items.
#include <algorithm>

#include "functions/table_function.h"
#include "planner/expression_binder.h"
#include "planner/logical_table_function.h"

namespace quiver::plan {

namespace {

// Whether `e` reads a column of this query level (not only constants or
// outer queries' columns).
bool ReadsLocalColumns(const Expression& e) {
  bool found = false;
  VisitExpression(e, [&](const Expression& x) {
    if (const auto* ref = x.TryAs<ColumnRefExpression>(); ref && ref->depth == 0) found = true;
  });
  return found;
}

bool ReadsOnly(const Expression& e, const std::vector<ColumnBinding>& bindings) {
  bool ok = true;
  VisitExpression(e, [&](const Expression& x) {
    if (const auto* ref = x.TryAs<ColumnRefExpression>(); ref && ref->depth == 0) {
      if (std::find(bindings.begin(), bindings.end(), ref->binding) == bindings.end()) ok = false;
    }
  });
  return ok;
}

}  // namespace

Result<LogicalOpPtr> Binder::BindSetReturningFunction(const sql::TableRef& ref, LogicalOpPtr* left,
                                                      bool outer) {
  // The calls, in lock-step: ROWS FROM's, the select list's of one level;
  // unnest(a, b, ...) in FROM is ROWS FROM (unnest(a), unnest(b), ...).
  struct Call {
    const sql::ParsedExpr* call;
    std::vector<const sql::ParsedExpr*> args;
  };
  std::vector<Call> calls;
  auto add = [&](const sql::ParsedExpr* c) {
    Call one{c, {}};
    for (const auto& a : c->children) one.args.push_back(a.get());
    calls.push_back(std::move(one));
  };
  add(ref.function.get());
  for (const auto& f : ref.rows_from) add(f.get());
  if (calls.size() == 1 && !ref.from_select_list && ref.function->name == "unnest" &&
      ref.function->children.size() > 1) {
    calls.clear();
    for (const auto& a : ref.function->children) calls.push_back({ref.function.get(), {a.get()}});
  }
  auto op = std::make_unique<LogicalTableFunction>();
  op->table_index = state_->NewTableIndex();
  op->ordinality = ref.ordinality;
  std::vector<ExprPtr> args;
  bool lateral = false;
  for (const Call& c : calls) {
    const sql::ParsedExpr& call = *c.call;
    const int location = calls.size() == 1 ? ref.location : call.location;
    for (const auto& n : call.arg_names) {
      if (!n.empty()) {
        return Status::Unsupported("named arguments of {}", call.name).WithPosition(location);
      }
    }
    if (call.kind != sql::ExprKind::kFunction) {
      return Status::Unsupported("this expression in ROWS FROM").WithPosition(call.location);
    }
    if (call.distinct || call.star || call.filter || !call.agg_order.empty() || call.has_window) {
      return Status::Invalid("{} is not an aggregate or window function", call.name)
          .WithSqlState(sqlstate::kWrongObjectType)
          .WithPosition(location);
    }
    std::vector<ExprPtr> call_args;
    std::vector<ArgInfo> infos;
    for (const sql::ParsedExpr* a : c.args) {
      ExpressionBinder eb(this, ExpressionBinder::Clause::kOther);
      QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(*a));
      if (e->HasSubquery()) {
        return Status::Unsupported("subqueries in the arguments of a function in FROM")
            .WithPosition(a->location);
      }
      infos.push_back({e->return_type, e->unknown_literal});
      call_args.push_back(std::move(e));
    }
    if (calls.size() > 1 && !IsSetReturningFunction(call.name)) {
      return Status::Unsupported(
                 "{} in ROWS FROM (only set-returning functions such as "
                 "generate_series and unnest)",
                 call.name)
          .WithPosition(call.location);
    }
    auto resolved = TableFunctionRegistry::Get().Resolve(call.name, infos);
    if (!resolved.ok()) return resolved.status().WithPosition(location);
    auto bound = std::make_shared<BoundTableFunction>(std::move(resolved).ValueOrDie());
    for (size_t i = 0; i < call_args.size(); ++i) {
      QUIVER_ASSIGN_OR_RAISE(call_args[i],
                             ExpressionBinder::CastTo(std::move(call_args[i]), bound->arg_types[i],
                                                      c.args[i]->location, false));
      lateral |= ReadsLocalColumns(*call_args[i]);
      args.push_back(std::move(call_args[i]));
    }
    op->functions.push_back(bound);
    op->arg_counts.push_back(static_cast<int>(c.args.size()));
  }
  if (lateral) {
    const std::vector<ColumnBinding> visible =
        left && *left ? (*left)->GetColumnBindings() : std::vector<ColumnBinding>();
    for (const auto& a : args) {
      if (!ReadsOnly(*a, visible)) {
        return Status::Unsupported(
                   "a function in FROM reading a FROM item that is not on its left in the same "
                   "join")
            .WithPosition(ref.location);
      }
    }
    op->children.push_back(std::move(*left));
    op->outer = outer;
  } else {
    op->children.push_back(std::make_unique<LogicalDummyScan>());
  }
  op->expressions = std::move(args);

  // Column names: a function of one column names it after the table alias
  // when there is one (PostgreSQL's rule for functions returning a base
  // type), else after the function; alias column lists rename in order.
  ScopeTable scope;
  scope.alias = ref.alias.empty() ? ref.function->name : ref.alias.name;
  std::vector<std::string> names;
  for (const auto& f : op->functions)
    names.insert(names.end(), f->column_names.begin(), f->column_names.end());
  if (names.size() == 1 && !ref.alias.empty()) names[0] = ref.alias.name;
  if (op->ordinality) names.push_back("ordinality");
  if (ref.alias.columns.size() > names.size()) {
    return Status::Invalid("table \"{}\" has {} columns available but {} columns specified",
                           scope.alias, names.size(), ref.alias.columns.size())
        .WithSqlState(sqlstate::kInvalidColumnReference)
        .WithPosition(ref.location);
  }
  for (size_t i = 0; i < ref.alias.columns.size(); ++i) names[i] = ref.alias.columns[i];
  const std::vector<TypeRef> types = op->FunctionTypes();
  for (size_t i = 0; i < names.size(); ++i) {
    scope.names.push_back(names[i]);
    scope.types.push_back(types[i]);
    scope.bindings.push_back({op->table_index, static_cast<int>(i)});
    // A select-list function's column is not one of the query's FROM
    // columns: `SELECT *, generate_series(1, 2) FROM t` lists t's.
    scope.hidden.push_back(ref.from_select_list);
  }
  QUIVER_RETURN_NOT_OK(AddScopeTable(std::move(scope), ref.location));
  return LogicalOpPtr(std::move(op));
}

}  // namespace quiver::plan
