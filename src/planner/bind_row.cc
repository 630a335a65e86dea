// Whole-row values for the JSON functions: `row_to_json(t)`, `to_json(t.*)`,
// `json_agg(s)`, `to_jsonb(ROW(1, 'x'))`.
//
// A FROM item's whole row is __row(c1, c2, ...) over its columns, typed
// struct<c1: T1, c2: T2, ...> (the item's column names, in its order:
// PostgreSQL's key order); ROW(a, b) is __row(a, b) typed struct<f1, f2>.
// functions/json_build.cc writes a struct as a JSON object. Only the
// functions in TakesRows accept one: a whole row anywhere else (`SELECT t
// FROM t`) would need PostgreSQL's record output, and is refused. Refused
// too: the whole row of an outer join's nullable side (PostgreSQL's is NULL
// for a null-extended row; ours would be an object of nulls), a join alias's
// (its columns are not in PostgreSQL's order), a set-returning function's in
// FROM (PostgreSQL's is the scalar itself when the function returns one),
// and one outside the aggregates of a grouped query (PostgreSQL's 42803).
#include <string>
#include <vector>

#include "planner/expression_binder.h"
#include "vector/sql_type.h"

namespace quiver::plan {

using sql::ExprKind;
using sql::ParsedExpr;

namespace {

bool TakesRows(const std::string& name) {
  static const char* const kNames[] = {
      "row_to_json",       "to_json",          "to_jsonb",           "json_agg",
      "jsonb_agg",         "json_build_object", "jsonb_build_object", "json_build_array",
      "jsonb_build_array", "json_object_agg",  "jsonb_object_agg"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

Result<ExprPtr> MakeRow(std::vector<ExprPtr> columns, const std::vector<std::string>& names,
                        int location) {
  std::vector<FieldRef> fields;
  for (size_t i = 0; i < columns.size(); ++i) {
    fields.push_back(field(names[i], columns[i]->return_type));
  }
  auto r = MakeFunction("__row", std::move(columns), false);
  if (!r.ok()) return r.status().WithPosition(location);
  auto& f = (*r)->As<FunctionExpression>();
  f.function.return_type = struct_(std::move(fields));
  f.return_type = f.function.return_type;
  return r;
}

}  // namespace

Result<ExprPtr> ExpressionBinder::BindArgument(const std::string& function, const ParsedExpr& arg) {
  if (!TakesRows(function)) return Bind(arg);
  switch (arg.kind) {
    case ExprKind::kRow:
      return BindRowConstructor(arg);
    case ExprKind::kStar: {
      // t.*: the whole row of FROM item t.
      if (arg.names.size() != 1) return Bind(arg);
      whole_row_allowed_ = true;
      auto row = BindWholeRow(arg.names[0], arg.location);
      whole_row_allowed_ = false;
      QUIVER_RETURN_NOT_OK(row.status());
      if (*row != nullptr) return row;
      return Status::KeyError("missing FROM-clause entry for table \"{}\"", arg.names[0])
          .WithSqlState(sqlstate::kUndefinedTable)
          .WithPosition(arg.location);
    }
    case ExprKind::kColumnRef: {
      // A name that is no column may be a FROM item (BindColumnRef).
      whole_row_allowed_ = true;
      auto out = Bind(arg);
      whole_row_allowed_ = false;
      return out;
    }
    default:
      return Bind(arg);
  }
}

Result<ExprPtr> ExpressionBinder::BindRowConstructor(const ParsedExpr& e) {
  std::vector<ExprPtr> columns;
  std::vector<std::string> names;
  for (const auto& c : e.children) {
    ExprPtr x;
    if (c->kind == ExprKind::kRow) {
      QUIVER_ASSIGN_OR_RAISE(x, BindRowConstructor(*c));
    } else {
      QUIVER_ASSIGN_OR_RAISE(x, Bind(*c));
    }
    // An untyped literal is text, as in PostgreSQL's ROW; so is a bare NULL.
    x = ResolveUnknown(std::move(x));
    if (x->return_type->id == TypeId::kNull) x = MakeCast(std::move(x), utf8());
    names.push_back("f" + std::to_string(columns.size() + 1));
    columns.push_back(std::move(x));
  }
  QUIVER_ASSIGN_OR_RAISE(ExprPtr row, MakeRow(std::move(columns), names, e.location));
  row->alias = "row";
  return row;
}

Result<ExprPtr> ExpressionBinder::BindWholeRow(const std::string& alias, int location) {
  int depth = 0;
  for (Binder* b = binder_; b != nullptr; b = b->parent_, ++depth) {
    const ScopeTable* table = nullptr;
    for (const auto& t : b->scope_) {
      if (t.alias == alias) table = &t;
    }
    for (const auto& t : b->scope_) {
      if (table == nullptr && IdentifierEquals(t.alias, alias)) table = &t;
    }
    if (table == nullptr) continue;
    const auto refuse = [&](const std::string& why) {
      return Status::Unsupported("whole-row reference to \"{}\"{}", alias, why)
          .WithPosition(location);
    };
    if (!whole_row_allowed_) {
      return refuse(
          " outside row_to_json, to_json[b], json[b]_agg, json[b]_build_object, "
          "json[b]_build_array and json[b]_object_agg");
    }
    if (table->join_alias) return refuse(", a join's alias");
    if (table->function_item) return refuse(", a set-returning function in FROM");
    if (table->outer_nullable) return refuse(", on the nullable side of an outer join");
    if (!table->unreadable.empty()) {
      return refuse(", whose column \"" + table->unreadable[0].first +
                    "\" queries cannot read yet");
    }
    if (depth == 0 && aggregates_ != nullptr && !inside_aggregate_) {
      return Status::Invalid(
                 "column \"{}.*\" must appear in the GROUP BY clause or be used in an aggregate "
                 "function",
                 alias)
          .WithSqlState(sqlstate::kGroupingError)
          .WithPosition(location);
    }
    std::vector<ExprPtr> columns;
    for (size_t i = 0; i < table->names.size(); ++i) {
      columns.push_back(MakeColumnRef(table->bindings[i], table->types[i], table->names[i]));
    }
    QUIVER_ASSIGN_OR_RAISE(ExprPtr row, MakeRow(std::move(columns), table->names, location));
    if (depth > 0) MarkCorrelated(&row, depth);
    row->alias = alias;
    return row;
  }
  return ExprPtr();
}

}  // namespace quiver::plan
