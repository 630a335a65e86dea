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
  const sql::ParsedExpr& call = *ref.function;
  for (const auto& n : call.arg_names) {
    if (!n.empty()) {
      return Status::Unsupported("named arguments of {}", call.name).WithPosition(ref.location);
    }
  }
  if (call.distinct || call.star || call.filter || !call.agg_order.empty() || call.has_window) {
    return Status::Invalid("{} is not an aggregate or window function", call.name)
        .WithSqlState(sqlstate::kWrongObjectType)
        .WithPosition(ref.location);
  }
  std::vector<ExprPtr> args;
  std::vector<ArgInfo> infos;
  for (const auto& c : call.children) {
    ExpressionBinder eb(this, ExpressionBinder::Clause::kOther);
    QUIVER_ASSIGN_OR_RAISE(ExprPtr e, eb.Bind(*c));
    if (e->HasSubquery()) {
      return Status::Unsupported("subqueries in the arguments of a function in FROM")
          .WithPosition(c->location);
    }
    infos.push_back({e->return_type, e->unknown_literal});
    args.push_back(std::move(e));
  }
  auto resolved = TableFunctionRegistry::Get().Resolve(call.name, infos);
  if (!resolved.ok()) return resolved.status().WithPosition(ref.location);
  auto bound = std::make_shared<BoundTableFunction>(std::move(resolved).ValueOrDie());
  bool lateral = false;
  for (size_t i = 0; i < args.size(); ++i) {
    QUIVER_ASSIGN_OR_RAISE(args[i], ExpressionBinder::CastTo(std::move(args[i]), bound->arg_types[i],
                                                             call.children[i]->location, false));
    lateral |= ReadsLocalColumns(*args[i]);
  }
  auto op = std::make_unique<LogicalTableFunction>();
  op->table_index = state_->NewTableIndex();
  op->function = bound;
  op->ordinality = ref.ordinality;
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
  scope.alias = ref.alias.empty() ? call.name : ref.alias.name;
  std::vector<std::string> names = bound->column_names;
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
